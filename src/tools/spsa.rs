//! `kestrel spsa`: the search's numbers (`search::params`) tuned by SPSA, the method
//! OpenBench uses. For pair k every parameter is pushed up or down at random by its
//! perturbation c_k; a tuning build (`--features tune`) given the "+" values plays a game
//! pair (one opening, each colour once) against one given the "−" values, and every
//! parameter moves by r_k · c_k · (wins − losses of "+") in the direction it was pushed.
//!
//! The schedule is OpenBench's, so a run here and one there read the same table: with N
//! pairs, A = N / 10, α = 0.602 and γ = 0.101,
//!
//! ```text
//! c_k = c_end · N^γ / k^γ                        (c_N = c_end: the table's step)
//! a_k = a_end · (A + N)^α / (A + k)^α,  a_end = r_end · c_end²
//! r_k = a_k / c_k²                               (r_N = r_end)
//! ```
//!
//! Games are played at a fixed node count (`--nodes`), so that a run's outcome does not
//! depend on what else the machine does, or on the clock (`--tc`), the way the tuned numbers
//! will be used: a fixed-node tune can favour numbers that lose at a real clock
//! (docs/measurements.md). Each finished pair is a line of the log (`pair K result R values
//! …`); run again with the same log, the tuner resumes after its last line: the log alone
//! holds the state, as a data run's does.

use crate::chess::{Color, Position};
use crate::game::{Game, GameResult};
use crate::rng::Rng;
use crate::search::params::{Param, PARAMS};
use crate::tools::calibrate::TimeControl;
use crate::tools::game_clock::GameClock;
use crate::tools::uci_client::{self, ClientError, UciEngine};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// OpenBench's exponents and stability constant (as a share of the run's pairs).
const ALPHA: f64 = 0.602;
const GAMMA: f64 = 0.101;
const STABILITY_SHARE: f64 = 0.1;

/// How long a side may take over a fixed-node move before it counts as hung.
const MOVE_TIMEOUT: Duration = Duration::from_secs(30);

/// Seconds a clock may run below zero before its side loses on time (the reply's time is
/// measured here, through a pipe, so it runs a little long).
pub const CLOCK_MARGIN: f64 = 0.1;

/// How long past its clock (and the margin) a side may go silent before it counts as hung.
const CLOCK_GRACE: Duration = Duration::from_secs(5);

/// The run's settings.
#[derive(Clone, Debug)]
pub struct Config {
    /// A tuning build of Kestrel (its `uci` lists the parameters as options).
    pub engine: PathBuf,
    /// Game pairs of the whole run (N of the schedule).
    pub pairs: u64,
    /// Nodes per move (when there is no `clock`).
    pub nodes: u64,
    /// A time control for every game instead of the fixed node count.
    pub clock: Option<TimeControl>,
    /// Pairs played at once (two engine processes each).
    pub concurrency: usize,
    /// The learning rate at the end of the run.
    pub r_end: f64,
    /// Seed of the perturbations and the order of the openings.
    pub seed: u64,
    /// Start positions; pair k plays the k-th of a shuffled order.
    pub openings: Vec<Position>,
    /// A game with no result after this many plies is a draw.
    pub max_plies: usize,
    /// The log: read to resume, appended to.
    pub log: PathBuf,
}

/// The schedule's constants for one parameter.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    pairs: f64,
    c_end: f64,
    a_end: f64,
}

impl Schedule {
    pub fn new(param: &Param, pairs: u64, r_end: f64) -> Schedule {
        let c_end = f64::from(param.step);
        Schedule {
            pairs: pairs as f64,
            c_end,
            a_end: r_end * c_end * c_end,
        }
    }

    /// The perturbation of pair `k` (1-based).
    pub fn c(&self, k: u64) -> f64 {
        self.c_end * self.pairs.powf(GAMMA) / (k as f64).powf(GAMMA)
    }

