//! Static exchange evaluation: what a capture sequence on one square wins or loses if both
//! sides keep recapturing with their least valuable attacker and may stop when it suits them.
//! The search uses it to order captures, to skip losing captures in quiescence and to prune
//! losing moves at low depth.

use crate::chess::attacks::{bishop_attacks, rook_attacks};
use crate::chess::{Bitboard, Color, Move, Position, Role};

/// Exchange values: simple and round, so thresholds read easily.
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 20_000];

#[inline(always)]
fn value(role: Role) -> i32 {
    SEE_VALUE[role.index()]
}

/// Whether `mv` wins at least `threshold` centipawns in the exchange it starts.
pub fn see_ge(pos: &Position, mv: Move, threshold: i32) -> bool {
    // Castling never loses material; promotions and en passant are judged by what they win.
    if mv.is_castle() {
        return threshold <= 0;
    }
    let (from, to) = (mv.from(), mv.to());
    let captured = if mv.is_en_passant() {
        Some(Role::Pawn)
    } else {
        pos.role_on(to)
    };
    let mut swing = captured.map_or(0, value) - threshold;
    let mut next_victim = pos.role_on(from).unwrap_or(Role::Pawn);
    if let Some(promoted) = mv.promotion_role() {
        swing += value(promoted) - value(Role::Pawn);
        next_victim = promoted;
    }
    // Even if our piece is taken for nothing, do we still reach the threshold?
    if swing < 0 {
        return false;
    }
    swing -= value(next_victim);
    if swing >= 0 {
        return true;
    }

    let mut occupied = pos.occupied().without(from).with(to);
    if mv.is_en_passant() {
        occupied = occupied.without(if pos.side_to_move() == Color::White {
            to.offset(-8)
        } else {
            to.offset(8)
        });
    }
    let diagonal = pos.role_bb(Role::Bishop) | pos.role_bb(Role::Queen);
    let straight = pos.role_bb(Role::Rook) | pos.role_bb(Role::Queen);
    let mut attackers = pos.attackers_to(to, occupied) & occupied;
    let mut side = !pos.side_to_move();
    // `swing` is from the point of view of the side that just captured; each round the
    // other side may recapture with its cheapest attacker, and stops when that cannot pay.
    loop {
        let ours: Bitboard = attackers & pos.color_bb(side);
        if ours.is_empty() {
            break;
        }
        let role = Role::ALL
            .into_iter()
            .find(|&r| (ours & pos.role_bb(r)).non_empty())
            .unwrap_or(Role::King);
        // Taking with the king into a defended square is illegal: the other side wins.
        if role == Role::King && (attackers & pos.color_bb(!side)).non_empty() {
            break;
        }
        side = !side;
        swing = -swing - 1 - value(role);
        if swing >= 0 {
            break;
        }
        let piece = (ours & pos.role_bb(role)).first();
        occupied = occupied.without(piece);
        // Uncover sliders behind the piece that just captured.
        if matches!(role, Role::Pawn | Role::Bishop | Role::Queen) {
            attackers |= bishop_attacks(to, occupied) & diagonal;
        }
        if matches!(role, Role::Rook | Role::Queen) {
            attackers |= rook_attacks(to, occupied) & straight;
        }
        attackers &= occupied;
    }
    // The side to move at the end of the exchange is the one that lost it.
    side != pos.side_to_move()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (FEN, move in coordinates, exact exchange value for the side to move).
    const CASES: &[(&str, &str, i32)] = &[
        // Pawn takes an undefended knight.
        ("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 320),
        // Rook takes a pawn defended by a pawn: loses the rook for a pawn.
        ("4k3/2p5/3p4/8/8/8/8/3RK3 w - - 0 1", "d1d6", 100 - 500),
        // Knight takes a pawn defended by a knight, recaptured by our bishop: N for P+N.
        ("4k3/8/5n2/3p4/8/1B2N3/8/4K3 w - - 0 1", "e3d5", 100),
        // X-ray: two rooks against one defender on an open file.
        ("3rk3/8/8/8/3p4/8/3R4/3RK3 w - - 0 1", "d2d4", 100),
        // Queen takes a defended pawn: bad.
        ("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5", 100 - 950),
        // En passant that can be recaptured by a pawn: pawn for pawn.
        ("4k3/2p5/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 0),
        // Promotion on an undefended square wins queen minus pawn.
        ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", 950 - 100),
        // Promotion on a defended square: the queen is taken, we lose the pawn.
        ("r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8q", -100),
        // Promotion capturing a defended rook: rook won, queen lost, pawn lost.
        ("1r2k3/P7/8/8/8/8/1r6/4K3 w - - 0 1", "a7b8q", 500 - 100),
        // Black to move, mirrored: pawn takes an undefended knight.
        ("4k3/8/8/4p3/3N4/8/8/4K3 b - - 0 1", "e5d4", 320),
        // The king recaptures an undefended queen.
        ("4k3/8/8/3q4/8/8/4K3/3R4 b - - 0 1", "d5d1", 500 - 950),
        // ... but may not recapture on a square the rook behind defends.
        ("3rk3/8/8/3q4/8/8/4K3/3R4 b - - 0 1", "d5d1", 500),
        // Quiet move to a square attacked by a pawn loses the piece.
        ("4k3/8/2p5/8/8/8/8/3RK3 w - - 0 1", "d1d5", -500),
    ];

    #[test]
    fn exchange_values_match_the_table() {
        for &(fen, mv, exact) in CASES {
            let pos = Position::from_fen(fen).unwrap();
            let m = pos
                .parse_coordinate(mv)
                .unwrap_or_else(|e| panic!("{fen} {mv}: {e:?}"));
            assert!(see_ge(&pos, m, exact), "{fen} {mv}: should reach {exact}");
            assert!(
                !see_ge(&pos, m, exact + 1),
                "{fen} {mv}: should not reach {}",
                exact + 1
            );
        }
    }
}
