//! Kestrel: a chess engine for the xboard (CECP v2) and UCI protocols, with the offline tools
//! that measure and train it. Each module owns one concern and reaches only the ones below it:
//! the rules know nothing of evaluation or search, the search nothing of protocols, the
//! engine no protocol's words, and the protocols no engine state of their own.
//!
//! * `chess`: the rules (position, move generation, FEN, notation). Pure.
//! * `eval`: the classical evaluation (its terms, tuned weights and `eval`'s explanation).
//! * `nnue`: the network evaluation and its net file format; the search plays with it.
//! * `search`: iterative deepening alpha-beta, lazy SMP, the transposition table, Syzygy,
//!   and what a strength setting below full strength means for a move (`strength`).
//! * `engine`: what both protocols share: the game, the options, the clock and time limits,
//!   running a search with a hook that reads input while it thinks.
//! * `protocol`: the input thread and the two front ends on the engine, xboard and UCI.
//! * `book`: Polyglot opening books (keys, reading, the weighted choice).
//! * `tablebase`: Syzygy endgame tablebases (through pyrrhic-rs).
//! * `game`: a game in progress: moves, history for undo and repetitions, results.
//! * `memory`: the memory of the big hash tables (huge pages, mapping, zeroing by threads).
//! * `rng`: the small deterministic random number generator (book choices, self-play, the
//!   limited strength's choices).
//! * `tools`: the offline tools, never part of a session: bench, EPD suites, perft (plain
//!   and hashed), datagen, the training record, the NNUE trainer, the evaluation tuner,
//!   the strength settings' mates check and their calibration against a reference engine,
//!   the search's SPSA tuner (with a small UCI client for the engines those two run).

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
