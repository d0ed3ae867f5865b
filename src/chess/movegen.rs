//! Legal move generation, pin- and check-aware: no move is made and tested.
//!
//! One generic generator feeds a `MoveSink`; the list sink expands target sets into moves, the
//! counting sink only adds up set sizes (perft's bulk counting). Const parameters select the
//! stage: noisy moves (captures, en passant, all promotions), quiet moves (everything else,
//! castling included), or both. In check every stage is automatically an evasion stage.

use super::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, rook_attacks,
};
use super::bitboard::Bitboard;
use super::castling::CastlingSide;
use super::moves::{Move, MoveList};
use super::position::Position;
use super::types::{Color, Role, Square};

/// Receives generated moves, either one by one or as a from-square plus a set of targets.
pub trait MoveSink {
    /// Moves from `from` to each of `targets` (no promotions among them).
    fn moves_from(&mut self, from: Square, targets: Bitboard);
    /// Pawn moves to each of `targets`, from the square `offset` behind each target.
    fn pawn_moves(&mut self, targets: Bitboard, offset: i8);
    /// Promotions to each of `targets` from `offset` behind, all four pieces each.
    fn promotions(&mut self, targets: Bitboard, offset: i8);
    fn single(&mut self, mv: Move);
}

impl MoveSink for MoveList {
    #[inline(always)]
    fn moves_from(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.push(Move::normal(from, to));
        }
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, offset: i8) {
        for to in targets {
            self.push(Move::normal(to.offset(-offset), to));
        }
    }

    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, offset: i8) {
        for to in targets {
            let from = to.offset(-offset);
            for role in [Role::Queen, Role::Knight, Role::Rook, Role::Bishop] {
                self.push(Move::promotion(from, to, role));
            }
        }
    }

    #[inline(always)]
    fn single(&mut self, mv: Move) {
        self.push(mv);
    }
}

/// Counts moves without listing them.
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn moves_from(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn pawn_moves(&mut self, targets: Bitboard, _offset: i8) {
        self.0 += targets.count() as u64;
    }

    #[inline(always)]
    fn promotions(&mut self, targets: Bitboard, _offset: i8) {
        self.0 += 4 * targets.count() as u64;
    }

    #[inline(always)]
    fn single(&mut self, _mv: Move) {
        self.0 += 1;
    }
}

/// Shifts a set of squares by a signed number of bits (`+8` = one rank up).
#[inline(always)]
const fn shift(bb: Bitboard, by: i8) -> Bitboard {
    if by >= 0 {
        Bitboard(bb.0 << by)
    } else {
        Bitboard(bb.0 >> -by)
    }
}

