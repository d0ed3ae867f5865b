//! The search: iterative deepening over a negamax alpha-beta with principal variation
//! search, a transposition table, null-move pruning, late-move reductions and a capture
//! quiescence search. It knows nothing of the protocol: the caller hands it a `SearchHook`
//! that it polls every `POLL_INTERVAL` nodes and asks at iteration and root-move boundaries.
//! An abort unwinds at once; the last completed iteration's move and PV are kept (or a
//! better root move that was fully searched before the abort).

pub mod time;
pub mod tt;

use crate::chess::{Move, MoveList, Position, Role};
use crate::eval::{evaluate, role_value};
use std::time::Duration;
use tt::{Bound, TranspositionTable};

pub const MAX_PLY: usize = 128;
pub const MAX_DEPTH: u32 = 100;
pub const INFINITE: i32 = 32_000;
/// Mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 31_000;
const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Nodes between two polls of the hook.
pub const POLL_INTERVAL: u64 = 1024;
/// A root score this far below the previous iteration's means trouble: keep searching.
const SCORE_DROP_MARGIN: i32 = 30;

/// Whether a score says somebody mates.
pub fn is_mate_score(score: i32) -> bool {
    score.abs() >= MATE_BOUND
}

/// Moves to mate (positive: we mate; negative: we are mated), for mate scores.
pub fn mate_in_moves(score: i32) -> i32 {
    if score > 0 {
        (MATE - score + 1) / 2
    } else {
        -(MATE + score) / 2
    }
}

/// What the search reports after each completed iteration.
#[derive(Clone, Debug)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    /// Centipawns from the side to move at the root (or a mate score).
    pub score: i32,
    pub nodes: u64,
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
}

pub struct Searcher {
    tt: TranspositionTable,
    killers: [[Move; 2]; MAX_PLY + 1],
    /// Quiet-move history by side, from and to square.
    history: Box<[[[i32; 64]; 64]; 2]>,
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Keys from the game start through the current node's parent.
    keys: Vec<u64>,
    nodes: u64,
    seldepth: u32,
    stopped: bool,
}

impl Default for Searcher {
    fn default() -> Self {
        Self::new(tt::DEFAULT_HASH_MB)
    }
}

