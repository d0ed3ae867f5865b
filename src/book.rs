//! Polyglot opening books: the Polyglot key of a position, reading a `.bin` book, decoding
//! its moves, and a weighted random choice among the moves of a position.
//!
//! The format, as published with Polyglot: a book is a sequence of 16-byte entries, every
//! integer big-endian, sorted by key:
//!
//! | bytes | field  | meaning                                              |
//! |-------|--------|------------------------------------------------------|
//! | 0-7   | key    | the Polyglot key of the position (`polyglot_key`)    |
//! | 8-9   | move   | to square (bits 0-5), from square (6-11), promotion (12-14: 1 knight .. 4 queen) |
//! | 10-11 | weight | how often to play it, relative to the others         |
//! | 12-15 | learn  | unused here                                          |
//!
//! Castling is written king takes own rook (`e1h1`), which is also how Kestrel's castling
//! moves are built, in standard chess and in Chess960 alike.
//!
//! A book is read through a file handle, a binary search of a few 16-byte reads per lookup:
//! nothing of a big book is kept in memory.

mod random64;

use crate::chess::{Color, Move, MoveKind, Position, Role, Square};
use random64::RANDOM64;
use std::fmt;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

const CASTLE_OFFSET: usize = 768;
const EN_PASSANT_OFFSET: usize = 772;
const TURN_OFFSET: usize = 780;
/// Size of one book entry in bytes.
pub const ENTRY_SIZE: usize = 16;

/// The Polyglot key of a position.
///
/// The en-passant file counts when a pawn of the side to move can take en passant: Kestrel
/// keeps an en-passant square only when such a capture is legal. Polyglot also counts a
/// pawn beside the pushed one when the capture is illegal (a pin); `polyglot_key_after`
/// knows the last move and follows the format in that case too.
pub fn polyglot_key(pos: &Position) -> u64 {
    let mut key = 0;
    for sq in pos.occupied() {
        let piece = pos.piece_on(sq).expect("occupied square has a piece");
        // Kinds alternate black, white: black pawn 0, white pawn 1, ... white king 11.
        let kind = 2 * piece.role().index() + usize::from(piece.color() == Color::White);
        key ^= RANDOM64[64 * kind + sq.index()];
    }
    let rights = pos.castling();
    for (i, (color, side)) in [
        (Color::White, crate::chess::CastlingSide::King),
        (Color::White, crate::chess::CastlingSide::Queen),
        (Color::Black, crate::chess::CastlingSide::King),
        (Color::Black, crate::chess::CastlingSide::Queen),
    ]
    .into_iter()
    .enumerate()
    {
        if rights.has(color, side) {
            key ^= RANDOM64[CASTLE_OFFSET + i];
        }
    }
    if let Some(ep) = pos.ep_square() {
        key ^= RANDOM64[EN_PASSANT_OFFSET + ep.file().index()];
    }
    if pos.side_to_move() == Color::White {
        key ^= RANDOM64[TURN_OFFSET];
    }
    key
}

/// The Polyglot key of the position after `mv` in `before`, exactly as the format has it:
/// after a double pawn push the en-passant file counts whenever a pawn of the side to move
/// stands beside the pushed pawn, whether or not taking it is legal.
pub fn polyglot_key_after(before: &Position, mv: Move) -> u64 {
    let pos = before.after(mv);
    let mut key = polyglot_key(&pos);
    let double_push =
        before.role_on(mv.from()) == Some(Role::Pawn) && mv.from().index() ^ mv.to().index() == 16;
    if double_push && pos.ep_square().is_none() {
        let to = mv.to();
        let file = to.file().index();
        let pawns = pos.pieces(pos.side_to_move(), Role::Pawn);
        let beside = (file > 0 && pawns.contains(to.offset(-1)))
            || (file < 7 && pawns.contains(to.offset(1)));
        if beside {
            key ^= RANDOM64[EN_PASSANT_OFFSET + file];
        }
    }
    key
}

