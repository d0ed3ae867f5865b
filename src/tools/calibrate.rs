//! `calibrate`: what a strength setting plays like, measured as users get it. Kestrel at a
//! setting and a reference engine of known strength (Stockfish with its own `UCI_Elo`, by
//! default) play timed games as child processes speaking UCI; the tool keeps the clocks,
//! ends the games by the rules (`Game`), and counts every fault (an illegal move, a loss on
//! time, a crash or silence) against the side that made it.
//!
//! Strength alone does not say the setting plays like a weaker player, so every game is
//! also analysed in-process at full strength with a fixed node count: the centipawns each
//! of Kestrel's moves loses, and how often it loses 200 or more. The think times show the
//! setting does not simply play at once.
//!
//! The fit at the end relabels the `LEVELS` anchor rows with the Elo each measured (the
//! README says how the printed snippet is pasted); the tool never edits source itself.

use super::uci_client::{find_program, ClientError, UciEngine};
use crate::chess::{Color, Move, Position};
use crate::game::{Game, GameResult};
use crate::rng::Rng;
use crate::search::strength::{Strength, MIN_NODES};
use crate::search::{FixedLimits, SearchParams, Searcher};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Where a bare reference name is looked for after PATH (Debian puts engines there).
pub const EXTRA_ENGINE_DIRS: [&str; 1] = ["/usr/games"];
/// Beyond its clock, how long a side may stay silent before it counts as hung.
pub const REPLY_GRACE: Duration = Duration::from_secs(5);
/// Evaluations are clamped to this (mates count as it): beyond it a move's loss says
/// nothing more about the player.
pub const EVAL_CLAMP: i32 = 1000;
/// A move losing this much or more is a blunder in the report's share.
pub const BLUNDER_CP: i32 = 200;
/// Games between progress lines.
const PROGRESS_EVERY: usize = 10;

/// A strength setting to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// `UCI_LimitStrength` on, `UCI_Elo` this.
    Elo(i64),
    /// No limit.
    Full,
}

impl Setting {
    /// A number or `full`.
    pub fn parse(text: &str) -> Result<Setting, String> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("full") {
            return Ok(Setting::Full);
        }
        text.parse()
            .map(Setting::Elo)
            .map_err(|_| format!("'{text}' is not a setting (a number such as 1400, or 'full')"))
    }

    /// Its Elo label, where full strength is `full_elo`.
    pub fn elo(self, full_elo: i64) -> i64 {
        match self {
            Setting::Elo(elo) => elo,
            Setting::Full => full_elo,
        }
    }

    /// The UCI options that choose it.
    fn options(self) -> Vec<(String, String)> {
        match self {
            Setting::Elo(elo) => vec![
                ("UCI_LimitStrength".into(), "true".into()),
                ("UCI_Elo".into(), elo.to_string()),
            ],
            Setting::Full => vec![("UCI_LimitStrength".into(), "false".into())],
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Setting::Elo(elo) => write!(f, "{elo}"),
            Setting::Full => f.write_str("full"),
        }
    }
}

/// Every `LEVELS` row's label and full strength: the settings the fit needs.
pub fn anchor_settings() -> Vec<Setting> {
    let anchors = Strength::anchors();
    let full = anchors.last().map_or(i64::MAX, |a| a.elo);
    anchors
        .iter()
        .filter(|a| a.elo < full)
        .map(|a| Setting::Elo(a.elo))
        .chain([Setting::Full])
        .collect()
}

/// A clock: seconds at the start and added after each move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeControl {
    pub base: f64,
    pub increment: f64,
}

impl TimeControl {
    /// `base+increment` or `base`, in seconds (`5+0.05`).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let (base, increment) = text.split_once('+').unwrap_or((text, "0"));
        let seconds = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
        };
        match (seconds(base), seconds(increment)) {
            (Some(base), Some(increment)) if base > 0.0 => Ok(TimeControl { base, increment }),
            _ => Err(format!(
                "'{text}' is not a time control (seconds and increment, such as 5+0.05)"
            )),
        }
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}+{}", self.base, self.increment)
    }
}

/// Whom Kestrel plays.
#[derive(Clone, Debug)]
pub enum Opponent {
    /// A reference engine: the program, options (`NAME`, `VALUE`) set after the tool's own,
    /// and its Elo if given (else each setting's, clamped into its `UCI_Elo` range).
    Reference {
        program: PathBuf,
        options: Vec<(String, String)>,
        elo: Option<i64>,
    },
    /// Kestrel itself at another setting.
    Kestrel(Setting),
}

/// What to measure, and how.
#[derive(Clone, Debug)]
pub struct Config {
    /// The Kestrel binary to play.
    pub engine: PathBuf,
    pub opponent: Opponent,
    pub settings: Vec<Setting>,
    /// Games per setting, even (each opening with both colours).
    pub games: usize,
    pub time_control: TimeControl,
    /// Seconds a clock may go below zero before the side loses on time.
    pub margin: f64,
    /// Start positions; empty: the start position.
    pub openings: Vec<Position>,
    /// Chooses the order of the openings.
    pub seed: u64,
    /// A game this long is a draw.
    pub max_plies: usize,
    /// Nodes of the full-strength analysis of each position; 0: no analysis.
    pub analyse_nodes: u64,
    /// Games played at once, each by its own pair of processes.
    pub concurrency: usize,
    /// Hash of both sides (and of the analysis), MB.
    pub hash_mb: u64,
}

/// What stops a calibration before or during its games (not a fault of a side in a game,
/// which is counted instead).
#[derive(Debug)]
pub enum CalibrateError {
    /// `--engine` is not a file.
    EngineNotFound(PathBuf),
    /// `--reference` names no program found.
    ReferenceNotFound(String),
    /// An engine did not start or answer its handshake.
    Start { who: String, error: ClientError },
    /// The Kestrel binary has no strength options.
    NoStrengthOption(String),
    /// A setting outside what the engine offers.
    OutOfRange {
        who: String,
        elo: i64,
        min: i64,
        max: i64,
    },
    /// The reference has no `UCI_Elo` and no `--reference-elo` says its strength.
    ReferenceEloUnknown(String),
    /// A `--reference-opt` the reference does not announce.
    UnknownOption { engine: String, option: String },
    /// Writing the report or the PGN.
    Io(io::Error),
}

