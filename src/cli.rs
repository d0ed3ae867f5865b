//! The command line: what `kestrel` accepts, as clap reads it. No subcommand starts a
//! protocol session on stdin (the first command chooses xboard or UCI); each subcommand is a
//! tool with its own `Args`, run by `commands`.

use clap::{Args, Parser, Subcommand};
use kestrel::chess::STARTPOS_FEN;
use kestrel::search::strength::{FULL_STRENGTH_ELO, MIN_ELO};
use kestrel::tools::calibrate::{Setting, TimeControl};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "kestrel",
    version,
    about = "A chess engine for the WinBoard/xboard protocol (CECP v2) and UCI",
    long_about = "A chess engine for the WinBoard/xboard protocol (CECP v2) and UCI.\n\n\
        Without a subcommand Kestrel reads protocol commands on stdin; the first one \
        chooses: 'uci' starts UCI (any UCI GUI, cutechess-cli proto=uci), anything else \
        xboard (xboard -fcp kestrel, cutechess-cli proto=xboard), or type commands \
        yourself (try 'help'). Set RUST_LOG=debug for a debug log on stderr.",
    args_conflicts_with_subcommands = true,
    allow_external_subcommands = true
)]
pub struct Cli {
    /// Write a transcript of the protocol session (every line in and out, with times).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Protocol commands given on the command line (`kestrel "genfens 8 seed 1 book None"
    /// quit`, as OpenBench runs it): each word one command, read before stdin.
    #[command(external_subcommand)]
    Commands(Vec<String>),
    /// Count the leaf nodes of the legal move tree to DEPTH (move generator check and speed).
    Perft(PerftArgs),
    /// Print the search's tunable numbers in OpenBench's SPSA input format (`name, int,
    /// default, min, max, c_end, r_end`); a build with `--features tune` takes them as UCI
    /// options.
    Params,
    /// Tune the search's numbers by SPSA (OpenBench's schedule): game pairs at fixed nodes
    /// between two processes of a tuning build (`cargo build --release --features tune`),
    /// one given every number pushed up or down, the other the opposite. Resumes from its log.
    Spsa(SpsaArgs),
    /// Search the fixed bench positions; prints total nodes (the search's signature) and nps.
    Bench(BenchArgs),
    /// Run an EPD test suite (positions with bm/am): per position the move found, whether it
    /// is solved and when it was found; the total at the end. Progress goes to stderr.
    Epd(EpdArgs),
    /// Play self-play games at a fixed node count and write their quiet positions, with the
    /// search score and the game result, as training data for `tune` and `train` (`FEN |
    /// score | result`, White's view, or bullet's 32-byte records). The same seed writes the
    /// same file for any thread count.
    Datagen(DatagenArgs),
    /// Search training positions (`FEN | score | result` lines) again at a larger node count
    /// and write them with the new score: deeper labels for data already made, without
    /// playing its games again. The output is the same for any thread count; a stopped run
    /// resumes from the `next line` of its last progress line.
    Rescore(RescoreArgs),
    /// Pack text training data (`FEN | score | result` lines) into 32-byte bullet records,
    /// for `train` or the bullet trainer; or turn a PGN of games cutechess-cli wrote (an
    /// OpenBench DATAGEN PGN) into training data, from the scores in its move comments.
    /// Malformed lines and games are reported and skipped.
    Convert(ConvertArgs),
    /// Fit the win/draw/loss model (what a score means, UCI_ShowWDL, the shown centipawns)
    /// to self-play data (`FEN | score | result` lines) and check it on held-out games.
    WdlFit(WdlFitArgs),
    /// Train an NNUE net (768 → N ×2 → 1) on scored positions, on the CPU. Each epoch prints
    /// the training and validation losses and writes OUT/epoch-K.nnue (the quantised net)
    /// and OUT/checkpoint.bin (the float state that --resume continues).
    Train(TrainArgs),
    /// The loss of each net on scored positions (mean squared error of win probabilities,
    /// as `train` reports it): on games no net trained on, the fair way to rank candidate
    /// nets before playing them. A line per net, in the order given.
    NetLoss(NetLossArgs),
    /// Tune the evaluation weights on scored positions (Texel's method with Adam) and write
    /// the result as the source of src/eval/weights.rs. Progress goes to stderr.
    Tune(TuneArgs),
    /// Check that every strength setting converts the basic won endings: from random KR vs K
    /// and KQ vs K positions (the stronger side to move) Kestrel at each setting plays the
    /// stronger side against full-strength Kestrel, without tablebases. Prints a line per
    /// setting and ending and one per failed game; fails if any game is not a mate.
    StrengthMates(StrengthMatesArgs),
    /// Measure what strength settings play like: Kestrel at each setting plays timed games
    /// against a reference engine at a known Elo (both as UCI child processes), and every
    /// game is analysed at full strength for the centipawns Kestrel's moves lose. Prints
    /// per setting the result, the measured Elo with its 95% interval, the mean centipawn
    /// loss, the share of moves losing 200 cp or more, the median think time and the
    /// faults; then a Markdown table and, with --anchors, the LEVELS labels the
    /// measurements give. Fails if Kestrel had any fault.
    Calibrate(CalibrateArgs),
}

