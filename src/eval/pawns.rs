//! Pawn structure (pawns only, cached in the pawn hash table) and passed pawns (which also
//! depend on the pieces and kings, so they are evaluated every time).

use super::params as p;
use super::{Accumulator, Ctx, Score, Sink};
use crate::chess::attacks::{distance, pawn_attacks, pawn_attacks_set};
use crate::chess::{Bitboard, Color, Position, Role};

/// Doubled, isolated, backward, phalanx and supported pawns, and the rank of passed pawns.
/// Returns the passed pawns of both colours.
pub(super) fn structure<S: Sink>(pos: &Position, sink: &mut S) -> Bitboard {
    let mut passed = Bitboard::EMPTY;
    for us in Color::ALL {
        let them = !us;
        let ours = pos.pieces(us, Role::Pawn);
        let theirs = pos.pieces(them, Role::Pawn);
        let their_attacks = pawn_attacks_set(them, theirs);
        // Squares with an enemy pawn ahead on the same or a neighbouring file.
        let their_front = theirs.front_span(them);
        let not_passed = their_front | their_front.east() | their_front.west();
        // Squares with an own pawn ahead on the same file.
        let behind_ours = ours.front_span(them);
        for sq in ours {
            let bb = Bitboard::from_square(sq);
            let rank = sq.rank().relative_to(us).index();
            let neighbours = ours & Bitboard::adjacent_files(sq.file());
            let doubled = behind_ours.contains(sq);
            if doubled {
                sink.add(us, p::PAWN_DOUBLED, 1);
            }
            if neighbours.is_empty() {
                sink.add(us, p::PAWN_ISOLATED, 1);
            } else {
                // No neighbour level with it or behind it, and the stop square is guarded.
                let level_or_behind = Bitboard::rank(sq.rank()).forward_fill(them);
                if (neighbours & level_or_behind).is_empty()
                    && (bb.forward(us) & their_attacks).non_empty()
                {
                    sink.add(us, p::PAWN_BACKWARD, 1);
                }
                if (ours & (bb.east() | bb.west())).non_empty() {
                    sink.add(us, p::PAWN_PHALANX + rank, 1);
                }
                let defenders = pawn_attacks(them, sq) & ours;
                if defenders.non_empty() {
                    sink.add(us, p::PAWN_SUPPORTED + rank, defenders.count() as i32);
                }
            }
            if !doubled && !not_passed.contains(sq) {
                passed |= bb;
                sink.add(us, p::PASSED_RANK + rank, 1);
            }
        }
    }
    passed
}

/// Passed pawns of `us` against the pieces: blocked or free path, king distances to the stop
/// square, and the unstoppable pawn against a king with pawns only.
pub(super) fn passed<S: Sink>(c: &Ctx, us: Color, passers: Bitboard, sink: &mut S) {
    let them = !us;
    let pos = c.pos;
    let pawn_ending = pos.only_king_and_pawns(them);
    for sq in passers {
        let bb = Bitboard::from_square(sq);
        let rank = sq.rank().relative_to(us).index();
        let stop = bb.forward(us);
        let path = bb.front_span(us);
        if (stop & c.occupied).non_empty() {
            sink.add(us, p::PASSED_BLOCKED + rank, 1);
        } else if (path & (c.occupied | c.attacked[them.index()])).is_empty() {
            sink.add(us, p::PASSED_FREE_PATH + rank, 1);
        }
        let stop_sq = stop.first();
        let own = distance(c.king[us.index()], stop_sq) as i32;
        let their = distance(c.king[them.index()], stop_sq) as i32;
        sink.add(us, p::PASSED_OWN_KING_DISTANCE + rank, own);
        sink.add(us, p::PASSED_THEIR_KING_DISTANCE + rank, their);
        if pawn_ending && (path & c.occupied).is_empty() {
            // The rule of the square: the king must reach the promotion square in time.
            let promotion = path.forward_fill(us) & Bitboard::rank(them.back_rank());
            let mut pawn_moves = 7 - rank as i32;
            if rank == 1 {
                pawn_moves -= 1;
            }
            let tempo = i32::from(pos.side_to_move() == them);
            let king_moves = distance(c.king[them.index()], promotion.first()) as i32 - tempo;
            if king_moves > pawn_moves {
                sink.add(us, p::PASSED_UNSTOPPABLE, 1);
            }
        }
    }
}

/// One cached pawn structure: the pawns it belongs to (compared in full, so a hit is never
/// wrong), its score from White's view, and the passed pawns of both colours.
#[derive(Clone, Copy)]
pub(super) struct PawnEntry {
    white: u64,
    black: u64,
    pub(super) passed: Bitboard,
    pub(super) score: Score,
}

const EMPTY_ENTRY: PawnEntry = PawnEntry {
    // No position has pawns on every square: never matches.
    white: !0,
    black: !0,
    passed: Bitboard::EMPTY,
    score: Score::ZERO,
};

const PAWN_TABLE_ENTRIES: usize = 1 << 14;
/// The size of one pawn hash table (one per search thread).
pub const PAWN_TABLE_BYTES: usize = PAWN_TABLE_ENTRIES * std::mem::size_of::<PawnEntry>();

/// A hash of the pawns alone (both colours), well mixed in its high bits: the pawn table's
/// index, and the search's correction history's.
#[inline(always)]
pub fn pawn_hash(pos: &Position) -> u64 {
    let white = pos.pieces(Color::White, Role::Pawn).0;
    let black = pos.pieces(Color::Black, Role::Pawn).0;
    white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
}

/// A direct-mapped table of pawn structures.
pub(super) struct PawnTable {
    entries: Box<[PawnEntry]>,
}

impl PawnTable {
    pub(super) fn new() -> PawnTable {
        PawnTable {
            entries: vec![EMPTY_ENTRY; PAWN_TABLE_ENTRIES].into_boxed_slice(),
        }
    }

    pub(super) fn clear(&mut self) {
        self.entries.fill(EMPTY_ENTRY);
    }

    /// The entry for the pawns of `pos`, computed now if it is not stored.
    #[inline(always)]
    pub(super) fn probe(&mut self, pos: &Position) -> &PawnEntry {
        let white = pos.pieces(Color::White, Role::Pawn).0;
        let black = pos.pieces(Color::Black, Role::Pawn).0;
        let index = (pawn_hash(pos) >> (64 - PAWN_TABLE_ENTRIES.trailing_zeros())) as usize;
        let entry = &mut self.entries[index];
        if entry.white != white || entry.black != black {
            let mut acc = Accumulator::default();
            let passed = structure(pos, &mut acc);
            *entry = PawnEntry {
                white,
                black,
                passed,
                score: acc.white_view(),
            };
        }
        entry
    }
}
