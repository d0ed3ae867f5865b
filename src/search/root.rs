//! The root: iterative deepening, each iteration's aspiration windows, the pass over the
//! root moves, and MultiPV (each further line searched among the moves the lines before it
//! left). Reports go to the hook; an abort keeps the last complete iteration's move.

use super::history::PieceTo;
use super::movepick::{
    is_quiet, noisy_score, quiet_score, ORDER_BAD_NOISY, ORDER_GOOD_NOISY, ORDER_TT,
};
use super::params;
use super::score::{is_mate_score, mate_in_moves};
use super::see::see_ge;
use super::{
    Bound, Frame, SearchHook, SearchInfo, SearchParams, SearchResult, Worker, FRAME_OFFSET,
    INFINITE, MAX_DEPTH, NO_EVAL,
};
use crate::chess::{Move, Piece, Position, Role};

/// A root score this far below the previous iteration's means trouble: keep searching.
const SCORE_DROP_MARGIN: i32 = 30;

/// One finished MultiPV line of an iteration.
struct RootLine {
    score: i32,
    seldepth: u32,
    pv: Vec<Move>,
}

/// Puts root move `i` first: the `proven` moves before it (each better than the moves after
/// them) move down a place, the others keep their order from the last iteration.
fn to_front(root_moves: &mut [(Move, i32)], proven: usize, i: usize) {
    root_moves[proven..=i].rotate_right(1);
    root_moves[..=proven].rotate_right(1);
}

impl Worker {
    /// Searches `root` by iterative deepening until the hook says stop or the depth cap.
    pub(super) fn search(
        &mut self,
        root: &Position,
        params: &SearchParams,
        hook: &mut dyn SearchHook,
    ) -> SearchResult {
        self.start_search(params);
        let mut root_moves = self.ordered_root_moves(root, params);
        let mut result = SearchResult::default();
        if root_moves.is_empty() {
            return result;
        }
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
                result.pv = self.root_pv(best);
                if completed {
                    result.depth = depth;
                }
            }
            result.nodes = self.nodes;
            if !completed || self.stopped {
                break;
            }
            let first = RootLine {
                score,
                seldepth: self.seldepth.max(depth),
                pv: result.pv.clone(),
            };
            let mut lines =
                self.further_lines(first, root, &mut root_moves, depth, &previous_scores, hook);
            let iteration_finished = lines.len() == line_count;
            let score = if line_count > 1 {
                self.order_lines(&mut lines, &mut root_moves, &mut result)
            } else {
                score
            };
            for (i, line) in lines.iter().enumerate() {
                previous_scores[i] = line.score;
            }
            let finished = self.report_lines(lines, depth, hook);
            if iteration_finished {
                result.lines = finished;
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
        result.ponder = self.ponder_move(root, &result);
        result.nodes = self.nodes;
        result.tbhits = self.tb.hits();
        result
    }

    /// Readies the worker for a new search: counters, history age, the game's keys, the
    /// evaluator and the search's own settings.
    fn start_search(&mut self, params: &SearchParams) {
        self.nodes = 0;
        self.root_move_nodes.clear();
        self.stopped = false;
        self.history.age();
        self.frames.fill(Frame::default());
        self.keys.clear();
        self.keys.extend_from_slice(&params.history);
        self.root_index = self.keys.len();
        self.null_floor = 0;
        self.evaluator.new_search();
        self.evaluator.noise = params.eval_noise;
        self.full_width = params.full_width;
        // A tuning build's options may have changed the reductions' numbers.
        #[cfg(feature = "tune")]
        {
            self.reductions = super::negamax::Reductions::new();
        }
    }

    /// The legal root moves less the excluded ones, the hash move first and the rest in the
    /// usual move order, each with no score yet.
    fn ordered_root_moves(&self, root: &Position, params: &SearchParams) -> Vec<(Move, i32)> {
        let mut root_moves: Vec<(Move, i32)> = root
            .legal_moves()
            .iter()
            .filter(|m| !params.excluded.contains(m))
            .map(|&m| (m, -INFINITE))
            .collect();
        let tt_move = self
            .tt
            .probe(root.key())
            .map(|h| h.mv)
            .unwrap_or(Move::NONE);
        root_moves.sort_by_key(|&(m, _)| -self.order_score(root, m, tt_move));
        root_moves
    }

    /// The principal variation the last root search left, if it starts with `best`;
    /// otherwise (a line cut short) `best` alone.
    fn root_pv(&self, best: Move) -> Vec<Move> {
        let pv = &self.pv[0][..self.pv_len[0]];
        if pv.first() == Some(&best) {
            pv.to_vec()
        } else {
            vec![best]
        }
    }

    /// MultiPV: after the `first` line, line k is the best of the root moves the lines
    /// before it left, up to `previous_scores.len()` lines or until the search stops.
    fn further_lines(
        &mut self,
        first: RootLine,
        root: &Position,
        root_moves: &mut [(Move, i32)],
        depth: u32,
        previous_scores: &[i32],
        hook: &mut dyn SearchHook,
    ) -> Vec<RootLine> {
        let mut lines = vec![first];
        for line in 2..=previous_scores.len() {
            let (score, completed) = self.aspiration(
                root,
                root_moves,
                line,
                depth as i32,
                previous_scores[line - 1],
                hook,
            );
            if !completed || self.stopped {
                break;
            }
            lines.push(RootLine {
                score,
                seldepth: self.seldepth.max(depth),
                pv: self.root_pv(root_moves[line - 1].0),
            });
        }
        lines
    }

