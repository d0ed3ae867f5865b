//! Kestrel: a chess engine for the WinBoard/xboard protocol.
//!
//! * `book`: Polyglot opening books (keys, reading, the weighted choice).
//! * `chess`: the rules (position, move generation, FEN, notation, perft). Pure.
//! * `eval`: static evaluation.
//! * `search`: iterative deepening alpha-beta, transposition table, time limits.
//! * `protocol`: the xboard driver: input thread, command parsing, the loop.
//! * `datagen`: self-play games written as training data for the evaluation tuner.
//! * `game`: a game in progress: moves, history for undo and repetitions, results.
//! * `hashperft`: perft with a shared table of counts and threads (`kestrel perft --hash`).
//! * `memory`: the memory of the big hash tables (huge pages, mapping, zeroing by threads).
//! * `tablebase`: Syzygy endgame tablebases (through pyrrhic-rs).
//! * `tune`: the Texel-style tuner of the evaluation weights (`kestrel tune`).

pub mod bench;
pub mod book;
pub mod chess;
pub mod datagen;
pub mod epd;
pub mod eval;
pub mod game;
pub mod hashperft;
mod memory;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod tablebase;
pub mod tune;