/// A move in the book's 16 bits (the inverse of `decode_move`).
pub fn encode_move(mv: Move) -> u16 {
    let promotion = match mv.kind() {
        MoveKind::Promotion(role) => role.index() as u16, // knight 1 .. queen 4
        _ => 0,
    };
    mv.to().index() as u16 | (mv.from().index() as u16) << 6 | promotion << 12
}

/// The legal move of `pos` that the book's 16 bits stand for, if there is one.
pub fn decode_move(pos: &Position, raw: u16) -> Option<Move> {
    let to = Square::new((raw & 63) as u8);
    let from = Square::new(((raw >> 6) & 63) as u8);
    let promotion = match (raw >> 12) & 7 {
        0 => None,
        1 => Some(Role::Knight),
        2 => Some(Role::Bishop),
        3 => Some(Role::Rook),
        4 => Some(Role::Queen),
        _ => return None,
    };
    if from == to {
        return None;
    }
    // Kestrel's castling moves are king-takes-rook too, so from and to match as they are.
    pos.legal_moves()
        .iter()
        .copied()
        .find(|m| m.from() == from && m.to() == to && m.promotion_role() == promotion)
}

/// One 16-byte book entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub mv: u16,
    pub weight: u16,
    pub learn: u32,
}

impl Entry {
    pub fn from_bytes(bytes: &[u8; ENTRY_SIZE]) -> Entry {
        Entry {
            key: u64::from_be_bytes(bytes[0..8].try_into().unwrap()),
            mv: u16::from_be_bytes(bytes[8..10].try_into().unwrap()),
            weight: u16::from_be_bytes(bytes[10..12].try_into().unwrap()),
            learn: u32::from_be_bytes(bytes[12..16].try_into().unwrap()),
        }
    }

    pub fn to_bytes(self) -> [u8; ENTRY_SIZE] {
        let mut bytes = [0; ENTRY_SIZE];
        bytes[0..8].copy_from_slice(&self.key.to_be_bytes());
        bytes[8..10].copy_from_slice(&self.mv.to_be_bytes());
        bytes[10..12].copy_from_slice(&self.weight.to_be_bytes());
        bytes[12..16].copy_from_slice(&self.learn.to_be_bytes());
        bytes
    }
}

/// A book in Polyglot form from `(position, move, weight)` triples: sorted by key (then by
/// move, so the output does not depend on the input's order), as `Book` expects.
pub fn write_book(moves: &[(Position, Move, u16)]) -> Vec<u8> {
    let mut entries: Vec<Entry> = moves
        .iter()
        .map(|(pos, mv, weight)| Entry {
            key: polyglot_key(pos),
            mv: encode_move(*mv),
            weight: *weight,
            learn: 0,
        })
        .collect();
    entries.sort_by_key(|e| (e.key, e.mv));
    entries.iter().flat_map(|e| e.to_bytes()).collect()
}

/// Why a book could not be opened.
#[derive(Debug)]
pub enum BookError {
    Io(std::io::Error),
    NotAFile,
    /// The size in bytes is not a whole number of entries.
    BadSize(u64),
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(e) => write!(f, "{e}"),
            BookError::NotAFile => write!(f, "not a file"),
            BookError::BadSize(n) => write!(
                f,
                "not a Polyglot book: {n} bytes is not a multiple of {ENTRY_SIZE}"
            ),
        }
    }
}

impl From<std::io::Error> for BookError {
    fn from(e: std::io::Error) -> BookError {
        BookError::Io(e)
    }
}

/// Where the entries are.
enum Source {
    File(File),
    Memory(Vec<u8>),
}

/// A move of the book in a position, with its weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub mv: Move,
    pub weight: u16,
}

/// An open Polyglot book.
pub struct Book {
    source: Source,
    entries: u64,
}

