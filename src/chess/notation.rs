//! Moves as text: coordinate notation (`e2e4`, `e7e8q`, `e1g1`, `O-O`, `e1h1` in Chess960)
//! and SAN (`Nf3`, `exd5`, `e8=Q+`, `O-O-O#`), both ways.

use super::attacks::pawn_attacks;
use super::castling::CastlingSide;
use super::moves::{Move, MoveKind};
use super::position::Position;
use super::types::{File, Rank, Role, Square};
use std::fmt;

/// Why a move text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not shaped like a move at all.
    Syntax(String),
    NoPiece(Square),
    NotYourPiece(Square),
    /// The piece could get there but would leave its king in check.
    LeavesKingInCheck,
    /// The piece cannot move there (or no such SAN move exists).
    NoSuchMove,
    /// A pawn reaching the last rank needs a promotion piece.
    MissingPromotion,
    /// SAN that fits several legal moves.
    Ambiguous(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(f, "not a move: '{s}'"),
            MoveError::NoPiece(sq) => write!(f, "no piece on {sq}"),
            MoveError::NotYourPiece(sq) => write!(f, "the piece on {sq} is not yours"),
            MoveError::LeavesKingInCheck => write!(f, "king would be in check"),
            MoveError::NoSuchMove => write!(f, "that piece cannot move there"),
            MoveError::MissingPromotion => write!(f, "promotion piece missing"),
            MoveError::Ambiguous(s) => write!(f, "ambiguous, could be {s}"),
        }
    }
}

impl std::error::Error for MoveError {}

fn castling_side(mv: Move) -> CastlingSide {
    if mv.to() > mv.from() {
        CastlingSide::King
    } else {
        CastlingSide::Queen
    }
}

/// `O-O`/`O-O-O` (also with zeros or lower case): the legal castling it names, or why not;
/// `None` if the text is not a castling name.
fn castle_by_name(legal: &[Move], text: &str) -> Option<Result<Move, MoveError>> {
    let side = match text {
        "O-O" | "0-0" | "o-o" => CastlingSide::King,
        "O-O-O" | "0-0-0" | "o-o-o" => CastlingSide::Queen,
        _ => return None,
    };
    Some(
        legal
            .iter()
            .copied()
            .find(|&m| m.is_castle() && castling_side(m) == side)
            .ok_or(MoveError::NoSuchMove),
    )
}

impl Position {
    /// Coordinate notation. Castling is king-to-destination (`e1g1`) in standard chess and
    /// king-takes-rook (`e1h1`) in Chess960, where the former can be ambiguous.
    pub fn coordinate(&self, mv: Move) -> String {
        let mut s = String::with_capacity(5);
        let to = if mv.is_castle() && !self.is_chess960() {
            castling_side(mv).king_to(self.side_to_move())
        } else {
            mv.to()
        };
        s.push_str(&mv.from().to_string());
        s.push_str(&to.to_string());
        if let Some(role) = mv.promotion_role() {
            s.push(role.char());
        }
        s
    }

    /// Reads a move in coordinate notation: `e2e4`, `e7e8q`, `O-O`/`O-O-O` (also with
    /// zeros), castling as the king's two-square move or as king takes own rook.
    pub fn parse_coordinate(&self, text: &str) -> Result<Move, MoveError> {
        let legal = self.legal_moves();
        if let Some(castle) = castle_by_name(&legal, text) {
            return castle;
        }

        let bytes = text.as_bytes();
        if !(4..=5).contains(&bytes.len()) || !text.is_ascii() {
            return Err(MoveError::Syntax(text.to_string()));
        }
        let (Some(from), Some(to)) = (Square::parse(&text[0..2]), Square::parse(&text[2..4]))
        else {
            return Err(MoveError::Syntax(text.to_string()));
        };
        let promotion = match bytes.get(4) {
            None => None,
            Some(&c) => match Role::from_char(c as char) {
                Some(r @ (Role::Knight | Role::Bishop | Role::Rook | Role::Queen)) => Some(r),
                _ => return Err(MoveError::Syntax(text.to_string())),
            },
        };

        // A normal move with these squares wins over a castling that could be written alike.
        let normal = legal.iter().copied().find(|&m| {
            !m.is_castle() && m.from() == from && m.to() == to && m.promotion_role() == promotion
        });
        if let Some(m) = normal {
            return Ok(m);
        }
        let castle = legal.iter().copied().find(|&m| {
            m.is_castle()
                && promotion.is_none()
                && m.from() == from
                && (m.to() == to || castling_side(m).king_to(self.side_to_move()) == to)
        });
        if let Some(m) = castle {
            return Ok(m);
        }
        Err(self.explain_refusal(from, to, promotion, &legal))
    }

