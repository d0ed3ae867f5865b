//! The xboard (CECP v2) front end: `commands` parses and formats the protocol's lines,
//! `session` is the loop that keeps xboard's own state (the side the engine plays, force,
//! analyze, ponder, edit mode) on an `Engine`, and `terminal` the commands a person types.
//! It owns no engine state: the game, options and searcher are the engine's.

pub mod commands;
mod session;
pub mod terminal;

pub use session::XboardSession;
