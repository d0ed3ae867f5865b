//! The search: iterative deepening over a negamax alpha-beta with principal variation
//! search, a transposition table, null-move pruning, late-move reductions and a capture
//! quiescence search. It knows nothing of the protocol: the caller hands it a `SearchHook`
//! that it polls every `POLL_INTERVAL` nodes and asks at iteration and root-move boundaries.
//! An abort unwinds at once; the last completed iteration's move and PV are kept (or a
//! better root move that was fully searched before the abort).

pub mod correction;
pub mod history;
pub mod movepick;
pub mod see;
pub mod time;
pub mod tt;

mod qsearch;
mod score;
mod syzygy;
mod threads;

use crate::chess::{Move, Piece, Position, Role};
use crate::eval::Evaluator;
use crate::tablebase::{Tablebase, Wdl};
use correction::Correction;
use history::{History, PieceTo};
use movepick::{
    capture_of, is_quiet, noisy_score, piece_to, quiet_score, Context, MovePicker, Pick,
    ORDER_BAD_NOISY, ORDER_COUNTER, ORDER_GOOD_NOISY, ORDER_KILLER, ORDER_TT,
};
use see::see_ge;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use tt::Bound;
use tt::TranspositionTable;

use score::{bound_cuts, bound_of, score_from_tt, score_to_tt, MATE_BOUND, TB_WIN_BOUND};
pub use score::{is_mate_score, mate_in_moves, shown_centipawns, MATE, TB_WIN, TB_WIN_SHOWN};
use syzygy::{TbAccess, VerdictHook};

pub const MAX_PLY: usize = 128;
pub const MAX_DEPTH: u32 = 100;
pub const INFINITE: i32 = 32_000;
/// `SyzygyProbeDepth`: the least remaining depth at which positions with as many pieces
/// as the largest table are probed (smaller ones are probed at any depth).
pub const DEFAULT_SYZYGY_PROBE_DEPTH: i32 = 1;
pub const MAX_SYZYGY_PROBE_DEPTH: i32 = 100;
/// Nodes between two polls of the hook.
pub const POLL_INTERVAL: u64 = 1024;
/// A root score this far below the previous iteration's means trouble: keep searching.
const SCORE_DROP_MARGIN: i32 = 30;

/// What the search reports after each completed iteration.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    /// Which of the best root lines this is (1-based; more than 1 only with MultiPV).
    pub line: usize,
    pub depth: u32,
    pub seldepth: u32,
    /// Centipawns from the side to move at the root (or a mate score).
    pub score: i32,
    /// `Exact`, or `Lower`/`Upper` when an aspiration window failed high/low: the score is
    /// then only a bound, and the iteration goes on with a wider window.
    pub bound: Bound,
    pub nodes: u64,
    /// Tablebase probes that gave an answer, all threads.
    pub tbhits: u64,
    pub pv: Vec<Move>,
}

/// The caller's side of the search: time limits and input, kept out of the search itself.
pub trait SearchHook {
    /// Called every `POLL_INTERVAL` nodes. Return true to stop now.
    fn poll(&mut self, nodes: u64) -> bool;
    /// Before each iteration after the first. Return false to stop iterating.
    fn may_start_iteration(&mut self, depth: u32, nodes: u64) -> bool;
    /// Between root moves. `score_dropped`: this iteration's best is well below the last
    /// one's. Return false to stop with the best move so far.
    fn may_search_next_root_move(&mut self, nodes: u64, score_dropped: bool) -> bool;
    /// An iteration finished (or a new best root move was found at `depth`).
    fn report(&mut self, info: &SearchInfo);
    /// The root move `index` of `count` is being searched (for progress displays).
    fn root_move(&mut self, _index: usize, _count: usize, _mv: Move) {}
    /// When the search must end by the wall clock, if it must: helper threads read it too,
    /// so the limit holds even when the main thread waits for a core (more threads than
    /// cores). `None` until there is a move to play.
    fn deadline(&self) -> Option<Instant> {
        None
    }
    /// The most nodes the search may use, all threads, if it is limited: helper threads
    /// read it too. `None` until there is a move to play.
    fn node_budget(&self) -> Option<u64> {
        None
    }
}

/// What to search.
#[derive(Clone, Debug, Default)]
pub struct SearchParams {
    /// Depth cap (`sd`); `None` = `MAX_DEPTH`.
    pub max_depth: Option<u32>,
    /// Root moves not to consider (`exclude`).
    pub excluded: Vec<Move>,
    /// Keys of the game's positions before the root, oldest first (for repetitions).
    pub history: Vec<u64>,
    /// Stop iterating once a mate is proven (timed play, not analysis or pondering).
    pub stop_on_mate: bool,
    /// With one legal move, answer after the first iteration.
    pub instant_single_reply: bool,
    /// How many best root moves to search, each with its own score and PV (MultiPV);
    /// 0 or 1 is the ordinary search of the best move only.
    pub multi_pv: usize,
}

#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    pub best: Option<Move>,
    /// The expected reply (second PV move), for pondering.
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Move>,
    /// Tablebase probes that gave an answer, all threads.
    pub tbhits: u64,
}

/// One finished MultiPV line of an iteration.
struct RootLine {
    score: i32,
    seldepth: u32,
    pv: Vec<Move>,
}

/// What the search keeps about each ply of the current line.
#[derive(Clone, Copy)]
struct Frame {
    /// The static evaluation here (`NO_EVAL` when in check).
    static_eval: i32,
    /// The move played from this ply into the next, for continuation history; `None` for
    /// a null move.
    moved: Option<PieceTo>,
    killers: [Move; 2],
    /// A move this node must not search (the hash move, while testing whether it is
    /// singular).
    excluded: Move,
}

const NO_EVAL: i32 = tt::NO_EVAL;
/// Frames before the root, so `ply - 2` is always an index.
const FRAME_OFFSET: usize = 2;

impl Default for Frame {
    fn default() -> Self {
        Frame {
            static_eval: NO_EVAL,
            moved: None,
            killers: [Move::NONE; 2],
            excluded: Move::NONE,
        }
    }
}

/// Late-move reductions, in plies, by depth and move number: grows with the log of both.
struct Reductions([[u8; 64]; 64]);

impl Reductions {
    fn new() -> Reductions {
        let mut table = [[0u8; 64]; 64];
        for (depth, row) in table.iter_mut().enumerate().skip(1) {
            for (number, r) in row.iter_mut().enumerate().skip(1) {
                let v = 0.75 + (depth as f64).ln() * (number as f64).ln() / 2.25;
                *r = v.clamp(0.0, 63.0) as u8;
            }
        }
        Reductions(table)
    }

    #[inline(always)]
    fn get(&self, depth: i32, number: usize) -> i32 {
        self.0[(depth as usize).min(63)][number.min(63)] as i32
    }
}