impl std::fmt::Display for CalibrateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CalibrateError::EngineNotFound(path) => {
                write!(f, "engine '{}' not found", path.display())
            }
            CalibrateError::ReferenceNotFound(name) if name.contains('/') => {
                write!(f, "reference engine '{name}' not found")
            }
            CalibrateError::ReferenceNotFound(name) => write!(
                f,
                "reference engine '{name}' not found in PATH or {}",
                EXTRA_ENGINE_DIRS.join(", ")
            ),
            CalibrateError::Start { who, error } => write!(f, "{who}: {error}"),
            CalibrateError::NoStrengthOption(name) => write!(
                f,
                "'{name}' announces no UCI_LimitStrength and UCI_Elo options: \
                 is --engine a Kestrel build with strength settings?"
            ),
            CalibrateError::OutOfRange { who, elo, min, max } => {
                write!(
                    f,
                    "{who}: Elo {elo} is outside its UCI_Elo range {min}-{max}"
                )
            }
            CalibrateError::ReferenceEloUnknown(name) => write!(
                f,
                "'{name}' has no UCI_Elo option: give its strength with --reference-elo"
            ),
            CalibrateError::UnknownOption { engine, option } => write!(
                f,
                "'{engine}' has no option '{option}' (see its options with: echo uci | ENGINE)"
            ),
            CalibrateError::Io(e) => write!(f, "writing the report or the PGN: {e}"),
        }
    }
}

impl std::error::Error for CalibrateError {}

impl From<io::Error> for CalibrateError {
    fn from(e: io::Error) -> Self {
        CalibrateError::Io(e)
    }
}

/// The program `--reference` names.
pub fn find_reference(name: &str) -> Result<PathBuf, CalibrateError> {
    find_program(name, &EXTRA_ENGINE_DIRS)
        .ok_or_else(|| CalibrateError::ReferenceNotFound(name.to_string()))
}

/// A side of the games: how to start it and what to tell it.
#[derive(Clone, Debug)]
struct Player {
    program: PathBuf,
    /// Set in this order after the handshake.
    options: Vec<(String, String)>,
    /// The name in reports and the PGN.
    name: String,
}

/// One setting's games: Kestrel at it against the opponent at `opponent_elo`.
#[derive(Clone, Debug)]
struct Match {
    setting: Setting,
    kestrel: Player,
    opponent: Player,
    opponent_elo: i64,
}

/// The options every side gets (if it announces them): one thread, the hash.
fn common_options(id: &super::uci_client::EngineId, hash_mb: u64) -> Vec<(String, String)> {
    [("Threads", "1".to_string()), ("Hash", hash_mb.to_string())]
        .into_iter()
        .filter(|(name, _)| id.has_option(name))
        .map(|(name, value)| (name.to_string(), value))
        .collect()
}

fn start(program: &Path, who: &str) -> Result<UciEngine, CalibrateError> {
    UciEngine::start(program).map_err(|error| CalibrateError::Start {
        who: who.to_string(),
        error,
    })
}

/// Asks both engines what they offer and plans each setting's match; refuses what cannot
/// be measured before any game is played.
fn plan(config: &Config) -> Result<Vec<Match>, CalibrateError> {
    if !config.engine.is_file() {
        return Err(CalibrateError::EngineNotFound(config.engine.clone()));
    }
    let kestrel_id = start(&config.engine, "engine")?.id.clone();
    let Some(range) = kestrel_id
        .spin("UCI_Elo")
        .filter(|_| kestrel_id.has_option("UCI_LimitStrength"))
    else {
        return Err(CalibrateError::NoStrengthOption(kestrel_id.name));
    };
    // The highest setting is full strength's label.
    let full_elo = range.max;
    let in_range = |setting: Setting| match setting {
        Setting::Elo(elo) if !(range.min..=range.max).contains(&elo) => {
            Err(CalibrateError::OutOfRange {
                who: kestrel_id.name.clone(),
                elo,
                min: range.min,
                max: range.max,
            })
        }
        _ => Ok(()),
    };
    for &setting in &config.settings {
        in_range(setting)?;
    }
    let kestrel_at = |setting: Setting| {
        let mut options = common_options(&kestrel_id, config.hash_mb);
        options.extend(setting.options());
        Player {
            program: config.engine.clone(),
            options,
            name: format!("Kestrel {setting}"),
        }
    };
    match &config.opponent {
        Opponent::Kestrel(other) => {
            in_range(*other)?;
            Ok(config
                .settings
                .iter()
                .map(|&setting| Match {
                    setting,
                    kestrel: kestrel_at(setting),
                    opponent: kestrel_at(*other),
                    opponent_elo: other.elo(full_elo),
                })
                .collect())
        }
        Opponent::Reference {
            program,
            options,
            elo,
        } => {
            let id = start(program, "reference")?.id.clone();
            for (option, _) in options {
                if !id.has_option(option) {
                    return Err(CalibrateError::UnknownOption {
                        engine: id.name.clone(),
                        option: option.clone(),
                    });
                }
            }
            let spin = id.spin("UCI_Elo");
            let out_of_range = |elo: i64, min: i64, max: i64| CalibrateError::OutOfRange {
                who: id.name.clone(),
                elo,
                min,
                max,
            };
            let elo_of = |setting: Setting| -> Result<i64, CalibrateError> {
                match (elo, spin) {
                    (Some(elo), Some(s)) if !(s.min..=s.max).contains(elo) => {
                        Err(out_of_range(*elo, s.min, s.max))
                    }
                    (Some(elo), _) => Ok(*elo),
                    (None, Some(s)) => Ok(setting.elo(full_elo).clamp(s.min, s.max)),
                    (None, None) => Err(CalibrateError::ReferenceEloUnknown(id.name.clone())),
                }
            };
            let mut matches = Vec::new();
            for &setting in &config.settings {
                let opponent_elo = elo_of(setting)?;
                let mut reference = common_options(&id, config.hash_mb);
                let name = if spin.is_some() {
                    if id.has_option("UCI_LimitStrength") {
                        reference.push(("UCI_LimitStrength".into(), "true".into()));
                    }
                    reference.push(("UCI_Elo".into(), opponent_elo.to_string()));
                    format!("{} (UCI_Elo {opponent_elo})", id.name)
                } else {
                    id.name.clone()
                };
                reference.extend(options.iter().cloned());
                matches.push(Match {
                    setting,
                    kestrel: kestrel_at(setting),
                    opponent: Player {
                        program: program.clone(),
                        options: reference,
                        name,
                    },
                    opponent_elo,
                });
            }
            Ok(matches)
        }
    }
}