impl Book {
    /// Opens a book file (its entries stay on disk).
    pub fn open(path: &Path) -> Result<Book, BookError> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(BookError::NotAFile);
        }
        let size = meta.len();
        if !size.is_multiple_of(ENTRY_SIZE as u64) {
            return Err(BookError::BadSize(size));
        }
        Ok(Book {
            source: Source::File(file),
            entries: size / ENTRY_SIZE as u64,
        })
    }

    /// A book held in memory.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Book, BookError> {
        let size = bytes.len() as u64;
        if !size.is_multiple_of(ENTRY_SIZE as u64) {
            return Err(BookError::BadSize(size));
        }
        Ok(Book {
            source: Source::Memory(bytes),
            entries: size / ENTRY_SIZE as u64,
        })
    }

    /// Number of entries.
    pub fn len(&self) -> u64 {
        self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    fn entry(&self, index: u64) -> std::io::Result<Entry> {
        let mut bytes = [0; ENTRY_SIZE];
        let offset = index * ENTRY_SIZE as u64;
        match &self.source {
            Source::Memory(data) => {
                let start = offset as usize;
                bytes.copy_from_slice(&data[start..start + ENTRY_SIZE]);
            }
            Source::File(file) => {
                let mut file = file;
                file.seek(SeekFrom::Start(offset))?;
                file.read_exact(&mut bytes)?;
            }
        }
        Ok(Entry::from_bytes(&bytes))
    }

    /// The entries with this key, in book order.
    pub fn entries_for(&self, key: u64) -> std::io::Result<Vec<Entry>> {
        // The first entry whose key is not below `key`.
        let (mut lo, mut hi) = (0, self.entries);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.entry(mid)?.key < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut found = Vec::new();
        for index in lo..self.entries {
            let entry = self.entry(index)?;
            if entry.key != key {
                break;
            }
            found.push(entry);
        }
        Ok(found)
    }

    /// The legal book moves of `pos` with their weights, heaviest first (entries of one move
    /// given twice are added up; moves that are not legal here are left out).
    pub fn moves(&self, pos: &Position) -> std::io::Result<Vec<BookMove>> {
        self.moves_with_key(pos, polyglot_key(pos))
    }

    /// `moves` for `pos` under the Polyglot key `key` (from `polyglot_key_after`).
    pub fn moves_with_key(&self, pos: &Position, key: u64) -> std::io::Result<Vec<BookMove>> {
        let mut moves: Vec<BookMove> = Vec::new();
        for entry in self.entries_for(key)? {
            let Some(mv) = decode_move(pos, entry.mv) else {
                continue;
            };
            match moves.iter_mut().find(|b| b.mv == mv) {
                Some(b) => b.weight = b.weight.saturating_add(entry.weight),
                None => moves.push(BookMove {
                    mv,
                    weight: entry.weight,
                }),
            }
        }
        // Stable: equal weights keep the book's order.
        moves.sort_by_key(|b| std::cmp::Reverse(b.weight));
        Ok(moves)
    }

    /// A move for `pos` chosen at random in proportion to the weights (a weight of 0 is
    /// never chosen); `None` when the book has nothing to play here.
    pub fn pick(&self, pos: &Position, rng: &mut BookRng) -> std::io::Result<Option<BookMove>> {
        Ok(choose(&self.moves(pos)?, rng))
    }
}

/// One of `moves` at random in proportion to the weights; `None` if they add up to 0.
pub fn choose(moves: &[BookMove], rng: &mut BookRng) -> Option<BookMove> {
    let total: u64 = moves.iter().map(|b| u64::from(b.weight)).sum();
    if total == 0 {
        return None;
    }
    let mut r = rng.below(total);
    for &b in moves {
        let w = u64::from(b.weight);
        if r < w {
            return Some(b);
        }
        r -= w;
    }
    unreachable!("r is below the total of the weights")
}

/// The generator of the book choice: the same seed gives the same moves.
pub type BookRng = crate::rng::Rng;

/// The seed the engine starts with unless told otherwise.
pub const DEFAULT_SEED: u64 = 1;

#[cfg(test)]
mod tests {
    use super::*;

    fn after(moves: &[&str]) -> Position {
        let mut pos = Position::startpos();
        for text in moves {
            let mv = pos.parse_coordinate(text).unwrap();
            pos.play(mv);
        }
        pos
    }

