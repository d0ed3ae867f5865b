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
//!
//! This file owns the settings, the configuration, the plan of each setting's match and the
//! run that plays them; the rest is split by concern:
//!
//! * `game`: one game between two UCI seats, with the clocks and the faults.
//! * `stats`: the Elo maths, the median, the centipawn-loss analysis and a setting's tally.
//! * `fit`: the `LEVELS` rows relabelled by the measurements, and the snippet to paste.
//! * `report`: the progress and summary lines, the tables, the fit as printed, the PGN.
//! * `reanalyse`: the analysis again, deeper, on the games of a PGN it wrote.

mod fit;
mod game;
mod reanalyse;
mod report;
mod stats;

pub use fit::{levels_snippet, relabel, round_to_ten, Fit, Relabelled};
pub use game::{Fault, Faults, REPLY_GRACE};
pub use reanalyse::{losses_table, read_pgn, reanalyse, PgnError, RecordedGame, SettingLosses};
pub use report::Report;
pub use stats::{
    elo_from_score, format_elo, format_estimate, median, move_loss, move_losses, side_losses,
    EloEstimate, SettingResult, BLUNDER_CP, EVAL_CLAMP,
};

use super::uci_client::{find_program, ClientError, EngineId, UciEngine};
use crate::chess::{Color, Position};
use crate::rng::Rng;
use crate::search::strength::Strength;
use crate::search::Searcher;
use game::{play_game, Played, Seat};
use report::{progress_line, summary_line, write_fit, write_pgn, write_tables};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Where a bare reference name is looked for after PATH (Debian puts engines there).
pub const EXTRA_ENGINE_DIRS: [&str; 1] = ["/usr/games"];
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
/// The reference engine `id` (run as `program`) at `elo` where it has `UCI_Elo`, with the
/// tool's options and then the user's.
fn reference_player(
    id: &EngineId,
    program: &Path,
    options: &[(String, String)],
    hash_mb: u64,
    elo: i64,
) -> Player {
    let mut reference = common_options(id, hash_mb);
    let name = if id.spin("UCI_Elo").is_some() {
        if id.has_option("UCI_LimitStrength") {
            reference.push(("UCI_LimitStrength".into(), "true".into()));
        }
        reference.push(("UCI_Elo".into(), elo.to_string()));
        format!("{} (UCI_Elo {elo})", id.name)
    } else {
        id.name.clone()
    };
    reference.extend(options.iter().cloned());
    Player {
        program: program.to_path_buf(),
        options: reference,
        name,
    }
}

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
                matches.push(Match {
                    setting,
                    kestrel: kestrel_at(setting),
                    opponent: reference_player(&id, program, options, config.hash_mb, opponent_elo),
                    opponent_elo,
                });
            }
            Ok(matches)
        }
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
        writeln!(out, "{}", summary_line(&result))?;
        if let Some(warning) = result.uneven_warning() {
            writeln!(out, "  warning: {warning}")?;
        }
        writeln!(out)?;
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
#[cfg(test)]
mod tests {
    use super::*;

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