/// A fault of a side: it loses the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// An illegal or unreadable `bestmove`.
    Illegal,
    /// Its clock went below the margin.
    TimeForfeit,
    /// Its process ended, or it stayed silent past its clock and the grace.
    CrashOrNoReply,
}

/// Faults of one side, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    pub illegal: usize,
    pub time_forfeits: usize,
    pub crashes: usize,
}

impl Faults {
    pub fn total(&self) -> usize {
        self.illegal + self.time_forfeits + self.crashes
    }

    fn add(&mut self, fault: Fault) {
        match fault {
            Fault::Illegal => self.illegal += 1,
            Fault::TimeForfeit => self.time_forfeits += 1,
            Fault::CrashOrNoReply => self.crashes += 1,
        }
    }
}

impl std::fmt::Display for Faults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.illegal, self.time_forfeits, self.crashes
        )
    }
}

/// The sides of a game, as indices.
const KESTREL: usize = 0;
const OPPONENT: usize = 1;

/// One played game.
#[derive(Clone, Debug)]
struct Played {
    index: usize,
    start: Position,
    moves: Vec<Move>,
    kestrel: Color,
    result: GameResult,
    reason: String,
    /// Kestrel's think time per move.
    think: Vec<Duration>,
    /// The side at fault (`KESTREL`, `OPPONENT`) and the fault.
    fault: Option<(usize, Fault)>,
    /// Centipawns lost by each of Kestrel's moves (empty without analysis).
    losses: Vec<i32>,
}

/// A side's seat at the board: its process, started when needed and dropped after a fault
/// so the next game starts a fresh one.
struct Seat<'a> {
    player: &'a Player,
    engine: Option<UciEngine>,
}

/// Whether a failure to talk to a side is its fault in the game (it crashed or hung) or
/// stops the run (the program is gone, or refuses its settings).
enum SeatError {
    Fault,
    Fatal(CalibrateError),
}

impl Seat<'_> {
    /// Readies the side's engine for a game: started (with its options) if need be, then
    /// `ucinewgame`.
    fn new_game(&mut self) -> Result<(), SeatError> {
        let player = self.player;
        let fatal = |error| {
            SeatError::Fatal(CalibrateError::Start {
                who: player.name.clone(),
                error,
            })
        };
        if self.engine.is_none() {
            let mut engine = match UciEngine::start(&player.program) {
                Ok(engine) => engine,
                Err(e @ ClientError::Spawn { .. }) => return Err(fatal(e)),
                Err(_) => return Err(SeatError::Fault),
            };
            let set = player
                .options
                .iter()
                .try_for_each(|(name, value)| engine.set_option(name, value))
                .and_then(|()| engine.sync(super::uci_client::HANDSHAKE_TIMEOUT));
            match set {
                Ok(()) => self.engine = Some(engine),
                Err(e @ ClientError::Refused(_)) => return Err(fatal(e)),
                Err(_) => return Err(SeatError::Fault),
            }
        }
        let engine = self.engine.as_mut().expect("started above");
        match engine.new_game() {
            Ok(()) => Ok(()),
            Err(_) => {
                self.engine = None;
                Err(SeatError::Fault)
            }
        }
    }
}

/// The win of the side that is not `loser`.
fn win_against(loser: Color) -> GameResult {
    match loser {
        Color::White => GameResult::BlackWins,
        Color::Black => GameResult::WhiteWins,
    }
}

fn colour_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Milliseconds for `go`, never below zero.
fn millis(seconds: f64) -> u64 {
    (seconds * 1000.0).round().max(0.0) as u64
}

/// Plays game `index` from `start`, Kestrel with `kestrel`'s colour.
fn play_game(
    seats: &mut [Seat; 2],
    start: Position,
    kestrel: Color,
    index: usize,
    config: &Config,
) -> Result<Played, CalibrateError> {
    let side_of = |color: Color| if color == kestrel { KESTREL } else { OPPONENT };
    let mut played = Played {
        index,
        start,
        moves: Vec::new(),
        kestrel,
        result: GameResult::Draw,
        reason: String::new(),
        think: Vec::new(),
        fault: None,
        losses: Vec::new(),
    };
    let forfeit = |played: &mut Played, color: Color, fault: Fault, reason: String| {
        played.result = win_against(color);
        played.reason = reason;
        played.fault = Some((side_of(color), fault));
    };
    for color in [kestrel, !kestrel] {
        match seats[side_of(color)].new_game() {
            Ok(()) => {}
            Err(SeatError::Fatal(e)) => return Err(e),
            Err(SeatError::Fault) => {
                let reason = format!("{} did not start the game", colour_name(color));
                forfeit(&mut played, color, Fault::CrashOrNoReply, reason);
                return Ok(played);
            }
        }
    }

    let tc = config.time_control;
    let mut clocks = [tc.base; 2];
    let clock = |c: Color| if c == Color::White { 0 } else { 1 };
    let inc = millis(tc.increment);
    let start_fen = start.to_fen();
    let mut game = Game::new(start);
    let mut moves_text = String::new();
    loop {
        if let Some(outcome) = game.outcome() {
            played.result = outcome.result;
            played.reason = outcome.reason.to_string();
            break;
        }
        if game.moves().len() >= config.max_plies {
            played.result = GameResult::Draw;
            played.reason = format!("draw at {} plies", config.max_plies);
            break;
        }
        let pos = *game.position();
        let mover = pos.side_to_move();
        let side = side_of(mover);
        let left = clocks[clock(mover)];
        let engine = seats[side].engine.as_mut().expect("started for the game");
        let position = if moves_text.is_empty() {
            format!("position fen {start_fen}")
        } else {
            format!("position fen {start_fen} moves{moves_text}")
        };
        let go = format!(
            "go wtime {} btime {} winc {inc} binc {inc}",
            millis(clocks[0]),
            millis(clocks[1])
        );
        let deadline = Instant::now() + Duration::from_secs_f64(left.max(0.0)) + REPLY_GRACE;
        let reply = engine
            .send(&position)
            .and_then(|()| engine.go(&go, deadline));
        let (text, took) = match reply {
            Ok(reply) => reply,
            Err(e) => {
                // A crashed or hung process is replaced for the next game.
                seats[side].engine = None;
                let what = match e {
                    ClientError::Timeout { .. } => "did not reply",
                    _ => "crashed",
                };
                let reason = format!("{} {what}", colour_name(mover));
                forfeit(&mut played, mover, Fault::CrashOrNoReply, reason);
                break;
            }
        };
        if side == KESTREL {
            played.think.push(took);
        }
        clocks[clock(mover)] -= took.as_secs_f64();
        if clocks[clock(mover)] < -config.margin {
            let reason = format!("{} loses on time", colour_name(mover));
            forfeit(&mut played, mover, Fault::TimeForfeit, reason);
            break;
        }
        clocks[clock(mover)] += tc.increment;
        // Coordinate text only (the protocol's), then legal in this position.
        let legal = (4..=5).contains(&text.len()) && text.is_ascii();
        match pos.parse_coordinate(&text).ok().filter(|_| legal) {
            Some(mv) => {
                game.play(mv);
                played.moves.push(mv);
                // As the protocol writes it, whatever form of castling the engine sent.
                moves_text.push(' ');
                moves_text.push_str(&pos.coordinate(mv));
            }
            None => {
                let reason = format!("{} plays an illegal move '{text}'", colour_name(mover));
                forfeit(&mut played, mover, Fault::Illegal, reason);
                break;
            }
        }
    }
    Ok(played)
}

