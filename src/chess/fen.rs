//! FEN reading and writing, with X-FEN (`KQkq`) and Shredder-FEN (`HAha`) castling.
//!
//! A malformed FEN gives a `FenError` saying which field is wrong and why. Castling rights
//! that cannot exist (no rook or king on its square) and en-passant squares where no capture
//! is possible are dropped quietly: real test suites are full of them.

use super::bitboard::Bitboard;
use super::castling::{CastlingRights, CastlingSide};
use super::position::Position;
use super::types::{Color, File, Piece, Rank, Role, Square};
use std::fmt;

pub const STARTPOS_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Why a FEN was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    Empty,
    MissingField(&'static str),
    TrailingJunk(String),
    WrongRankCount(usize),
    BadPieceChar { ch: char, rank: char },
    RankTooLong(char),
    RankTooShort(char),
    BadSide(String),
    BadCastling(String),
    BadEnPassant(String),
    EnPassantWrongRank(Square),
    BadHalfmoveClock(String),
    BadFullmoveNumber(String),
    KingCount { color: Color, count: u32 },
    PawnOnBackRank(Square),
    TooManyPawns(Color),
    TooManyPieces(Color),
    SideNotToMoveInCheck(Color),
    TooManyCheckers,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FenError::*;
        match self {
            Empty => write!(f, "empty FEN"),
            MissingField(field) => write!(f, "missing {field} field"),
            TrailingJunk(junk) => write!(f, "unexpected text after the FEN: '{junk}'"),
            WrongRankCount(n) => write!(f, "piece placement has {n} ranks, expected 8"),
            BadPieceChar { ch, rank } => {
                write!(f, "bad piece letter '{ch}' on rank {rank} (use PNBRQK/pnbrqk or 1-8)")
            }
            RankTooLong(rank) => write!(f, "rank {rank} has more than 8 squares"),
            RankTooShort(rank) => write!(f, "rank {rank} has fewer than 8 squares"),
            BadSide(s) => write!(f, "side to move must be 'w' or 'b', not '{s}'"),
            BadCastling(s) => write!(
                f,
                "bad castling field '{s}' (use '-', KQkq, or rook files like HAha)"
            ),
            BadEnPassant(s) => write!(f, "bad en-passant field '{s}' (use '-' or a square)"),
            EnPassantWrongRank(sq) => write!(
                f,
                "en-passant square {sq} is on the wrong rank (rank 6 with White to move, 3 with Black)"
            ),
            BadHalfmoveClock(s) => write!(f, "bad halfmove clock '{s}' (a number 0-9999)"),
            BadFullmoveNumber(s) => write!(f, "bad fullmove number '{s}' (a number 1-9999)"),
            KingCount { color, count } => write!(
                f,
                "{} has {count} kings, must have exactly one",
                color.name()
            ),
            PawnOnBackRank(sq) => write!(f, "pawn on the back rank at {sq}"),
            TooManyPawns(c) => write!(f, "{} has more than 8 pawns", c.name()),
            TooManyPieces(c) => write!(f, "{} has more than 16 pieces", c.name()),
            SideNotToMoveInCheck(c) => write!(
                f,
                "{} is in check but it is not {}'s turn",
                c.name(),
                c.name()
            ),
            TooManyCheckers => write!(f, "the king is in check by more than two pieces"),
        }
    }
}

impl std::error::Error for FenError {}