/// `kestrel perft`.
#[derive(Args)]
pub struct PerftArgs {
    /// Plies to count, 1 or more.
    #[arg(value_parser = clap::value_parser!(u32).range(1..=20))]
    pub depth: u32,
    /// Position to start from.
    #[arg(long, default_value = STARTPOS_FEN)]
    pub fen: String,
    /// Print the count under each root move.
    #[arg(long)]
    pub divide: bool,
    /// Table of subtree counts, in MB, shared by the threads (0 = none). Counts stay
    /// exact at any size; a bigger table saves more work.
    #[arg(long, value_name = "MB", default_value_t = 0,
          value_parser = clap::value_parser!(u64).range(0..=kestrel::tools::perft::hashed::MAX_HASH_MB as u64))]
    pub hash: u64,
    /// Counting threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

/// `kestrel spsa`.
#[derive(Args)]
pub struct SpsaArgs {
    /// The tuning build to play with.
    #[arg(long, value_name = "PROGRAM")]
    pub engine: PathBuf,
    /// Game pairs of the whole run (its schedule depends on it: keep it when resuming).
    #[arg(long, default_value_t = 2000, value_parser = at_least_one::<u64>)]
    pub pairs: u64,
    /// Nodes per move.
    #[arg(long, default_value_t = 8000, value_parser = clap::value_parser!(u64).range(100..))]
    pub nodes: u64,
    /// Play every game on the clock instead, seconds plus increment (`2+0.02`): a fixed-node
    /// tune can favour numbers that lose at a real clock.
    #[arg(long, value_name = "BASE+INC", conflicts_with = "nodes", value_parser = TimeControl::parse)]
    pub tc: Option<TimeControl>,
    /// Pairs played at once (two processes each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// The learning rate at the end of the run (OpenBench's r_end); a short run needs a
    /// larger one than OpenBench's usual 0.002 for the numbers to move.
    #[arg(long, default_value_t = kestrel::search::params::SPSA_R_END)]
    pub r_end: f64,
    /// Seed of the perturbations and the openings' order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Openings (EPD or FEN, one per line); without it, the start position.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// The run's log: a line per pair with the values so far; an existing log is resumed.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
}

/// `kestrel bench`.
#[derive(Args)]
pub struct BenchArgs {
    /// Depth of every search.
    #[arg(default_value_t = kestrel::tools::bench::DEFAULT_DEPTH,
          value_parser = clap::value_parser!(u32).range(1..=30))]
    pub depth: u32,
    /// Print a line per position.
    #[arg(long, short)]
    pub verbose: bool,
    /// Search threads (1 keeps the node count deterministic: the bench signature).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads: u32,
    /// Evaluate with this net file instead of the embedded net.
    #[arg(long, value_name = "FILE", conflicts_with = "classical")]
    pub eval_file: Option<PathBuf>,
    /// Evaluate with the classical evaluation even if a net is embedded.
    #[arg(long)]
    pub classical: bool,
}

/// `kestrel epd`.
#[derive(Args)]
pub struct EpdArgs {
    /// The EPD file (e.g. wac.epd).
    pub file: PathBuf,
    /// Seconds per position (the default when no limit is given is 1).
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<f64>,
    /// Depth limit per position.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub depth: Option<u32>,
    /// Node limit per position.
    #[arg(long, value_parser = at_least_one::<u64>)]
    pub nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub threads: u32,
    /// Hash table size in MB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub hash: u64,
}

