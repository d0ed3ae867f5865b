//! The quiescence search: the captures (and, at its first ply, the safe checks) searched
//! beyond the nominal depth so that no leaf is scored in the middle of an exchange.

use super::movepick::{capture_of, Context, MovePicker, Pick};
use super::params;
use super::score::{bound_cuts, bound_of, score_from_tt, score_to_tt};
use super::see::{see_ge, SEE_VALUE};
use super::{SearchHook, Worker, INFINITE, MATE, MAX_PLY, NO_EVAL};
use crate::chess::{Move, Position, Role};

/// The depth a quiescence result is stored at: below every full-width depth, and lower
/// without the first ply's quiet checks than with them, so that a result that did not look
/// at checks never cuts a node that would (the other way round is fine: it saw more).
const DEPTH_QS_CHECKS: i32 = 0;
const DEPTH_QS_NO_CHECKS: i32 = -1;

/// What the quiescence search does with a noisy move when not in check.
enum NoisyVerdict {
    Search,
    Skip,
    /// This move and all after it (the picker's losing captures) are not worth a look.
    StopHere,
}

/// Whether noisy move `mv` (with the picker's `order` score) is searched, against the
/// stand-pat score and alpha.
fn noisy_verdict(pos: &Position, mv: Move, order: i32, stand_pat: i32, alpha: i32) -> NoisyVerdict {
    match mv.promotion_role() {
        // Only queen promotions; under-promotions almost never matter here.
        Some(role) if role != Role::Queen => return NoisyVerdict::Skip,
        Some(_) => {}
        // Delta pruning: even winning the piece outright would not reach alpha.
        None => {
            let victim = capture_of(pos, mv).1;
            if stand_pat + SEE_VALUE[victim.index()] + params::delta_pruning_margin() <= alpha {
                return NoisyVerdict::Skip;
            }
        }
    }
    // Losing captures are not worth a look (the picker gives them last).
    if order < 0 {
        NoisyVerdict::StopHere
    } else {
        NoisyVerdict::Search
    }
}