    /// Says why `from`-`to` is not a legal move here.
    fn explain_refusal(
        &self,
        from: Square,
        to: Square,
        promotion: Option<Role>,
        legal: &[Move],
    ) -> MoveError {
        let Some(piece) = self.piece_on(from) else {
            return MoveError::NoPiece(from);
        };
        if piece.color() != self.side_to_move() {
            return MoveError::NotYourPiece(from);
        }
        if promotion.is_none()
            && legal
                .iter()
                .any(|m| m.from() == from && m.to() == to && m.is_promotion())
        {
            return MoveError::MissingPromotion;
        }
        // Could the piece reach `to` if its king's safety did not matter?
        let us = self.side_to_move();
        // A promotion letter on anything but a pawn reaching the last rank: no such move.
        if promotion.is_some() && (piece.role() != Role::Pawn || to.rank() != (!us).back_rank()) {
            return MoveError::NoSuchMove;
        }
        let occupied = self.occupied();
        let reachable = match piece.role() {
            Role::Pawn => {
                let forward: i8 = if us == super::types::Color::White {
                    8
                } else {
                    -8
                };
                let one = from.index() as i8 + forward;
                let captures = pawn_attacks(us, from) & self.color_bb(!us);
                captures.contains(to)
                    || (one == to.index() as i8 && !occupied.contains(to))
                    || (one + forward == to.index() as i8
                        && from.rank().relative_to(us) == Rank(1)
                        && !occupied.contains(to)
                        && !occupied.contains(Square::new(one as u8)))
                    || (Some(to) == self.ep_square() && pawn_attacks(us, from).contains(to))
            }
            role => {
                Position::attacks_from(role, us, from, occupied).contains(to)
                    && !self.color_bb(us).contains(to)
            }
        };
        if reachable {
            MoveError::LeavesKingInCheck
        } else {
            MoveError::NoSuchMove
        }
    }

    /// Standard algebraic notation, with `+` or `#`.
    pub fn san(&self, mv: Move) -> String {
        let mut s = self.san_without_suffix(mv);
        let next = self.after(mv);
        if next.in_check() {
            s.push(if next.has_legal_moves() { '+' } else { '#' });
        }
        s
    }