/// `kestrel datagen`.
#[derive(Args)]
pub struct DatagenArgs {
    /// Games of the run (game indices 0 to GAMES - 1).
    #[arg(long, default_value_t = 1000, value_parser = at_least_one::<u64>)]
    pub games: u64,
    /// The first game to play: resumes a stopped run (same seed and settings, same --out)
    /// from the "next" game its last progress line names.
    #[arg(long, default_value_t = 0)]
    pub first_game: u64,
    /// Nodes per move (the hard limit).
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(100..))]
    pub nodes: u64,
    /// No new iteration starts past this many nodes, so each move's score is a whole
    /// iteration's; --nodes is then only the cap (e.g. --soft-nodes 5000 --nodes 50000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(100..))]
    pub soft_nodes: Option<u64>,
    /// Games played at once (one search thread each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Seed of the random opening choices and plies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Uniformly random plies played after the opening.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=40))]
    pub random_plies: u32,
    /// Openings (EPD or FEN, one per line) to start from; without it, the start position.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Hash table per game thread, MB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub hash: u64,
    /// Where to write the positions (appended to if it exists).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// text: `FEN | score | result` lines; bullet: 32-byte records in the layout of the
    /// bullet trainer's ChessBoard (side to move's view), for `train` or GPU trainers.
    #[arg(long, value_enum, default_value = "text")]
    pub format: kestrel::tools::training_data::DataFormat,
    /// Play with this net file instead of the embedded net (a candidate making data before
    /// it is embedded).
    #[arg(long, value_name = "FILE")]
    pub eval_file: Option<PathBuf>,
}

/// `kestrel rescore`.
#[derive(Args)]
pub struct RescoreArgs {
    /// Text data to rescore (`FEN | score | result` lines, White's view).
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// Where to write the rescored lines (appended to if it exists).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Nodes per position (the hard limit).
    #[arg(long, default_value_t = 20000, value_parser = clap::value_parser!(u64).range(100..))]
    pub nodes: u64,
    /// Searching threads (one position each).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// The first input line to rescore, from 0: resumes a stopped run (same settings, same
    /// --out) from the "next line" its last progress line names.
    #[arg(long, default_value_t = 0)]
    pub first_line: u64,
    /// Stop before this input line (default: the end of the input).
    #[arg(long)]
    pub end_line: Option<u64>,
    /// Hash table per thread, MB.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub hash: u64,
    /// Search with this net file instead of the embedded net.
    #[arg(long, value_name = "FILE")]
    pub eval_file: Option<PathBuf>,
}

/// `kestrel convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// The text data, or a PGN (a name ending in .pgn): cutechess-cli's games, each engine
    /// move's score in the comment after it (`{+0.35/12 0.12s}`).
    pub input: PathBuf,
    /// The file to create (an existing file is not overwritten).
    pub output: PathBuf,
    /// What to write: bullet's 32-byte records, or (from a PGN) `FEN | score | result`
    /// lines, White's view, as datagen writes them.
    #[arg(long, value_enum, default_value = "bullet")]
    pub format: kestrel::tools::training_data::DataFormat,
    /// From a PGN, only the moves of players whose name contains this (any case); every
    /// scored move without it.
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
}