/// The loss of a move (centipawns, at least 0): `before` is the position's evaluation for
/// the mover, `after` the next position's for the opponent; both clamped to `EVAL_CLAMP`.
pub fn move_loss(before: i32, after: i32) -> i32 {
    let clamp = |e: i32| e.clamp(-EVAL_CLAMP, EVAL_CLAMP);
    (clamp(before) + clamp(after)).max(0)
}

/// The centipawns each of `mover`'s moves in the game from `start` loses, by a search of
/// `nodes` of every position it needs (each once), at full strength.
pub fn move_losses(
    searcher: &mut Searcher,
    start: Position,
    moves: &[Move],
    mover: Color,
    nodes: u64,
) -> Vec<i32> {
    // Fresh per game, so a game's analysis does not depend on which worker made it.
    searcher.clear();
    let mut game = Game::new(start);
    let mut evals = Vec::with_capacity(moves.len() + 1);
    for ply in 0..=moves.len() {
        let to_move = game.position().side_to_move();
        let needed = (ply < moves.len() && to_move == mover) || (ply > 0 && to_move != mover);
        let eval = if !needed {
            0
        } else if let Some(outcome) = game.outcome() {
            // Only the last position can be over: mated, or drawn.
            if outcome.result == GameResult::Draw {
                0
            } else {
                -EVAL_CLAMP
            }
        } else {
            let params = SearchParams {
                history: game.history_keys(),
                stop_on_mate: true,
                ..SearchParams::default()
            };
            let mut limits = FixedLimits::new(Some(nodes), None);
            searcher
                .search(game.position(), &params, &mut limits)
                .score
                .clamp(-EVAL_CLAMP, EVAL_CLAMP)
        };
        evals.push(eval);
        if let Some(&mv) = moves.get(ply) {
            game.play(mv);
        }
    }
    let first = usize::from(start.side_to_move() != mover);
    (first..moves.len())
        .step_by(2)
        .map(|ply| move_loss(evals[ply], evals[ply + 1]))
        .collect()
}

/// The logistic Elo difference of a score (0 to 1); infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` makes an even score 0, not -0.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// An Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub diff: f64,
    pub low: f64,
    pub high: f64,
}

impl EloEstimate {
    /// From a match's results: the score's standard error from the variance of the
    /// per-game scores, as match tools compute it.
    pub fn from_results(wins: usize, draws: usize, losses: usize) -> Option<EloEstimate> {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return None;
        }
        let (w, d, l) = (wins as f64 / n, draws as f64 / n, losses as f64 / n);
        let mean = w + d / 2.0;
        let variance =
            w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * (0.0 - mean).powi(2);
        let error = (variance / n).sqrt() * 1.959_964;
        Some(EloEstimate {
            diff: elo_from_score(mean),
            low: elo_from_score(mean - error),
            high: elo_from_score(mean + error),
        })
    }

    /// Half the interval's width (infinite when either end is).
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }

    /// Moved by `elo` (the opponent's): a measured Elo.
    pub fn shifted(&self, elo: f64) -> EloEstimate {
        EloEstimate {
            diff: self.diff + elo,
            low: self.low + elo,
            high: self.high + elo,
        }
    }
}

/// An Elo with its sign (`+191`, `-inf`); `signed` false for a measured Elo (`1410`).
pub fn format_elo(elo: f64, signed: bool) -> String {
    match (elo.is_finite(), signed) {
        (false, _) if elo.is_nan() => "-".to_string(),
        (false, _) => if elo > 0.0 { "+inf" } else { "-inf" }.to_string(),
        (true, true) => format!("{elo:+.0}"),
        (true, false) => format!("{elo:.0}"),
    }
}

/// `value ± margin`, the margin `inf` when unbounded.
pub fn format_estimate(estimate: &EloEstimate, signed: bool) -> String {
    let margin = estimate.margin();
    let margin = if margin.is_finite() {
        format!("{margin:.0}")
    } else {
        "inf".to_string()
    };
    format!("{} ± {margin}", format_elo(estimate.diff, signed))
}

/// One setting's measurement.
#[derive(Clone, Debug)]
pub struct SettingResult {
    pub setting: Setting,
    pub opponent: String,
    pub opponent_elo: i64,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// Centipawns lost by each of Kestrel's moves analysed.
    pub move_losses: Vec<i32>,
    /// Kestrel's think time per move, ms.
    pub think_ms: Vec<f64>,
    /// Kestrel's faults and the opponent's.
    pub faults: [Faults; 2],
}