impl Searcher {
    pub fn new(hash_mb: usize) -> Searcher {
        Searcher {
            tt: TranspositionTable::new(hash_mb),
            killers: [[Move::NONE; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
            pv: Box::new([[Move::NONE; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            keys: Vec::with_capacity(1024),
            nodes: 0,
            seldepth: 0,
            stopped: false,
        }
    }

    /// Resize the hash table (clears it).
    pub fn set_hash_mb(&mut self, mb: usize) {
        self.tt = TranspositionTable::new(mb);
    }

    pub fn hash_mb(&self) -> usize {
        self.tt.megabytes()
    }

    /// Forget everything learned (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.history.iter_mut().flatten().for_each(|h| h.fill(0));
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Makes the search take `score` (side to move's view) as the exact value of `pos`
    /// when searched to `depth` or less (xboard `setscore`).
    pub fn set_score(&mut self, pos: &Position, score: i32, depth: u32) {
        let score = score.clamp(-MATE_BOUND + 1, MATE_BOUND - 1);
        self.tt.store(
            pos.key(),
            Move::NONE,
            score,
            depth.min(MAX_DEPTH) as i32,
            Bound::Exact,
        );
    }

    /// Searches `root` by iterative deepening until the hook says stop or the depth cap.
    pub fn search(
        &mut self,
        root: &Position,
        params: &SearchParams,
        hook: &mut dyn SearchHook,
    ) -> SearchResult {
        self.nodes = 0;
        self.stopped = false;
        self.tt.new_search();
        self.killers = [[Move::NONE; 2]; MAX_PLY + 1];
        for side in self.history.iter_mut() {
            for row in side.iter_mut() {
                for h in row.iter_mut() {
                    *h /= 8;
                }
            }
        }
        self.keys.clear();
        self.keys.extend_from_slice(&params.history);

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
        // Start from the hash move if there is one, else a sensible capture-first order.
        let tt_move = self
            .tt
            .probe(root.key())
            .map(|h| h.mv)
            .unwrap_or(Move::NONE);
        root_moves.sort_by_key(|&(m, _)| -self.order_score(root, m, tt_move, 0));
        result.best = Some(root_moves[0].0);
        result.pv = vec![root_moves[0].0];

        let max_depth = params.max_depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut previous_score = -INFINITE;
        for depth in 1..=max_depth {
            if depth > 1 && !hook.may_start_iteration(depth, self.nodes) {
                break;
            }
            self.seldepth = 0;
            let (score, completed) =
                self.search_root(root, &mut root_moves, depth as i32, previous_score, hook);
            // Root moves are sorted best first; the first one was searched fully unless the
            // iteration was aborted before its first move finished.
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
            previous_score = score;
            hook.report(&SearchInfo {
                depth,
                seldepth: self.seldepth.max(depth),
                score,
                nodes: self.nodes,
                pv: result.pv.clone(),
            });
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
        result.nodes = self.nodes;
        result
    }

    /// One iteration at the root. Returns the best score (or -INFINITE if no move finished)
    /// and whether every root move was searched.
    fn search_root(
        &mut self,
        root: &Position,
        root_moves: &mut [(Move, i32)],
        depth: i32,
        previous_score: i32,
        hook: &mut dyn SearchHook,
    ) -> (i32, bool) {
        let mut alpha = -INFINITE;
        let beta = INFINITE;
        let mut best_score = -INFINITE;
        self.pv_len[0] = 0;
        self.keys.push(root.key());
        let mut completed = true;
        for i in 0..root_moves.len() {
            if i > 0 {
                let dropped =
                    previous_score > -INFINITE && best_score < previous_score - SCORE_DROP_MARGIN;
                if !hook.may_search_next_root_move(self.nodes, dropped) {
                    completed = false;
                    break;
                }
            }
            let mv = root_moves[i].0;
            hook.root_move(i, root_moves.len(), mv);
            let child = root.after(mv);
            self.nodes += 1;
            let mut score;
            if i == 0 {
                score = -self.negamax(&child, depth - 1, -beta, -alpha, 1, true, hook);
            } else {
                score = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, 1, false, hook);
                if score > alpha && !self.stopped {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, 1, true, hook);
                }
            }
            if self.stopped {
                completed = false;
                break;
            }
            root_moves[i].1 = score;
            if score > best_score {
                best_score = score;
                // Keep the best move first so an abort leaves it at the front.
                root_moves[..=i].rotate_right(1);
                if score > alpha {
                    alpha = score;
                    self.update_pv(0, mv);
                }
                if i > 0 && depth > 1 {
                    hook.report(&SearchInfo {
                        depth: depth as u32,
                        seldepth: self.seldepth.max(depth as u32),
                        score,
                        nodes: self.nodes,
                        pv: self.pv[0][..self.pv_len[0]].to_vec(),
                    });
                }
            }
        }
        self.keys.pop();
        if completed {
            // Stable sort keeps the best first (it has the highest score).
            root_moves.sort_by_key(|&(_, s)| -s);
            self.tt
                .store(root.key(), root_moves[0].0, best_score, depth, Bound::Exact);
        }
        (best_score, completed)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - ply - 1);
        self.pv[ply][0] = mv;
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    /// Draw by repetition (against the game or the search path) or the 50-move rule.
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.halfmove_clock() >= 100 || pos.is_insufficient_material() {
            return true;
        }
        let key = pos.key();
        let len = self.keys.len();
        let reach = (pos.halfmove_clock() as usize).min(len);
        let mut back = 2;
        while back <= reach {
            if self.keys[len - back] == key {
                return true;
            }
            back += 2;
        }
        false
    }

    #[inline]
    fn check_abort(&mut self, hook: &mut dyn SearchHook) -> bool {
        if self.nodes.is_multiple_of(POLL_INTERVAL) && hook.poll(self.nodes) {
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
        hook: &mut dyn SearchHook,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if self.check_abort(hook) {
            return 0;
        }
        if self.is_draw(pos) {
            // A 50-move position that is mate is still mate.
            if !(pos.halfmove_clock() >= 100 && pos.in_check() && !pos.has_legal_moves()) {
                return 0;
            }
        }
        if ply >= MAX_PLY {
            return evaluate(pos);
        }
        // Mate distance pruning: no line here can beat a mate already found nearer the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let in_check = pos.in_check();
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiescence(pos, alpha, beta, ply, hook);
        }
        self.seldepth = self.seldepth.max(ply as u32);

        let key = pos.key();
        let mut tt_move = Move::NONE;
        if let Some(hit) = self.tt.probe(key) {
            tt_move = hit.mv;
            if !is_pv && hit.depth >= depth {
                let score = score_from_tt(hit.score, ply);
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                    Bound::None => false,
                };
                if cut {
                    return score;
                }
            }
        }

        let static_eval = if in_check { -INFINITE } else { evaluate(pos) };

        if !is_pv && !in_check {
            // Reverse futility: far above beta at low depth, assume it holds.
            if depth <= 4 && static_eval - 85 * depth >= beta && !is_mate_score(beta) {
                return static_eval;
            }
            // Null move: if passing still fails high, a real move surely would.
            if depth >= 3
                && static_eval >= beta
                && !pos.only_king_and_pawns(pos.side_to_move())
                && self.keys.last() != Some(&0)
            {
                let r = 3 + depth / 4;
                let mut null = *pos;
                null.play_null();
                self.keys.push(key);
                // A zero key marks "after a null move": no two nulls in a row.
                self.keys.push(0);
                let score =
                    -self.negamax(&null, depth - 1 - r, -beta, -beta + 1, ply + 1, false, hook);
                self.keys.pop();
                self.keys.pop();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if is_mate_score(score) { beta } else { score };
                }
            }
        }

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let mut scores = [0i32; crate::chess::moves::MAX_MOVES];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = self.order_score(pos, m, tt_move, ply);
        }

        let original_alpha = alpha;
        let mut best_score = -INFINITE;
        let mut best_move = Move::NONE;
        let us = pos.side_to_move().index();
        self.keys.push(key);
        let count = moves.len();
        for i in 0..count {
            pick_best(&mut moves, &mut scores, i);
            let mv = moves[i];
            let quiet = self.is_quiet(pos, mv);
            let child = pos.after(mv);
            self.nodes += 1;
            let gives_check = child.in_check();

            // Late move pruning / futility for quiet moves at shallow depth.
            if !is_pv && !in_check && quiet && !gives_check && best_score > -MATE_BOUND {
                if depth <= 3 && i >= 4 + 4 * depth as usize {
                    continue;
                }
                if depth <= 2 && static_eval + 120 * depth <= alpha {
                    continue;
                }
            }

            let mut score;
            if i == 0 {
                score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, is_pv, hook);
            } else {
                // Late quiet moves are searched shallower first.
                let mut reduction = 0;
                if depth >= 3 && i >= 3 && quiet && !in_check && !gives_check {
                    reduction = 1 + (depth >= 6) as i32 + (i >= 10) as i32;
                    if is_pv {
                        reduction -= 1;
                    }
                    reduction = reduction.min(depth - 2);
                }
                score = -self.negamax(
                    &child,
                    depth - 1 - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    false,
                    hook,
                );
                if score > alpha && reduction > 0 && !self.stopped {
                    score =
                        -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1, false, hook);
                }
                if score > alpha && score < beta && is_pv && !self.stopped {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, true, hook);
                }
            }
            if self.stopped {
                self.keys.pop();
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = mv;
                if score > alpha {
                    alpha = score;
                    if is_pv {
                        self.update_pv(ply, mv);
                    }
                    if alpha >= beta {
                        if quiet {
                            if self.killers[ply][0] != mv {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = mv;
                            }
                            let h = &mut self.history[us][mv.from().index()][mv.to().index()];
                            *h = (*h + depth * depth).min(1 << 20);
                        }
                        break;
                    }
                }
            }
        }
        self.keys.pop();
        if best_score == -INFINITE {
            // Every move was pruned: fall back to a fail-low at alpha.
            return alpha;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, score_to_tt(best_score, ply), depth, bound);
        best_score
    }

    fn quiescence(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        hook: &mut dyn SearchHook,
    ) -> i32 {
        self.pv_len[ply] = 0;
        if self.check_abort(hook) {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        if ply >= MAX_PLY {
            return evaluate(pos);
        }
        let in_check = pos.in_check();
        let mut best_score = -INFINITE;
        if !in_check {
            let stand_pat = evaluate(pos);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }
        // In check every evasion is searched, so mates are seen; otherwise only noisy moves.
        let mut moves = if in_check {
            pos.legal_moves()
        } else {
            pos.noisy_moves()
        };
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        let mut scores = [0i32; crate::chess::moves::MAX_MOVES];
        for (i, &m) in moves.iter().enumerate() {
            scores[i] = self.order_score(pos, m, Move::NONE, ply);
        }
        for i in 0..moves.len() {
            pick_best(&mut moves, &mut scores, i);
            let mv = moves[i];
            // Only queen promotions; under-promotions almost never matter here.
            if let Some(role) = mv.promotion_role() {
                if role != Role::Queen && !in_check {
                    continue;
                }
            }
            let child = pos.after(mv);
            self.nodes += 1;
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1, hook);
            if self.stopped {
                return 0;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best_score
    }

    fn is_quiet(&self, pos: &Position, mv: Move) -> bool {
        !mv.is_promotion()
            && !mv.is_en_passant()
            && (mv.is_castle() || pos.role_on(mv.to()).is_none())
    }

    /// Higher first: hash move, winning-looking captures and promotions (most valuable
    /// victim, least valuable attacker), killers, then quiet moves by history.
    fn order_score(&self, pos: &Position, mv: Move, tt_move: Move, ply: usize) -> i32 {
        if mv == tt_move {
            return 1 << 30;
        }
        if let Some(role) = mv.promotion_role() {
            return if role == Role::Queen {
                1 << 28
            } else {
                -(1 << 20)
            };
        }
        if !mv.is_castle() {
            let victim = if mv.is_en_passant() {
                Some(Role::Pawn)
            } else {
                pos.role_on(mv.to())
            };
            if let Some(victim) = victim {
                let attacker = pos.role_on(mv.from()).unwrap_or(Role::Pawn);
                return (1 << 27) + role_value(victim) * 16 - role_value(attacker) / 16;
            }
        }
        if ply <= MAX_PLY {
            if self.killers[ply][0] == mv {
                return 1 << 26;
            }
            if self.killers[ply][1] == mv {
                return (1 << 26) - 1;
            }
        }
        self.history[pos.side_to_move().index()][mv.from().index()][mv.to().index()]
    }
}

/// Moves the highest-scored remaining move to position `i` (selection sort, one step).
#[inline]
fn pick_best(moves: &mut MoveList, scores: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    if best != i {
        moves.swap(i, best);
        scores.swap(i, best);
    }
}

/// Mate scores are stored relative to the node, not the root.
fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
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
        let mut searcher = Searcher::new(1);
        let pos = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 6 40").unwrap();
        // The same position four plies back, within the halfmove clock: a repetition.
        searcher.keys = vec![pos.key(), 1, 2, 3];
        assert!(searcher.is_draw(&pos));
        // An odd distance cannot be the same side to move; not a repetition.
        searcher.keys = vec![pos.key(), 1, 2];
        assert!(!searcher.is_draw(&pos));
        // Beyond the last capture or pawn move it cannot repeat.
        let fresh = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 2 40").unwrap();
        searcher.keys = vec![fresh.key(), 1, 2, 3];
        assert!(!searcher.is_draw(&fresh));
        let fifty = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 100 90").unwrap();
        searcher.keys.clear();
        assert!(searcher.is_draw(&fifty));
    }
}
