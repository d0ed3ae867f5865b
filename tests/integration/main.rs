//! Kestrel's integration tests, one binary: each module drives the real `kestrel` binary (a
//! GUI's view) or the library from outside, and all share the helpers of `common`.
//!
//! One binary instead of one per file: the release profile's link-time optimisation is paid
//! once, and the helpers are written once.

mod book;
mod calibrate;
mod claims;
mod clocks;
mod commands;
mod common;
mod data_tools;
mod docs;
mod epd;
mod eval;
mod faults;
mod fen_errors;
mod genfens;
mod nnue;
mod notation;
mod options;
mod perft;
mod pondering;
mod properties;
mod protocol;
mod python_client;
mod strength;
mod syzygy;
mod terminal;
mod train;
mod tune;
mod uci;
