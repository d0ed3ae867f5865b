//! What a score means: the chances of a win, a draw and a loss from it, fitted to Kestrel's
//! own self-play games (`kestrel wdl-fit`), shown with `UCI_ShowWDL`.
//!
//! The model: with `s` the search's score for a side and `m` the material on the board
//! (pawn 1, knight and bishop 3, rook 5, queen 9, both sides, clamped to 17-78), that side
//! wins with probability `1 / (1 + exp((a(m) - s) / b(m)))` and loses with the same of
//! `-s`; the rest is a draw. `a` and `b` are cubics in `m / 58`; `a(m)` is the score at
//! which a win is as likely as not (docs/measurements.md: the fit and how it holds on games
//! it did not see), and the centipawns shown to a GUI are the score scaled by it
//! (`normalised`): +100 shown is an even chance to win at any material. The search itself
//! never reads this.

use super::score::TB_WIN_BOUND;
use crate::chess::{Position, Role};

/// Coefficients of `a` and `b`, lowest power first: `c0 + c1·x + c2·x² + c3·x³` with
/// `x = m / 58`. Fitted by `kestrel wdl-fit --iterations 5000` on 1.80 M positions of
/// kestrel-10 self-play at 5,000 nodes a move (datagen of 329bbce, seed 70001, the file's
/// first 2,000,000 lines; the last 0.20 M of them held out), docs/measurements.md.
pub const A: [f64; 4] = [681.697, -1524.294, 1506.33, -530.077];
pub const B: [f64; 4] = [129.166, 30.73, 52.081, -47.417];

/// The material the model reads: pawn 1, knight and bishop 3, rook 5, queen 9, both sides.
pub fn material(pos: &Position) -> i32 {
    [
        (Role::Pawn, 1),
        (Role::Knight, 3),
        (Role::Bishop, 3),
        (Role::Rook, 5),
        (Role::Queen, 9),
    ]
    .iter()
    .map(|&(role, value)| value * pos.role_bb(role).count() as i32)
    .sum()
}

/// A score (centipawns, not a mate or tablebase result) as shown: scaled so that 100 is the
/// score at which a side at `material` wins as often as not (`a`).
pub fn normalised(score: i32, material: i32) -> i32 {
    let (a, _) = params_at(material, &A, &B);
    (100.0 * f64::from(score) / a.max(1.0)).round() as i32
}

/// The model's `a` and `b` at `material` (centipawns).
pub fn params_at(material: i32, a: &[f64; 4], b: &[f64; 4]) -> (f64, f64) {
    let x = f64::from(material.clamp(17, 78)) / 58.0;
    let poly = |c: &[f64; 4]| ((c[3] * x + c[2]) * x + c[1]) * x + c[0];
    (poly(a), poly(b).max(1.0))
}

/// Win, draw and loss chances (each in 0-1, summing to 1) of a score `score` (centipawns,
/// not a mate) for the side it is given for, at `material`.
pub fn chances(score: f64, material: i32, a: &[f64; 4], b: &[f64; 4]) -> (f64, f64, f64) {
    let (a, b) = params_at(material, a, b);
    let win = 1.0 / (1.0 + ((a - score) / b).exp());
    let loss = 1.0 / (1.0 + ((a + score) / b).exp());
    (win, (1.0 - win - loss).max(0.0), loss)
}

/// `wdl W D L` per mille for the side to move of `pos` with the search's score `score`: a
/// mate or tablebase result is certain; the three always sum to 1000.
pub fn per_mille(score: i32, pos: &Position) -> (u32, u32, u32) {
    if score >= TB_WIN_BOUND {
        return (1000, 0, 0);
    }
    if score <= -TB_WIN_BOUND {
        return (0, 0, 1000);
    }
    let (w, _, l) = chances(f64::from(score), material(pos), &A, &B);
    let (w, l) = ((w * 1000.0).round() as u32, (l * 1000.0).round() as u32);
    let l = l.min(1000 - w);
    (w, 1000 - w - l, l)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: [&str; 3] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r4rk1/pp3ppp/2n5/8/8/2N5/PP3PPP/R4RK1 w - - 0 1",
        "8/5pk1/8/8/8/8/5PK1/8 w - - 0 1",
    ];

    #[test]
    fn material_counts_both_sides() {
        let pos = |fen: &str| Position::from_fen(fen).unwrap();
        assert_eq!(material(&pos(FENS[0])), 78);
        assert_eq!(material(&pos(FENS[1])), 2 * (5 + 3 + 10));
        assert_eq!(material(&pos(FENS[2])), 2);
    }

    /// A shown +1.00 is `a` at every material, and the scale keeps signs and order.
    #[test]
    fn a_pawn_shown_is_where_a_win_is_as_likely_as_not() {
        for material in [0, 17, 30, 58, 78, 90] {
            let (a, _) = params_at(material, &A, &B);
            assert!(a > 30.0 && a < 400.0, "a({material}) = {a}");
            // `a` rounded to whole centipawns is off by up to half of one, which shows as
            // up to `50 / a` after scaling.
            let slack = (50.0 / a).ceil() as i32;
            let shown = normalised(a.round() as i32, material);
            assert!((shown - 100).abs() <= slack, "{material}: {shown}");
            assert_eq!(normalised(-(a.round() as i32), material), -shown);
            assert_eq!(normalised(0, material), 0);
            assert!(normalised(400, material) > normalised(399, material) - 1);
        }
    }

    /// At `a` a win is as likely as not; the chances sum to 1000, grow with the score and
    /// are symmetric; mates and tablebase results are certain.
    #[test]
    fn the_chances_hold_together() {
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            let (a, _) = params_at(material(&pos), &A, &B);
            let (w, _, _) = per_mille(a.round() as i32, &pos);
            assert!((495..=505).contains(&w), "{fen}: {w}");
            let mut last_win = 0;
            for score in (-1000..=1000).step_by(50) {
                let (w, d, l) = per_mille(score, &pos);
                assert_eq!(w + d + l, 1000);
                assert!(w >= last_win, "{fen} {score}");
                last_win = w;
                let (w2, _, l2) = per_mille(-score, &pos);
                assert_eq!((w2, l2), (l, w), "{fen} {score}: symmetric");
            }
            let mate = super::super::MATE - 5;
            assert_eq!(per_mille(mate, &pos), (1000, 0, 0));
            assert_eq!(per_mille(-mate, &pos), (0, 0, 1000));
        }
    }
}