impl Position {
    /// All legal moves.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<_, true, true>(&mut list);
        list
    }

    /// Captures, en passant and promotions (all four pieces, captures or not).
    #[inline]
    pub fn noisy_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<_, true, false>(&mut list);
        list
    }

    /// Every legal move that `noisy_moves` leaves out: quiet moves and castling.
    #[inline]
    pub fn quiet_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<_, false, true>(&mut list);
        list
    }

    /// The legal replies to check; the side to move must be in check.
    #[inline]
    pub fn evasions(&self) -> MoveList {
        debug_assert!(self.in_check());
        self.legal_moves()
    }

    /// The number of legal moves, counted without listing them.
    #[inline]
    pub fn count_legal_moves(&self) -> u64 {
        let mut counter = MoveCounter(0);
        self.generate::<_, true, true>(&mut counter);
        counter.0
    }

    /// Whether the side to move has any legal move (false = checkmate or stalemate).
    pub fn has_legal_moves(&self) -> bool {
        self.count_legal_moves() > 0
    }

    /// The generator. `NOISY` and `QUIET` choose the stage; both = all legal moves.
    #[inline(always)]
    pub fn generate<S: MoveSink, const NOISY: bool, const QUIET: bool>(&self, sink: &mut S) {
        self.generate_from::<S, NOISY, QUIET>(sink, Bitboard::FULL);
    }

    /// The generator for the pieces on `movers` only (`Bitboard::FULL`: every piece).
    #[inline(always)]
    fn generate_from<S: MoveSink, const NOISY: bool, const QUIET: bool>(
        &self,
        sink: &mut S,
        movers: Bitboard,
    ) {
        let us = self.side_to_move();
        let them = !us;
        let ours = self.color_bb(us);
        let theirs = self.color_bb(them);
        let occupied = ours | theirs;
        let king = self.king(us);
        let checkers = self.checkers();

        // Which destinations each stage allows, before check restrictions.
        let stage_mask = match (NOISY, QUIET) {
            (true, true) => !ours,
            (true, false) => theirs,
            (false, true) => !occupied,
            (false, false) => Bitboard::EMPTY,
        };

        // King moves: to squares not attacked once the king has left its square.
        let king_targets = if movers.contains(king) {
            king_attacks(king) & stage_mask
        } else {
            Bitboard::EMPTY
        };
        let occ_without_king = occupied ^ Bitboard::from_square(king);
        let mut safe = Bitboard::EMPTY;
        for to in king_targets {
            if !self.is_attacked(to, them, occ_without_king) {
                safe = safe.with(to);
            }
        }
        sink.moves_from(king, safe);

        if checkers.has_several() {
            return; // double check: only the king may move
        }
        // In check, other pieces must capture the checker or block its line.
        let check_mask = match checkers.try_first() {
            Some(checker) => between(king, checker) | checkers,
            None => Bitboard::FULL,
        };
        let target = stage_mask & check_mask;
        let pinned = self.pinned();
        // From here on only the pieces asked for move (the king was handled above).
        let ours = ours & movers;

        let knights = self.pieces(us, Role::Knight) & !pinned & ours;
        for from in knights {
            sink.moves_from(from, knight_attacks(from) & target);
        }
        let queens = self.pieces(us, Role::Queen) & ours;
        for from in (self.pieces(us, Role::Bishop) & ours | queens) & !pinned {
            sink.moves_from(from, bishop_attacks(from, occupied) & target);
        }
        for from in (self.pieces(us, Role::Rook) & ours | queens) & !pinned {
            sink.moves_from(from, rook_attacks(from, occupied) & target);
        }
        // A pinned piece may only move along the line of its pin (never a pinned knight).
        if pinned.non_empty() && checkers.is_empty() {
            for from in (self.pieces(us, Role::Bishop) & ours | queens) & pinned {
                sink.moves_from(
                    from,
                    bishop_attacks(from, occupied) & target & line(king, from),
                );
            }
            for from in (self.pieces(us, Role::Rook) & ours | queens) & pinned {
                sink.moves_from(
                    from,
                    rook_attacks(from, occupied) & target & line(king, from),
                );
            }
        }

        self.generate_pawn_moves::<S, NOISY, QUIET>(sink, pinned, check_mask, movers);

        if QUIET && checkers.is_empty() && movers.contains(king) && self.castling().has_any(us) {
            for side in CastlingSide::BOTH {
                if self.castling().has(us, side) && self.can_castle(side) {
                    sink.single(Move::castle(king, self.castle_rook(us, side)));
                }
            }
        }
    }

    #[inline(always)]
    fn generate_pawn_moves<S: MoveSink, const NOISY: bool, const QUIET: bool>(
        &self,
        sink: &mut S,
        pinned: Bitboard,
        check_mask: Bitboard,
        movers: Bitboard,
    ) {
        let us = self.side_to_move();
        let them = !us;
        let occupied = self.occupied();
        let empty = !occupied;
        let theirs = self.color_bb(them);
        let pawns = self.pieces(us, Role::Pawn) & movers;
        let king = self.king(us);
        let (up, up_left, up_right): (i8, i8, i8) = match us {
            Color::White => (8, 7, 9),
            Color::Black => (-8, -9, -7),
        };
        let (third_rank, last_rank) = match us {
            Color::White => (Bitboard::rank(super::types::Rank(2)), Bitboard::RANK_8),
            Color::Black => (Bitboard::rank(super::types::Rank(5)), Bitboard::RANK_1),
        };

        // Unpinned pawns, set-wise.
        let free = pawns & !pinned;
        let single = shift(free, up) & empty;
        let double = shift(single & third_rank, up) & empty & check_mask;
        let single = single & check_mask;
        let left = shift(free & !Bitboard::FILE_A, up_left) & theirs & check_mask;
        let right = shift(free & !Bitboard::FILE_H, up_right) & theirs & check_mask;

        if NOISY {
            sink.pawn_moves(left & !last_rank, up_left);
            sink.pawn_moves(right & !last_rank, up_right);
            sink.promotions(left & last_rank, up_left);
            sink.promotions(right & last_rank, up_right);
            sink.promotions(single & last_rank, up);
        }
        if QUIET {
            sink.pawn_moves(single & !last_rank, up);
            sink.pawn_moves(double, 2 * up);
        }

        // Pinned pawns, one by one, along their pin line. A pinned pawn can never resolve a
        // check (it would leave the pin line), so only the no-check case matters.
        if (pawns & pinned).non_empty() && self.checkers().is_empty() {
            for from in pawns & pinned {
                let pin_line = line(king, from);
                let fb = Bitboard::from_square(from);
                let push = shift(fb, up) & empty & pin_line;
                let push2 = shift(push & third_rank, up) & empty;
                let caps = pawn_attacks(us, from) & theirs & pin_line;
                if NOISY {
                    for to in caps | (push & last_rank) {
                        if last_rank.contains(to) {
                            sink.promotions(
                                Bitboard::from_square(to),
                                to.index() as i8 - from.index() as i8,
                            );
                        } else {
                            sink.single(Move::normal(from, to));
                        }
                    }
                }
                if QUIET {
                    sink.moves_from(from, (push & !last_rank) | push2);
                }
            }
        }

        if NOISY {
            if let Some(ep) = self.ep_square() {
                // The capture must also answer any check (the ep square or the victim).
                for from in pawn_attacks(them, ep) & pawns {
                    if self.ep_capture_is_legal(from, ep) {
                        sink.single(Move::en_passant(from, ep));
                    }
                }
            }
        }
    }

    /// Castling to `side` for the side to move, which is not in check and holds the right.
    #[inline]
    fn can_castle(&self, side: CastlingSide) -> bool {
        let us = self.side_to_move();
        let rook = self.castle_rook(us, side);
        let king = self.king(us);
        let (must_be_empty, king_path) = self.castle_masks(us, side);
        if (must_be_empty & self.occupied()).non_empty() {
            return false;
        }
        // Test the king's path with king and rook lifted: a rook that shields a square now
        // is gone once castled.
        let occupied = self.occupied() ^ Bitboard::from_square(king) ^ Bitboard::from_square(rook);
        king_path
            .into_iter()
            .all(|sq| !self.is_attacked(sq, !us, occupied))
    }

    /// Whether `mv` is a legal move here (for moves from hash tables or other positions).
    /// Only the moves of the piece on its from-square are generated.
    pub fn is_legal(&self, mv: Move) -> bool {
        if mv.is_none() || !self.color_bb(self.side_to_move()).contains(mv.from()) {
            return false;
        }
        let mut moves = MoveList::new();
        self.generate_from::<_, true, true>(&mut moves, Bitboard::from_square(mv.from()));
        moves.contains(mv)
    }
}