/// `kestrel net-loss`.
#[derive(Args)]
pub struct NetLossArgs {
    /// A net file (repeatable).
    #[arg(long, value_name = "NET", required = true)]
    pub net: Vec<PathBuf>,
    /// A data file, text or bullet records, as `train` reads (repeatable).
    #[arg(long, value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
    /// Weight of the game result against the search score in the target (0 to 1), as in
    /// `train`.
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f32,
    /// Threads.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

/// `kestrel wdl-fit`.
#[derive(Args)]
pub struct WdlFitArgs {
    /// Text data files (as datagen writes them; a game's positions together).
    #[arg(required = true)]
    pub input: Vec<PathBuf>,
    /// The share of each file, from its end, kept out of the fit to check it on.
    #[arg(long, default_value_t = 0.1)]
    pub holdout: f64,
    /// Passes of the optimiser over the data.
    #[arg(long, default_value_t = 2000, value_parser = at_least_one::<u32>)]
    pub iterations: u32,
}

/// `kestrel train`.
#[derive(Args)]
pub struct TrainArgs {
    /// A data file: text (`FEN | score | result` lines) or bullet records (repeatable).
    #[arg(long, value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
    /// The directory for the nets and the checkpoint.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Hidden neurons per side, a multiple of 16 (default 256, or the checkpoint's or the
    /// --init net's). More than the --init net's widens it, its evaluation unchanged.
    #[arg(long, value_parser = clap::value_parser!(u32).range(16..=2048))]
    pub hidden: Option<u32>,
    /// The hidden layer's activation (default screlu, or the checkpoint's).
    #[arg(long, value_enum)]
    pub activation: Option<ActivationArg>,
    /// Output buckets by the count of pieces, 1 to 16 (default 1, or the checkpoint's or
    /// the --init net's). A one-bucket --init net is copied into each bucket.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=16))]
    pub output_buckets: Option<u32>,
    /// King buckets: 0 none (default, or the checkpoint's or the --init net's), or 1, 2, 4
    /// or 8 input sets chosen by where each side's king stands, the board turned so that it
    /// stands on files a-d (1: the turning alone). A net without them given to --init is
    /// copied into each bucket.
    #[arg(long, value_parser = ["0", "1", "2", "4", "8"])]
    pub king_buckets: Option<String>,
    /// Epochs in all (a resumed run counts those already done).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100000))]
    pub epochs: u32,
    /// Positions per batch.
    #[arg(long, default_value_t = 16384, value_parser = at_least_one::<u32>)]
    pub batch: u32,
    /// Adam's starting learning rate (a cosine decay takes it to 1% by the last epoch).
    #[arg(long, default_value_t = 0.001)]
    pub lr: f32,
    /// Weight of the game result against the search score in the target (0 to 1).
    #[arg(long, default_value_t = 0.3)]
    pub lambda: f32,
    /// Seed of the initial weights and of the shuffles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (each batch is split among them).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Fraction of the positions held out for the validation loss (chosen by a hash of
    /// each position, the same in every run).
    #[arg(long, default_value_t = 0.01)]
    pub validation: f64,
    /// Train on each position or its mirror image across the board's middle (a-file to
    /// h-file), chosen afresh each epoch: the net sees no castling rights, so the two are
    /// the same position to it.
    #[arg(long)]
    pub mirror: bool,
    /// Continue from OUT/checkpoint.bin.
    #[arg(long)]
    pub resume: bool,
    /// Start from this net file (fine-tuning: its shape, fresh optimiser state) instead
    /// of random weights; e.g. the embedded net's file in src/nnue/nets/.
    #[arg(long, value_name = "NET", conflicts_with = "resume")]
    pub init: Option<PathBuf>,
}

/// `kestrel tune`.
#[derive(Args)]
pub struct TuneArgs {
    /// A data file, one `FEN | score | result` per line, White's view (repeatable).
    #[arg(long, value_name = "FILE", required = true)]
    pub data: Vec<PathBuf>,
    /// Full passes over the data.
    #[arg(long, default_value_t = 2000)]
    pub epochs: usize,
    /// Adam's learning rate in centipawns (decays to a tenth over the run).
    #[arg(long, default_value_t = 1.0)]
    pub lr: f64,
    /// Weight of the search score against the game result in the target (0 to 1).
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// Use this sigmoid scale instead of fitting it.
    #[arg(long)]
    pub k: Option<f64>,
    /// Tune only these weight sections (comma-separated, e.g. MATERIAL,PSQT).
    #[arg(long, value_name = "SECTION,...")]
    pub only: Option<String>,
    /// Threads for loading and tuning (default: all cores).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Option<u32>,
    /// Where to write the tuned weights.rs.
    #[arg(long, value_name = "FILE", default_value = "tuned-weights.rs")]
    pub out: PathBuf,
    /// Print a progress line every N epochs.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub report: usize,
    /// L2 pull toward the starting weights (per centipawn squared, against a mean
    /// squared error): keeps weights the data barely determines near their start.
    #[arg(long, default_value_t = 0.0)]
    pub l2: f64,
}

/// `kestrel strength-mates`.
#[derive(Args)]
pub struct StrengthMatesArgs {
    /// A setting to play at (repeatable; default: the lowest to full strength in steps
    /// of 200).
    #[arg(long, value_name = "ELO", value_parser = clap::value_parser!(i64).range(MIN_ELO..=FULL_STRENGTH_ELO))]
    pub elo: Vec<i64>,
    /// Random positions per ending and setting.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=100000))]
    pub positions: u64,
    /// A position to play instead of random ones (KRvK or KQvK; repeatable).
    #[arg(long, value_name = "FEN")]
    pub fen: Vec<String>,
    /// Seed of the random positions and of the limited side's choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Nodes per move of full-strength play (the defender, and the top setting).
    #[arg(long, default_value_t = 50_000, value_parser = clap::value_parser!(u64).range(100..))]
    pub full_nodes: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

/// `kestrel calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// A setting to measure: an Elo or `full` (repeatable).
    #[arg(long, value_name = "ELO|full", value_parser = Setting::parse,
          required_unless_present_any = ["anchors", "reanalyse"], conflicts_with = "anchors")]
    pub elo: Vec<Setting>,
    /// Every LEVELS anchor row and full strength (what the fit of the labels needs).
    #[arg(long)]
    pub anchors: bool,
    /// The Kestrel binary to measure (default: this one).
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// The reference engine: a program in PATH or /usr/games, or a path.
    #[arg(long, value_name = "CMD", default_value = "stockfish")]
    pub reference: String,
    /// An option for the reference, set after the tool's own (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    pub reference_opt: Vec<String>,
    /// The reference's Elo (its UCI_Elo; default: each setting's, clamped into the
    /// reference's UCI_Elo range).
    #[arg(long, value_name = "ELO")]
    pub reference_elo: Option<i64>,
    /// Play Kestrel at this setting instead of a reference (e.g. 1400 against 1800).
    #[arg(long, value_name = "ELO|full", value_parser = Setting::parse,
          conflicts_with_all = ["reference", "reference_opt", "reference_elo"])]
    pub versus_self_elo: Option<Setting>,
    /// Hash of each side, MB.
    #[arg(long, value_name = "MB", default_value_t = 16,
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub hash: u64,
    /// Time control: seconds plus increment per move.
    #[arg(long, value_name = "BASE+INC", default_value = "5+0.05",
          value_parser = TimeControl::parse)]
    pub tc: TimeControl,
    /// Seconds a clock may go below zero before the side loses on time.
    #[arg(long, value_name = "SECONDS", default_value_t = 0.1)]
    pub margin: f64,
    /// Start positions (EPD or FEN lines), each played twice with colours swapped;
    /// default: the start position.
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Chooses the order of the openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games per setting (rounded up to even).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub games: u64,
    /// A game this long is a draw.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub max_plies: u64,
    /// Nodes of the full-strength analysis of each position (0: no analysis).
    #[arg(long, value_name = "NODES", default_value_t = 20_000)]
    pub analyse_nodes: u64,
    /// Games played at once, each by its own pair of engine processes.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub concurrency: u32,
    /// Write the games to this PGN file.
    #[arg(long, value_name = "FILE")]
    pub pgn: Option<PathBuf>,
    /// Play nothing: analyse again the games of a PGN this tool wrote (repeatable), at
    /// --analyse-nodes a position on --concurrency threads, at most --games a setting.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["elo", "anchors", "pgn"])]
    pub reanalyse: Vec<PathBuf>,
    /// With --reanalyse: in games of Kestrel against itself, the other setting's moves
    /// are analysed too (the same games then measure both settings).
    #[arg(long, requires = "reanalyse")]
    pub both_sides: bool,
}

/// The hidden layer's activation, as `train` takes it.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ActivationArg {
    /// clamp(x, 0, 1)²
    Screlu,
    /// clamp(x, 0, 1)
    Crelu,
}

impl ActivationArg {
    pub fn activation(self) -> kestrel::nnue::format::Activation {
        match self {
            ActivationArg::Screlu => kestrel::nnue::format::Activation::SCReLU,
            ActivationArg::Crelu => kestrel::nnue::format::Activation::CReLU,
        }
    }
}

/// A count that must be at least 1 (clap's own range check would name the type's maximum
/// as the upper bound).
fn at_least_one<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    match text.parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        Ok(_) => Err("must be at least 1".into()),
        Err(_) => Err("must be a whole number of at least 1".into()),
    }
}
