//! A set of squares as a 64-bit word (bit `i` = square `i`, a1 = bit 0).

use super::types::{Color, File, Rank, Square};
use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);
    pub const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
    pub const FILE_H: Bitboard = Bitboard(0x8080_8080_8080_8080);
    pub const RANK_1: Bitboard = Bitboard(0xFF);
    pub const RANK_8: Bitboard = Bitboard(0xFF << 56);
    pub const BACK_RANKS: Bitboard = Bitboard(0xFF | (0xFF << 56));
    pub const DARK_SQUARES: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

    #[inline(always)]
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.index())
    }

    #[inline(always)]
    pub const fn file(file: File) -> Bitboard {
        Bitboard(Self::FILE_A.0 << file.0)
    }

    #[inline(always)]
    pub const fn rank(rank: Rank) -> Bitboard {
        Bitboard(Self::RANK_1.0 << (8 * rank.0))
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn non_empty(self) -> bool {
        self.0 != 0
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// More than one square set.
    #[inline(always)]
    pub const fn has_several(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    #[inline(always)]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.index()) != 0
    }

    /// The lowest square; the set must not be empty.
    #[inline(always)]
    pub const fn first(self) -> Square {
        debug_assert!(self.0 != 0);
        Square::new(self.0.trailing_zeros() as u8)
    }

    /// The highest square; the set must not be empty.
    #[inline(always)]
    pub const fn last(self) -> Square {
        debug_assert!(self.0 != 0);
        Square::new(63 - self.0.leading_zeros() as u8)
    }

    /// The square nearest to `color`'s back rank (lowest for White, highest for Black); the
    /// set must not be empty.
    #[inline(always)]
    pub const fn nearest_to(self, color: Color) -> Square {
        match color {
            Color::White => self.first(),
            Color::Black => self.last(),
        }
    }

    /// The lowest square, if any.
    #[inline(always)]
    pub const fn try_first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(self.first())
        }
    }

    #[inline(always)]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | (1 << sq.index()))
    }

    #[inline(always)]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.index()))
    }

    /// Shift every square one rank towards rank 8 (White's forward).
    #[inline(always)]
    pub const fn north(self) -> Bitboard {
        Bitboard(self.0 << 8)
    }

    #[inline(always)]
    pub const fn south(self) -> Bitboard {
        Bitboard(self.0 >> 8)
    }

    /// Shift every square one file towards h (squares on the h-file drop off).
    #[inline(always)]
    pub const fn east(self) -> Bitboard {
        Bitboard((self.0 & !Self::FILE_H.0) << 1)
    }

    /// Shift every square one file towards a (squares on the a-file drop off).
    #[inline(always)]
    pub const fn west(self) -> Bitboard {
        Bitboard((self.0 & !Self::FILE_A.0) >> 1)
    }

    /// One rank towards `color`'s promotion rank.
    #[inline(always)]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => self.north(),
            Color::Black => self.south(),
        }
    }

    /// Every square, plus all squares north of it on its file.
    #[inline(always)]
    pub const fn north_fill(self) -> Bitboard {
        let mut b = self.0;
        b |= b << 8;
        b |= b << 16;
        b |= b << 32;
        Bitboard(b)
    }

    /// Every square, plus all squares south of it on its file.
    #[inline(always)]
    pub const fn south_fill(self) -> Bitboard {
        let mut b = self.0;
        b |= b >> 8;
        b |= b >> 16;
        b |= b >> 32;
        Bitboard(b)
    }

    /// Every square plus the squares ahead of it from `color`'s side, on its file.
    #[inline(always)]
    pub const fn forward_fill(self, color: Color) -> Bitboard {
        match color {
            Color::White => self.north_fill(),
            Color::Black => self.south_fill(),
        }
    }

    /// The squares strictly ahead of each square from `color`'s side, on its file.
    #[inline(always)]
    pub const fn front_span(self, color: Color) -> Bitboard {
        self.forward(color).forward_fill(color)
    }

    /// Whole files holding at least one square of the set.
    #[inline(always)]
    pub const fn file_fill(self) -> Bitboard {
        self.north_fill().south_fill()
    }

    /// The files to the left and right of `file` (one or two whole files).
    #[inline(always)]
    pub const fn adjacent_files(file: File) -> Bitboard {
        let f = Bitboard::file(file);
        Bitboard(f.east().0 | f.west().0)
    }

    /// The squares of the same colour as `sq` (light or dark).
    #[inline(always)]
    pub const fn same_colour_squares(sq: Square) -> Bitboard {
        if Self::DARK_SQUARES.0 & (1 << sq.index()) != 0 {
            Self::DARK_SQUARES
        } else {
            Bitboard(!Self::DARK_SQUARES.0)
        }
    }
}

impl Iterator for Bitboard {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            let sq = self.first();
            self.0 &= self.0 - 1;
            Some(sq)
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bit_op {
    ($trait:ident, $f:ident, $assign:ident, $fa:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign for Bitboard {
            #[inline(always)]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

impl From<Square> for Bitboard {
    #[inline(always)]
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl fmt::Debug for Bitboard {
    /// Eight rows of `x` and `.`, rank 8 on top.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        for rank in (0..8).rev() {
            for file in 0..8 {
                let sq = Square::from_coords(File(file), Rank(rank));
                write!(f, "{}", if self.contains(sq) { 'x' } else { '.' })?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn shifts_fills_and_spans() {
        let e4 = Bitboard::from_square(sq("e4"));
        assert_eq!(e4.east(), Bitboard::from_square(sq("f4")));
        assert_eq!(e4.west(), Bitboard::from_square(sq("d4")));
        assert!(Bitboard::from_square(sq("h4")).east().is_empty());
        assert!(Bitboard::from_square(sq("a4")).west().is_empty());
        assert_eq!(e4.forward(Color::Black), Bitboard::from_square(sq("e3")));
        assert_eq!(e4.front_span(Color::White).count(), 4);
        assert!(e4.front_span(Color::White).contains(sq("e8")));
        assert_eq!(e4.front_span(Color::Black).count(), 3);
        assert!(!e4.front_span(Color::Black).contains(sq("e4")));
        assert_eq!(e4.file_fill(), Bitboard::file(File(4)));
        assert_eq!(Bitboard::adjacent_files(File::A), Bitboard::file(File(1)));
        assert_eq!(Bitboard::adjacent_files(File(4)).count(), 16);
        let two = e4.with(sq("b7"));
        assert_eq!(two.last(), sq("b7"));
        assert_eq!(two.nearest_to(Color::White), sq("e4"));
        assert_eq!(two.nearest_to(Color::Black), sq("b7"));
        assert!(Bitboard::same_colour_squares(sq("a1")).contains(sq("h8")));
        assert!(!Bitboard::same_colour_squares(sq("a1")).contains(sq("a8")));
    }
}
