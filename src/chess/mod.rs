//! The rules of chess: pure, no I/O, no threads.

pub mod attacks;
pub mod bitboard;
pub mod castling;
pub mod fen;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod types;
pub mod zobrist;

pub use bitboard::Bitboard;
pub use castling::{CastlingRights, CastlingSide};
pub use fen::{FenError, STARTPOS_FEN};
pub use moves::{Move, MoveKind, MoveList};
pub use notation::MoveError;
pub use position::{CheckSquares, Position};
pub use types::{Color, File, Piece, Rank, Role, Square};
