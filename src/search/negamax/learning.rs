//! What the search learns from a node: a move that cuts teaches the histories, killers and
//! countermove; a finished node teaches the evaluation correction and fills the table.

use super::{Evals, MoveLoop, Node};
use crate::chess::{Move, Position};
use crate::search::history;
use crate::search::movepick::{capture_of, is_quiet, piece_to};
use crate::search::score::{score_to_tt, TB_WIN_BOUND};
use crate::search::{Bound, Worker, FRAME_OFFSET};

impl Worker {
    /// A searched move's score: a new best above alpha raises alpha and heads the PV; one
    /// that reaches beta teaches the histories. True at that cutoff.
    #[inline(always)]
    pub(super) fn record_score(
        &mut self,
        pos: &Position,
        node: &mut Node,
        moves: &mut MoveLoop,
        mv: Move,
        score: i32,
    ) -> bool {
        if score > moves.best_score {
            moves.best_score = score;
            if score > node.alpha {
                moves.best_move = mv;
                node.alpha = score;
                if node.is_pv {
                    self.update_pv(node.ply, mv);
                }
                if node.alpha >= node.beta {
                    self.learn_cutoff(
                        pos,
                        node.ply,
                        node.depth,
                        mv,
                        &moves.quiets_tried[..moves.quiet_count],
                        &moves.noisy_tried[..moves.noisy_count],
                    );
                    return true;
                }
            }
        }
        false
    }

    /// What a finished node leaves: the correction history learns how far the static
    /// evaluation was off, and the table keeps the score, bound and best move.
    #[inline(always)]
    pub(super) fn learn_and_store(
        &mut self,
        pos: &Position,
        node: &Node,
        evals: &Evals,
        best_score: i32,
        best_move: Move,
        bound: Bound,
    ) {
        // Only where the search's score says so: a quiet position (no capture found best),
        // and a bound on the right side of the static evaluation.
        if !node.in_check
            && (best_move.is_none() || is_quiet(pos, best_move))
            && best_score.abs() < TB_WIN_BOUND
            && !(bound == Bound::Lower && best_score <= evals.static_eval)
            && !(bound == Bound::Upper && best_score >= evals.static_eval)
        {
            self.correction
                .update(pos, node.depth, evals.raw, best_score);
        }
        // A fail-low here means the quiet move that led here was good for the opponent:
        // reward it in the continuation history of the moves before it.
        if bound == Bound::Upper && node.ply >= 1 {
            let parent = self.frames[node.ply + FRAME_OFFSET - 1];
            if let (Some(now), true) = (parent.moved, parent.moved_quiet) {
                let bonus = history::bonus(node.depth);
                let earlier = self.earlier_moves(node.ply - 1);
                for e in earlier {
                    self.history.update_continuation(e, now, bonus);
                }
            }
        }
        // A fail-low proves no move best: keep whatever move the table already has.
        self.tt.store(
            node.key,
            best_move,
            score_to_tt(best_score, node.ply),
            node.depth,
            bound,
            evals.raw,
        );
    }

    /// A move cut at `ply`: reward it, and punish the moves of its kind tried before it.
    pub(super) fn learn_cutoff(
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
}