    /// The learning rate of pair `k`.
    pub fn r(&self, k: u64) -> f64 {
        let big_a = STABILITY_SHARE * self.pairs;
        let a = self.a_end * (big_a + self.pairs).powf(ALPHA) / (big_a + k as f64).powf(ALPHA);
        a / (self.c(k) * self.c(k))
    }
}

/// What a pair is played with: its number, the direction of each parameter's push, and the
/// two sides' values (rounded, inside the ranges).
#[derive(Clone, Debug)]
pub struct Perturbation {
    pub k: u64,
    pub signs: Vec<f64>,
    pub plus: Vec<i32>,
    pub minus: Vec<i32>,
    pub opening: usize,
}

/// The tuner's state: the values so far (real numbers; engines get them rounded).
#[derive(Clone, Debug)]
pub struct Tuner {
    pub values: Vec<f64>,
    /// Pairs handed out, and pairs whose result is in.
    pub dispatched: u64,
    pub completed: u64,
    schedules: Vec<Schedule>,
    rng: Rng,
}

fn clamp(param: &Param, value: f64) -> f64 {
    value.clamp(f64::from(param.min), f64::from(param.max))
}

impl Tuner {
    /// A run from the table's defaults, or resumed at `completed` pairs with `values`.
    pub fn new(pairs: u64, r_end: f64, seed: u64, resume: Option<(u64, Vec<f64>)>) -> Tuner {
        let (completed, values) =
            resume.unwrap_or_else(|| (0, PARAMS.iter().map(|p| f64::from(p.default)).collect()));
        // The random stream continues where the stopped run's would have been, roughly:
        // the seed is advanced by the pairs done, so a resumed run does not replay them.
        let rng = Rng::new(seed ^ completed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        Tuner {
            values,
            dispatched: completed,
            completed,
            schedules: PARAMS
                .iter()
                .map(|p| Schedule::new(p, pairs, r_end))
                .collect(),
            rng,
        }
    }

    /// The next pair's perturbation.
    pub fn perturb(&mut self, openings: usize) -> Perturbation {
        self.dispatched += 1;
        let k = self.dispatched;
        let mut signs = Vec::with_capacity(PARAMS.len());
        let mut plus = Vec::with_capacity(PARAMS.len());
        let mut minus = Vec::with_capacity(PARAMS.len());
        for (i, param) in PARAMS.iter().enumerate() {
            let sign = if self.rng.next_u64() & 1 == 0 {
                1.0
            } else {
                -1.0
            };
            let c = self.schedules[i].c(k);
            signs.push(sign);
            plus.push(clamp(param, self.values[i] + sign * c).round() as i32);
            minus.push(clamp(param, self.values[i] - sign * c).round() as i32);
        }
        let opening = self.rng.below(openings.max(1) as u64) as usize;
        Perturbation {
            k,
            signs,
            plus,
            minus,
            opening,
        }
    }

    /// Takes in a pair's result: "+"'s wins minus losses, −2 to 2.
    pub fn update(&mut self, pair: &Perturbation, result: i32) {
        for (i, param) in PARAMS.iter().enumerate() {
            let schedule = &self.schedules[i];
            let step = schedule.r(pair.k) * schedule.c(pair.k) * f64::from(result) * pair.signs[i];
            self.values[i] = clamp(param, self.values[i] + step);
        }
        self.completed += 1;
    }
}

/// The log line of a finished pair.
pub fn log_line(completed: u64, result: i32, values: &[f64]) -> String {
    let values: Vec<String> = values.iter().map(|v| format!("{v:.3}")).collect();
    format!(
        "pair {completed} result {result} values {}",
        values.join(" ")
    )
}

/// The state at the last pair line of a log: pairs done and the values.
pub fn read_log(text: &str) -> Result<Option<(u64, Vec<f64>)>, String> {
    let Some(line) = text.lines().rev().find(|l| l.starts_with("pair ")) else {
        return Ok(None);
    };
    let bad = || format!("unreadable log line: {line}");
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.len() != 5 + PARAMS.len() || words[2] != "result" || words[4] != "values" {
        return Err(format!("{} (the log of another parameter table?)", bad()));
    }
    let completed = words[1].parse().map_err(|_| bad())?;
    let values = words[5..]
        .iter()
        .map(|w| w.parse::<f64>().map_err(|_| bad()))
        .collect::<Result<Vec<f64>, String>>()?;
    Ok(Some((completed, values)))
}

/// The run's header in the log: the table it tunes, so a log says what its columns are.
fn log_header(config: &Config) -> String {
    let names: Vec<&str> = PARAMS.iter().map(|p| p.name).collect();
    let limit = match config.clock {
        Some(tc) => format!("tc {}+{}", tc.base, tc.increment),
        None => format!("nodes {}", config.nodes),
    };
    format!(
        "# spsa pairs {} {limit} r_end {} seed {}\n# columns {}\n",
        config.pairs,
        config.r_end,
        config.seed,
        names.join(" ")
    )
}

/// Faults of the run, by kind (both sides are the tuning build).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    pub illegal: u64,
    /// Time forfeits (only with a time control).
    pub forfeits: u64,
    pub crashes: u64,
}