    /// Reports an iteration's finished lines to the hook, best first; returns them as
    /// reported.
    fn report_lines(
        &self,
        lines: Vec<RootLine>,
        depth: u32,
        hook: &mut dyn SearchHook,
    ) -> Vec<SearchInfo> {
        let mut finished = Vec::with_capacity(lines.len());
        for (i, line) in lines.into_iter().enumerate() {
            let info = SearchInfo {
                line: i + 1,
                depth,
                seldepth: line.seldepth,
                score: line.score,
                bound: Bound::Exact,
                nodes: self.nodes,
                best_move_nodes: line.pv.first().map_or(0, |&mv| self.nodes_below(mv)),
                tbhits: self.tb.hits(),
                pv: line.pv,
            };
            hook.report(&info);
            finished.push(info);
        }
        finished
    }

    /// The move to ponder on: the PV's second move, or, for a PV cut to its first move (a
    /// new best move found as time ran out), the likely reply the table still holds.
    fn ponder_move(&self, root: &Position, result: &SearchResult) -> Option<Move> {
        if let Some(&reply) = result.pv.get(1) {
            return Some(reply);
        }
        let best = result.best?;
        let after = root.after(best);
        self.tt
            .probe(after.key())
            .map(|hit| hit.mv)
            .filter(|&mv| !mv.is_none() && after.is_legal(mv))
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
        let mut delta = params::aspiration_delta();
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
                hook.report(&self.root_info(line, depth, score, bound, pv));
            }
            delta += delta / 2;
            if delta > 1_000 {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    /// Enters the root node: counted, its key on the game's line, its static evaluation.
    fn enter_root(&mut self, root: &Position) {
        self.pv_len[0] = 0;
        self.nodes += 1;
        self.keys.push(root.key());
        self.evaluator.enter(0, root);
        self.frame(0).static_eval = if root.in_check() {
            NO_EVAL
        } else {
            self.evaluator.evaluate(root, 0)
        };
    }

    /// A report of root line `line` at `depth`, with the search's counts as they stand.
    fn root_info(
        &self,
        line: usize,
        depth: i32,
        score: i32,
        bound: Bound,
        pv: Vec<Move>,
    ) -> SearchInfo {
        SearchInfo {
            line,
            depth: depth as u32,
            seldepth: self.seldepth.max(depth as u32),
            score,
            bound,
            nodes: self.nodes,
            best_move_nodes: pv.first().map_or(0, |&mv| self.nodes_below(mv)),
            tbhits: self.tb.hits(),
            pv,
        }
    }

    /// Nodes this search has spent below root move `mv`.
    fn nodes_below(&self, mv: Move) -> u64 {
        self.root_move_nodes
            .iter()
            .find(|&&(m, _)| m == mv)
            .map_or(0, |&(_, nodes)| nodes)
    }

    /// Counts `nodes` more below root move `mv`.
    fn count_nodes_below(&mut self, mv: Move, nodes: u64) {
        match self.root_move_nodes.iter_mut().find(|(m, _)| *m == mv) {
            Some((_, total)) => *total += nodes,
            None => self.root_move_nodes.push((mv, nodes)),
        }
    }

    /// Tells the hook of a new best first line during an iteration (its PV as it stands).
    fn report_new_best(&self, depth: i32, score: i32, bound: Bound, hook: &mut dyn SearchHook) {
        let pv = self.pv[0][..self.pv_len[0]].to_vec();
        hook.report(&self.root_info(1, depth, score, bound, pv));
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
        self.enter_root(root);
        let us = root.side_to_move();
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
            self.frame(0).moved_quiet = super::movepick::is_quiet(root, mv);
            let new_depth = depth - 1;
            let nodes_before = self.nodes;
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
                        to_front(root_moves, proven, i);
                        self.pv[0][0] = mv;
                        self.pv_len[0] = 1;
                        best_score = zero_window.min(beta);
                        if line == 1 {
                            self.report_new_best(depth, best_score, Bound::Lower, hook);
                        }
                    }
                }
            }
            self.count_nodes_below(mv, self.nodes - nodes_before);
            if self.stopped {
                completed = false;
                break;
            }
            best_score = best_score.max(score);
            if score > alpha {
                // Keep the best move first so an abort leaves it at the front; moves that
                // failed low keep their order from the last iteration.
                root_moves[i].1 = score;
                to_front(root_moves, proven, i);
                proven += 1;
                alpha = score;
                self.update_pv(0, mv);
                if score >= beta {
                    break;
                }
                if i > 0 && depth > 1 && line == 1 {
                    self.report_new_best(depth, score, Bound::Exact, hook);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tests::search_depth;
    use crate::search::{FixedLimits, Searcher, POLL_INTERVAL};

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
            // The result keeps the finished iteration's lines (a limited strength's choice).
            let kept: Vec<(i32, &[Move])> =
                result.lines.iter().map(|l| (l.score, &l.pv[..])).collect();
            let shown: Vec<(i32, &[Move])> = lines.iter().map(|l| (l.score, &l.pv[..])).collect();
            assert_eq!(kept, shown, "{fen}");
            assert_eq!(single.lines.len(), 1, "{fen}");
            assert_eq!(single.lines[0].pv, single.pv, "{fen}");
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
}
