//! The offline tools: work done outside any game, on a fixed set of positions or on files.
//! None of them is part of a protocol session, and they never hold a session's state; the
//! protocols may call `bench`, `perft` and `epd` (for a suite) as commands.
//!
//! * `bench`: the fixed search whose node count is the search's signature (`kestrel bench`).
//! * `epd`: EPD test suites, read and run (`kestrel epd`).
//! * `datagen`: self-play games written as training data (`kestrel datagen`).
//! * `rescore`: training positions searched again deeper, their scores replaced (`kestrel rescore`).
//! * `genfens`: opening positions for OpenBench's workloads (the `genfens` command).
//! * `training_data`: the 32-byte binary training record (bullet's layout) and text lines packed into it.
//! * `train`: the NNUE trainer: a perspective net on those records, written as net files
//!   (`kestrel train`).
//! * `tune`: the Texel-style tuner of the evaluation weights (`kestrel tune`).
//! * `mates`: every strength setting against full strength in KR vs K and KQ vs K, which
//!   must all end in mate (`kestrel strength-mates`).
//! * `calibrate`: the strength settings measured in timed games against a reference engine
//!   (both as UCI child processes, through `uci_client`), each game analysed for the
//!   centipawns Kestrel's moves lose, and `LEVELS` relabelled by the measurements
//!   (`kestrel calibrate`); its files: `game`, `stats`, `fit` and `report`.
//! * `spsa`: the search's numbers tuned by SPSA in game pairs (fixed nodes or a clock)
//!   between two tuning builds (`kestrel spsa`); `game_clock`: the clocks of such a game.
//! * `pgn`: PGN read into games (tags, main-line moves, each move's comment), for
//!   `calibrate --reanalyse` and `pgn_data`: cutechess-cli's games (and OpenBench's DATAGEN
//!   PGNs) as training positions (`kestrel convert GAMES.pgn`).
//! * `uci_client`: a small UCI client for engines run as child processes (`calibrate`'s
//!   and `spsa`'s players).
//! * `perft`: perft in one place: the plain count, the count with a shared table and
//!   threads (`hashed`, `kestrel perft --hash`), and the runner and its report, for
//!   `kestrel perft` and the session's `perft`/`divide` commands.

pub mod bench;
pub mod calibrate;
pub mod datagen;
pub mod epd;
pub mod game_clock;
pub mod genfens;
pub mod mates;
pub mod perft;
pub mod pgn;
pub mod pgn_data;
pub mod rescore;
pub mod spsa;
pub mod train;
pub mod training_data;
pub mod tune;
pub mod uci_client;
pub mod wdl_fit;
