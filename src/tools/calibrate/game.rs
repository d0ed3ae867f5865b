//! One game between two UCI seats: Kestrel at a setting against its opponent, with the
//! clocks the tool keeps, ended by the rules, and the faults (illegal move, loss on time,
//! crash or silence) that lose it.

use super::{CalibrateError, Config, Player};
use crate::chess::{Color, Move, Position};
use crate::game::{Game, GameResult};
use crate::tools::game_clock::GameClock;
use crate::tools::uci_client::{self, ClientError, UciEngine};
use std::time::{Duration, Instant};

/// Beyond its clock, how long a side may stay silent before it counts as hung.
pub const REPLY_GRACE: Duration = Duration::from_secs(5);

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

    pub(super) fn add(&mut self, fault: Fault) {
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
pub(super) const KESTREL: usize = 0;
pub(super) const OPPONENT: usize = 1;

/// One played game.
#[derive(Clone, Debug)]
pub(super) struct Played {
    pub(super) index: usize,
    pub(super) start: Position,
    pub(super) moves: Vec<Move>,
    pub(super) kestrel: Color,
    pub(super) result: GameResult,
    pub(super) reason: String,
    /// Kestrel's think time per move.
    pub(super) think: Vec<Duration>,
    /// The side at fault (`KESTREL`, `OPPONENT`) and the fault.
    pub(super) fault: Option<(usize, Fault)>,
    /// Centipawns lost by each of Kestrel's moves (empty without analysis).
    pub(super) losses: Vec<i32>,
}

impl Played {
    /// The game is lost by `color` (seat `side`) for `fault`.
    fn forfeit(&mut self, color: Color, side: usize, fault: Fault, reason: String) {
        self.result = win_against(color);
        self.reason = reason;
        self.fault = Some((side, fault));
    }
}

/// A side's seat at the board: its process, started when needed and dropped after a fault
/// so the next game starts a fresh one.
pub(super) struct Seat<'a> {
    pub(super) player: &'a Player,
    pub(super) engine: Option<UciEngine>,
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
                .and_then(|()| engine.sync(uci_client::HANDSHAKE_TIMEOUT));
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
pub(super) fn win_against(loser: Color) -> GameResult {
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

/// Plays game `index` from `start`, Kestrel with `kestrel`'s colour.
pub(super) fn play_game(
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
    for color in [kestrel, !kestrel] {
        match seats[side_of(color)].new_game() {
            Ok(()) => {}
            Err(SeatError::Fatal(e)) => return Err(e),
            Err(SeatError::Fault) => {
                let reason = format!("{} did not start the game", colour_name(color));
                played.forfeit(color, side_of(color), Fault::CrashOrNoReply, reason);
                return Ok(played);
            }
        }
    }
    play_moves(seats, &mut played, config, side_of);
    Ok(played)
}

/// The game's moves, from `played.start` until it ends: by the rules, the ply limit, or a
/// side's fault.
fn play_moves(
    seats: &mut [Seat; 2],
    played: &mut Played,
    config: &Config,
    side_of: impl Fn(Color) -> usize,
) {
    let mut clock = GameClock::new(config.time_control, config.margin);
    let start_fen = played.start.to_fen();
    let mut game = Game::new(played.start);
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
        let engine = seats[side].engine.as_mut().expect("started for the game");
        let position = if moves_text.is_empty() {
            format!("position fen {start_fen}")
        } else {
            format!("position fen {start_fen} moves{moves_text}")
        };
        let go = clock.go();
        let deadline = Instant::now() + clock.allowed(mover) + REPLY_GRACE;
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
                played.forfeit(mover, side, Fault::CrashOrNoReply, reason);
                break;
            }
        };
        if side == KESTREL {
            played.think.push(took);
        }
        if !clock.charge(mover, took) {
            let reason = format!("{} loses on time", colour_name(mover));
            played.forfeit(mover, side, Fault::TimeForfeit, reason);
            break;
        }
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
                played.forfeit(mover, side, Fault::Illegal, reason);
                break;
            }
        }
    }
}
