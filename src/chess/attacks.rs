//! Attack tables: leapers (knight, king, pawn) and sliders by magic bitboards, plus the
//! `between` and `line` tables that pin and check detection need. Leaper and line tables are
//! `const`-evaluated; the magic tables come from `build.rs`.

use super::bitboard::Bitboard;
use super::types::{Color, Square};

pub(crate) struct Magic {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: usize,
}

include!(concat!(env!("OUT_DIR"), "/magics.rs"));

const fn leaper_table(deltas: &[(i8, i8)]) -> [Bitboard; 64] {
    let mut table = [Bitboard::EMPTY; 64];
    let mut sq = 0;
    while sq < 64 {
        let (f, r) = ((sq % 8) as i8, (sq / 8) as i8);
        let mut bits = 0u64;
        let mut i = 0;
        while i < deltas.len() {
            let (nf, nr) = (f + deltas[i].0, r + deltas[i].1);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                bits |= 1 << (nr * 8 + nf);
            }
            i += 1;
        }
        table[sq] = Bitboard(bits);
        sq += 1;
    }
    table
}

static KNIGHT: [Bitboard; 64] = leaper_table(&[
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
]);
static KING: [Bitboard; 64] = leaper_table(&[
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
]);
static PAWN: [[Bitboard; 64]; 2] = [
    leaper_table(&[(-1, 1), (1, 1)]),
    leaper_table(&[(-1, -1), (1, -1)]),
];

/// Squares strictly between two squares on a common line, and the whole line through them.
const fn line_tables() -> ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) {
    let mut between = [[Bitboard::EMPTY; 64]; 64];
    let mut line = [[Bitboard::EMPTY; 64]; 64];
    let dirs: [(i8, i8); 8] = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    let mut a = 0;
    while a < 64 {
        let (af, ar) = ((a % 8) as i8, (a / 8) as i8);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = dirs[d];
            // The full line through `a` in this direction (both ways) plus `a` itself.
            let mut full = 1u64 << a;
            let (mut f, mut r) = (af + df, ar + dr);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                full |= 1 << (r * 8 + f);
                f += df;
                r += dr;
            }
            let (mut f, mut r) = (af - df, ar - dr);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                full |= 1 << (r * 8 + f);
                f -= df;
                r -= dr;
            }
            // Walk from `a`; each square reached gets the squares passed so far.
            let mut passed = 0u64;
            let (mut f, mut r) = (af + df, ar + dr);
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                let b = (r * 8 + f) as usize;
                between[a][b] = Bitboard(passed);
                line[a][b] = Bitboard(full);
                passed |= 1 << b;
                f += df;
                r += dr;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

static LINES: ([[Bitboard; 64]; 64], [[Bitboard; 64]; 64]) = line_tables();

#[inline(always)]
pub fn knight_attacks(sq: Square) -> Bitboard {
    KNIGHT[sq.index()]
}

#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    KING[sq.index()]
}

/// The squares a pawn of `color` on `sq` attacks.
#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    PAWN[color.index()][sq.index()]
}

/// The squares attacked by a set of pawns of `color`.
#[inline(always)]
pub const fn pawn_attacks_set(color: Color, pawns: Bitboard) -> Bitboard {
    let ahead = pawns.forward(color);
    Bitboard(ahead.east().0 | ahead.west().0)
}

/// King steps from `a` to `b` on an empty board (Chebyshev distance).
#[inline(always)]
pub const fn distance(a: Square, b: Square) -> u32 {
    let df = (a.file().0 as i32 - b.file().0 as i32).unsigned_abs();
    let dr = (a.rank().0 as i32 - b.rank().0 as i32).unsigned_abs();
    if df > dr {
        df
    } else {
        dr
    }
}

#[inline(always)]
fn magic_lookup(m: &Magic, occupied: Bitboard) -> Bitboard {
    let idx = ((occupied.0 & m.mask).wrapping_mul(m.magic) >> m.shift) as usize;
    // SAFETY: build.rs checked that every masked occupancy maps below the square's slice.
    Bitboard(unsafe { *SLIDER_ATTACKS.get_unchecked(m.offset + idx) })
}

#[inline(always)]
pub fn rook_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&ROOK_MAGICS[sq.index()], occupied)
}

#[inline(always)]
pub fn bishop_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    magic_lookup(&BISHOP_MAGICS[sq.index()], occupied)
}

#[inline(always)]
pub fn queen_attacks(sq: Square, occupied: Bitboard) -> Bitboard {
    rook_attacks(sq, occupied) | bishop_attacks(sq, occupied)
}

/// Squares strictly between `a` and `b` if they share a rank, file or diagonal; else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    LINES.0[a.index()][b.index()]
}

/// The whole line (edge to edge) through `a` and `b`, or empty if they are not aligned.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    LINES.1[a.index()][b.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slow reference: walk each ray until a blocker.
    fn slide(sq: Square, dirs: &[(i8, i8)], occ: Bitboard) -> Bitboard {
        let mut out = Bitboard::EMPTY;
        for &(df, dr) in dirs {
            let (mut f, mut r) = (sq.file().0 as i8, sq.rank().0 as i8);
            loop {
                f += df;
                r += dr;
                if !(0..8).contains(&f) || !(0..8).contains(&r) {
                    break;
                }
                let s = Square::new((r * 8 + f) as u8);
                out = out.with(s);
                if occ.contains(s) {
                    break;
                }
            }
        }
        out
    }

    #[test]
    fn magic_attacks_match_ray_walking() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occ = Bitboard(x & x.rotate_left(17));
            for sq in Square::all() {
                let rook = slide(sq, &[(1, 0), (-1, 0), (0, 1), (0, -1)], occ);
                let bishop = slide(sq, &[(1, 1), (1, -1), (-1, 1), (-1, -1)], occ);
                assert_eq!(rook_attacks(sq, occ), rook, "rook on {sq}");
                assert_eq!(bishop_attacks(sq, occ), bishop, "bishop on {sq}");
            }
        }
    }

    #[test]
    fn between_and_line() {
        let a1 = Square::A1;
        let h8 = Square::H8;
        assert_eq!(between(a1, h8).count(), 6);
        assert_eq!(line(a1, h8).count(), 8);
        assert!(between(Square::E1, Square::H1).contains(Square::F1));
        assert!(between(Square::E1, Square::parse("f3").unwrap()).is_empty());
        assert!(line(Square::E1, Square::parse("f3").unwrap()).is_empty());
        assert_eq!(knight_attacks(a1).count(), 2);
        assert_eq!(king_attacks(Square::E1).count(), 5);
        assert_eq!(
            pawn_attacks(Color::White, Square::E1),
            Bitboard::from_square(Square::D1.offset(8))
                | Bitboard::from_square(Square::F1.offset(8))
        );
    }
}