impl SettingResult {
    fn new(m: &Match) -> SettingResult {
        SettingResult {
            setting: m.setting,
            opponent: m.opponent.name.clone(),
            opponent_elo: m.opponent_elo,
            wins: 0,
            draws: 0,
            losses: 0,
            move_losses: Vec::new(),
            think_ms: Vec::new(),
            faults: [Faults::default(); 2],
        }
    }

    fn add(&mut self, game: &Played) {
        match game.result {
            GameResult::Draw => self.draws += 1,
            r if r == win_against(!game.kestrel) => self.wins += 1,
            _ => self.losses += 1,
        }
        self.move_losses.extend(&game.losses);
        self.think_ms
            .extend(game.think.iter().map(|t| t.as_secs_f64() * 1000.0));
        if let Some((side, fault)) = game.fault {
            self.faults[side].add(fault);
        }
    }

    pub fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }

    /// Kestrel's score, 0 to 1.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games().max(1) as f64
    }

    pub fn elo_difference(&self) -> Option<EloEstimate> {
        EloEstimate::from_results(self.wins, self.draws, self.losses)
    }

    /// The setting's Elo: the opponent's plus the difference.
    pub fn measured(&self) -> Option<EloEstimate> {
        self.elo_difference()
            .map(|e| e.shifted(self.opponent_elo as f64))
    }

    /// Mean centipawn loss per move, if any move was analysed.
    pub fn acpl(&self) -> Option<f64> {
        (!self.move_losses.is_empty()).then(|| {
            self.move_losses.iter().map(|&l| f64::from(l)).sum::<f64>()
                / self.move_losses.len() as f64
        })
    }

    /// The share of analysed moves losing `BLUNDER_CP` or more.
    pub fn blunder_share(&self) -> Option<f64> {
        (!self.move_losses.is_empty()).then(|| {
            let blunders = self
                .move_losses
                .iter()
                .filter(|&&l| l >= BLUNDER_CP)
                .count();
            blunders as f64 / self.move_losses.len() as f64
        })
    }

    pub fn median_think_ms(&self) -> Option<f64> {
        median(&self.think_ms)
    }

    fn wdl(&self) -> String {
        format!("{}-{}-{}", self.wins, self.draws, self.losses)
    }
}

/// The median of `values`, if any.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

fn optional(value: Option<f64>, format: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "-".to_string(), format)
}

/// A `LEVELS` row relabelled by the fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relabelled {
    pub old: i64,
    pub new: i64,
    /// False when it kept its label (not measured, or measured without a finite Elo).
    pub measured: bool,
}

/// The fit: the rows relabelled, and what stands in the way of pasting them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fit {
    pub rows: Vec<Relabelled>,
    /// Problems, one line each; a label not above the one below means that row's parameters
    /// need changing, not its label.
    pub problems: Vec<String>,
}

impl Fit {
    /// Whether the labels rise from row to row (the interpolation needs it).
    pub fn increasing(&self) -> bool {
        self.rows.windows(2).all(|w| w[1].new > w[0].new)
    }
}

/// Rounded to the nearest 10.
pub fn round_to_ten(elo: f64) -> i64 {
    ((elo / 10.0).round() * 10.0) as i64
}

/// Relabels each row (`label`, its measured Elo if measured) with the measurement rounded
/// to 10, and checks the labels still rise.
pub fn relabel(rows: &[(i64, Option<f64>)]) -> Fit {
    let mut problems = Vec::new();
    let relabelled: Vec<Relabelled> = rows
        .iter()
        .map(|&(old, measured)| match measured {
            Some(elo) if elo.is_finite() => Relabelled {
                old,
                new: round_to_ten(elo),
                measured: true,
            },
            Some(elo) => {
                problems.push(format!(
                    "row {old}: measured {} (every game won or lost): play it against a \
                     reference nearer its strength; its label is kept",
                    format_elo(elo, false)
                ));
                Relabelled {
                    old,
                    new: old,
                    measured: false,
                }
            }
            None => Relabelled {
                old,
                new: old,
                measured: false,
            },
        })
        .collect();
    for pair in relabelled.windows(2) {
        let (below, row) = (pair[0], pair[1]);
        if row.new <= below.new {
            problems.push(format!(
                "row {} measures {}, not above row {} at {}: change its parameters (or the \
                 row below's), not just its label",
                row.old, row.new, below.old, below.new
            ));
        }
    }
    Fit {
        rows: relabelled,
        problems,
    }
}

/// `12345` as `12_345`, as the source writes big numbers.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

/// The constants and `LEVELS` of strength.rs with the fitted labels, to paste there.
pub fn levels_snippet(anchors: &[Strength], fit: &Fit) -> String {
    let label = |i: usize| fit.rows.get(i).map_or(anchors[i].elo, |r| r.new);
    let last = anchors.len() - 1;
    let mut s = String::new();
    let _ = writeln!(s, "pub const MIN_ELO: i64 = {};", label(0));
    let _ = writeln!(s, "pub const FULL_STRENGTH_ELO: i64 = {};", label(last));
    let _ = writeln!(s, "const LEVELS: [Level; {}] = [", anchors.len());
    for (i, a) in anchors.iter().enumerate() {
        let elo = match i {
            0 => "MIN_ELO".to_string(),
            _ if i == last => "FULL_STRENGTH_ELO".to_string(),
            _ => label(i).to_string(),
        };
        let nodes = if a.nodes == MIN_NODES {
            "MIN_NODES".to_string()
        } else {
            grouped(a.nodes)
        };
        let _ = writeln!(s, "    Level {{");
        let _ = writeln!(s, "        elo: {elo},");
        let _ = writeln!(s, "        nodes: {nodes},");
        let _ = writeln!(s, "        candidates: {},", a.candidates);
        let _ = writeln!(s, "        temperature: {:?},", a.temperature);
        let _ = writeln!(s, "        max_loss: {},", a.max_loss);
        let _ = writeln!(s, "        eval_noise: {},", a.eval_noise);
        let _ = writeln!(s, "    }},");
    }
    s.push_str("];\n");
    s
}

/// The whole run: every setting's result, in the order given.
#[derive(Clone, Debug)]
pub struct Report {
    pub results: Vec<SettingResult>,
}