#[derive(Debug)]
pub enum SpsaError {
    /// The engine cannot be started or does not take the parameters.
    Engine(String),
    Log(String),
}

impl std::fmt::Display for SpsaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SpsaError::Engine(e) => write!(f, "{e}"),
            SpsaError::Log(e) => write!(f, "{e}"),
        }
    }
}

/// One side of a pair: its process, restarted after a crash.
struct Side {
    program: PathBuf,
    engine: Option<UciEngine>,
}

impl Side {
    /// Readies the engine for a game with `values`: started if need be, the parameters
    /// set, `ucinewgame`.
    fn new_game(&mut self, values: &[i32]) -> Result<&mut UciEngine, SpsaError> {
        if self.engine.is_none() {
            self.engine = Some(start_engine(&self.program)?);
        }
        let engine = self.engine.as_mut().expect("started above");
        let set = PARAMS
            .iter()
            .zip(values)
            .try_for_each(|(p, v)| engine.set_option(p.name, &v.to_string()))
            .and_then(|()| engine.new_game());
        set.map_err(|e| SpsaError::Engine(format!("the engine refused the parameters: {e}")))?;
        Ok(self.engine.as_mut().expect("started above"))
    }
}

/// Starts the tuning build and checks it takes every parameter.
fn start_engine(program: &Path) -> Result<UciEngine, SpsaError> {
    let mut engine = UciEngine::start(program)
        .map_err(|e| SpsaError::Engine(format!("cannot start {}: {e}", program.display())))?;
    if let Some(missing) = PARAMS.iter().find(|p| !engine.id.has_option(p.name)) {
        return Err(SpsaError::Engine(format!(
            "{} has no option {}: give a build with --features tune",
            program.display(),
            missing.name
        )));
    }
    engine
        .set_option("Hash", "16")
        .and_then(|()| engine.sync(uci_client::HANDSHAKE_TIMEOUT))
        .map_err(|e| SpsaError::Engine(format!("{}: {e}", program.display())))?;
    Ok(engine)
}

/// A side's fault: it loses the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    Illegal,
    TimeForfeit,
    CrashOrNoReply,
}

