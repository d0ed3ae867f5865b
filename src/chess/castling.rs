//! Castling rights, valid for standard chess and Chess960 alike.

use super::types::{Color, File, Square};

/// Which wing a castling goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastlingSide {
    /// Towards the h-file: the king ends on g, the rook on f (`O-O`).
    King = 0,
    /// Towards the a-file: the king ends on c, the rook on d (`O-O-O`).
    Queen = 1,
}

impl CastlingSide {
    pub const BOTH: [CastlingSide; 2] = [CastlingSide::King, CastlingSide::Queen];

    /// The king's file after castling.
    pub const fn king_to_file(self) -> File {
        match self {
            CastlingSide::King => File(6),
            CastlingSide::Queen => File(2),
        }
    }

    /// The rook's file after castling.
    pub const fn rook_to_file(self) -> File {
        match self {
            CastlingSide::King => File(5),
            CastlingSide::Queen => File(3),
        }
    }

    /// The king's destination for `color`.
    pub const fn king_to(self, color: Color) -> Square {
        Square::from_coords(self.king_to_file(), color.back_rank())
    }

    /// The rook's destination for `color`.
    pub const fn rook_to(self, color: Color) -> Square {
        Square::from_coords(self.rook_to_file(), color.back_rank())
    }

    /// `O-O` or `O-O-O`.
    pub const fn notation(self) -> &'static str {
        match self {
            CastlingSide::King => "O-O",
            CastlingSide::Queen => "O-O-O",
        }
    }
}

/// The set of castling rights still held, one bit per colour and side
/// (White king side = 1, White queen side = 2, Black king side = 4, Black queen side = 8).
/// Which rook each right belongs to is kept by the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
pub struct CastlingRights(u8);

impl CastlingRights {
    pub const NONE: CastlingRights = CastlingRights(0);

    /// Bit index of one right.
    #[inline(always)]
    pub const fn index(color: Color, side: CastlingSide) -> usize {
        color as usize * 2 + side as usize
    }

    #[inline(always)]
    pub const fn bits(self) -> u8 {
        self.0
    }

    #[inline(always)]
    pub const fn from_bits(bits: u8) -> CastlingRights {
        CastlingRights(bits & 15)
    }

    #[inline(always)]
    pub const fn has(self, color: Color, side: CastlingSide) -> bool {
        self.0 & (1 << Self::index(color, side)) != 0
    }

    /// Any right at all for `color`.
    #[inline(always)]
    pub const fn has_any(self, color: Color) -> bool {
        self.0 & (3 << (color as u8 * 2)) != 0
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub fn add(&mut self, color: Color, side: CastlingSide) {
        self.0 |= 1 << Self::index(color, side);
    }

    #[inline(always)]
    pub fn remove(&mut self, color: Color, side: CastlingSide) {
        self.0 &= !(1 << Self::index(color, side));
    }

    #[inline(always)]
    pub fn remove_color(&mut self, color: Color) {
        self.0 &= !(3 << (color as u8 * 2));
    }
}
