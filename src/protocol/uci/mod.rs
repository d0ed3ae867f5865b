//! The UCI front end: `commands` parses and formats the protocol's lines, `session` is the
//! loop that turns them into calls on an `Engine` and answers `isready`, `stop` and
//! `ponderhit` during a search. It owns no engine state of its own.

pub mod commands;
mod session;

pub use session::UciSession;
