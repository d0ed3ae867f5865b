//! The search: iterative deepening over a negamax alpha-beta with principal variation
//! search, a transposition table, null-move pruning, late-move reductions, singular
//! extensions and a quiescence search; MultiPV, lazy SMP helper threads and Syzygy probes.
//! It owns the searcher's state (workers, table, tablebase access) and must not touch the
//! protocol or the game: the caller hands it a `SearchHook` that it polls every
//! `POLL_INTERVAL` nodes and asks at iteration and root-move boundaries, and that alone
//! decides when to stop. An abort unwinds at once; the last completed iteration's move and
//! PV are kept (or a better root move that was fully searched before the abort). This file
//! holds the API and the state the threads share; `root`, `negamax`, `qsearch`, `threads`,
//! `syzygy` and `score` hold one concern each.

pub mod correction;
pub mod history;
pub mod movepick;
pub mod see;
pub mod tt;

mod negamax;
pub mod params;
mod qsearch;
mod root;
mod score;
mod static_eval;
pub mod strength;
mod syzygy;
mod threads;
pub mod wdl;

use crate::chess::{Move, Position};
use crate::nnue::Network;
use crate::tablebase::Tablebase;
use correction::Correction;
use history::{History, PieceTo};
use negamax::Reductions;
use score::TB_WIN_BOUND;
pub use score::{is_mate_score, mate_in_moves, shown_centipawns, MATE, TB_WIN, TB_WIN_SHOWN};
use static_eval::StaticEval;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use syzygy::{TbAccess, VerdictHook};
use threads::Helper;
pub use tt::Bound;
use tt::TranspositionTable;

pub const MAX_PLY: usize = 128;
pub const MAX_DEPTH: u32 = 100;
pub const INFINITE: i32 = 32_000;
/// `SyzygyProbeDepth`: the least remaining depth at which positions with as many pieces
/// as the largest table are probed (smaller ones are probed at any depth).
pub const DEFAULT_SYZYGY_PROBE_DEPTH: i32 = 1;
pub const MAX_SYZYGY_PROBE_DEPTH: i32 = 100;
/// Nodes between two polls of the hook.
pub const POLL_INTERVAL: u64 = 1024;
const _: () = assert!(POLL_INTERVAL.is_power_of_two());

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
    /// Of `nodes`, those this thread spent below the PV's first move, in every iteration so
    /// far: the clock gives a move that took most of the search less thought.
    pub best_move_nodes: u64,
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
    /// Up to this many centipawns either way added to every static evaluation, a fixed
    /// function of the position (a limited strength's less exact judgement); 0: none.
    pub eval_noise: i32,
    /// Every move to the full depth: no pruning or reduction judged by the evaluation, and
    /// no hash cutoff from an earlier search (which may have pruned). A mate search
    /// (`go mate N` to 2N plies) then finds every mate within its depth, whatever the
    /// evaluation thinks of the moves that lead to it.
    pub full_width: bool,
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
    /// The lines of the last iteration that finished every line (MultiPV's, else the best
    /// line alone), best first: the candidates a limited strength chooses among.
    pub lines: Vec<SearchInfo>,
}

/// What the search keeps about each ply of the current line.
#[derive(Clone, Copy)]
struct Frame {
    /// The static evaluation here (`NO_EVAL` when in check).
    static_eval: i32,
    /// The move played from this ply into the next, for continuation history; `None` for
    /// a null move.
    moved: Option<PieceTo>,
    /// Whether that move was quiet (a fail-low below it rewards it as a quiet move).
    moved_quiet: bool,
    killers: [Move; 2],
    /// A move this node must not search (the hash move, while testing whether it is
    /// singular).
    excluded: Move,
    /// Double extensions on the line from the root to here: they are capped so that a
    /// line of forced moves cannot grow without end.
    double_extensions: u8,
}

const NO_EVAL: i32 = tt::NO_EVAL;
/// Frames before the root, so `ply - 2` is always an index.
const FRAME_OFFSET: usize = 2;

impl Default for Frame {
    fn default() -> Self {
        Frame {
            static_eval: NO_EVAL,
            moved: None,
            moved_quiet: false,
            killers: [Move::NONE; 2],
            excluded: Move::NONE,
            double_extensions: 0,
        }
    }
}