/// One search thread's state: everything but the transposition table and the tablebases
/// is its own.
struct Worker {
    tt: Arc<TranspositionTable>,
    tb: TbAccess,
    /// The evaluation with this thread's own pawn hash table.
    evaluator: Evaluator,
    history: History,
    correction: Correction,
    reductions: Reductions,
    frames: Box<[Frame; MAX_PLY + FRAME_OFFSET + 2]>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Keys from the game start through the current node's parent.
    keys: Vec<u64>,
    /// Index in `keys` of the root position: repetitions at or after it are in the tree.
    root_index: usize,
    /// Index in `keys` just after the last null move: nothing before it can repeat.
    null_floor: usize,
    nodes: u64,
    /// Nodes between two polls of the hook.
    poll_interval: u64,
    seldepth: u32,
    stopped: bool,
}

/// The most search threads `cores` may ask for.
pub const MAX_THREADS: usize = 64;

/// The search: a main thread that talks to the caller's hook, and (lazy SMP) helper threads
/// that search the same root at the same time, sharing only the transposition table. The
/// helpers fill the table with results the main thread finds there; the main thread's move
/// is the one played.
pub struct Searcher {
    main: Worker,
    /// The helper threads' workers between searches.
    helpers: Vec<Worker>,
    /// Helper threads of the last search that may still be stopping; `settle` takes their
    /// workers back.
    running: Vec<std::thread::JoinHandle<Worker>>,
}

impl Default for Searcher {
    fn default() -> Self {
        Self::new(tt::DEFAULT_HASH_MB)
    }
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            main: Worker::new(Arc::new(TranspositionTable::new(hash_mb))),
            helpers: Vec::new(),
            running: Vec::new(),
        }
    }

    /// Search with `threads` threads in all (clamped to 1..=MAX_THREADS).
    pub fn set_threads(&mut self, threads: usize) {
        self.settle();
        let helpers = threads.clamp(1, MAX_THREADS) - 1;
        let tt = Arc::clone(&self.main.tt);
        self.helpers.truncate(helpers);
        while self.helpers.len() < helpers {
            let mut helper = Worker::new(Arc::clone(&tt));
            helper.tb = self.main.tb.clone();
            self.helpers.push(helper);
        }
    }

    /// Uses `tables` from the next search on (`None`: no tablebases). The old tables are
    /// let go first, so a new set may be opened after this call with `None`.
    pub fn set_tablebase(&mut self, tables: Option<Tablebase>) {
        self.settle();
        let tables = tables.map(Arc::new);
        for worker in std::iter::once(&mut self.main).chain(self.helpers.iter_mut()) {
            worker.tb.tables = tables.clone();
        }
    }

    pub fn tablebase(&self) -> Option<&Tablebase> {
        self.main.tb.tables.as_deref()
    }

    /// `SyzygyProbeDepth`, clamped to 1..=MAX_SYZYGY_PROBE_DEPTH.
    pub fn set_syzygy_probe_depth(&mut self, depth: i32) {
        self.settle();
        let depth = depth.clamp(1, MAX_SYZYGY_PROBE_DEPTH);
        for worker in std::iter::once(&mut self.main).chain(self.helpers.iter_mut()) {
            worker.tb.probe_depth = depth;
        }
    }

    /// Tablebase hits of the last search, all threads.
    pub fn tbhits(&self) -> u64 {
        self.main.tb.hits()
    }

    pub fn threads(&self) -> usize {
        1 + self.helpers.len() + self.running.len()
    }

    /// Resize the hash table (clears it).
    pub fn set_hash_mb(&mut self, mb: usize) {
        // Let the old table go before the new one is allocated.
        self.share_table(Arc::new(TranspositionTable::new(1)));
        self.share_table(Arc::new(TranspositionTable::new(mb)));
    }

    fn share_table(&mut self, tt: Arc<TranspositionTable>) {
        self.settle();
        for worker in std::iter::once(&mut self.main).chain(self.helpers.iter_mut()) {
            worker.tt = Arc::clone(&tt);
        }
    }

    pub fn hash_mb(&self) -> usize {
        self.main.tt.megabytes()
    }

    /// The shared transposition table (for reading how full it is during a search).
    pub fn table(&self) -> Arc<TranspositionTable> {
        Arc::clone(&self.main.tt)
    }

    /// Forget everything learned (a new game).
    pub fn clear(&mut self) {
        self.settle();
        self.main.tt.clear();
        for worker in std::iter::once(&mut self.main).chain(self.helpers.iter_mut()) {
            worker.history.clear();
            worker.correction.clear();
            worker.evaluator.clear();
        }
    }

    /// Nodes of the last search, all threads.
    pub fn nodes(&mut self) -> u64 {
        self.settle();
        self.main.nodes + self.helpers.iter().map(|h| h.nodes).sum::<u64>()
    }

    /// Makes the search take `score` (side to move's view) as the exact value of `pos`
    /// when searched to `depth` or less (xboard `setscore`).
    pub fn set_score(&mut self, pos: &Position, score: i32, depth: u32) {
        let score = score.clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1);
        self.main.tt.store(
            pos.key(),
            Move::NONE,
            score,
            depth.min(MAX_DEPTH) as i32,
            Bound::Exact,
            tt::NO_EVAL,
        );
    }

    /// Searches `root` by iterative deepening until the hook says stop or the depth cap.
    /// Helper threads run beside the main one until it is done.
    pub fn search(
        &mut self,
        root: &Position,
        params: &SearchParams,
        hook: &mut dyn SearchHook,
    ) -> SearchResult {
        self.settle();
        self.main.tt.new_search();
        self.main.tb.hits.store(0, Relaxed);
        let tablebase_root = self.tablebase_root(root, params);
        let params = tablebase_root.as_ref().map_or(params, |tb| &tb.params);
        let mut hook = VerdictHook {
            inner: hook,
            verdict: tablebase_root.as_ref().map(|tb| tb.score),
        };
        let mut result = self.search_threads(root, params, &mut hook);
        result.score = hook.shown(result.score);
        result
    }
}

