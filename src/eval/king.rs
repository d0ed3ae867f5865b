//! King safety: attack units against the enemy king (pieces attacking the king zone and, if
//! there are any, safe checks) looked up in the `KING_DANGER` table; the pawn shield, pawn
//! storm and open files around the own king.

use super::params as p;
use super::{weights, Ctx, Note, Sink};
use crate::chess::attacks::{bishop_attacks, knight_attacks, rook_attacks};
use crate::chess::{Bitboard, Color, File, Role};

pub(super) fn safety<S: Sink>(c: &Ctx, us: Color, sink: &mut S) {
    let them = !us;
    let (u, t) = (us.index(), them.index());
    let pos = c.pos;

    // Our attack on their king: only when some piece attacks the king zone.
    if c.king_units[u] > 0 {
        let king = c.king[t];
        let mut units = c.king_units[u];
        let safe = !c.attacked[t] & !pos.color_bb(us);
        let diagonal = bishop_attacks(king, c.occupied);
        let straight = rook_attacks(king, c.occupied);
        let checks = [
            (Role::Knight, knight_attacks(king)),
            (Role::Bishop, diagonal),
            (Role::Rook, straight),
            (Role::Queen, diagonal | straight),
        ];
        for (role, from) in checks {
            if (from & safe & c.attacked_by[u][role.index()]).non_empty() {
                units += weights::KING_SAFE_CHECK_UNITS[role.index()];
                if S::TRACING {
                    sink.note(us, Note::SafeCheck(role));
                }
            }
        }
        let halved = pos.pieces(us, Role::Queen).is_empty();
        if halved {
            units /= 2;
        }
        if S::TRACING {
            sink.note(us, Note::KingAttackUnits { units, halved });
        }
        let units = units.min(63) as usize;
        if units > 0 {
            sink.add(us, p::KING_DANGER + units, 1);
        }
    }

    // Our own king's cover.
    let king = c.king[u];
    let ahead = Bitboard::rank(king.rank()).forward_fill(us);
    let ours = c.pawns[u] & ahead;
    let theirs = c.pawns[t] & ahead;
    let centre = king.file().0.clamp(1, 6);
    for f in centre - 1..=centre + 1 {
        let file = Bitboard::file(File(f));
        let (own, enemy) = (ours & file, theirs & file);
        if own.non_empty() {
            let rank = own.nearest_to(us).rank().relative_to(us).index();
            sink.add(us, p::KING_SHIELD + rank, 1);
        } else if enemy.is_empty() {
            sink.add(us, p::KING_OPEN_FILE, 1);
        } else {
            sink.add(us, p::KING_HALF_OPEN_FILE, 1);
        }
        if enemy.non_empty() {
            let rank = enemy.nearest_to(us).rank().relative_to(us).index();
            sink.add(us, p::KING_STORM + rank, 1);
        }
    }
}