/// The piece placement field of a FEN (rank 8 first, runs of empty squares as digits) of
/// any board given square by square: a position's, or one being set up square by square.
pub fn placement(piece_on: impl Fn(Square) -> Option<Piece>) -> String {
    let mut s = String::with_capacity(90);
    for rank in (0..8).rev() {
        let mut empty = 0;
        for file in 0..8 {
            match piece_on(Square::from_coords(File(file), Rank(rank))) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(p.char());
                }
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s
}

impl Position {
    /// Parses a FEN (the two move counters may be left out, as in EPD).
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        let mut fields = fen.split_whitespace();
        let placement = fields.next().ok_or(FenError::Empty)?;
        let side = fields
            .next()
            .ok_or(FenError::MissingField("side to move"))?;
        let castling = fields.next().ok_or(FenError::MissingField("castling"))?;
        let ep = fields.next().ok_or(FenError::MissingField("en-passant"))?;
        let halfmove = fields.next();
        let fullmove = fields.next();
        let rest: Vec<&str> = fields.collect();
        if !rest.is_empty() {
            return Err(FenError::TrailingJunk(rest.join(" ")));
        }

        let mut pos = Position::empty();
        parse_placement(&mut pos, placement)?;
        let side = match side {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => return Err(FenError::BadSide(other.to_string())),
        };
        let (rights, rooks, chess960) = parse_castling(&pos, castling)?;
        let ep = parse_ep(ep, side)?;
        let halfmove = match halfmove {
            None => 0,
            Some(s) => s
                .parse::<u16>()
                .ok()
                .filter(|&n| n <= 9999)
                .ok_or_else(|| FenError::BadHalfmoveClock(s.to_string()))?,
        };
        let fullmove = match fullmove {
            None => 1,
            Some(s) => s
                .parse::<u16>()
                .ok()
                .filter(|&n| n <= 9999)
                .ok_or_else(|| FenError::BadFullmoveNumber(s.to_string()))?
                .max(1),
        };

        validate_material(&pos)?;
        // Whoever is not to move must not be in check: their king could be captured.
        let them = !side;
        let their_king = pos.king(them);
        if (pos.attackers_to(their_king, pos.occupied()) & pos.color_bb(side)).non_empty() {
            return Err(FenError::SideNotToMoveInCheck(them));
        }
        pos.set_up_state(side, rights, rooks, ep, halfmove, fullmove);
        if pos.checkers().count() > 2 {
            return Err(FenError::TooManyCheckers);
        }
        pos.set_chess960(chess960);
        Ok(pos)
    }

    /// The FEN of this position. Castling is written `KQkq` where that is unambiguous and
    /// with rook files (Shredder style) where it is not.
    pub fn to_fen(&self) -> String {
        let mut s = placement(|sq| self.piece_on(sq));
        s.push(' ');
        s.push(self.side_to_move().fen_char());
        s.push(' ');
        s.push_str(&self.castling_field());
        s.push(' ');
        match self.ep_square() {
            Some(sq) => s.push_str(&sq.to_string()),
            None => s.push('-'),
        }
        s.push_str(&format!(
            " {} {}",
            self.halfmove_clock(),
            self.fullmove_number()
        ));
        s
    }

    fn castling_field(&self) -> String {
        let mut s = String::new();
        for color in Color::ALL {
            for side in CastlingSide::BOTH {
                if !self.castling().has(color, side) {
                    continue;
                }
                let rook = self.castle_rook(color, side);
                let letter = if outermost_rook(self, color, side) == Some(rook) {
                    match side {
                        CastlingSide::King => 'k',
                        CastlingSide::Queen => 'q',
                    }
                } else {
                    rook.file().char()
                };
                s.push(match color {
                    Color::White => letter.to_ascii_uppercase(),
                    Color::Black => letter,
                });
            }
        }
        if s.is_empty() {
            s.push('-');
        }
        s
    }
}

fn parse_placement(pos: &mut Position, placement: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::WrongRankCount(ranks.len()));
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = Rank(7 - i as u8);
        let mut file = 0u8;
        for ch in text.chars() {
            if let Some(n) = ch.to_digit(10).filter(|n| (1..=8).contains(n)) {
                file += n as u8;
                if file > 8 {
                    return Err(FenError::RankTooLong(rank.char()));
                }
                continue;
            }
            let piece = Piece::from_char(ch).ok_or(FenError::BadPieceChar {
                ch,
                rank: rank.char(),
            })?;
            if file >= 8 {
                return Err(FenError::RankTooLong(rank.char()));
            }
            pos.set_up_piece(piece, Square::from_coords(File(file), rank));
            file += 1;
        }
        if file < 8 {
            return Err(FenError::RankTooShort(rank.char()));
        }
    }
    Ok(())
}

fn validate_material(pos: &Position) -> Result<(), FenError> {
    for color in Color::ALL {
        let kings = pos.pieces(color, Role::King).count();
        if kings != 1 {
            return Err(FenError::KingCount {
                color,
                count: kings,
            });
        }
        if pos.pieces(color, Role::Pawn).count() > 8 {
            return Err(FenError::TooManyPawns(color));
        }
        if pos.color_bb(color).count() > 16 {
            return Err(FenError::TooManyPieces(color));
        }
    }
    if let Some(sq) = (pos.role_bb(Role::Pawn) & Bitboard::BACK_RANKS).try_first() {
        return Err(FenError::PawnOnBackRank(sq));
    }
    Ok(())
}