/// Plays one game at fixed nodes or on the clock; `sides[0]` has White. The result, and the
/// side at fault if one made a fault.
fn play_game(
    sides: [&mut Side; 2],
    values: [&[i32]; 2],
    start: Position,
    config: &Config,
) -> Result<(GameResult, Option<(Color, Fault)>), SpsaError> {
    let [white, black] = sides;
    let mut engines = [white.new_game(values[0])?, black.new_game(values[1])?];
    let start_fen = start.to_fen();
    let mut game = Game::new(start);
    let mut moves_text = String::new();
    let nodes = format!("go nodes {}", config.nodes);
    let mut clock = config.clock.map(|tc| GameClock::new(tc, CLOCK_MARGIN));
    loop {
        if let Some(outcome) = game.outcome() {
            return Ok((outcome.result, None));
        }
        if game.moves().len() >= config.max_plies {
            return Ok((GameResult::Draw, None));
        }
        let pos = *game.position();
        let mover = pos.side_to_move();
        let engine = &mut engines[usize::from(mover == Color::Black)];
        let loss = match mover {
            Color::White => GameResult::BlackWins,
            Color::Black => GameResult::WhiteWins,
        };
        let (go, allowed) = match &clock {
            Some(clock) => (clock.go(), clock.allowed(mover) + CLOCK_GRACE),
            None => (nodes.clone(), MOVE_TIMEOUT),
        };
        let reply = engine
            .send(&format!("position fen {start_fen} moves{moves_text}"))
            .and_then(|()| engine.go(&go, Instant::now() + allowed));
        let text = match reply {
            Ok((text, took)) => {
                if let Some(clock) = clock.as_mut() {
                    if !clock.charge(mover, took) {
                        return Ok((loss, Some((mover, Fault::TimeForfeit))));
                    }
                }
                text
            }
            Err(ClientError::Timeout { .. } | ClientError::Eof | ClientError::Write(_)) => {
                return Ok((loss, Some((mover, Fault::CrashOrNoReply))))
            }
            Err(e) => return Err(SpsaError::Engine(e.to_string())),
        };
        match pos.parse_coordinate(&text) {
            Ok(mv) => {
                game.play(mv);
                moves_text.push(' ');
                moves_text.push_str(&pos.coordinate(mv));
            }
            Err(_) => return Ok((loss, Some((mover, Fault::Illegal)))),
        }
    }
}

/// A worker's two sides: "+" and "−".
struct Pair {
    plus: Side,
    minus: Side,
}

impl Pair {
    /// Plays pair `p`: "+" has White in the first game, Black in the second. Returns "+"'s
    /// wins minus losses, and the faults.
    fn play(
        &mut self,
        p: &Perturbation,
        start: Position,
        config: &Config,
    ) -> Result<(i32, Faults), SpsaError> {
        let mut result = 0;
        let mut faults = Faults::default();
        for plus_color in [Color::White, Color::Black] {
            let (sides, values) = if plus_color == Color::White {
                (
                    [&mut self.plus, &mut self.minus],
                    [&p.plus[..], &p.minus[..]],
                )
            } else {
                (
                    [&mut self.minus, &mut self.plus],
                    [&p.minus[..], &p.plus[..]],
                )
            };
            let (outcome, fault) = play_game(sides, values, start, config)?;
            if let Some((color, fault)) = fault {
                // The side at fault is restarted for the next game.
                let side = if color == plus_color {
                    &mut self.plus
                } else {
                    &mut self.minus
                };
                side.engine = None;
                match fault {
                    Fault::Illegal => faults.illegal += 1,
                    Fault::TimeForfeit => faults.forfeits += 1,
                    Fault::CrashOrNoReply => faults.crashes += 1,
                }
            }
            result += match (outcome, plus_color) {
                (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 1,
                (GameResult::Draw, _) => 0,
                _ => -1,
            };
        }
        Ok((result, faults))
    }
}

/// The run's outcome.
#[derive(Clone, Debug)]
pub struct Summary {
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    pub pairs: u64,
    pub faults: Faults,
    /// "+"'s wins, draws and losses over the games of this invocation.
    pub wdl: [u64; 3],
}

/// What the workers share: the tuner, the log, the progress output and the tallies.
struct Shared<'a> {
    tuner: Tuner,
    log: std::fs::File,
    out: &'a mut (dyn Write + Send),
    faults: Faults,
    wdl: [u64; 3],
    error: Option<SpsaError>,
    started: Instant,
    resumed_at: u64,
}

