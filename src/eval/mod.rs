//! Static evaluation: material and piece-square terms, tapered between middlegame and
//! endgame by the material left. Deliberately simple; strength work comes later.
//! Scores are centipawns from the side to move's point of view.

use crate::chess::{Bitboard, Color, Position, Role, Square};

/// A middlegame and an endgame value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Score {
    pub mg: i32,
    pub eg: i32,
}

impl Score {
    const fn new(mg: i32, eg: i32) -> Score {
        Score { mg, eg }
    }
}

impl std::ops::AddAssign for Score {
    fn add_assign(&mut self, o: Score) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for Score {
    fn sub_assign(&mut self, o: Score) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

/// Piece values, middlegame and endgame.
pub const MATERIAL: [Score; 6] = [
    Score::new(100, 125),
    Score::new(320, 300),
    Score::new(335, 320),
    Score::new(480, 530),
    Score::new(960, 1000),
    Score::new(0, 0),
];

/// Value of a role for move ordering and SEE-like decisions (middlegame).
pub const fn role_value(role: Role) -> i32 {
    MATERIAL[role as usize].mg
}

/// Game phase weight of each role; 24 = all pieces on the board.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
const MAX_PHASE: i32 = 24;

/// Distance of a square from the centre, 0 (d4/e4/d5/e5) to 3 (corners).
const fn centre_distance(sq: usize) -> i32 {
    let f = (sq % 8) as i32;
    let r = (sq / 8) as i32;
    let df = if f < 4 { 3 - f } else { f - 4 };
    let dr = if r < 4 { 3 - r } else { r - 4 };
    if df > dr {
        df
    } else {
        dr
    }
}

/// Piece-square values for White (Black mirrors the rank), built from simple rules:
/// pawns gain as they advance (more in the endgame) and in the centre; minor pieces and the
/// queen like the centre; rooks like the seventh rank; the king hides in the middlegame and
/// centralises in the endgame.
const fn build_psqt() -> [[Score; 64]; 6] {
    let mut t = [[Score::new(0, 0); 64]; 6];
    let pawn_mg = [0, 0, 2, 6, 14, 26, 45, 0];
    let pawn_eg = [0, 0, 6, 14, 28, 50, 85, 0];
    let mut sq = 0;
    while sq < 64 {
        let f = (sq % 8) as i32;
        let r = sq / 8;
        let cd = centre_distance(sq);
        let central_file = if f == 3 || f == 4 {
            10
        } else if f == 2 || f == 5 {
            4
        } else {
            0
        };
        t[0][sq] = Score::new(
            pawn_mg[r] + if r >= 2 { central_file } else { 0 },
            pawn_eg[r],
        );
        t[1][sq] = Score::new(-12 * cd + 10, -8 * cd + 8);
        t[2][sq] = Score::new(-6 * cd + 6, -5 * cd + 5);
        t[3][sq] = Score::new(
            if r == 6 { 18 } else { 0 } + if f == 3 || f == 4 { 4 } else { 0 },
            if r == 6 { 12 } else { 0 },
        );
        t[4][sq] = Score::new(-3 * cd + 3, -6 * cd + 6);
        let shelter = if r == 0 && (f <= 2 || f >= 6) { 20 } else { 0 };
        t[5][sq] = Score::new(shelter - 20 * r as i32, -12 * cd + 12);
        sq += 1;
    }
    t
}

static PSQT: [[Score; 64]; 6] = build_psqt();

/// The piece-square value of `role` of `color` on `sq`.
#[inline(always)]
pub fn psqt(color: Color, role: Role, sq: Square) -> Score {
    PSQT[role.index()][sq.relative_to(color).index()]
}

/// Evaluation split by term, each from White's point of view (for the `eval` command).
#[derive(Clone, Debug, Default)]
pub struct Breakdown {
    pub material: Score,
    pub placement: Score,
    pub bishop_pair: Score,
    pub phase: i32,
    /// The tapered total, from White's side.
    pub total: i32,
}

const BISHOP_PAIR: Score = Score::new(30, 45);
const TEMPO: i32 = 10;

pub fn breakdown(pos: &Position) -> Breakdown {
    let mut b = Breakdown::default();
    let mut phase = 0;
    for color in Color::ALL {
        let sign = if color == Color::White { 1 } else { -1 };
        for role in Role::ALL {
            let pieces: Bitboard = pos.pieces(color, role);
            phase += PHASE[role.index()] * pieces.count() as i32;
            for sq in pieces {
                let (m, p) = (MATERIAL[role.index()], psqt(color, role, sq));
                b.material.mg += sign * m.mg;
                b.material.eg += sign * m.eg;
                b.placement.mg += sign * p.mg;
                b.placement.eg += sign * p.eg;
            }
        }
        if pos.pieces(color, Role::Bishop).count() >= 2 {
            b.bishop_pair.mg += sign * BISHOP_PAIR.mg;
            b.bishop_pair.eg += sign * BISHOP_PAIR.eg;
        }
    }
    b.phase = phase.min(MAX_PHASE);
    let mut sum = b.material;
    sum += b.placement;
    sum += b.bishop_pair;
    b.total = (sum.mg * b.phase + sum.eg * (MAX_PHASE - b.phase)) / MAX_PHASE;
    b
}

/// The evaluation from the side to move's point of view, with a small bonus for having the
/// move. Drawn material scores 0.
pub fn evaluate(pos: &Position) -> i32 {
    if pos.is_insufficient_material() {
        return 0;
    }
    let white = breakdown(pos).total;
    let score = match pos.side_to_move() {
        Color::White => white,
        Color::Black => -white,
    };
    score + TEMPO
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_and_symmetric() {
        let pos = Position::startpos();
        assert_eq!(breakdown(&pos).total, 0);
        assert_eq!(evaluate(&pos), TEMPO);
    }

    #[test]
    fn extra_queen_is_winning_for_its_owner() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        assert!(evaluate(&pos) > 800);
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 b - - 0 1").unwrap();
        assert!(evaluate(&pos) < -800);
    }

    #[test]
    fn mirrored_positions_evaluate_alike() {
        let a =
            Position::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
                .unwrap();
        let b =
            Position::from_fen("rnbqkb1r/pppp1ppp/5n2/4p3/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 2 3")
                .unwrap();
        assert_eq!(evaluate(&a), evaluate(&b));
    }
}