/// One search thread's state: everything but the transposition table and the tablebases
/// is its own.
struct Worker {
    tt: Arc<TranspositionTable>,
    tb: TbAccess,
    /// The evaluation, with this thread's own accumulators or pawn hash table.
    evaluator: StaticEval,
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
    /// Nodes spent below each root move in this search, summed over the iterations.
    root_move_nodes: Vec<(Move, u64)>,
    /// Nodes between two polls of the hook (a power of two).
    poll_interval: u64,
    seldepth: u32,
    stopped: bool,
    /// `SearchParams::full_width` of the search under way.
    full_width: bool,
}

/// The most search threads `Threads` and `cores` may ask for: beyond the testers' biggest
/// machines (128-256 threads). Each helper costs about 1.5 MB of histories and stack.
pub const MAX_THREADS: usize = 1024;

/// The search: a main thread that talks to the caller's hook, and (lazy SMP) helper threads
/// that search the same root at the same time, sharing only the transposition table. The
/// helpers fill the table with results the main thread finds there; the main thread's move
/// is the one played.
pub struct Searcher {
    main: Worker,
    /// The helper threads, each with its own worker, waiting for their next job.
    helpers: Vec<Helper>,
    /// The evaluation noise the table's evaluations and the histories were learnt with.
    eval_noise: i32,
}

impl Drop for Searcher {
    fn drop(&mut self) {
        // The last search's helpers hold the table and the tablebases: let them end first.
        self.helpers.clear();
    }
}

