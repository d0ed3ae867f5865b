//! Kestrel: a chess engine for the WinBoard/xboard protocol.
//!
//! `chess` holds the rules (position, move generation, FEN, notation, perft).

pub mod chess;
