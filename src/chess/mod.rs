//! The rules of chess: board, position, legal moves, FEN and notation. Pure: no I/O,
//! no threads, and nothing of evaluation, search or the protocols, which all build on it.

pub mod attacks;
pub mod bitboard;
pub mod castling;
pub mod fen;
pub mod movegen;
pub mod moves;
pub mod notation;
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