impl Report {
    /// Faults of Kestrel's sides (the opponent's too when it is Kestrel).
    pub fn kestrel_faults(&self, versus_self: bool) -> usize {
        self.results
            .iter()
            .map(|r| {
                r.faults[KESTREL].total() + usize::from(versus_self) * r.faults[OPPONENT].total()
            })
            .sum()
    }
}

/// The order the openings are played in: a shuffle chosen by `seed` (Fisher-Yates).
fn opening_order(count: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..count).collect();
    let mut rng = Rng::new(seed);
    for i in (1..count).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    order
}

/// Plays every setting, printing as it goes to `out` and the games to `pgn`; ends with the
/// table, the Markdown table and, with two anchor rows measured against a reference, the
/// fit.
pub fn run(
    config: &Config,
    out: &mut dyn Write,
    mut pgn: Option<&mut dyn Write>,
) -> Result<Report, CalibrateError> {
    let matches = plan(config)?;
    let openings = if config.openings.is_empty() {
        vec![Position::startpos()]
    } else {
        config.openings.clone()
    };
    let order = opening_order(openings.len(), config.seed);
    let games = config.games.div_ceil(2) * 2;
    let mut results = Vec::new();
    for m in &matches {
        writeln!(
            out,
            "{} vs {}: {games} games at {}, {} opening{}, {} at once",
            m.kestrel.name,
            m.opponent.name,
            config.time_control,
            openings.len(),
            if openings.len() == 1 { "" } else { "s" },
            config.concurrency.clamp(1, games)
        )?;
        let mut result = SettingResult::new(m);
        let start_of = |index: usize| openings[order[(index / 2) % order.len()]];
        play_match(config, m, games, &start_of, &mut |game| {
            result.add(game);
            if let Some(pgn) = pgn.as_deref_mut() {
                write_pgn(pgn, config, m, game)?;
            }
            let done = result.games();
            if done.is_multiple_of(PROGRESS_EVERY) || done == games {
                writeln!(out, "  {}", progress_line(&result, games))?;
            }
            Ok(())
        })?;
        writeln!(out, "{}\n", summary_line(&result))?;
        results.push(result);
    }
    let report = Report { results };
    write_tables(out, config, &report)?;
    if matches!(config.opponent, Opponent::Reference { .. }) {
        write_fit(out, &report)?;
    }
    Ok(report)
}

/// Plays the `games` of `m` on the configured workers, handing each finished game (in the
/// order they finish) to `done`.
fn play_match(
    config: &Config,
    m: &Match,
    games: usize,
    start_of: &(dyn Fn(usize) -> Position + Sync),
    done: &mut dyn FnMut(&Played) -> Result<(), CalibrateError>,
) -> Result<(), CalibrateError> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = crossbeam_channel::unbounded::<Result<Played, CalibrateError>>();
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.clamp(1, games) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                let mut seats = [
                    Seat {
                        player: &m.kestrel,
                        engine: None,
                    },
                    Seat {
                        player: &m.opponent,
                        engine: None,
                    },
                ];
                let mut searcher =
                    (config.analyse_nodes > 0).then(|| Searcher::new(config.hash_mb as usize));
                while !stop.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= games {
                        break;
                    }
                    // Each opening twice, Kestrel White first.
                    let kestrel = if index % 2 == 0 {
                        Color::White
                    } else {
                        Color::Black
                    };
                    let game = play_game(&mut seats, start_of(index), kestrel, index, config).map(
                        |mut game| {
                            if let Some(searcher) = searcher.as_mut() {
                                game.losses = move_losses(
                                    searcher,
                                    game.start,
                                    &game.moves,
                                    kestrel,
                                    config.analyse_nodes,
                                );
                            }
                            game
                        },
                    );
                    if tx.send(game).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut failure = None;
        for game in rx {
            let handled = game.and_then(|game| done(&game));
            if let Err(e) = handled {
                stop.store(true, Ordering::Relaxed);
                failure.get_or_insert(e);
            }
        }
        failure.map_or(Ok(()), Err)
    })
}

fn progress_line(r: &SettingResult, games: usize) -> String {
    let elo = r
        .elo_difference()
        .map_or_else(|| "-".to_string(), |e| format_estimate(&e, true));
    format!(
        "{}: {}/{games} games, {} ({:.1}%), Elo {elo}, ACPL {}",
        r.setting,
        r.games(),
        r.wdl(),
        r.score() * 100.0,
        optional(r.acpl(), |a| format!("{a:.1}"))
    )
}

fn summary_line(r: &SettingResult) -> String {
    let measured = r
        .measured()
        .map_or_else(|| "-".to_string(), |e| format_estimate(&e, false));
    format!(
        "setting {}: measured Elo {measured} (against {} at {}), {} in {} games, \
         ACPL {}, >= {BLUNDER_CP} cp {}, median {} ms/move, faults {} (Kestrel) {} (opponent)",
        r.setting,
        r.opponent,
        r.opponent_elo,
        r.wdl(),
        r.games(),
        optional(r.acpl(), |a| format!("{a:.1}")),
        optional(r.blunder_share(), |s| format!("{:.1}%", s * 100.0)),
        optional(r.median_think_ms(), |m| format!("{m:.0}")),
        r.faults[KESTREL],
        r.faults[OPPONENT],
    )
}