    fn san_without_suffix(&self, mv: Move) -> String {
        if mv.is_castle() {
            return castling_side(mv).notation().to_string();
        }
        let from = mv.from();
        let to = mv.to();
        let role = self.role_on(from).unwrap_or(Role::Pawn);
        let capture = self.role_on(to).is_some() || mv.is_en_passant();
        let mut s = String::with_capacity(7);
        if role == Role::Pawn {
            if capture {
                s.push(from.file().char());
                s.push('x');
            }
            s.push_str(&to.to_string());
            if let Some(p) = mv.promotion_role() {
                s.push('=');
                s.push(p.char().to_ascii_uppercase());
            }
            return s;
        }
        s.push(role.char().to_ascii_uppercase());
        // Disambiguate among other pieces of the same kind that can also go to `to`.
        let rivals: Vec<Square> = self
            .legal_moves()
            .iter()
            .filter(|m| {
                m.to() == to
                    && m.from() != from
                    && !m.is_castle()
                    && self.role_on(m.from()) == Some(role)
            })
            .map(|m| m.from())
            .collect();
        if !rivals.is_empty() {
            if rivals.iter().all(|r| r.file() != from.file()) {
                s.push(from.file().char());
            } else if rivals.iter().all(|r| r.rank() != from.rank()) {
                s.push(from.rank().char());
            } else {
                s.push_str(&from.to_string());
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&to.to_string());
        s
    }

    /// Reads SAN leniently: check marks, annotations, `0-0`, `e8Q` and `e.p.` are accepted.
    pub fn parse_san(&self, text: &str) -> Result<Move, MoveError> {
        let syntax = || MoveError::Syntax(text.to_string());
        let trimmed = text
            .trim()
            .trim_end_matches("e.p.")
            .trim_end_matches(['+', '#', '!', '?']);
        let legal = self.legal_moves();
        if let Some(castle) = castle_by_name(&legal, trimmed) {
            return castle;
        }
        if !trimmed.is_ascii() || trimmed.len() < 2 {
            return Err(syntax());
        }

        let mut chars: Vec<char> = trimmed.chars().collect();
        // Promotion suffix: `=Q` or a bare piece letter after the destination.
        let mut promotion = None;
        if let Some(&last) = chars.last() {
            if "NBRQnbrq".contains(last) && chars.len() >= 3 && chars[chars.len() - 2] != 'x' {
                let before = chars[chars.len() - 2];
                if before == '=' || before.is_ascii_digit() {
                    promotion = Role::from_char(last);
                    chars.pop();
                    if chars.last() == Some(&'=') {
                        chars.pop();
                    }
                }
            }
        }
        let role = match chars.first() {
            Some(&c @ ('N' | 'B' | 'R' | 'Q' | 'K')) => {
                chars.remove(0);
                Role::from_char(c).unwrap()
            }
            _ => Role::Pawn,
        };
        chars.retain(|&c| c != 'x' && c != '-' && c != ':');
        if chars.len() < 2 {
            return Err(syntax());
        }
        let dest: String = chars[chars.len() - 2..].iter().collect();
        let to = Square::parse(&dest).ok_or_else(syntax)?;
        let mut from_file = None;
        let mut from_rank = None;
        for &c in &chars[..chars.len() - 2] {
            if let Some(f) = File::from_char(c) {
                from_file = Some(f);
            } else if let Some(r) = Rank::from_char(c) {
                from_rank = Some(r);
            } else {
                return Err(syntax());
            }
        }

        let candidates: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| {
                !m.is_castle()
                    && m.to() == to
                    && self.role_on(m.from()) == Some(role)
                    && from_file.is_none_or(|f| m.from().file() == f)
                    && from_rank.is_none_or(|r| m.from().rank() == r)
                    && m.promotion_role() == promotion
            })
            .collect();
        match candidates.len() {
            1 => Ok(candidates[0]),
            0 => {
                let promotes = legal.iter().any(|m| {
                    m.to() == to && m.is_promotion() && self.role_on(m.from()) == Some(role)
                });
                if promotion.is_none() && promotes {
                    Err(MoveError::MissingPromotion)
                } else {
                    Err(MoveError::NoSuchMove)
                }
            }
            _ => Err(MoveError::Ambiguous(
                candidates
                    .iter()
                    .map(|&m| self.coordinate(m))
                    .collect::<Vec<_>>()
                    .join(" or "),
            )),
        }
    }

    /// Reads a move typed by a GUI or a person: coordinate notation first, then SAN.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        match self.parse_coordinate(text) {
            Ok(m) => Ok(m),
            Err(MoveError::Syntax(_)) => self.parse_san(text),
            Err(e) => Err(e),
        }
    }

    /// Whether `mv` is castling, and to which side.
    pub fn castling_side_of(&self, mv: Move) -> Option<CastlingSide> {
        (mv.kind() == MoveKind::Castle).then(|| castling_side(mv))
    }
}
