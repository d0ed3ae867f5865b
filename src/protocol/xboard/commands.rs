//! The xboard (CECP v2) language: parsing command lines and formatting replies. No state.

use crate::chess::{Role, Square};
use crate::engine::options::{DefaultValue, EngineOption, Kind, Protocol};
use std::time::Duration;

/// One command from the GUI (or a person), with its arguments checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    Xboard,
    Protover(u32),
    Accepted(String),
    Rejected(String),
    New,
    Variant(String),
    Quit,
    Random,
    Force,
    Go,
    PlayOther,
    White,
    Black,
    Level {
        moves: u32,
        base: Duration,
        increment: Duration,
    },
    St(Duration),
    Sd(u32),
    Nps(u64),
    Time(Duration),
    Otim(Duration),
    /// A move, with or without the `usermove` prefix.
    Move(String),
    MoveNow,
    Ping(String),
    Draw,
    Result(String),
    SetBoard(String),
    Edit,
    Hint,
    Book,
    Undo,
    Remove,
    Hard,
    Easy,
    Post,
    NoPost,
    Analyze,
    Exit,
    Stat,
    Name(String),
    Rating,
    Ics(String),
    Computer,
    Pause,
    Resume,
    Memory(usize),
    Cores(usize),
    /// `egtpath TYPE PATH`: where the endgame tables of a kind are (Kestrel uses syzygy).
    EgtPath {
        kind: String,
        path: String,
    },
    Option {
        name: String,
        value: Option<String>,
    },
    Exclude(String),
    Include(String),
    SetScore {
        score: i32,
        depth: u32,
    },
    // Terminal conveniences (no GUI sends these).
    Help,
    /// `elo N`: play at the strength setting N; `elo off`: full strength; `elo`: show it.
    Elo(String),
    /// The Syzygy tables' verdict on the position (`wdl W dtz D`).
    Tablebase,
    Display,
    Moves,
    Eval,
    Fen,
    Perft(u32),
    Divide(u32),
    Bench(Option<u32>),
    /// `genfens N seed S book B [extra]`: OpenBench's request for opening positions.
    Genfens(crate::tools::genfens::Request),
    Test {
        file: String,
        seconds: f64,
    },
}

/// Why a line is not a command we can carry out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    Unknown(String),
    /// Known command, bad or missing argument: the reason.
    BadArgument(String),
}

/// Moves and times beyond this are clamped: a week, in centiseconds.
const MAX_CENTISECONDS: i64 = 7 * 24 * 3600 * 100;

fn arg<'a>(args: &'a str, what: &str) -> Result<&'a str, CommandError> {
    let a = args.trim();
    if a.is_empty() {
        Err(CommandError::BadArgument(format!("missing {what}")))
    } else {
        Ok(a)
    }
}

fn number<T: std::str::FromStr>(args: &str, what: &str) -> Result<T, CommandError> {
    let a = arg(args, what)?;
    a.parse()
        .map_err(|_| CommandError::BadArgument(format!("{what} must be a number, not '{a}'")))
}

/// A depth for perft and bench: 1 to 20.
fn depth_arg(args: &str) -> Result<u32, CommandError> {
    let d: u32 = number(args, "depth")?;
    if !(1..=20).contains(&d) {
        return Err(CommandError::BadArgument(format!(
            "depth must be 1-20, not {d}"
        )));
    }
    Ok(d)
}

/// `time`/`otim` value: centiseconds; negative counts as zero, absurd values are capped.
fn centiseconds(args: &str) -> Result<Duration, CommandError> {
    let a = arg(args, "time in centiseconds")?;
    let cs: f64 = a
        .parse()
        .map_err(|_| CommandError::BadArgument(format!("time must be centiseconds, not '{a}'")))?;
    if !cs.is_finite() {
        return Err(CommandError::BadArgument(format!(
            "time must be finite, not '{a}'"
        )));
    }
    let cs = (cs as i64).clamp(0, MAX_CENTISECONDS);
    Ok(Duration::from_millis(cs as u64 * 10))
}