impl Shared<'_> {
    /// Takes in a played pair: the update, the tallies, the log line and, every 50 pairs,
    /// a progress line.
    fn record(&mut self, p: &Perturbation, result: i32, faults: Faults, pairs: u64) {
        self.tuner.update(p, result);
        self.faults.illegal += faults.illegal;
        self.faults.forfeits += faults.forfeits;
        self.faults.crashes += faults.crashes;
        // Two games: +2 is two wins, +1 a win and a draw, 0 two draws or one each way.
        let (w, d, l) = match result {
            2 => (2, 0, 0),
            1 => (1, 1, 0),
            0 => (0, 2, 0),
            -1 => (0, 1, 1),
            _ => (0, 0, 2),
        };
        self.wdl[0] += w;
        self.wdl[1] += d;
        self.wdl[2] += l;
        let done = self.tuner.completed;
        if let Err(e) = writeln!(self.log, "{}", log_line(done, result, &self.tuner.values)) {
            self.error.get_or_insert(SpsaError::Log(e.to_string()));
        }
        if done.is_multiple_of(50) || done == pairs {
            let minutes = self.started.elapsed().as_secs_f64() / 60.0;
            let rate = (done - self.resumed_at) as f64 / minutes.max(1e-9);
            let moved = moved_summary(&self.tuner.values);
            let [w, d, l] = self.wdl;
            let f = self.faults;
            let _ = writeln!(
                self.out,
                "spsa: pair {done}/{pairs}, {rate:.1} pairs/min, + {w}-{d}-{l} -, \
                 faults {}/{}/{}, {moved}",
                f.illegal, f.forfeits, f.crashes
            );
        }
    }
}

/// A worker: plays pairs until the run has handed out all of them or failed.
fn work(shared: &Mutex<Shared>, config: &Config) {
    let side = || Side {
        program: config.engine.clone(),
        engine: None,
    };
    let mut pair = Pair {
        plus: side(),
        minus: side(),
    };
    loop {
        let p = {
            let mut s = shared.lock().expect("no worker panics");
            if s.error.is_some() || s.tuner.dispatched >= config.pairs {
                return;
            }
            s.tuner.perturb(config.openings.len())
        };
        let played = pair.play(&p, config.openings[p.opening], config);
        let mut s = shared.lock().expect("no worker panics");
        match played {
            Ok((result, faults)) => s.record(&p, result, faults, config.pairs),
            Err(e) => {
                s.error.get_or_insert(e);
            }
        }
    }
}

/// Runs (or resumes) the tuning; progress lines go to `out`.
pub fn run(config: &Config, out: &mut (dyn Write + Send)) -> Result<Summary, SpsaError> {
    let log_error = |e: std::io::Error| SpsaError::Log(format!("{}: {e}", config.log.display()));
    let log_text = match std::fs::read_to_string(&config.log) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(log_error(e)),
    };
    let resume = read_log(&log_text).map_err(SpsaError::Log)?;
    // Fail early, before the log is touched, if the engine is not a tuning build.
    drop(start_engine(&config.engine)?);
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&config.log)
        .map_err(log_error)?;
    if log_text.is_empty() {
        log.write_all(log_header(config).as_bytes())
            .map_err(log_error)?;
    }
    let tuner = Tuner::new(config.pairs, config.r_end, config.seed, resume);
    let start = tuner.values.clone();
    if tuner.completed > 0 {
        let _ = writeln!(out, "spsa: resuming after pair {}", tuner.completed);
    }
    let shared = Mutex::new(Shared {
        resumed_at: tuner.completed,
        tuner,
        log,
        out,
        faults: Faults::default(),
        wdl: [0; 3],
        error: None,
        started: Instant::now(),
    });
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1) {
            scope.spawn(|| work(&shared, config));
        }
    });
    let s = shared.into_inner().expect("no worker panics");
    match s.error {
        Some(e) => Err(e),
        None => Ok(Summary {
            start,
            end: s.tuner.values,
            pairs: s.tuner.completed,
            faults: s.faults,
            wdl: s.wdl,
        }),
    }
}

