//! A move in 16 bits, and a fixed-capacity move list that never allocates.

use super::types::{Role, Square};
use std::fmt;
use std::mem::MaybeUninit;

/// What kind of move it is, beyond its from and to squares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveKind {
    Normal,
    /// Castling; the move's `to` is the castling rook's square (king takes rook), so the same
    /// encoding serves standard chess and Chess960.
    Castle,
    EnPassant,
    Promotion(Role),
}

/// `from` in bits 0-5, `to` in bits 6-11, the kind in bits 12-15 (0 normal, 1 castle,
/// 2 en passant, 4-7 promotion to knight, bishop, rook, queen).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

const CASTLE: u16 = 1 << 12;
const EN_PASSANT: u16 = 2 << 12;
const PROMOTION: u16 = 4 << 12;

impl Move {
    /// The null move (a1a1); never legal, used as "no move".
    pub const NONE: Move = Move(0);

    #[inline(always)]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 6)
    }

    #[inline(always)]
    pub const fn castle(king: Square, rook: Square) -> Move {
        Move(Self::normal(king, rook).0 | CASTLE)
    }

    #[inline(always)]
    pub const fn en_passant(from: Square, to: Square) -> Move {
        Move(Self::normal(from, to).0 | EN_PASSANT)
    }

    /// A promotion to `role` (knight, bishop, rook or queen).
    #[inline(always)]
    pub const fn promotion(from: Square, to: Square, role: Role) -> Move {
        Move(Self::normal(from, to).0 | (PROMOTION + ((role as u16 - 1) << 12)))
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square::new((self.0 & 63) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square::new(((self.0 >> 6) & 63) as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 12 {
            0 => MoveKind::Normal,
            1 => MoveKind::Castle,
            2 => MoveKind::EnPassant,
            4 => MoveKind::Promotion(Role::Knight),
            5 => MoveKind::Promotion(Role::Bishop),
            6 => MoveKind::Promotion(Role::Rook),
            _ => MoveKind::Promotion(Role::Queen),
        }
    }

    #[inline(always)]
    pub const fn promotion_role(self) -> Option<Role> {
        match self.kind() {
            MoveKind::Promotion(r) => Some(r),
            _ => None,
        }
    }

    #[inline(always)]
    pub const fn is_castle(self) -> bool {
        self.0 >> 12 == 1
    }

    #[inline(always)]
    pub const fn is_en_passant(self) -> bool {
        self.0 >> 12 == 2
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & PROMOTION != 0
    }

    #[inline(always)]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// The raw 16 bits (for hash tables).
    #[inline(always)]
    pub const fn bits(self) -> u16 {
        self.0
    }

    #[inline(always)]
    pub const fn from_bits(bits: u16) -> Move {
        Move(bits)
    }
}

impl fmt::Debug for Move {
    /// Internal form: from-to plus a marker (`e1h1c` castle, `e5d6ep`, `e7e8q`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())?;
        match self.kind() {
            MoveKind::Normal => Ok(()),
            MoveKind::Castle => write!(f, "c"),
            MoveKind::EnPassant => write!(f, "ep"),
            MoveKind::Promotion(r) => write!(f, "{}", r.char()),
        }
    }
}

/// The most legal moves any chess position has is 218; 256 leaves room.
pub const MAX_MOVES: usize = 256;

/// A stack-allocated list of moves.
#[derive(Clone)]
pub struct MoveList {
    moves: [MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl MoveList {
    #[inline(always)]
    pub fn new() -> MoveList {
        // Left uninitialised: filling 512 bytes per node costs more than generating moves.
        // Made as one uninitialised array, not an array of uninitialised moves: from the
        // latter LLVM merged the (undefined) moves with `len = 0` into one 520-byte memset.
        MoveList {
            // SAFETY: an array of `MaybeUninit` needs no initialisation.
            moves: unsafe { MaybeUninit::<[MaybeUninit<Move>; MAX_MOVES]>::uninit().assume_init() },
            len: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        debug_assert!(self.len < MAX_MOVES);
        // SAFETY: no position has more than MAX_MOVES legal moves.
        unsafe { self.moves.get_unchecked_mut(self.len).write(mv) };
        self.len += 1;
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: the first `len` entries were written by `push`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: the first `len` entries were written by `push`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }

    pub fn contains(&self, mv: Move) -> bool {
        self.as_slice().contains(&mv)
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        self.as_slice()
    }
}

impl std::ops::DerefMut for MoveList {
    fn deref_mut(&mut self) -> &mut [Move] {
        self.as_mut_slice()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_fields_round_trip() {
        let e7 = Square::parse("e7").unwrap();
        let e8 = Square::parse("e8").unwrap();
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            let m = Move::promotion(e7, e8, role);
            assert_eq!(
                (m.from(), m.to(), m.kind()),
                (e7, e8, MoveKind::Promotion(role))
            );
            assert!(m.is_promotion());
        }
        let c = Move::castle(Square::E1, Square::H1);
        assert!(c.is_castle() && !c.is_promotion());
        assert_eq!(Move::en_passant(e7, e8).kind(), MoveKind::EnPassant);
        assert_eq!(Move::normal(e7, e8).kind(), MoveKind::Normal);
    }
}