/// The rook furthest out on `side` of `color`'s king on its back rank (what `K`/`Q` mean in
/// X-FEN), if the king is on the back rank.
fn outermost_rook(pos: &Position, color: Color, side: CastlingSide) -> Option<Square> {
    let king = (pos.pieces(color, Role::King) & Bitboard::rank(color.back_rank())).try_first()?;
    let rooks = pos.pieces(color, Role::Rook) & Bitboard::rank(color.back_rank());
    match side {
        CastlingSide::King => rooks.filter(|r| r.file() > king.file()).last(),
        CastlingSide::Queen => rooks.into_iter().find(|r| r.file() < king.file()),
    }
}

/// Returns the rights, the rook of each right, and whether the field implies Chess960.
fn parse_castling(
    pos: &Position,
    field: &str,
) -> Result<(CastlingRights, [Square; 4], bool), FenError> {
    let mut rights = CastlingRights::NONE;
    let mut rooks = [Square::H1, Square::A1, Square::H8, Square::A8];
    let mut chess960 = false;
    if field == "-" {
        return Ok((rights, rooks, false));
    }
    let bad = || FenError::BadCastling(field.to_string());
    if field.len() > 4 {
        return Err(bad());
    }
    let mut seen = Vec::new();
    for ch in field.chars() {
        if seen.contains(&ch) {
            return Err(bad());
        }
        seen.push(ch);
        let color = if ch.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let back = color.back_rank();
        let king = (pos.pieces(color, Role::King) & Bitboard::rank(back)).try_first();
        let lower = ch.to_ascii_lowercase();
        let (side, rook) = match lower {
            'k' => (
                CastlingSide::King,
                outermost_rook(pos, color, CastlingSide::King),
            ),
            'q' => (
                CastlingSide::Queen,
                outermost_rook(pos, color, CastlingSide::Queen),
            ),
            'a'..='h' => {
                chess960 = true;
                let sq = Square::from_coords(File::from_char(lower).unwrap(), back);
                let Some(king) = king else { continue };
                let side = if sq.file() > king.file() {
                    CastlingSide::King
                } else {
                    CastlingSide::Queen
                };
                let is_rook = pos.pieces(color, Role::Rook).contains(sq);
                (side, is_rook.then_some(sq))
            }
            _ => return Err(bad()),
        };
        // A right with no king or no rook where it must be is impossible: drop it.
        let (Some(king), Some(rook)) = (king, rook) else {
            continue;
        };
        if rook.file() == king.file() {
            continue;
        }
        if king.file() != File(4) || (rook.file() != File::A && rook.file() != File::H) {
            chess960 = true;
        }
        rights.add(color, side);
        rooks[CastlingRights::index(color, side)] = rook;
    }
    Ok((rights, rooks, chess960))
}

fn parse_ep(field: &str, side: Color) -> Result<Option<Square>, FenError> {
    if field == "-" {
        return Ok(None);
    }
    let sq = Square::parse(field).ok_or_else(|| FenError::BadEnPassant(field.to_string()))?;
    let expected = match side {
        Color::White => Rank(5),
        Color::Black => Rank(2),
    };
    if sq.rank() != expected {
        return Err(FenError::EnPassantWrongRank(sq));
    }
    Ok(Some(sq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_counts_empty_runs_and_starts_on_rank_8() {
        assert_eq!(placement(|_| None), "8/8/8/8/8/8/8/8");
        let d4 = Square::from_coords(File(3), Rank(3));
        let corners = |sq: Square| match sq {
            Square::A1 => Some(Piece::new(Color::White, Role::Rook)),
            Square::H8 => Some(Piece::new(Color::Black, Role::King)),
            _ if sq == d4 => Some(Piece::new(Color::White, Role::Pawn)),
            _ => None,
        };
        assert_eq!(placement(corners), "7k/8/8/8/3P4/8/8/R7");
        for fen in [
            STARTPOS_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(pos.to_fen(), fen);
            assert_eq!(
                placement(|sq| pos.piece_on(sq)),
                fen.split(' ').next().unwrap()
            );
        }
    }
}
