//! Kestrel: a chess engine for the xboard (CECP v2) and UCI protocols, with the offline tools
//! that measure and train it.
//!
//! * `chess`: the rules (position, move generation, FEN, notation, perft). Pure.
//! * `eval`: static evaluation.
//! * `search`: iterative deepening alpha-beta, lazy SMP, the transposition table.
//! * `engine`: what both protocols share: the game, the options, the clock and time limits,
//!   running a search with a hook that reads input while it thinks.
//! * `protocol`: the input thread and the two front ends on the engine, xboard and UCI.
//! * `book`: Polyglot opening books (keys, reading, the weighted choice).
//! * `tablebase`: Syzygy endgame tablebases (through pyrrhic-rs).
//! * `game`: a game in progress: moves, history for undo and repetitions, results.
//! * `nnue`: the network evaluation and its net file format.
//! * `memory`: the memory of the big hash tables (huge pages, mapping, zeroing by threads).
//! * `rng`: the small deterministic random number generator (book choices, self-play).
//! * `tools`: the offline tools: bench, EPD suites, datagen, the tuner, hashed perft.

pub mod book;
pub mod chess;
pub mod engine;
pub mod eval;
pub mod game;
mod memory;
pub mod nnue;
pub mod protocol;
pub mod rng;
pub mod search;
pub mod tablebase;
pub mod tools;
