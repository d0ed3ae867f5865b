//! Knights, bishops, rooks and queens: mobility, outposts, files, the seventh rank, the bishop
//! pair; their attacks go into the shared maps for king safety and threats. And threats.

use super::params as p;
use super::{weights, Ctx, Note, Sink};
use crate::chess::attacks::{bishop_attacks, knight_attacks, pawn_attacks_set, rook_attacks};
use crate::chess::{Bitboard, Color, Rank, Role};

/// Ranks 4 to 6 from each side's view, where outposts are.
const OUTPOST_RANKS: [Bitboard; 2] = [
    Bitboard(0x0000_FFFF_FF00_0000),
    Bitboard(0x0000_00FF_FFFF_0000),
];

const MOBILITY: [usize; 6] = [
    0,
    p::MOBILITY_KNIGHT,
    p::MOBILITY_BISHOP,
    p::MOBILITY_ROOK,
    p::MOBILITY_QUEEN,
    0,
];

pub(super) fn pieces<S: Sink>(c: &mut Ctx, us: Color, sink: &mut S) {
    let them = !us;
    let (u, t) = (us.index(), them.index());
    let pos = c.pos;
    let occupied = c.occupied;
    let mobility_area = !pos.color_bb(us) & !c.pawn_attacks[t];
    let zone = c.king_zone[t];
    // Squares enemy pawns attack now or could after advancing.
    let their_reach = pawn_attacks_set(them, c.pawns[t].forward_fill(them));
    let outposts = OUTPOST_RANKS[u] & c.pawn_attacks[u] & !their_reach;
    let seventh = Bitboard::rank(Rank(6).relative_to(us));
    let rook_on_seventh_matters =
        (c.pawns[t] & seventh).non_empty() || c.king[t].rank().relative_to(us) == Rank(7);
    let mut units = 0;

    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for sq in pos.pieces(us, role) {
            let attacks = match role {
                Role::Knight => knight_attacks(sq),
                Role::Bishop => bishop_attacks(sq, occupied),
                Role::Rook => rook_attacks(sq, occupied),
                _ => bishop_attacks(sq, occupied) | rook_attacks(sq, occupied),
            };
            c.attacked_by[u][role.index()] |= attacks;
            c.attacked[u] |= attacks;
            sink.add(
                us,
                MOBILITY[role.index()] + (attacks & mobility_area).count() as usize,
                1,
            );
            let on_zone = attacks & zone;
            if on_zone.non_empty() {
                units += weights::KING_ATTACKER_UNITS[role.index()]
                    + weights::KING_ZONE_ATTACK_UNITS * on_zone.count() as i32;
                if S::TRACING {
                    let squares = on_zone.count() as i32;
                    sink.note(us, Note::KingAttacker { squares });
                }
            }
            match role {
                Role::Knight if outposts.contains(sq) => sink.add(us, p::KNIGHT_OUTPOST, 1),
                Role::Bishop if outposts.contains(sq) => sink.add(us, p::BISHOP_OUTPOST, 1),
                Role::Rook | Role::Queen => {
                    let file = Bitboard::file(sq.file());
                    if (file & c.pawns[u]).is_empty() {
                        let open = (file & c.pawns[t]).is_empty();
                        let index = match (role, open) {
                            (Role::Rook, true) => p::ROOK_OPEN_FILE,
                            (Role::Rook, false) => p::ROOK_HALF_OPEN_FILE,
                            (_, true) => p::QUEEN_OPEN_FILE,
                            (_, false) => p::QUEEN_HALF_OPEN_FILE,
                        };
                        sink.add(us, index, 1);
                    }
                    if role == Role::Rook && rook_on_seventh_matters && seventh.contains(sq) {
                        sink.add(us, p::ROOK_SEVENTH, 1);
                    }
                }
                _ => {}
            }
        }
    }
    c.king_units[u] += units;
    if pos.pieces(us, Role::Bishop).has_several() {
        sink.add(us, p::BISHOP_PAIR, 1);
    }
}

/// Enemy pieces `us` attacks with pawns, minor pieces or rooks, and hanging pieces.
pub(super) fn threats<S: Sink>(c: &Ctx, us: Color, sink: &mut S) {
    let them = !us;
    let (u, t) = (us.index(), them.index());
    let pos = c.pos;
    let by_minor = c.attacked_by[u][Role::Knight.index()] | c.attacked_by[u][Role::Bishop.index()];
    let by_rook = c.attacked_by[u][Role::Rook.index()];
    let heavy = pos.pieces(them, Role::Rook) | pos.pieces(them, Role::Queen);
    let weak = pos.color_bb(them) & !c.pawn_attacks[t];
    // Threatened pieces are rare: test for any before counting (popcount is slow on
    // baseline x86-64).
    let by_pawn = c.pawn_attacks[u] & !c.pawns[t];
    let by_minor = by_minor & (weak | heavy);
    let by_rook = by_rook & (weak | pos.pieces(them, Role::Queen));
    if ((by_pawn | by_minor | by_rook) & pos.color_bb(them)).non_empty() {
        for role in [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ] {
            let victims = pos.pieces(them, role);
            add_count(
                sink,
                us,
                p::THREAT_BY_PAWN + role.index(),
                victims & by_pawn,
            );
            add_count(
                sink,
                us,
                p::THREAT_BY_MINOR + role.index(),
                victims & by_minor,
            );
            add_count(
                sink,
                us,
                p::THREAT_BY_ROOK + role.index(),
                victims & by_rook,
            );
        }
    }
    let pieces = pos.color_bb(them) & !c.pawns[t] & !pos.pieces(them, Role::King);
    add_count(
        sink,
        us,
        p::HANGING,
        pieces & c.attacked[u] & !c.attacked[t],
    );
}

/// Applies a weight once per square of `set`, if any.
#[inline(always)]
fn add_count<S: Sink>(sink: &mut S, us: Color, index: usize, set: Bitboard) {
    if set.non_empty() {
        sink.add(us, index, set.count() as i32);
    }
}