/// The table of all settings, then the same as Markdown for the README.
fn write_tables(out: &mut dyn Write, config: &Config, report: &Report) -> io::Result<()> {
    writeln!(
        out,
        "{:<8} {:<34} {:>5} {:>5} {:>11} {:>6} {:>12} {:>12} {:>6} {:>7} {:>9} {:>8} {:>8}",
        "setting",
        "opponent",
        "Elo",
        "games",
        "W-D-L",
        "score",
        "Elo diff",
        "measured",
        "ACPL",
        ">=200cp",
        "median ms",
        "faults K",
        "faults O"
    )?;
    for r in &report.results {
        let estimate = |e: Option<EloEstimate>, signed| {
            e.map_or_else(|| "-".to_string(), |e| format_estimate(&e, signed))
        };
        writeln!(
            out,
            "{:<8} {:<34} {:>5} {:>5} {:>11} {:>5.1}% {:>12} {:>12} {:>6} {:>7} {:>9} {:>8} {:>8}",
            r.setting.to_string(),
            r.opponent,
            r.opponent_elo,
            r.games(),
            r.wdl(),
            r.score() * 100.0,
            estimate(r.elo_difference(), true),
            estimate(r.measured(), false),
            optional(r.acpl(), |a| format!("{a:.1}")),
            optional(r.blunder_share(), |s| format!("{:.1}%", s * 100.0)),
            optional(r.median_think_ms(), |m| format!("{m:.0}")),
            r.faults[KESTREL].to_string(),
            r.faults[OPPONENT].to_string(),
        )?;
    }
    writeln!(out, "(faults: illegal/time forfeit/crash or no reply)")?;
    // The issue asks the limited settings to think at least 30% of full strength's time.
    let full = report
        .results
        .iter()
        .find(|r| r.setting == Setting::Full)
        .and_then(SettingResult::median_think_ms);
    if let Some(full) = full.filter(|&f| f > 0.0) {
        let shares: Vec<String> = report
            .results
            .iter()
            .filter_map(|r| {
                let m = r.median_think_ms()?;
                Some(format!("{} {:.0}%", r.setting, 100.0 * m / full))
            })
            .collect();
        writeln!(
            out,
            "median think time against full strength's: {}",
            shares.join(", ")
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "| setting | measured Elo ± 95% | W-D-L | games | time control | ACPL | ≥{BLUNDER_CP} cp share | median ms/move |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    for r in &report.results {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.setting,
            r.measured()
                .map_or_else(|| "-".to_string(), |e| format_estimate(&e, false)),
            r.wdl(),
            r.games(),
            config.time_control,
            optional(r.acpl(), |a| format!("{a:.1}")),
            optional(r.blunder_share(), |s| format!("{:.1}%", s * 100.0)),
            optional(r.median_think_ms(), |m| format!("{m:.0}")),
        )?;
    }
    writeln!(out)
}

/// The relabelled `LEVELS`, when at least two rows were measured.
fn write_fit(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let anchors = Strength::anchors();
    let last = anchors.len() - 1;
    let rows: Vec<(i64, Option<f64>)> = anchors
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let measured = report.results.iter().find(|r| match r.setting {
                Setting::Full => i == last,
                Setting::Elo(elo) => elo == a.elo,
            });
            (a.elo, measured.and_then(|r| r.measured()).map(|e| e.diff))
        })
        .collect();
    if rows.iter().filter(|(_, m)| m.is_some()).count() < 2 {
        return Ok(());
    }
    let fit = relabel(&rows);
    writeln!(
        out,
        "LEVELS relabelled by the measurements (rounded to 10):"
    )?;
    for (i, row) in fit.rows.iter().enumerate() {
        let what = if i == last { " (full strength)" } else { "" };
        let how = if row.measured { "" } else { " (kept)" };
        writeln!(out, "  {} -> {}{what}{how}", row.old, row.new)?;
    }
    if fit.increasing() && fit.problems.is_empty() {
        writeln!(
            out,
            "The labels rise: paste this over the constants and LEVELS in \
             src/search/strength.rs (MIN_ELO and FULL_STRENGTH_ELO bound UCI_Elo's range, \
             which the README and tests name):"
        )?;
    } else {
        for problem in &fit.problems {
            writeln!(out, "  problem: {problem}")?;
        }
        writeln!(
            out,
            "Not ready to paste as it is; the snippet with these labels, for reference:"
        )?;
    }
    writeln!(out, "\n{}", levels_snippet(&anchors, &fit))
}