impl Worker {
    fn new(tt: Arc<TranspositionTable>) -> Worker {
        Worker {
            tt,
            tb: TbAccess::none(),
            evaluator: Evaluator::new(),
            history: History::default(),
            correction: Correction::default(),
            reductions: Reductions::new(),
            frames: Box::new([Frame::default(); MAX_PLY + FRAME_OFFSET + 2]),
            pv: Box::new([[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            keys: Vec::with_capacity(1024),
            root_index: 0,
            null_floor: 0,
            nodes: 0,
            poll_interval: POLL_INTERVAL,
            seldepth: 0,
            stopped: false,
        }
    }

    #[inline(always)]
    fn frame(&mut self, ply: usize) -> &mut Frame {
        &mut self.frames[ply + FRAME_OFFSET]
    }

    /// The moves one and two plies before the move about to be made at `ply`.
    #[inline(always)]
    fn earlier_moves(&self, ply: usize) -> [Option<PieceTo>; 2] {
        [
            self.frames[ply + FRAME_OFFSET - 1].moved,
            self.frames[ply + FRAME_OFFSET - 2].moved,
        ]
    }

    /// Searches `root` by iterative deepening until the hook says stop or the depth cap.
    fn search(
        &mut self,
        root: &Position,
        params: &SearchParams,
        hook: &mut dyn SearchHook,
    ) -> SearchResult {
        self.nodes = 0;
        self.stopped = false;
        self.history.age();
        self.frames.fill(Frame::default());
        self.keys.clear();
        self.keys.extend_from_slice(&params.history);
        self.root_index = self.keys.len();
        self.null_floor = 0;

        let mut root_moves: Vec<(Move, i32)> = root
            .legal_moves()
            .iter()
            .filter(|m| !params.excluded.contains(m))
            .map(|&m| (m, -INFINITE))
            .collect();
        let mut result = SearchResult::default();
        if root_moves.is_empty() {
            return result;
        }
        // Start from the hash move if there is one, else the usual move order.
        let tt_move = self
            .tt
            .probe(root.key())
            .map(|h| h.mv)
            .unwrap_or(Move::NONE);
        root_moves.sort_by_key(|&(m, _)| -self.order_score(root, m, tt_move));
        result.best = Some(root_moves[0].0);
        result.pv = vec![root_moves[0].0];

        let max_depth = params.max_depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let line_count = params.multi_pv.clamp(1, root_moves.len());
        // Each line's score in the last iteration, best first: its aspiration window's centre.
        let mut previous_scores = vec![-INFINITE; line_count];
        for depth in 1..=max_depth {
            if depth > 1 && !hook.may_start_iteration(depth, self.nodes) {
                break;
            }
            self.seldepth = 0;
            let (score, completed) = self.aspiration(
                root,
                &mut root_moves,
                1,
                depth as i32,
                previous_scores[0],
                hook,
            );
            // Root moves are sorted best first; the first one was searched fully unless the
            // iteration was aborted before its first move finished (or a later move proved
            // better on its zero-window search, or failed high on an aspiration window, and
            // the search after that was cut short).
            if score > -INFINITE {
                let best = root_moves[0].0;
                result.best = Some(best);
                result.score = score;
                result.pv = self.pv[0][..self.pv_len[0]].to_vec();
                if result.pv.first() != Some(&best) {
                    result.pv = vec![best];
                }
                if completed {
                    result.depth = depth;
                }
            }
            result.nodes = self.nodes;
            if !completed || self.stopped {
                break;
            }
            let mut lines = vec![RootLine {
                score,
                seldepth: self.seldepth.max(depth),
                pv: result.pv.clone(),
            }];
            // MultiPV: line k is the best of the root moves the lines before it left.
            for line in 2..=line_count {
                let (score, completed) = self.aspiration(
                    root,
                    &mut root_moves,
                    line,
                    depth as i32,
                    previous_scores[line - 1],
                    hook,
                );
                if !completed || self.stopped {
                    break;
                }
                let best = root_moves[line - 1].0;
                let mut pv = self.pv[0][..self.pv_len[0]].to_vec();
                if pv.first() != Some(&best) {
                    pv = vec![best];
                }
                lines.push(RootLine {
                    score,
                    seldepth: self.seldepth.max(depth),
                    pv,
                });
            }
            let iteration_finished = lines.len() == line_count;
            let score = if line_count > 1 {
                self.order_lines(&mut lines, &mut root_moves, &mut result)
            } else {
                score
            };
            for (i, line) in lines.into_iter().enumerate() {
                previous_scores[i] = line.score;
                hook.report(&SearchInfo {
                    line: i + 1,
                    depth,
                    seldepth: line.seldepth,
                    score: line.score,
                    bound: Bound::Exact,
                    nodes: self.nodes,
                    tbhits: self.tb.hits(),
                    pv: line.pv,
                });
            }
            result.nodes = self.nodes;
            if !iteration_finished || self.stopped {
                break;
            }
            if params.instant_single_reply && root_moves.len() == 1 {
                break;
            }
            if params.stop_on_mate
                && is_mate_score(score)
                && depth as i32 >= 2 * mate_in_moves(score).abs() + 2
            {
                break;
            }
        }
        result.ponder = result.pv.get(1).copied();
        // A PV cut to its first move (a new best move found as time ran out) still has a
        // likely reply in the table: ponder on that rather than on nothing.
        if let (None, Some(best)) = (result.ponder, result.best) {
            let after = root.after(best);
            result.ponder = self
                .tt
                .probe(after.key())
                .map(|hit| hit.mv)
                .filter(|&mv| !mv.is_none() && after.is_legal(mv));
        }
        result.nodes = self.nodes;
        result.tbhits = self.tb.hits();
        result
    }

    /// MultiPV: sorts one iteration's lines best first (a later line's search can find more
    /// than an earlier one's did), puts their moves in that order at the front of the root
    /// moves, and makes the new first line the search's result. Returns its score.
    fn order_lines(
        &self,
        lines: &mut [RootLine],
        root_moves: &mut [(Move, i32)],
        result: &mut SearchResult,
    ) -> i32 {
        // Stable: lines of equal score keep the order they were found in.
        lines.sort_by_key(|line| -line.score);
        for (i, line) in lines.iter().enumerate() {
            let at = root_moves[i..]
                .iter()
                .position(|&(m, _)| m == line.pv[0])
                .expect("each line's move is one of the root moves not yet placed");
            root_moves[i..=i + at].rotate_right(1);
        }
        result.best = Some(lines[0].pv[0]);
        result.score = lines[0].score;
        result.pv = lines[0].pv.clone();
        lines[0].score
    }

    /// One iteration of root line `line` (1-based; only MultiPV has more than line 1),
    /// searched first in a narrow window around the last score and widened until the score
    /// falls inside it. Line `k` searches the root moves from index `k - 1` on: the moves of
    /// the lines before it are in front and left out.
    fn aspiration(
        &mut self,
        root: &Position,
        root_moves: &mut [(Move, i32)],
        line: usize,
        depth: i32,
        previous_score: i32,
        hook: &mut dyn SearchHook,
    ) -> (i32, bool) {
        let mut delta = 20;
        let (mut alpha, mut beta) = if depth >= 5 && !is_mate_score(previous_score) {
            (
                (previous_score - delta).max(-INFINITE),
                (previous_score + delta).min(INFINITE),
            )
        } else {
            (-INFINITE, INFINITE)
        };
        // The score of the last pass that failed high: its move, now first, is proven better
        // than the last iteration's best even if the wider pass after it is cut short.
        let mut failed_high = None;
        loop {
            let (score, completed) = self.search_root(
                root,
                root_moves,
                line,
                depth,
                alpha,
                beta,
                previous_score,
                hook,
            );
            if !completed {
                return match failed_high {
                    Some(bound) if score == -INFINITE => (bound, false),
                    _ => (score, false),
                };
            }
            let bound = if score <= alpha && alpha > -INFINITE {
                failed_high = None;
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
                Bound::Upper
            } else if score >= beta && beta < INFINITE {
                failed_high = Some(score);
                beta = (score + delta).min(INFINITE);
                Bound::Lower
            } else {
                return (score, true);
            };
            // The GUI sees the fail: the score is a bound, the line the move that failed
            // high (or, failing low, the move that stays first for now). Later MultiPV
            // lines show only once their iteration is done, in order.
            if line == 1 {
                let pv = if bound == Bound::Lower && self.pv_len[0] > 0 {
                    self.pv[0][..self.pv_len[0]].to_vec()
                } else {
                    vec![root_moves[0].0]
                };
                hook.report(&SearchInfo {
                    line,
                    depth: depth as u32,
                    seldepth: self.seldepth.max(depth as u32),
                    score,
                    bound,
                    nodes: self.nodes,
                    tbhits: self.tb.hits(),
                    pv,
                });
            }
            delta += delta / 2;
            if delta > 1_000 {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    /// One pass over the root moves of line `line` (from index `line - 1` on) in the window
    /// (`alpha`, `beta`). Returns the best score (or -INFINITE if no move finished) and
    /// whether the pass finished. A pass that fails low leaves the move order as it was; one
    /// that fails high stops at the move that did. Only line 1 speaks for the time limits
    /// (a falling score) and for the root's hash entry.
    #[allow(clippy::too_many_arguments)]
    fn search_root(
        &mut self,
        root: &Position,
        all_root_moves: &mut [(Move, i32)],
        line: usize,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        previous_score: i32,
        hook: &mut dyn SearchHook,
    ) -> (i32, bool) {
        let root_count = all_root_moves.len();
        let root_moves = &mut all_root_moves[line - 1..];
        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        self.pv_len[0] = 0;
        self.nodes += 1;
        self.keys.push(root.key());
        let us = root.side_to_move();
        let in_check = root.in_check();
        self.frame(0).static_eval = if in_check {
            NO_EVAL
        } else {
            self.evaluator.evaluate(root)
        };
        let mut completed = true;
        let mut proven = 0;
        for i in 0..root_moves.len() {
            if i > 0 {
                let dropped = line == 1
                    && previous_score > -INFINITE
                    && best_score < previous_score - SCORE_DROP_MARGIN;
                if !hook.may_search_next_root_move(self.nodes, dropped) {
                    completed = false;
                    break;
                }
            }
            let mv = root_moves[i].0;
            hook.root_move(i + line - 1, root_count, mv);
            let child = root.after(mv);
            self.frame(0).moved = Some(PieceTo {
                piece: Piece::new(us, root.role_on(mv.from()).unwrap_or(Role::King)),
                to: mv.to(),
            });
            let new_depth = depth - 1;
            let mut score;
            if i == 0 {
                score = -self.negamax(&child, new_depth, -beta, -alpha, 1, true, false, hook);
            } else {
                score = -self.negamax(&child, new_depth, -alpha - 1, -alpha, 1, false, true, hook);
                if score > alpha && !self.stopped {
                    let zero_window = score;
                    score = -self.negamax(&child, new_depth, -beta, -alpha, 1, true, false, hook);
                    if self.stopped {
                        // Proven better than the best so far, though not by how much: it
                        // is the move to play, and the GUI is told so (as a lower bound).
                        root_moves[proven..=i].rotate_right(1);
                        root_moves[..=proven].rotate_right(1);
                        self.pv[0][0] = mv;
                        self.pv_len[0] = 1;
                        best_score = zero_window.min(beta);
                        if line == 1 {
                            hook.report(&SearchInfo {
                                line,
                                depth: depth as u32,
                                seldepth: self.seldepth.max(depth as u32),
                                score: best_score,
                                bound: Bound::Lower,
                                nodes: self.nodes,
                                tbhits: self.tb.hits(),
                                pv: vec![mv],
                            });
                        }
                    }
                }
            }
            if self.stopped {
                completed = false;
                break;
            }
            best_score = best_score.max(score);
            if score > alpha {
                // Keep the best move first so an abort leaves it at the front; moves that
                // failed low keep their order from the last iteration.
                root_moves[i].1 = score;
                root_moves[proven..=i].rotate_right(1);
                root_moves[..=proven].rotate_right(1);
                proven += 1;
                alpha = score;
                self.update_pv(0, mv);
                if score >= beta {
                    break;
                }
                if i > 0 && depth > 1 && line == 1 {
                    hook.report(&SearchInfo {
                        line,
                        depth: depth as u32,
                        seldepth: self.seldepth.max(depth as u32),
                        score,
                        bound: Bound::Exact,
                        nodes: self.nodes,
                        tbhits: self.tb.hits(),
                        pv: self.pv[0][..self.pv_len[0]].to_vec(),
                    });
                }
            }
        }
        self.keys.pop();
        // A later line's best is not the root's best move: leave the entry to line 1.
        if line == 1 && completed && best_score > original_alpha && best_score < beta {
            let eval = self.frames[FRAME_OFFSET].static_eval;
            self.tt.store(
                root.key(),
                root_moves[0].0,
                best_score,
                depth,
                Bound::Exact,
                eval,
            );
        }
        (best_score, completed)
    }

    /// The static evaluation `raw_eval` of `pos` with the correction history's average
    /// error added; `NO_EVAL` (in check) stays.
    #[inline(always)]
    fn corrected(&self, pos: &Position, raw_eval: i32) -> i32 {
        if raw_eval == NO_EVAL {
            return NO_EVAL;
        }
        (raw_eval + self.correction.get(pos)).clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - ply - 1);
        self.pv[ply][0] = mv;
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    /// Draw by the 50-move rule, insufficient material, or repetition: once inside the
    /// search tree (the root included), twice if the earlier positions are before the root.
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.halfmove_clock() >= 100 || pos.is_insufficient_material() {
            return true;
        }
        let key = pos.key();
        let len = self.keys.len();
        let floor = len
            .saturating_sub(pos.halfmove_clock() as usize)
            .max(self.null_floor);
        let mut seen_before_root = 0;
        let mut back = 2;
        while back <= len && len - back >= floor {
            let index = len - back;
            if self.keys[index] == key {
                if index >= self.root_index {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root >= 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    #[inline]
    fn enter_node(&mut self, hook: &mut dyn SearchHook) -> bool {
        self.nodes += 1;
        if self.nodes.is_multiple_of(self.poll_interval) && hook.poll(self.nodes) {
            self.stopped = true;
        }
        self.stopped
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        is_pv: bool,
        cut_node: bool,
        hook: &mut dyn SearchHook,
    ) -> i32 {
        let in_check = pos.in_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiescence(pos, alpha, beta, ply, true, hook);
        }
        self.pv_len[ply] = 0;
        if self.enter_node(hook) {
            return 0;
        }
        if self.is_draw(pos) {
            // A 50-move position that is mate is still mate.
            if !(pos.halfmove_clock() >= 100 && in_check && !pos.has_legal_moves()) {
                return 0;
            }
        }
        if ply >= MAX_PLY {
            return self.evaluator.evaluate(pos);
        }
        // Mate distance pruning: no line here can beat a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        self.seldepth = self.seldepth.max(ply as u32);

        let key = pos.key();
        let excluded = self.frames[ply + FRAME_OFFSET].excluded;
        // A search with a move excluded is about a different tree: no hash cutoffs.
        let tt_hit = if excluded.is_none() {
            self.tt.probe(key)
        } else {
            None
        };
        let mut tt_move = Move::NONE;
        if let Some(hit) = tt_hit {
            tt_move = hit.mv;
            if !is_pv && hit.depth >= depth && bound_cuts(hit, ply, alpha, beta) {
                return score_from_tt(hit.score, ply);
            }
        }

        // Tablebases: exact only right after a capture or pawn move (the 50-move counter
        // at 0) and without castling rights. A win or loss is a bound (a mate may be
        // nearer than the table says); a draw is exact.
        let mut tb_floor = -INFINITE;
        let mut tb_ceiling = INFINITE;
        if let Some(tables) = self.tb.tables.as_deref().filter(|_| excluded.is_none()) {
            let pieces = pos.occupied().count();
            if pos.halfmove_clock() == 0
                && tables.covers(pos)
                && (pieces < tables.largest() || depth >= self.tb.probe_depth)
            {
                if let Some(wdl) = tables.probe_wdl(pos) {
                    self.tb.hits.fetch_add(1, Relaxed);
                    let (score, bound) = match wdl {
                        Wdl::Win => (TB_WIN - ply as i32, Bound::Lower),
                        Wdl::Loss => (-TB_WIN + ply as i32, Bound::Upper),
                        // Wins and losses the 50-move rule spoils are draws.
                        _ => (0, Bound::Exact),
                    };
                    let cuts = match bound {
                        Bound::Lower => score >= beta,
                        Bound::Upper => score <= alpha,
                        _ => true,
                    };
                    if cuts {
                        self.tt.store(
                            key,
                            Move::NONE,
                            score_to_tt(score, ply),
                            (depth + 6).min(MAX_DEPTH as i32),
                            bound,
                            NO_EVAL,
                        );
                        return score;
                    }
                    if is_pv {
                        if bound == Bound::Lower {
                            tb_floor = score;
                            alpha = alpha.max(score);
                        } else {
                            tb_ceiling = score;
                        }
                    }
                }
            }
        }

        let raw_eval = match tt_hit {
            _ if in_check => NO_EVAL,
            Some(hit) if hit.eval != NO_EVAL => hit.eval,
            _ => self.evaluator.evaluate(pos),
        };
        let static_eval = self.corrected(pos, raw_eval);
        self.frame(ply).static_eval = static_eval;
        // The hash score, where its bound allows, is a better guess than the static one.
        let eval = match tt_hit {
            Some(hit) if !in_check && !is_mate_score(hit.score) => {
                let score = hit.score;
                let tighter = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => score > static_eval,
                    Bound::Upper => score < static_eval,
                    Bound::None => false,
                };
                if tighter {
                    score
                } else {
                    static_eval
                }
            }
            _ => static_eval,
        };
        self.frame(ply + 1).killers = [Move::NONE; 2];
        // Better than two plies ago (our last turn): prune less, reduce less.
        let improving = !in_check && {
            let two_back = self.frames[ply + FRAME_OFFSET - 2].static_eval;
            two_back == NO_EVAL || static_eval > two_back
        };
        let us = pos.side_to_move();

        if !is_pv && !in_check && excluded.is_none() {
            // Reverse futility: far above beta at low depth, assume it holds.
            if depth <= 8 && eval - 80 * (depth - improving as i32) >= beta && !is_mate_score(beta)
            {
                return eval;
            }
            // Null move: if passing still fails high, a real move surely would.
            if depth >= 3
                && eval >= beta
                && self.frames[ply + FRAME_OFFSET - 1].moved.is_some()
                && !pos.only_king_and_pawns(us)
            {
                let r = 3 + depth / 3 + ((eval - beta) / 200).min(3);
                let mut null = *pos;
                null.play_null();
                self.keys.push(key);
                self.frame(ply).moved = None;
                let saved_floor = self.null_floor;
                self.null_floor = self.keys.len();
                let score = -self.negamax(
                    &null,
                    depth - 1 - r,
                    -beta,
                    -beta + 1,
                    ply + 1,
                    false,
                    !cut_node,
                    hook,
                );
                self.null_floor = saved_floor;
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    // Neither a mate nor a table win is proven by passing.
                    return if score.abs() >= TB_WIN_BOUND {
                        beta
                    } else {
                        score
                    };
                }
            }
        }

        // Internal iterative reduction: with no hash move this node is probably new to us;
        // search it a ply shallower rather than spend a full depth guessing.
        if depth >= 4 && tt_move.is_none() {
            depth -= 1;
        }

        let earlier = self.earlier_moves(ply);
        let mut picker = MovePicker::new(
            pos,
            &self.history,
            Context {
                tt_move,
                killers: self.frames[ply + FRAME_OFFSET].killers,
                counter: self.history.countermove(earlier[0]),
                earlier,
            },
            false,
        );

        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        let mut best_move = Move::NONE;
        let mut quiets_tried = [Move::NONE; 64];
        let mut quiet_count = 0;
        let mut noisy_tried = [Move::NONE; 32];
        let mut noisy_count = 0;
        let mut legal = 0;
        let mut searched = 0;
        let has_pieces = !pos.only_king_and_pawns(us);
        let check_squares = pos.check_squares();
        self.keys.push(key);
        while let Some(Pick { mv, score: order }) = picker.next(pos, &self.history) {
            legal += 1;
            if mv == excluded {
                continue;
            }
            let quiet = is_quiet(pos, mv);
            let gives_check = pos.gives_check_with(&check_squares, mv);

            // Prune before making the move: at low depth, with a move already searched
            // and no mate against us to defend, late and hopeless moves are skipped.
            if best_score > -MATE_BOUND && has_pieces {
                if quiet {
                    let lmr_depth = (depth - 1 - self.reductions.get(depth, searched + 1)).max(0);
                    // Only this move: a later quiet move may still give check.
                    if !in_check && !gives_check {
                        let late = (3 + depth * depth) / (2 - improving as i32);
                        if depth <= 8 && quiet_count as i32 >= late {
                            continue;
                        }
                        if lmr_depth <= 8 && eval + 100 + 90 * lmr_depth <= alpha {
                            continue;
                        }
                    }
                    if lmr_depth <= 8 && !see_ge(pos, mv, -25 * lmr_depth * lmr_depth) {
                        continue;
                    }
                } else if depth <= 8 && order < ORDER_KILLER && !see_ge(pos, mv, -100 * depth) {
                    continue;
                }
            }

            // Singular extension: if every other move falls well short of the hash move's
            // score, the hash move is forced: search it deeper. If even without it the node
            // fails high, several moves cut: trust that (multi-cut).
            let mut extension = 0;
            if mv == tt_move && depth >= 8 && ply > 0 && excluded.is_none() {
                if let Some(hit) = tt_hit.filter(|h| {
                    h.bound != Bound::Upper && h.depth >= depth - 3 && !is_mate_score(h.score)
                }) {
                    let singular_beta = hit.score - 2 * depth;
                    self.frame(ply).excluded = mv;
                    self.keys.pop();
                    let score = self.negamax(
                        pos,
                        (depth - 1) / 2,
                        singular_beta - 1,
                        singular_beta,
                        ply,
                        false,
                        cut_node,
                        hook,
                    );
                    self.keys.push(key);
                    self.frame(ply).excluded = Move::NONE;
                    if self.stopped {
                        self.keys.pop();
                        return 0;
                    }
                    if score < singular_beta {
                        extension = 1;
                    } else if singular_beta >= beta {
                        self.keys.pop();
                        return singular_beta;
                    }
                }
            }

            let child = pos.after(mv);
            self.tt.prefetch(child.key());
            self.frame(ply).moved = Some(piece_to(pos, mv));
            let new_depth = depth - 1 + extension;
            let mut score;
            if searched == 0 {
                score = -self.negamax(
                    &child,
                    new_depth,
                    -beta,
                    -alpha,
                    ply + 1,
                    is_pv,
                    !is_pv && !cut_node,
                    hook,
                );
            } else {
                // Late moves are searched shallower first, and again at full depth only if
                // they look better than the best so far.
                let mut reduction = 0;
                if depth >= 3 && searched > is_pv as usize && (quiet || order < 0) && !gives_check {
                    reduction = self.reductions.get(depth, searched + 1);
                    if quiet {
                        // Looked up here, not for every move: pruned moves never need it.
                        let history_score =
                            quiet_score(pos, &self.history, us.index(), mv, earlier);
                        reduction -= history_score / 8_192;
                        if order >= ORDER_COUNTER {
                            reduction -= 1;
                        }
                    }
                    reduction += !improving as i32 + cut_node as i32;
                    reduction -= is_pv as i32;
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                score = -self.negamax(
                    &child,
                    new_depth - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    false,
                    true,
                    hook,
                );
                if score > alpha && reduction > 0 && !self.stopped {
                    score = -self.negamax(
                        &child,
                        new_depth,
                        -alpha - 1,
                        -alpha,
                        ply + 1,
                        false,
                        !cut_node,
                        hook,
                    );
                }
                if score > alpha && score < beta && is_pv && !self.stopped {
                    score =
                        -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true, false, hook);
                }
            }
            searched += 1;
            if self.stopped {
                self.keys.pop();
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = mv;
                    alpha = score;
                    if is_pv {
                        self.update_pv(ply, mv);
                    }
                    if alpha >= beta {
                        self.learn_cutoff(
                            pos,
                            ply,
                            depth,
                            mv,
                            &quiets_tried[..quiet_count],
                            &noisy_tried[..noisy_count],
                        );
                        break;
                    }
                }
            }
            if quiet {
                if quiet_count < quiets_tried.len() {
                    quiets_tried[quiet_count] = mv;
                    quiet_count += 1;
                }
            } else if noisy_count < noisy_tried.len() {
                noisy_tried[noisy_count] = mv;
                noisy_count += 1;
            }
        }
        self.keys.pop();
        if legal == 0 {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        if searched == 0 {
            // Every move was pruned: fall back to a fail-low at alpha.
            return alpha;
        }
        // The tables' bound holds whatever this search found.
        let best_score = best_score.max(tb_floor).min(tb_ceiling);
        let bound = bound_of(best_score, original_alpha, beta);
        if !excluded.is_none() {
            return best_score;
        }
        // Learn how far the static evaluation was off, where the search's score says so: a
        // quiet position (no capture found best), and a bound on the right side of it.
        if !in_check
            && (best_move.is_none() || is_quiet(pos, best_move))
            && best_score.abs() < TB_WIN_BOUND
            && !(bound == Bound::Lower && best_score <= static_eval)
            && !(bound == Bound::Upper && best_score >= static_eval)
        {
            self.correction.update(pos, depth, raw_eval, best_score);
        }
        // A fail-low proves no move best: keep whatever move the table already has.
        self.tt.store(
            key,
            best_move,
            score_to_tt(best_score, ply),
            depth,
            bound,
            raw_eval,
        );
        best_score
    }

    /// A move cut at `ply`: reward it, and punish the moves of its kind tried before it.
    fn learn_cutoff(
        &mut self,
        pos: &Position,
        ply: usize,
        depth: i32,
        mv: Move,
        quiets: &[Move],
        noisy: &[Move],
    ) {
        let bonus = history::bonus(depth);
        let us = pos.side_to_move().index();
        if is_quiet(pos, mv) {
            let earlier = self.earlier_moves(ply);
            self.history
                .update_quiet(us, mv, piece_to(pos, mv), earlier, bonus);
            for &q in quiets {
                self.history
                    .update_quiet(us, q, piece_to(pos, q), earlier, -bonus);
            }
            let frame = self.frame(ply);
            if frame.killers[0] != mv {
                frame.killers[1] = frame.killers[0];
                frame.killers[0] = mv;
            }
            self.history.set_countermove(earlier[0], mv);
        } else {
            let (mover, victim) = capture_of(pos, mv);
            self.history.update_capture(mover, mv.to(), victim, bonus);
        }
        for &n in noisy {
            let (mover, victim) = capture_of(pos, n);
            self.history.update_capture(mover, n.to(), victim, -bonus);
        }
    }

    /// The root's first move order: hash move, good captures, quiet moves by history, losing
    /// captures (iterations after the first keep the order the last one found).
    fn order_score(&self, pos: &Position, mv: Move, tt_move: Move) -> i32 {
        if mv == tt_move {
            ORDER_TT
        } else if is_quiet(pos, mv) {
            quiet_score(
                pos,
                &self.history,
                pos.side_to_move().index(),
                mv,
                [None; 2],
            )
        } else if see_ge(pos, mv, 0) {
            ORDER_GOOD_NOISY + noisy_score(pos, &self.history, mv)
        } else {
            ORDER_BAD_NOISY + noisy_score(pos, &self.history, mv)
        }
    }
}

/// A hook that searches to a fixed depth, node count or time without input (bench, test
/// suites, tests). Iterations start while budget is left, so a solution found in an
/// iteration that cannot finish still counts.
pub struct FixedLimits {
    pub max_nodes: Option<u64>,
    pub max_time: Option<Duration>,
    pub start: std::time::Instant,
    /// Every report, with the time since the start when it came.
    pub reports: Vec<(Duration, SearchInfo)>,
}

impl FixedLimits {
    pub fn new(max_nodes: Option<u64>, max_time: Option<Duration>) -> FixedLimits {
        FixedLimits {
            max_nodes,
            max_time,
            start: std::time::Instant::now(),
            reports: Vec::new(),
        }
    }

    fn out_of_budget(&self, nodes: u64) -> bool {
        self.max_nodes.is_some_and(|n| nodes >= n)
            || self.max_time.is_some_and(|t| self.start.elapsed() >= t)
    }
}

impl SearchHook for FixedLimits {
    fn poll(&mut self, nodes: u64) -> bool {
        self.out_of_budget(nodes)
    }
    fn may_start_iteration(&mut self, _depth: u32, nodes: u64) -> bool {
        !self.out_of_budget(nodes)
    }
    fn may_search_next_root_move(&mut self, nodes: u64, _dropped: bool) -> bool {
        !self.out_of_budget(nodes)
    }
    fn report(&mut self, info: &SearchInfo) {
        self.reports.push((self.start.elapsed(), info.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn search_depth(fen: &str, depth: u32) -> SearchResult {
        let pos = Position::from_fen(fen).unwrap();
        let mut searcher = Searcher::new(8);
        let params = SearchParams {
            max_depth: Some(depth),
            ..Default::default()
        };
        searcher.search(&pos, &params, &mut FixedLimits::new(None, None))
    }

    /// Stops the search as soon as a root move other than the last iteration's best fails
    /// high on an aspiration window, remembering that move.
    #[derive(Default)]
    struct StopAfterNewFailHigh {
        last_best: Option<Move>,
        failed_high: Option<Move>,
    }

    impl SearchHook for StopAfterNewFailHigh {
        fn poll(&mut self, _nodes: u64) -> bool {
            self.failed_high.is_some()
        }
        fn may_start_iteration(&mut self, _depth: u32, _nodes: u64) -> bool {
            self.failed_high.is_none()
        }
        fn may_search_next_root_move(&mut self, _nodes: u64, _dropped: bool) -> bool {
            self.failed_high.is_none()
        }
        fn report(&mut self, info: &SearchInfo) {
            let mv = info.pv.first().copied();
            match info.bound {
                Bound::Exact => self.last_best = mv,
                Bound::Lower if self.failed_high.is_none() && mv != self.last_best => {
                    self.failed_high = mv;
                }
                _ => {}
            }
        }
    }

    /// A move that failed high on the aspiration window is better than the last best move,
    /// so it is played even when the wider search after the fail is cut short.
    #[test]
    fn an_aspiration_fail_high_is_played_when_the_research_is_cut_short() {
        // WAC.297: a new best move fails high a few iterations in.
        let pos = Position::from_fen("3r1rk1/p3qp1p/2bb2p1/2p5/3P4/1P6/PBQN1PPP/2R2RK1 b - - 0 1")
            .unwrap();
        let mut searcher = Searcher::new(8);
        let mut hook = StopAfterNewFailHigh::default();
        let params = SearchParams {
            max_depth: Some(30),
            ..Default::default()
        };
        let result = searcher.search(&pos, &params, &mut hook);
        let failed_high = hook.failed_high.expect("a new move fails high by depth 30");
        assert_eq!(result.best, Some(failed_high));
    }

    /// Aspiration fails are reported as bounds (high: the score is a lower bound), and the
    /// iteration then ends with an exact report at the same depth.
    #[test]
    fn aspiration_fails_are_reported_as_bounds() {
        let (mut lower, mut upper) = (0, 0);
        for fen in [
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
            "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
            "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
            "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let mut hook = FixedLimits::new(None, None);
            let params = SearchParams {
                max_depth: Some(11),
                ..Default::default()
            };
            Searcher::new(8).search(&pos, &params, &mut hook);
            let reports: Vec<&SearchInfo> = hook.reports.iter().map(|(_, r)| r).collect();
            for (i, r) in reports.iter().enumerate() {
                match r.bound {
                    Bound::Lower => lower += 1,
                    Bound::Upper => upper += 1,
                    _ => continue,
                }
                assert!(
                    r.depth >= 5,
                    "{fen}: a bound before aspiration windows start"
                );
                assert!(
                    reports[i + 1..]
                        .iter()
                        .any(|n| n.depth == r.depth && n.bound == Bound::Exact),
                    "{fen}: depth {} ends without an exact score",
                    r.depth
                );
            }
        }
        assert!(
            lower > 0 && upper > 0,
            "fail highs {lower}, fail lows {upper}"
        );
    }

    #[test]
    fn finds_mate_in_one() {
        // Back-rank mate: Re8#.
        let r = search_depth("6k1/5ppp/8/8/8/8/8/4R1K1 w - - 0 1", 3);
        let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/4R1K1 w - - 0 1").unwrap();
        assert_eq!(pos.coordinate(r.best.unwrap()), "e1e8");
        assert_eq!(mate_in_moves(r.score), 1);
    }

    #[test]
    fn finds_mate_in_two() {
        // 1. Nf6+ gxf6 2. Bxf7#
        let fen = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1";
        let r = search_depth(fen, 5);
        assert_eq!(mate_in_moves(r.score), 2, "score {}", r.score);
    }

    #[test]
    fn takes_a_hanging_queen() {
        let fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1";
        let r = search_depth(fen, 4);
        let pos = Position::from_fen(fen).unwrap();
        assert_eq!(pos.coordinate(r.best.unwrap()), "d2d5");
    }

    #[test]
    fn stalemate_and_checkmate_roots_have_no_move() {
        assert!(search_depth("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 3)
            .best
            .is_none());
        assert!(search_depth("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", 3)
            .best
            .is_none());
    }

    #[test]
    fn excluded_moves_are_not_played() {
        let fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1";
        let pos = Position::from_fen(fen).unwrap();
        let take = pos.parse_coordinate("d2d5").unwrap();
        let mut searcher = Searcher::new(8);
        let params = SearchParams {
            max_depth: Some(3),
            excluded: vec![take],
            ..Default::default()
        };
        let r = searcher.search(&pos, &params, &mut FixedLimits::new(None, None));
        assert_ne!(r.best, Some(take));
        assert!(r.best.is_some());
    }

    /// A MultiPV search of `fen` to `depth` (one thread, fresh table): its result and the
    /// reports of the last iteration, which are its last `lines` reports.
    fn multi_pv_search(
        fen: &str,
        depth: u32,
        lines: usize,
        excluded: &[&str],
    ) -> (SearchResult, Vec<SearchInfo>) {
        let pos = Position::from_fen(fen).unwrap();
        let params = SearchParams {
            max_depth: Some(depth),
            multi_pv: lines,
            excluded: excluded
                .iter()
                .map(|m| pos.parse_coordinate(m).unwrap())
                .collect(),
            ..Default::default()
        };
        let mut hook = FixedLimits::new(None, None);
        let result = Searcher::new(8).search(&pos, &params, &mut hook);
        let reports: Vec<SearchInfo> = hook.reports.into_iter().map(|(_, r)| r).collect();
        let last = reports[reports.len().saturating_sub(lines)..].to_vec();
        (result, last)
    }

    /// MultiPV 3: three distinct root moves, best first, each line's own PV, and line 1 is
    /// the move a single-PV search plays. The positions each have one move far better than
    /// any other (a mate in one, a free queen, a fork that wins the queen), so the two
    /// searches agree on it as a matter of chess, not of search luck.
    #[test]
    fn multi_pv_gives_distinct_lines_best_first() {
        for (fen, solution) in [
            ("6k1/5ppp/8/8/8/8/8/4R1K1 w - - 0 1", "e1e8"),
            (
                "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
                "h5f7",
            ),
            ("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", "d2d5"),
            ("2q1k3/8/8/8/2N5/8/8/4K3 w - - 0 1", "c4d6"),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            let single = search_depth(fen, 6);
            assert_eq!(pos.coordinate(single.best.unwrap()), solution, "{fen}");
            let (result, lines) = multi_pv_search(fen, 6, 3, &[]);
            assert_eq!(lines.len(), 3, "{fen}");
            for (i, line) in lines.iter().enumerate() {
                assert_eq!(line.line, i + 1, "{fen}: {lines:?}");
                assert_eq!(line.depth, 6, "{fen}: {lines:?}");
                assert_eq!(line.bound, Bound::Exact, "{fen}: {lines:?}");
                assert!(pos.is_legal(line.pv[0]), "{fen}: {lines:?}");
            }
            let firsts: Vec<Move> = lines.iter().map(|l| l.pv[0]).collect();
            assert!(
                firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2],
                "{fen}: {lines:?}"
            );
            assert!(
                lines.windows(2).all(|w| w[0].score >= w[1].score),
                "{fen}: {lines:?}"
            );
            // The best move is worth far more than the next (mate or a queen), and each
            // other line is a searched line of its own move: a legal PV beyond its first
            // move, with a score of its own.
            assert!(lines[0].score >= lines[1].score + 300, "{fen}: {lines:?}");
            for line in &lines {
                let mut at = pos;
                for &m in &line.pv {
                    assert!(at.is_legal(m), "{fen}: {line:?}");
                    at.play(m);
                }
            }
            assert!(
                lines[1..].iter().all(|l| l.pv.len() >= 2),
                "{fen}: {lines:?}"
            );
            assert_eq!(Some(firsts[0]), single.best, "{fen}: {lines:?}");
            assert_eq!(result.best, Some(firsts[0]), "{fen}");
            assert_eq!(result.score, lines[0].score, "{fen}");
            assert_eq!(result.pv, lines[0].pv, "{fen}");
        }
    }

    /// MultiPV asks for more lines than there are moves (after `exclude`): one line per move
    /// left, and an excluded move is in none of them.
    #[test]
    fn multi_pv_is_capped_by_the_moves_left_and_honours_exclude() {
        // The king on h1 has g1, g2 and h2; h2 is taken by the excluded list.
        let fen = "k7/8/8/8/8/8/8/7K w - - 0 1";
        let (result, lines) = multi_pv_search(fen, 4, 5, &["h1h2"]);
        let pos = Position::from_fen(fen).unwrap();
        let shown: Vec<String> = lines.iter().map(|l| pos.coordinate(l.pv[0])).collect();
        // The last two reports are lines 1 and 2 of depth 4; no line 3 ever.
        assert_eq!(
            lines[lines.len() - 2..]
                .iter()
                .map(|l| (l.line, l.depth))
                .collect::<Vec<_>>(),
            [(1, 4), (2, 4)]
        );
        let mut last_two = shown[shown.len() - 2..].to_vec();
        last_two.sort();
        assert_eq!(last_two, ["h1g1", "h1g2"]);
        assert_ne!(result.best.map(|m| pos.coordinate(m)).unwrap(), "h1h2");

        // In a real position, with the best move excluded, it shows in no line.
        let fen = "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1";
        let pos = Position::from_fen(fen).unwrap();
        let pos_lines = {
            let params = SearchParams {
                max_depth: Some(5),
                multi_pv: 3,
                excluded: vec![pos.parse_coordinate("d2d5").unwrap()],
                ..Default::default()
            };
            let mut hook = FixedLimits::new(None, None);
            Searcher::new(8).search(&pos, &params, &mut hook);
            hook.reports
        };
        assert!(pos_lines.len() >= 3 * 5);
        for (_, r) in &pos_lines {
            assert_ne!(pos.coordinate(r.pv[0]), "d2d5", "{r:?}");
        }
    }

    #[test]
    fn abort_keeps_a_legal_move() {
        let pos = Position::startpos();
        let mut searcher = Searcher::new(8);
        let r = searcher.search(
            &pos,
            &SearchParams::default(),
            &mut FixedLimits::new(Some(5_000), None),
        );
        assert!(pos.is_legal(r.best.unwrap()));
        assert!(r.nodes < 5_000 + 2 * POLL_INTERVAL);
    }

    #[test]
    fn repetition_and_fifty_moves_are_draws() {
        let mut searcher = Worker::new(Arc::new(TranspositionTable::new(1)));
        let pos = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 6 40").unwrap();
        // The same position four plies back, inside the search tree: a repetition.
        searcher.keys = vec![pos.key(), 1, 2, 3];
        searcher.root_index = 0;
        assert!(searcher.is_draw(&pos));
        // Once before the root is not yet a draw: the game could go on from there.
        searcher.root_index = 2;
        assert!(!searcher.is_draw(&pos));
        // Twice before the root is (the third time is now).
        let twice = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 8 40").unwrap();
        searcher.keys = vec![twice.key(), 1, twice.key(), 3, 4, 5];
        searcher.root_index = 6;
        assert!(searcher.is_draw(&twice));
        searcher.root_index = 0;
        // An odd distance cannot be the same side to move; not a repetition.
        searcher.keys = vec![pos.key(), 1, 2];
        assert!(!searcher.is_draw(&pos));
        // Beyond the last capture or pawn move it cannot repeat.
        let fresh = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 2 40").unwrap();
        searcher.keys = vec![fresh.key(), 1, 2, 3];
        assert!(!searcher.is_draw(&fresh));
        // Nor across a null move.
        searcher.keys = vec![pos.key(), 1, 2, 3];
        searcher.null_floor = 1;
        assert!(!searcher.is_draw(&pos));
        searcher.null_floor = 0;
        let fifty = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 100 90").unwrap();
        searcher.keys.clear();
        assert!(searcher.is_draw(&fifty));
    }
}