    /// The test keys published with the format.
    #[test]
    fn published_test_keys() {
        let cases: [(&[&str], u64); 9] = [
            (&[], 0x463b96181691fc9c),
            (&["e2e4"], 0x823c9b50fd114196),
            (&["e2e4", "d7d5"], 0x0756b94461c50fb0),
            (&["e2e4", "d7d5", "e4e5"], 0x662fafb965db29d4),
            (&["e2e4", "d7d5", "e4e5", "f7f5"], 0x22a48b5a8e47ff78),
            (
                &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2"],
                0x652a607ca3f242c1,
            ),
            (
                &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"],
                0x00fdd303c946bdd9,
            ),
            (
                &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4"],
                0x3c8123ea7b067637,
            ),
            (
                &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
                0x5c3f9b829b279560,
            ),
        ];
        for (moves, key) in cases {
            let pos = after(moves);
            assert_eq!(polyglot_key(&pos), key, "after {moves:?}");
            // The same from the FEN (the en-passant square as FEN writes it).
            let fen = Position::from_fen(&pos.to_fen()).unwrap();
            assert_eq!(polyglot_key(&fen), key, "from {}", pos.to_fen());
        }
    }

    #[test]
    fn keys_after_a_move_count_en_passant_as_the_format_does() {
        // Every published line, move by move, gives the same keys either way.
        for line in [
            &["e2e4", "d7d5", "e4e5", "f7f5", "e1e2", "e8f7"][..],
            &["a2a4", "b7b5", "h2h4", "b5b4", "c2c4", "b4c3", "a1a3"],
        ] {
            let mut pos = Position::startpos();
            for text in line {
                let mv = pos.parse_coordinate(text).unwrap();
                let key = polyglot_key_after(&pos, mv);
                pos.play(mv);
                assert_eq!(key, polyglot_key(&pos), "after {text}");
            }
        }
        // White's b5 pawn is pinned along the fifth rank: bxc6 en passant would leave the
        // king on a5 in check from h5, so Kestrel keeps no en-passant square, but the
        // format counts the c file (the key as another implementation of the format has it).
        let before = Position::from_fen("4k3/2p5/8/KP5r/8/8/8/8 b - - 0 1").unwrap();
        let mv = before.parse_coordinate("c7c5").unwrap();
        let pos = before.after(mv);
        assert_eq!(pos.ep_square(), None);
        let key = polyglot_key_after(&before, mv);
        assert_eq!(key, polyglot_key(&pos) ^ RANDOM64[EN_PASSANT_OFFSET + 2]);
        assert_eq!(key, 0x3516_6a62_c9d2_edc7);
    }

    #[test]
    fn the_table_has_the_published_ends() {
        assert_eq!(RANDOM64[0], 0x9D39247E33776D41);
        assert_eq!(RANDOM64[780], 0xF8D626AAAF278509);
    }

    #[test]
    fn moves_round_trip_through_the_book_encoding() {
        let pos = Position::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1").unwrap();
        for mv in pos.legal_moves().iter().copied() {
            let raw = encode_move(mv);
            assert_eq!(decode_move(&pos, raw), Some(mv), "{mv:?}");
        }
        // Castling is king takes own rook; a promotion carries its piece.
        let short = pos.parse_coordinate("e1g1").unwrap();
        assert_eq!(encode_move(short), (4 << 6) | 7);
        let knight = pos.parse_coordinate("b7a8n").unwrap();
        assert_eq!(encode_move(knight), 1 << 12 | (49 << 6) | 56);
        // a1a1 and moves that are not legal here decode to nothing.
        assert_eq!(decode_move(&pos, 0), None);
        let e1e2 = pos.parse_coordinate("e1e2").unwrap();
        assert_eq!(decode_move(&pos, (4 << 6) | 12), Some(e1e2));
        assert_eq!(decode_move(&pos, (4 << 6) | 28), None); // e1e4
        assert_eq!(decode_move(&pos, 5 << 12 | (4 << 6) | 12), None); // bad promotion
    }

    #[test]
    fn bad_sizes_are_refused() {
        assert!(matches!(
            Book::from_bytes(vec![0; 17]),
            Err(BookError::BadSize(17))
        ));
        let empty = Book::from_bytes(Vec::new()).unwrap();
        assert!(empty.moves(&Position::startpos()).unwrap().is_empty());
    }
}