/// One game in PGN: the headers, the moves in SAN, the result.
fn write_pgn(
    pgn: &mut dyn Write,
    config: &Config,
    m: &Match,
    game: &Played,
) -> Result<(), CalibrateError> {
    let (white, black) = if game.kestrel == Color::White {
        (&m.kestrel.name, &m.opponent.name)
    } else {
        (&m.opponent.name, &m.kestrel.name)
    };
    let mut text = String::new();
    for (tag, value) in [
        ("Event", format!("kestrel calibrate {}", m.setting)),
        ("Site", "?".to_string()),
        ("Date", "????.??.??".to_string()),
        ("Round", (game.index + 1).to_string()),
        ("White", white.clone()),
        ("Black", black.clone()),
        ("Result", game.result.as_pgn().to_string()),
        ("SetUp", "1".to_string()),
        ("FEN", game.start.to_fen()),
        ("TimeControl", config.time_control.to_string()),
        ("Termination", game.reason.clone()),
    ] {
        let _ = writeln!(text, "[{tag} \"{}\"]", value.replace('"', "'"));
    }
    text.push('\n');
    let mut pos = game.start;
    let mut line = String::new();
    let mut words = Vec::new();
    for (i, &mv) in game.moves.iter().enumerate() {
        let number = pos.fullmove_number();
        if pos.side_to_move() == Color::White {
            words.push(format!("{number}."));
        } else if i == 0 {
            words.push(format!("{number}..."));
        }
        words.push(pos.san(mv));
        pos.play(mv);
    }
    words.push(format!("{{{}}}", game.reason));
    words.push(game.result.as_pgn().to_string());
    for word in words {
        if !line.is_empty() && line.len() + word.len() + 1 > 79 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    text.push_str(&line);
    text.push_str("\n\n");
    pgn.write_all(text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_a_score_is_logistic_and_unbounded_at_the_ends() {
        assert_eq!(format_elo(elo_from_score(0.5), true), "+0");
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
        assert!((elo_from_score(0.25) + 190.85).abs() < 0.01);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(format_elo(f64::INFINITY, true), "+inf");
        assert_eq!(format_elo(f64::NEG_INFINITY, false), "-inf");
        assert_eq!(format_elo(190.85, true), "+191");
        assert_eq!(format_elo(1410.2, false), "1410");
    }

    #[test]
    fn the_interval_comes_from_the_per_game_variance() {
        assert_eq!(EloEstimate::from_results(0, 0, 0), None);
        // 60 wins, 40 losses: score 0.6, per-game variance 0.24, error sqrt(0.24 / 100).
        let e = EloEstimate::from_results(60, 0, 40).unwrap();
        assert!((e.diff - 70.44).abs() < 0.01, "{e:?}");
        let half_width = 1.959_964 * (0.24f64 / 100.0).sqrt();
        assert!(
            (e.low - elo_from_score(0.6 - half_width)).abs() < 1e-9,
            "{e:?}"
        );
        assert!(
            (e.high - elo_from_score(0.6 + half_width)).abs() < 1e-9,
            "{e:?}"
        );
        assert!(e.low < e.diff && e.diff < e.high);
        // Draws narrow the interval at the same score.
        let drawish = EloEstimate::from_results(20, 80, 0).unwrap();
        assert!((drawish.diff - e.diff).abs() < 1e-9);
        assert!(drawish.margin() < e.margin() / 2.0, "{drawish:?} {e:?}");
        // Even: centred on 0.
        let even = EloEstimate::from_results(30, 40, 30).unwrap();
        assert_eq!(even.diff, 0.0);
        assert!((even.high + even.low).abs() < 1e-9);
        // All won: no finite difference or margin.
        let won = EloEstimate::from_results(10, 0, 0).unwrap();
        assert_eq!(won.diff, f64::INFINITY);
        assert_eq!(format_estimate(&won, true), "+inf ± inf");
        assert_eq!(
            format_estimate(&even.shifted(1400.0), false)
                .split(' ')
                .next(),
            Some("1400")
        );
    }

    #[test]
    fn relabelling_rounds_to_ten_and_flags_labels_that_do_not_rise() {
        let fit = relabel(&[
            (1000, Some(1083.0)),
            (1400, None),
            (1800, Some(1796.0)),
            (2200, Some(2214.9)),
            (2600, Some(2575.0)),
        ]);
        let new: Vec<i64> = fit.rows.iter().map(|r| r.new).collect();
        assert_eq!(new, [1080, 1400, 1800, 2210, 2580]);
        assert!(!fit.rows[1].measured && fit.rows[2].measured);
        assert!(fit.increasing() && fit.problems.is_empty(), "{fit:?}");

        // 1800 plays no better than 1400 measured: its parameters, not its label, are wrong.
        let fit = relabel(&[
            (1400, Some(1510.0)),
            (1800, Some(1504.0)),
            (2600, Some(2590.0)),
        ]);
        assert!(!fit.increasing());
        assert_eq!(fit.problems.len(), 1, "{:?}", fit.problems);
        assert!(
            fit.problems[0].starts_with("row 1800 measures 1500"),
            "{:?}",
            fit.problems
        );

        // A row won or lost outright keeps its label and says why.
        let fit = relabel(&[(1000, Some(f64::NEG_INFINITY)), (1400, Some(1390.0))]);
        assert_eq!(
            fit.rows[0],
            Relabelled {
                old: 1000,
                new: 1000,
                measured: false
            }
        );
        assert_eq!(fit.problems.len(), 1);
        assert!(fit.increasing());
    }

    #[test]
    fn the_snippet_carries_the_new_labels_and_the_old_parameters() {
        let anchors = Strength::anchors();
        let rows: Vec<(i64, Option<f64>)> = anchors
            .iter()
            .map(|a| (a.elo, Some(a.elo as f64 + 31.0)))
            .collect();
        let snippet = levels_snippet(&anchors, &relabel(&rows));
        assert!(snippet.contains(&format!(
            "pub const MIN_ELO: i64 = {};",
            anchors[0].elo + 30
        )));
        let full = anchors.last().unwrap().elo + 30;
        assert!(snippet.contains(&format!("pub const FULL_STRENGTH_ELO: i64 = {full};")));
        assert!(
            snippet.contains(&format!("elo: {},", anchors[1].elo + 30)),
            "{snippet}"
        );
        assert!(snippet.contains("nodes: MIN_NODES,") && snippet.contains("nodes: 20_000,"));
        assert_eq!(snippet.matches("Level {").count(), anchors.len());
        assert_eq!(grouped(1_000_000), "1_000_000");
        assert_eq!(grouped(999), "999");
    }

    #[test]
    fn a_move_loses_what_the_evaluation_drops_clamped_and_never_below_zero() {
        // +50 before; the opponent then stands at +150: 200 lost.
        assert_eq!(move_loss(50, 150), 200);
        // Better than expected: no loss.
        assert_eq!(move_loss(50, -80), 0);
        // Mates count as 1000 either way.
        assert_eq!(move_loss(31_000 - 5, 31_000 - 8), 2000);
        assert_eq!(move_loss(900, 31_000 - 4), 1900);
    }

    #[test]
    fn analysis_finds_the_blunder_and_scores_the_mate() {
        // Fool's mate: White's 2. g4 allows mate in one, Black mates.
        let start = Position::startpos();
        let mut pos = start;
        let moves: Vec<Move> = ["f2f3", "e7e5", "g2g4", "d8h4"]
            .iter()
            .map(|m| {
                let mv = pos.parse_coordinate(m).unwrap();
                pos.play(mv);
                mv
            })
            .collect();
        let mut searcher = Searcher::new(1);
        let white = move_losses(&mut searcher, start, &moves, Color::White, 3000);
        assert_eq!(white.len(), 2);
        assert!(white[1] >= 900, "{white:?}");
        let black = move_losses(&mut searcher, start, &moves, Color::Black, 3000);
        assert_eq!(black.len(), 2);
        assert_eq!(black[1], 0, "the mate loses nothing: {black:?}");
    }

    #[test]
    fn settings_time_controls_and_openings_parse_and_shuffle() {
        assert_eq!(Setting::parse("1400"), Ok(Setting::Elo(1400)));
        assert_eq!(Setting::parse("FULL"), Ok(Setting::Full));
        assert!(Setting::parse("strong").is_err());
        let anchors = anchor_settings();
        assert_eq!(anchors.last(), Some(&Setting::Full));
        assert_eq!(anchors.len(), Strength::anchors().len());
        assert_eq!(
            TimeControl::parse("5+0.05"),
            Ok(TimeControl {
                base: 5.0,
                increment: 0.05
            })
        );
        assert_eq!(TimeControl::parse("10").map(|t| t.increment), Ok(0.0));
        assert!(TimeControl::parse("0+1").is_err() && TimeControl::parse("5+x").is_err());
        assert_eq!(TimeControl::parse("5+0.05").unwrap().to_string(), "5+0.05");
        let order = opening_order(50, 7);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_eq!(order, opening_order(50, 7));
        assert_ne!(order, opening_order(50, 8));
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