/// Seconds, possibly fractional, non-negative and finite.
fn seconds(text: &str, what: &str) -> Result<Duration, CommandError> {
    let s: f64 = text
        .parse()
        .map_err(|_| CommandError::BadArgument(format!("{what} must be seconds, not '{text}'")))?;
    if !s.is_finite() || s < 0.0 || s > (MAX_CENTISECONDS / 100) as f64 {
        return Err(CommandError::BadArgument(format!(
            "{what} out of range: '{text}'"
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

/// `level MPS BASE INC`, BASE as minutes or `minutes:seconds`.
fn level(args: &str) -> Result<Command, CommandError> {
    let parts: Vec<&str> = args.split_whitespace().collect();
    let [mps, base, inc] = parts[..] else {
        return Err(CommandError::BadArgument(
            "level needs three values: moves, base (m or m:ss), increment".into(),
        ));
    };
    let moves: u32 = mps.parse().map_err(|_| {
        CommandError::BadArgument(format!("moves per session must be a number, not '{mps}'"))
    })?;
    let base = match base.split_once(':') {
        Some((m, s)) => {
            let m = seconds(m, "base minutes")?;
            let s = seconds(s, "base seconds")?;
            m * 60 + s
        }
        None => seconds(base, "base minutes")? * 60,
    };
    let increment = seconds(inc, "increment")?;
    Ok(Command::Level {
        moves,
        base,
        increment,
    })
}

impl Command {
    /// Parses one input line. An unknown word that looks like a move is taken as a move.
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        let line = line.trim();
        let (word, args) = match line.split_once(char::is_whitespace) {
            Some((w, a)) => (w, a.trim()),
            None => (line, ""),
        };
        use Command::*;
        Ok(match word {
            "xboard" => Xboard,
            "protover" => Protover(number(args, "protocol version")?),
            "accepted" => Accepted(args.to_string()),
            "rejected" => Rejected(args.to_string()),
            "new" => New,
            "variant" => Variant(arg(args, "variant name")?.to_string()),
            "quit" => Quit,
            "random" => Random,
            "force" => Force,
            "go" => Go,
            "playother" => PlayOther,
            "white" => White,
            "black" => Black,
            "level" => level(args)?,
            "st" => {
                let d = seconds(arg(args, "seconds per move")?, "seconds per move")?;
                if d.is_zero() {
                    return Err(CommandError::BadArgument(
                        "st must be more than 0 seconds".into(),
                    ));
                }
                St(d)
            }
            "sd" => {
                let d: u32 = number(args, "depth")?;
                if d == 0 {
                    return Err(CommandError::BadArgument("sd must be at least 1".into()));
                }
                Sd(d)
            }
            "nps" => Nps(number(args, "nodes per second")?),
            "time" => Time(centiseconds(args)?),
            "otim" => Otim(centiseconds(args)?),
            "usermove" => Move(arg(args, "move")?.to_string()),
            "?" => MoveNow,
            "ping" => Ping(args.to_string()),
            "draw" => Draw,
            "result" => Result(args.to_string()),
            "setboard" => SetBoard(arg(args, "FEN")?.to_string()),
            // A mode that takes the following lines as board edits: trailing words mean
            // the line is not the command it seems to be, so do not enter it.
            "edit" if args.is_empty() => Edit,
            "edit" => {
                return Err(CommandError::BadArgument(format!(
                    "edit takes no arguments, not '{args}'"
                )))
            }
            "hint" => Hint,
            "bk" => Book,
            "undo" => Undo,
            "remove" => Remove,
            "hard" => Hard,
            "easy" => Easy,
            "post" => Post,
            "nopost" => NoPost,
            "analyze" => Analyze,
            "exit" => Exit,
            "." => Stat,
            "name" => Name(args.to_string()),
            "rating" => Rating,
            "ics" => Ics(args.to_string()),
            "computer" => Computer,
            "pause" => Pause,
            "resume" => Resume,
            "memory" => Memory(number(args, "memory in MB")?),
            "cores" => Cores(number(args, "number of cores")?),
            "egtpath" => {
                let (kind, path) = arg(args, "table type and path")?
                    .split_once(char::is_whitespace)
                    .unwrap_or((args, ""));
                EgtPath {
                    kind: kind.to_string(),
                    path: path.trim().to_string(),
                }
            }
            "option" => {
                let a = arg(args, "option name")?;
                match a.split_once('=') {
                    Some((n, v)) => Option {
                        name: n.trim().to_string(),
                        value: Some(v.trim().to_string()),
                    },
                    None => Option {
                        name: a.to_string(),
                        value: None,
                    },
                }
            }
            "exclude" => Exclude(arg(args, "move or 'all'")?.to_string()),
            "include" => Include(arg(args, "move or 'all'")?.to_string()),
            "setscore" => {
                let parts: Vec<&str> = args.split_whitespace().collect();
                let [s, d] = parts[..] else {
                    return Err(CommandError::BadArgument(
                        "setscore needs SCORE DEPTH".into(),
                    ));
                };
                SetScore {
                    score: number(s, "score")?,
                    depth: number(d, "depth")?,
                }
            }
            "help" => Help,
            "elo" => Elo(args.to_string()),
            "d" | "display" | "board" => Display,
            "moves" => Moves,
            "eval" => Eval,
            "tb" => Tablebase,
            "fen" => Fen,
            "perft" => Perft(depth_arg(args)?),
            "divide" => Divide(depth_arg(args)?),
            "bench" => Bench(if args.is_empty() {
                None
            } else {
                Some(depth_arg(args)?)
            }),
            "genfens" => Genfens(
                crate::tools::genfens::Request::parse(args).map_err(CommandError::BadArgument)?,
            ),
            "test" => {
                let mut parts = args.split_whitespace();
                let file = parts
                    .next()
                    .ok_or_else(|| CommandError::BadArgument("missing EPD file".into()))?;
                let seconds = match parts.next() {
                    None => 1.0,
                    Some(t) => seconds(t, "seconds per position")?.as_secs_f64(),
                };
                Test {
                    file: file.to_string(),
                    seconds,
                }
            }
            _ if args.is_empty() && looks_like_move(word) => Move(word.to_string()),
            _ => return Err(CommandError::Unknown(line.to_string())),
        })
    }

    /// Commands that may wait while the engine thinks on its own move (queued, in order)
    /// and that do not disturb pondering or analysis (carried out at once).
    pub fn is_harmless_during_search(&self) -> bool {
        use Command::*;
        matches!(
            self,
            Ping(_)
                | Time(_)
                | Otim(_)
                | Post
                | NoPost
                | Hard
                | Accepted(_)
                | Rejected(_)
                | Name(_)
                | Rating
                | Ics(_)
                | Computer
                | Random
                | Hint
                | Book
                | Draw
                | Stat
                | Level { .. }
                | St(_)
                | Sd(_)
                | Nps(_)
                | Help
                | Display
                | Moves
                | Eval
                | Fen
        )
    }
}

/// One command of the legacy `edit` mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditCommand {
    /// `Pe4`: a piece of the current edit colour on the square (`None`: `xe4`, empty it).
    Place(Square, Option<Role>),
    /// `#`: empty the board.
    Clear,
    /// `c`: switch the colour of the pieces placed next.
    SwitchColor,
    /// `.`: leave edit mode with the position set up.
    Done,
}

/// What a line means in legacy `edit` mode.
#[derive(Clone, Debug, PartialEq)]
pub enum EditLine {
    Edit(EditCommand),
    /// A protocol command; no edit command looks like one of these.
    Command(Command),
}

/// Parses a line in legacy `edit` mode. A line shaped like a placement (a letter and a
/// square) is always taken as one: `Ke1` places a king rather than being the SAN move
/// `Ke1`, and `Ae4` is a bad placement, not a move. Anything else is parsed as a protocol
/// command, so the caller can tell a real command (which ends edit mode) from a line that
/// is neither (an error).
pub fn parse_edit_line(line: &str) -> Result<EditLine, CommandError> {
    let line = line.trim();
    let edit = match line {
        "#" => EditCommand::Clear,
        "c" => EditCommand::SwitchColor,
        "." => EditCommand::Done,
        _ => {
            let mut chars = line.chars();
            match (chars.next(), Square::parse(chars.as_str())) {
                (Some('x' | 'X'), Some(sq)) => EditCommand::Place(sq, None),
                (Some(letter), Some(sq)) => match Role::from_char(letter) {
                    Some(role) => EditCommand::Place(sq, Some(role)),
                    None => return Err(CommandError::Unknown(line.to_string())),
                },
                _ => return Command::parse(line).map(EditLine::Command),
            }
        }
    };
    Ok(EditLine::Edit(edit))
}

/// Coordinate moves (`e2e4`, `e7e8q`), castling (`O-O`), and SAN shapes (`Nf3`, `exd5`).
pub fn looks_like_move(word: &str) -> bool {
    let b = word.as_bytes();
    if word.starts_with("O-O") || word.starts_with("0-0") {
        return true;
    }
    if b.len() < 2 || b.len() > 8 || !word.is_ascii() {
        return false;
    }
    let has_square = b
        .windows(2)
        .any(|w| (b'a'..=b'h').contains(&w[0]) && (b'1'..=b'8').contains(&w[1]));
    has_square
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || b"=+#x-!?".contains(c))
}

/// A score for thinking output: centipawns normalised for the position's `material` (a
/// tablebase win as 20000 less its plies), mates as 100000 + moves (or -100000 - moves).
pub fn format_score(score: i32, material: i32) -> i32 {
    if crate::search::is_mate_score(score) {
        let moves = crate::search::mate_in_moves(score);
        if moves > 0 {
            100_000 + moves
        } else {
            -100_000 + moves
        }
    } else {
        crate::search::shown_centipawns(score, material)
    }
}

/// `ply score time nodes seldepth nps tbhits<TAB>pv`, time in centiseconds; `score` as
/// `format_score` shows it.
pub fn thinking_line(
    depth: u32,
    score: i32,
    elapsed: Duration,
    nodes: u64,
    seldepth: u32,
    tbhits: u64,
    pv: &str,
) -> String {
    let cs = elapsed.as_millis() / 10;
    let nps = (nodes as f64 / elapsed.as_secs_f64().max(0.001)) as u64;
    format!("{depth} {score} {cs} {nodes} {seldepth} {nps} {tbhits}\t{pv}")
}

/// The `feature option="…"` lines of the table `options`, in its order.
pub fn feature_options(options: &[EngineOption]) -> Vec<String> {
    options.iter().filter_map(feature_option).collect()
}

/// The `feature option="…"` line of `option`, if xboard shows it as an option.
pub fn feature_option(option: &EngineOption) -> Option<String> {
    let name = option.name_in(Protocol::Xboard)?;
    let default = option.default_in(Protocol::Xboard);
    let control = match (option.kind, default) {
        (Kind::Spin { min, max, .. }, DefaultValue::Int(d)) => format!("-spin {d} {min} {max}"),
        (Kind::Check, DefaultValue::Bool(on)) => format!("-check {}", u8::from(on)),
        (Kind::Text, DefaultValue::Text(d)) => format!("-string {d}"),
        (Kind::File, DefaultValue::Text(d)) => format!("-file {d}"),
        (Kind::Button, _) => "-button".to_string(),
        (kind, default) => unreachable!("{name}: a {kind:?} option with default {default:?}"),
    };
    Some(format!("feature option=\"{name} {control}\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_levels_and_clocks() {
        assert_eq!(
            Command::parse("level 40 5 0"),
            Ok(Command::Level {
                moves: 40,
                base: Duration::from_secs(300),
                increment: Duration::ZERO
            })
        );
        assert_eq!(
            Command::parse("level 0 0:30 0.1"),
            Ok(Command::Level {
                moves: 0,
                base: Duration::from_secs(30),
                increment: Duration::from_millis(100)
            })
        );
        assert_eq!(
            Command::parse("level 40 0:10 0"),
            Ok(Command::Level {
                moves: 40,
                base: Duration::from_secs(10),
                increment: Duration::ZERO
            })
        );
        assert_eq!(
            Command::parse("time 1234"),
            Ok(Command::Time(Duration::from_millis(12340)))
        );
        assert_eq!(Command::parse("time -5"), Ok(Command::Time(Duration::ZERO)));
        assert!(matches!(
            Command::parse("level 40 x 0"),
            Err(CommandError::BadArgument(_))
        ));
        assert!(matches!(
            Command::parse("level 40"),
            Err(CommandError::BadArgument(_))
        ));
        assert!(matches!(
            Command::parse("st -1"),
            Err(CommandError::BadArgument(_))
        ));
        assert!(matches!(
            Command::parse("sd 0"),
            Err(CommandError::BadArgument(_))
        ));
        assert!(matches!(
            Command::parse("time"),
            Err(CommandError::BadArgument(_))
        ));
        assert!(matches!(
            Command::parse("time nan"),
            Err(CommandError::BadArgument(_))
        ));
    }

    #[test]
    fn moves_with_and_without_usermove() {
        assert_eq!(
            Command::parse("usermove e2e4"),
            Ok(Command::Move("e2e4".into()))
        );
        assert_eq!(Command::parse("e7e8q"), Ok(Command::Move("e7e8q".into())));
        assert_eq!(Command::parse("O-O-O"), Ok(Command::Move("O-O-O".into())));
        assert_eq!(Command::parse("Nf3"), Ok(Command::Move("Nf3".into())));
        assert_eq!(
            Command::parse("frobnicate"),
            Err(CommandError::Unknown("frobnicate".into()))
        );
        assert!(matches!(
            Command::parse("e2e4 now"),
            Err(CommandError::Unknown(_))
        ));
    }

    #[test]
    fn edit_mode_lines_are_edits_or_commands() {
        use EditCommand::*;
        let edit = |line: &str| parse_edit_line(line).map_err(|_| ());
        let place = |sq: &str, role| Ok(EditLine::Edit(Place(Square::parse(sq).unwrap(), role)));
        // Placements win over the SAN moves of the same shape, in either case.
        assert_eq!(edit("Ke1"), place("e1", Some(Role::King)));
        assert_eq!(edit("Nf3"), place("f3", Some(Role::Knight)));
        assert_eq!(edit("pa7"), place("a7", Some(Role::Pawn)));
        assert_eq!(edit(" xe4 "), place("e4", None));
        assert_eq!(edit("Xh8"), place("h8", None));
        assert_eq!(edit("#"), Ok(EditLine::Edit(Clear)));
        assert_eq!(edit("c"), Ok(EditLine::Edit(SwitchColor)));
        assert_eq!(edit("."), Ok(EditLine::Edit(Done)));
        // Real commands, moves included, are no edit commands.
        for (line, cmd) in [
            ("new", Command::New),
            ("ping 3", Command::Ping("3".into())),
            ("quit", Command::Quit),
            ("go", Command::Go),
            ("force", Command::Force),
            ("edit", Command::Edit),
            ("e2e4", Command::Move("e2e4".into())),
            ("usermove Ke1", Command::Move("Ke1".into())),
            ("exd5", Command::Move("exd5".into())),
        ] {
            assert_eq!(edit(line), Ok(EditLine::Command(cmd)), "{line}");
        }
        // Neither: a placement with a bad piece or square (not a move even if it looks like
        // one), or more than one word.
        for line in ["Zz9", "Ae4", "Ke9", "Pe4 Pd4", "cc", "##"] {
            assert!(
                matches!(parse_edit_line(line), Err(CommandError::Unknown(_))),
                "{line}"
            );
        }
        assert!(matches!(
            parse_edit_line("level 40"),
            Err(CommandError::BadArgument(_))
        ));
    }

    #[test]
    fn edit_takes_no_arguments() {
        assert_eq!(Command::parse("edit"), Ok(Command::Edit));
        assert_eq!(
            Command::parse("edit foo"),
            Err(CommandError::BadArgument(
                "edit takes no arguments, not 'foo'".into()
            ))
        );
    }

    #[test]
    fn mate_scores_use_the_xboard_convention() {
        use crate::search::MATE;
        assert_eq!(format_score(MATE - 1, 40), 100_001);
        assert_eq!(format_score(MATE - 3, 78), 100_002);
        assert_eq!(format_score(-MATE + 2, 2), -100_001);
        assert_eq!(
            format_score(-35, 40),
            -crate::search::wdl::normalised(35, 40)
        );
    }
}
