//! Scores beyond the evaluation: mates, tablebase wins and losses, what a GUI is shown for
//! them, and their conversion to and from the transposition table, which stores them
//! relative to the node rather than the root.

use super::tt::{self, Bound};
use super::MAX_PLY;

/// Mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 31_000;
pub(super) const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// A tablebase win `n` plies from the root scores `TB_WIN - n`: above any evaluation and
/// below every mate score, so a found mate still counts for more and shorter wins for more.
pub const TB_WIN: i32 = MATE_BOUND - 1 - MAX_PLY as i32;
/// Scores at least this far from 0 are tablebase wins or losses (or mates).
pub(super) const TB_WIN_BOUND: i32 = TB_WIN - MAX_PLY as i32;
/// What a GUI is shown for a tablebase win: `TB_WIN - n` shows as `TB_WIN_SHOWN - n`
/// centipawns (UCI `cp`, xboard thinking), the convention of Stockfish-like engines: far
/// above any evaluation, yet no mate claim, which the tables' win/draw/loss cannot back.
pub const TB_WIN_SHOWN: i32 = 20_000;
/// The largest evaluation shown: one below the band of shown tablebase wins.
const EVAL_SHOWN_MAX: i32 = TB_WIN_SHOWN - MAX_PLY as i32 - 1;

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

/// The centipawns shown to a GUI for a score that is not a mate (see `is_mate_score`), in a
/// position with `material` (`wdl::material`): a tablebase win `n` plies away (`TB_WIN - n`)
/// as `TB_WIN_SHOWN - n`, a loss the negative; anything else normalised so that +100 is a
/// side as likely to win as not (`wdl::normalised`), kept below that band.
pub fn shown_centipawns(score: i32, material: i32) -> i32 {
    if score.abs() >= TB_WIN_BOUND {
        let plies = (TB_WIN - score.abs()).clamp(0, MAX_PLY as i32);
        score.signum() * (TB_WIN_SHOWN - plies)
    } else {
        super::wdl::normalised(score, material).clamp(-EVAL_SHOWN_MAX, EVAL_SHOWN_MAX)
    }
}

/// What a node's best score says about its value, given the window it was searched in.
#[inline(always)]
pub(super) fn bound_of(best_score: i32, alpha: i32, beta: i32) -> Bound {
    if best_score >= beta {
        Bound::Lower
    } else if best_score > alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// Whether a stored result settles the node's value for the window (alpha, beta).
#[inline(always)]
pub(super) fn bound_cuts(hit: tt::Hit, ply: usize, alpha: i32, beta: i32) -> bool {
    let score = score_from_tt(hit.score, ply);
    match hit.bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
        Bound::None => false,
    }
}

/// The table's score where the entry's bound says it is nearer the truth than the static
/// evaluation `eval`, else `eval`: the better guess of a node's value before searching it.
/// Mate scores are left out, as a guess they would only mislead the pruning.
#[inline(always)]
pub(super) fn refined_eval(eval: i32, tt_score: i32, bound: Bound) -> i32 {
    if is_mate_score(tt_score) {
        return eval;
    }
    let tighter = match bound {
        Bound::Exact => true,
        Bound::Lower => tt_score > eval,
        Bound::Upper => tt_score < eval,
        Bound::None => false,
    };
    if tighter {
        tt_score
    } else {
        eval
    }
}

/// Mate and tablebase scores are stored relative to the node, not the root.
pub(super) fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score + ply as i32
    } else if score <= -TB_WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

pub(super) fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= TB_WIN_BOUND {
        score - ply as i32
    } else if score <= -TB_WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tablebase_scores_show_in_their_band_above_every_evaluation() {
        for material in [0, 20, 58, 78] {
            let shown = |score| shown_centipawns(score, material);
            assert_eq!(shown(TB_WIN - 1), TB_WIN_SHOWN - 1);
            assert_eq!(shown(-TB_WIN + 17), -TB_WIN_SHOWN + 17);
            assert_eq!(shown(TB_WIN_BOUND), TB_WIN_SHOWN - MAX_PLY as i32);
            assert_eq!(shown(0), 0);
            assert_eq!(shown(-1135), -super::super::wdl::normalised(1135, material));
            // The largest evaluation still shows below the lowest table win.
            assert!(shown(TB_WIN_BOUND - 1) < TB_WIN_SHOWN - MAX_PLY as i32);
        }
        assert!(!is_mate_score(TB_WIN));
    }

    #[test]
    fn the_table_refines_the_evaluation_only_where_its_bound_allows() {
        // A lower bound above the evaluation, an upper bound below it, or an exact score.
        assert_eq!(refined_eval(10, 50, Bound::Lower), 50);
        assert_eq!(refined_eval(10, -50, Bound::Upper), -50);
        assert_eq!(refined_eval(10, -50, Bound::Exact), -50);
        // A bound on the wrong side of the evaluation says nothing new.
        assert_eq!(refined_eval(10, -50, Bound::Lower), 10);
        assert_eq!(refined_eval(10, 50, Bound::Upper), 10);
        assert_eq!(refined_eval(10, 50, Bound::None), 10);
        // A mate is no guess of a quiet position's value.
        assert_eq!(refined_eval(10, MATE - 5, Bound::Exact), 10);
        assert_eq!(refined_eval(10, -MATE + 5, Bound::Upper), 10);
    }
}