impl Worker {
    /// The quiescence search: captures and queen promotions until the position is quiet,
    /// every evasion when in check, and at its first ply (`checks`) also the quiet moves
    /// that give check without losing material, so that a mate or a forking check just
    /// beyond the depth is seen.
    pub(super) fn quiescence(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        checks: bool,
        hook: &mut dyn SearchHook,
    ) -> i32 {
        self.pv_len[ply] = 0;
        self.evaluator.enter(ply, pos);
        if self.enter_node(hook) {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        if ply >= MAX_PLY {
            return self.evaluator.evaluate(pos, ply);
        }
        let key = pos.key();
        let in_check = pos.in_check();
        // In check every evasion is searched, checks or not: the result serves both.
        let depth = if checks || in_check {
            DEPTH_QS_CHECKS
        } else {
            DEPTH_QS_NO_CHECKS
        };
        let tt_hit = self.tt.probe(key);
        let mut tt_move = Move::NONE;
        if let Some(hit) = tt_hit {
            tt_move = hit.mv;
            if hit.depth >= depth && bound_cuts(hit, ply, alpha, beta) {
                return score_from_tt(hit.score, ply);
            }
        }
        let mut best_score = -INFINITE;
        let mut raw_eval = NO_EVAL;
        let mut stand_pat = NO_EVAL;
        if !in_check {
            raw_eval = tt_hit
                .map(|hit| hit.eval)
                .filter(|&eval| eval != NO_EVAL)
                .unwrap_or_else(|| self.evaluator.evaluate(pos, ply));
            stand_pat = self.corrected(pos, raw_eval);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best_score = stand_pat;
        }
        // In check every evasion is searched, so mates are seen; otherwise only noisy moves.
        let context = Context {
            tt_move,
            killers: [Move::NONE; 2],
            counter: Move::NONE,
            // Past the first quiescence ply these frames hold moves of an earlier line (the
            // quiescence search does not record its own): recording them measured no gain
            // (docs/measurements.md, ideas not kept).
            earlier: self.earlier_moves(ply),
        };
        let mut picker = MovePicker::new(context, !in_check);
        let original_alpha = alpha;
        let mut best = QuiescenceBest {
            score: best_score,
            mv: Move::NONE,
            alpha,
        };
        let mut legal = 0;
        while let Some(Pick { mv, score: order }) = picker.next(pos, &self.history) {
            legal += 1;
            if !in_check {
                match noisy_verdict(pos, mv, order, stand_pat, best.alpha) {
                    NoisyVerdict::Search => {}
                    NoisyVerdict::Skip => continue,
                    NoisyVerdict::StopHere => break,
                }
            }
            if self.quiescence_move(pos, mv, beta, ply, &mut best, hook) {
                break;
            }
        }
        if checks && !in_check && !self.stopped && best.alpha < beta {
            self.quiescence_checks(pos, beta, ply, &mut best, hook);
        }
        if self.stopped {
            return 0;
        }
        if in_check && legal == 0 {
            return -MATE + ply as i32;
        }
        let bound = bound_of(best.score, original_alpha, beta);
        self.tt.store(
            key,
            best.mv,
            score_to_tt(best.score, ply),
            depth,
            bound,
            raw_eval,
        );
        best.score
    }

    /// At the first ply of the quiescence search, the quiet moves that give check without
    /// losing material, until one cuts.
    fn quiescence_checks(
        &mut self,
        pos: &Position,
        beta: i32,
        ply: usize,
        best: &mut QuiescenceBest,
        hook: &mut dyn SearchHook,
    ) {
        let check_squares = pos.check_squares();
        for mv in pos.quiet_moves().iter().copied() {
            if pos.gives_check_with(&check_squares, mv)
                && see_ge(pos, mv, 0)
                && self.quiescence_move(pos, mv, beta, ply, best, hook)
            {
                return;
            }
        }
    }

    /// Searches `mv` from the quiescence node `pos` and folds its score into `best`.
    /// Returns true when the node is done: the move cut, or the search was stopped.
    fn quiescence_move(
        &mut self,
        pos: &Position,
        mv: Move,
        beta: i32,
        ply: usize,
        best: &mut QuiescenceBest,
        hook: &mut dyn SearchHook,
    ) -> bool {
        self.tt.prefetch(pos.key_after(mv));
        let child = pos.after(mv);
        let score = -self.quiescence(&child, -beta, -best.alpha, ply + 1, false, hook);
        if self.stopped {
            return true;
        }
        if score > best.score {
            best.score = score;
            if score > best.alpha {
                best.mv = mv;
                best.alpha = score;
                self.update_pv(ply, mv);
            }
        }
        best.alpha >= beta
    }
}

/// The best a quiescence node has found so far.
struct QuiescenceBest {
    score: i32,
    mv: Move,
    /// The window's lower bound, raised by every better score.
    alpha: i32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{is_mate_score, FixedLimits, Searcher};

    /// A quiescence result without the first ply's quiet checks must not stand in for one
    /// with them: here the rook's quiet check mates, which only the search with checks sees.
    #[test]
    fn a_quiescence_entry_without_checks_does_not_cut_one_with_them() {
        let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/3R2K1 w - - 0 1").unwrap();
        let mut searcher = Searcher::new(1);
        let mut hook = FixedLimits::new(None, None);
        let mut quiescence = |checks: bool, alpha: i32, beta: i32| {
            searcher
                .main
                .quiescence(&pos, alpha, beta, 0, checks, &mut hook)
        };
        // Without checks: the standing pat, stored as an upper bound.
        let without = quiescence(false, -INFINITE, INFINITE);
        assert!(!is_mate_score(without));
        // A zero window at that score, with checks: the mate, not the stored "at most".
        assert_eq!(quiescence(true, without, without + 1), MATE - 1);
        // The other way round the entry serves: it has seen more than a search without.
        assert_eq!(quiescence(false, without, without + 1), MATE - 1);
    }

    /// The quiescence search's first ply looks at quiet checks: a back-rank mate by a rook
    /// move is found there, and not at the plies after it (where only captures are tried).
    #[test]
    fn quiescence_sees_a_quiet_mating_check_at_its_first_ply() {
        let pos = Position::from_fen("6k1/5ppp/8/8/8/8/8/3R2K1 w - - 0 1").unwrap();
        let quiescence = |checks: bool| {
            let mut searcher = Searcher::new(1);
            let mut hook = FixedLimits::new(None, None);
            searcher
                .main
                .quiescence(&pos, -INFINITE, INFINITE, 0, checks, &mut hook)
        };
        assert_eq!(quiescence(true), MATE - 1);
        assert!(!is_mate_score(quiescence(false)));
    }
}