impl Default for Searcher {
    fn default() -> Self {
        Self::new(tt::DEFAULT_HASH_MB)
    }
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            main: Worker::new(
                Arc::new(TranspositionTable::new(hash_mb)),
                crate::nnue::embedded(),
            ),
            helpers: Vec::new(),
            eval_noise: 0,
        }
    }

    /// Search with `threads` threads in all (clamped to 1..=MAX_THREADS).
    pub fn set_threads(&mut self, threads: usize) {
        let helpers = threads.clamp(1, MAX_THREADS) - 1;
        let tt = Arc::clone(&self.main.tt);
        self.helpers.truncate(helpers);
        while self.helpers.len() < helpers {
            let mut helper = Worker::new(Arc::clone(&tt), self.network().cloned());
            helper.tb = self.main.tb.clone();
            self.helpers.push(Helper::start(helper));
        }
    }

    /// Uses `tables` from the next search on (`None`: no tablebases). The old tables are
    /// let go first, so a new set may be opened after this call with `None`.
    pub fn set_tablebase(&mut self, tables: Option<Tablebase>) {
        let tables = tables.map(Arc::new);
        self.main.tb.tables = tables.clone();
        self.on_helpers(move |worker| worker.tb.tables = tables.clone());
    }

    /// Evaluates with `net` from the next search on (`None`: the classical evaluation), in
    /// every thread. What was learnt with the other evaluation (the table's static
    /// evaluations, the correction history) is forgotten.
    pub fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.main.evaluator.set_network(net.clone());
        self.on_helpers(move |worker| worker.evaluator.set_network(net.clone()));
        self.clear();
    }

    /// The net the search evaluates with; `None` for the classical evaluation. A new
    /// searcher has the embedded net, if the build has one.
    pub fn network(&self) -> Option<&Arc<Network>> {
        self.main.evaluator.network()
    }

    pub fn tablebase(&self) -> Option<&Tablebase> {
        self.main.tb.tables.as_deref()
    }

    /// `SyzygyProbeDepth`, clamped to 1..=MAX_SYZYGY_PROBE_DEPTH.
    pub fn set_syzygy_probe_depth(&mut self, depth: i32) {
        let depth = depth.clamp(1, MAX_SYZYGY_PROBE_DEPTH);
        self.main.tb.probe_depth = depth;
        self.on_helpers(move |worker| worker.tb.probe_depth = depth);
    }

    /// Tablebase hits of the last search, all threads.
    pub fn tbhits(&self) -> u64 {
        self.main.tb.hits()
    }

    pub fn threads(&self) -> usize {
        1 + self.helpers.len()
    }

    /// Resize the hash table (clears it).
    /// A table of `mb` MB (clamped to 1..=MAX_HASH_MB) in place of the old one, or why not:
    /// more than the machine has free (the old table is kept as it was), or the memory
    /// could not be had after all (the old size is kept, emptied).
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), String> {
        let mb = mb.clamp(1, tt::MAX_HASH_MB);
        let old = self.hash_mb();
        if let Some(free) = crate::memory::available_bytes() {
            // The old table's memory is given back before the new one is taken.
            let free_mb = (free >> 20) as usize + old;
            if mb > free_mb {
                return Err(format!(
                    "Hash {mb} MB is more than this machine's free memory ({free_mb} MB): \
                     the table stays at {old} MB"
                ));
            }
        }
        self.share_table(Arc::new(TranspositionTable::new(1)));
        match TranspositionTable::try_new(mb) {
            Some(table) => {
                self.share_table(Arc::new(table));
                Ok(())
            }
            None => {
                self.share_table(Arc::new(TranspositionTable::new(old)));
                Err(format!(
                    "cannot allocate {mb} MB for the hash table: it stays at {old} MB, emptied"
                ))
            }
        }
    }

    fn share_table(&mut self, tt: Arc<TranspositionTable>) {
        self.main.tt = Arc::clone(&tt);
        self.on_helpers(move |worker| worker.tt = Arc::clone(&tt));
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
        fn forget(worker: &mut Worker) {
            worker.history.clear();
            worker.correction.clear();
            worker.evaluator.clear();
        }
        self.settle();
        self.main.tt.clear();
        forget(&mut self.main);
        self.on_helpers(forget);
    }

    /// Nodes of the last search, all threads.
    pub fn nodes(&mut self) -> u64 {
        self.main.nodes + self.on_helpers(|h| h.nodes).iter().sum::<u64>()
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
        // The last search's helpers may still be stopping: the new one starts beside them
        // (they see the stop in their next turn), except for a root in the tablebases,
        // whose probe must be the only one.
        if (self.main.tb.tables.as_deref()).is_some_and(|tables| tables.covers(root)) {
            self.settle();
        }
        // What was learnt with another evaluation noise would carry it over.
        if params.eval_noise != self.eval_noise {
            self.clear();
            self.eval_noise = params.eval_noise;
        }
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
    fn new(tt: Arc<TranspositionTable>, net: Option<Arc<Network>>) -> Worker {
        Worker {
            tt,
            tb: TbAccess::none(),
            evaluator: StaticEval::new(net),
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
            root_move_nodes: Vec::new(),
            poll_interval: POLL_INTERVAL,
            seldepth: 0,
            stopped: false,
            full_width: false,
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
}

/// A hook that searches to a fixed depth, node count or time without input (bench, test
/// suites, tests). Iterations start while budget is left, so a solution found in an
/// iteration that cannot finish still counts.
pub struct FixedLimits {
    pub max_nodes: Option<u64>,
    /// No new iteration starts past this many nodes (the one under way may go on to
    /// `max_nodes`): a node budget whose score is always a whole iteration's.
    pub soft_nodes: Option<u64>,
    pub max_time: Option<Duration>,
    pub start: std::time::Instant,
    /// Every report, with the time since the start when it came.
    pub reports: Vec<(Duration, SearchInfo)>,
}

impl FixedLimits {
    pub fn new(max_nodes: Option<u64>, max_time: Option<Duration>) -> FixedLimits {
        FixedLimits {
            max_nodes,
            soft_nodes: None,
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
        !self.out_of_budget(nodes) && self.soft_nodes.is_none_or(|soft| nodes < soft)
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

    pub(super) fn search_depth(fen: &str, depth: u32) -> SearchResult {
        let pos = Position::from_fen(fen).unwrap();
        let mut searcher = Searcher::new(8);
        let params = SearchParams {
            max_depth: Some(depth),
            ..Default::default()
        };
        searcher.search(&pos, &params, &mut FixedLimits::new(None, None))
    }

    fn random_network(seed: u64) -> Arc<Network> {
        use crate::nnue::format::Activation;
        let file = crate::nnue::network::tests::random_net(64, Activation::SCReLU, seed);
        Arc::new(Network::new(&file))
    }

    fn depth_search(searcher: &mut Searcher, pos: &Position, depth: u32) -> SearchResult {
        let params = SearchParams {
            max_depth: Some(depth),
            ..Default::default()
        };
        searcher.search(pos, &params, &mut FixedLimits::new(None, None))
    }

    #[test]
    fn a_search_with_a_net_reaches_its_depth_with_a_legal_move_in_every_thread() {
        let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
        let pos = Position::from_fen(fen).unwrap();
        let mut plain = Searcher::new(8);
        plain.set_network(None);
        let classical = depth_search(&mut plain, &pos, 6);
        let net = random_network(17);
        let mut searcher = Searcher::new(8);
        searcher.set_network(Some(Arc::clone(&net)));
        // One thread: a deterministic search, whose score is the net's opinion, not the
        // classical one.
        let one_thread = depth_search(&mut searcher, &pos, 6);
        assert_ne!(one_thread.score, classical.score);
        assert_eq!(searcher.main.evaluator.unentered, 0);

        searcher.set_threads(2);
        searcher.set_network(Some(Arc::clone(&net)));
        searcher.set_threads(3);
        let in_main = searcher.network().is_some_and(|n| Arc::ptr_eq(n, &net));
        let wanted = Arc::clone(&net);
        let in_helpers = searcher
            .on_helpers(move |w| (w.evaluator.network()).is_some_and(|n| Arc::ptr_eq(n, &wanted)));
        assert!(in_main && in_helpers == [true, true]);
        let with_net = depth_search(&mut searcher, &pos, 6);
        assert_eq!(with_net.depth, 6);
        assert!(pos.legal_moves().iter().any(|&m| Some(m) == with_net.best));
        // Every evaluated node was entered at its ply first, in every thread.
        assert!(searcher.nodes() > 1000);
        let unentered = searcher.on_helpers(|w| w.evaluator.unentered);
        assert_eq!(
            searcher.main.evaluator.unentered + unentered.iter().sum::<u64>(),
            0
        );

        searcher.set_threads(1);
        searcher.set_network(None);
        assert!(searcher.network().is_none());
        let back = depth_search(&mut searcher, &pos, 6);
        assert_eq!(
            (back.score, back.best, back.nodes),
            (classical.score, classical.best, classical.nodes)
        );
    }

    /// Evaluation noise changes the search, and nothing learnt with it carries over into a
    /// search without it (or the other way round).
    #[test]
    fn a_search_with_another_eval_noise_starts_afresh() {
        let pos = Position::from_fen(
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
        )
        .unwrap();
        let search = |searcher: &mut Searcher, noise| {
            let params = SearchParams {
                max_depth: Some(7),
                eval_noise: noise,
                ..Default::default()
            };
            let r = searcher.search(&pos, &params, &mut FixedLimits::new(None, None));
            (r.nodes, r.best, r.score)
        };
        let exact = search(&mut Searcher::new(8), 0);
        let noisy = search(&mut Searcher::new(8), 40);
        assert_ne!(exact, noisy);
        let mut searcher = Searcher::new(8);
        assert_eq!(search(&mut searcher, 40), noisy);
        assert_eq!(search(&mut searcher, 0), exact);
        assert_eq!(search(&mut searcher, 40), noisy);
    }

    #[test]
    fn a_full_width_search_trusts_no_earlier_searchs_table_entries() {
        // WAC 1: Qg6 mates in 2. An earlier search that pruned the mate could have left an
        // entry saying Black holds after Qg6: one is planted, as from an earlier search.
        let fen = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1";
        let pos = Position::from_fen(fen).unwrap();
        let qg6 = *pos
            .legal_moves()
            .iter()
            .find(|&&m| pos.coordinate(m) == "g3g6")
            .unwrap();
        let after = pos.after(qg6);
        let mut searcher = Searcher::new(8);
        for full_width in [false, true] {
            searcher.clear();
            searcher
                .main
                .tt
                .store(after.key(), Move::NONE, 300, 40, Bound::Lower, tt::NO_EVAL);
            let params = SearchParams {
                max_depth: Some(4),
                full_width,
                ..Default::default()
            };
            let r = searcher.search(&pos, &params, &mut FixedLimits::new(None, None));
            if full_width {
                assert_eq!(r.best, Some(qg6));
                assert_eq!(mate_in_moves(r.score), 2, "score {}", r.score);
            } else {
                // The planted entry does hide the mate from an ordinary search.
                assert_ne!(r.best, Some(qg6));
            }
        }
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
}