/// The parameters furthest from their defaults, in steps: a progress line's view of the run.
fn moved_summary(values: &[f64]) -> String {
    let mut moved: Vec<(f64, usize)> = PARAMS
        .iter()
        .zip(values)
        .enumerate()
        .map(|(i, (p, v))| ((v - f64::from(p.default)) / f64::from(p.step), i))
        .collect();
    moved.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
    let top: Vec<String> = moved
        .iter()
        .take(3)
        .map(|&(steps, i)| format!("{} {:.1} ({steps:+.1} steps)", PARAMS[i].name, values[i]))
        .collect();
    format!("furthest moved: {}", top.join(", "))
}

/// The summary table: every parameter's default, start and end value.
pub fn summary_table(summary: &Summary) -> String {
    let mut text = format!(
        "{:<26} {:>8} {:>10} {:>10} {:>8}\n",
        "parameter", "default", "start", "end", "steps"
    );
    for (i, p) in PARAMS.iter().enumerate() {
        let end = summary.end[i];
        text.push_str(&format!(
            "{:<26} {:>8} {:>10.2} {:>10.2} {:>+8.1}\n",
            p.name,
            p.default,
            summary.start[i],
            end,
            (end - f64::from(p.default)) / f64::from(p.step)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_ends_at_the_tables_step_and_learning_rate() {
        let param = PARAMS[1];
        let s = Schedule::new(&param, 2000, 0.002);
        assert!((s.c(2000) - f64::from(param.step)).abs() < 1e-9);
        assert!((s.r(2000) - 0.002).abs() < 1e-12);
        // Both shrink as the run goes on: the first pairs perturb and learn most.
        assert!(s.c(1) > s.c(1000) && s.c(1000) > s.c(2000));
        assert!(s.c(1) * s.r(1) > s.c(2000) * s.r(2000));
    }

    #[test]
    fn perturbations_are_symmetric_rounded_and_inside_the_ranges() {
        let mut tuner = Tuner::new(100, 0.002, 7, None);
        for _ in 0..50 {
            let p = tuner.perturb(10);
            assert!(p.opening < 10);
            for (i, param) in PARAMS.iter().enumerate() {
                assert!(
                    (param.min..=param.max).contains(&p.plus[i]),
                    "{}",
                    param.name
                );
                assert!(
                    (param.min..=param.max).contains(&p.minus[i]),
                    "{}",
                    param.name
                );
                // "+" lies on the side of the push, "−" on the other.
                if p.signs[i] > 0.0 {
                    assert!(p.plus[i] >= p.minus[i], "{}", param.name);
                } else {
                    assert!(p.plus[i] <= p.minus[i], "{}", param.name);
                }
            }
        }
        assert_eq!(tuner.dispatched, 50);
    }

    #[test]
    fn a_won_pair_moves_every_parameter_towards_plus_and_a_drawn_one_moves_nothing() {
        let mut tuner = Tuner::new(100, 0.01, 3, None);
        let before = tuner.values.clone();
        let p = tuner.perturb(1);
        tuner.update(&p, 0);
        assert_eq!(tuner.values, before);
        let p = tuner.perturb(1);
        tuner.update(&p, 2);
        for i in 0..PARAMS.len() {
            let moved = tuner.values[i] - before[i];
            assert!(moved * p.signs[i] >= 0.0, "{}", PARAMS[i].name);
        }
        assert!(tuner.values != before);
        assert_eq!(tuner.completed, 2);
    }

    #[test]
    fn the_log_gives_back_the_state_of_its_last_pair() {
        let values: Vec<f64> = PARAMS.iter().map(|p| f64::from(p.default) + 0.25).collect();
        let text = format!(
            "# spsa\n{}\n{}\n",
            log_line(1, 2, &vec![0.0; PARAMS.len()]),
            log_line(2, -1, &values)
        );
        let (completed, read) = read_log(&text).unwrap().unwrap();
        assert_eq!(completed, 2);
        assert_eq!(read, values);
        assert_eq!(read_log("# only a header\n").unwrap(), None);
        assert!(read_log("pair 3 result 0 values 1 2 3\n").is_err());
    }
}
