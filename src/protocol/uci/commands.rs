//! The UCI language: parsing command lines and formatting replies. No state.

use crate::chess::Color;
use crate::engine::options::{DefaultValue, EngineOption, Kind, Protocol};
use std::time::Duration;

/// One UCI command, with its arguments checked.
#[derive(Clone, Debug, PartialEq)]
pub enum UciCommand {
    Uci,
    Debug,
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register,
    UciNewGame,
    /// `position startpos|fen FEN [moves ...]`; `fen` is `None` for the start position.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
    /// Not UCI: the static evaluation of the current position, for a person (as in xboard).
    Eval,
}

/// The limits and modes of a `go` command. Times are in milliseconds on the wire.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoParams {
    pub wtime: Option<Duration>,
    pub btime: Option<Duration>,
    pub winc: Option<Duration>,
    pub binc: Option<Duration>,
    pub movestogo: Option<u32>,
    pub movetime: Option<Duration>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Look for a mate in this many moves.
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
    /// What was wrong with the line: each part ignored or read otherwise, and why. A `go`
    /// is never refused as a whole, since the GUI waits for its `bestmove`.
    pub problems: Vec<String>,
}

impl GoParams {
    /// Whether the search has nothing to end it but `stop`: no clock for `us`, no move
    /// time, depth, node or mate limit, and not analysis or pondering (which wait for
    /// `stop` or `ponderhit` by design).
    pub fn is_unbounded(&self, us: Color) -> bool {
        let clock = match us {
            Color::White => self.wtime,
            Color::Black => self.btime,
        };
        !self.infinite
            && !self.ponder
            && clock.is_none()
            && self.movetime.is_none()
            && self.depth.is_none()
            && self.nodes.is_none()
            && self.mate.is_none()
    }
}

/// Times beyond a week are capped (milliseconds).
const MAX_MS: i64 = 7 * 24 * 3600 * 1000;

const GO_KEYWORDS: [&str; 12] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
];

fn is_go_keyword(word: &str) -> bool {
    GO_KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

type Words<'a> = std::iter::Peekable<std::str::SplitWhitespace<'a>>;

/// The value after `key`: the next word, unless the line ends or the next word is another
/// keyword (which then keeps its own meaning).
fn value<'a>(words: &mut Words<'a>, key: &str) -> Result<&'a str, String> {
    words
        .next_if(|w| !is_go_keyword(w))
        .ok_or_else(|| format!("go {key} needs a value"))
}

/// Milliseconds; a negative clock (some GUIs send one after a flag fall) counts as zero. A
/// fraction is no whole number of milliseconds but means a time all the same: it is cut to
/// the millisecond below, and `problems` says so.
fn millis(words: &mut Words, key: &str, problems: &mut Vec<String>) -> Result<Duration, String> {
    let v = value(words, key)?;
    let ms = match v.parse::<i64>() {
        Ok(ms) => ms,
        Err(_) => match v.parse::<f64>() {
            Ok(ms) if ms.is_finite() => {
                let whole = ms.floor().clamp(i64::MIN as f64, i64::MAX as f64) as i64;
                problems.push(format!(
                    "go {key} takes whole milliseconds, not '{v}'; read as {}",
                    whole.max(0)
                ));
                whole
            }
            _ => return Err(format!("go {key} must be milliseconds, not '{v}'")),
        },
    };
    Ok(Duration::from_millis(ms.clamp(0, MAX_MS) as u64))
}

fn count<T: std::str::FromStr>(words: &mut Words, key: &str) -> Result<T, String> {
    let v = value(words, key)?;
    v.parse()
        .map_err(|_| format!("go {key} must be a whole number of at least 0, not '{v}'"))
}

/// `go`'s arguments. Nothing makes the whole line fail: a bad part is left out and noted
/// in `problems`, and the rest stands (keywords in any case).
fn go(args: &str) -> GoParams {
    let mut p = GoParams::default();
    let mut problems = Vec::new();
    let mut words = args.split_whitespace().peekable();
    while let Some(word) = words.next() {
        if let Err(e) = go_part(&mut p, word, &mut words, &mut problems) {
            problems.push(format!("{e}; ignored"));
        }
    }
    p.problems = problems;
    p
}

/// Reads the part of `go` that starts with `word` into `p`.
fn go_part(
    p: &mut GoParams,
    word: &str,
    words: &mut Words,
    problems: &mut Vec<String>,
) -> Result<(), String> {
    let key = word.to_ascii_lowercase();
    let key = key.as_str();
    match key {
        "wtime" => p.wtime = Some(millis(words, key, problems)?),
        "btime" => p.btime = Some(millis(words, key, problems)?),
        "winc" => p.winc = Some(millis(words, key, problems)?),
        "binc" => p.binc = Some(millis(words, key, problems)?),
        "movetime" => {
            // A clock may run below zero after a flag fall; a time to search cannot.
            if words.peek().is_some_and(|v| v.starts_with('-')) {
                let v = value(words, key)?;
                return Err(format!("go movetime must be at least 0, not '{v}'"));
            }
            p.movetime = Some(millis(words, key, problems)?)
        }
        "movestogo" => p.movestogo = Some(count(words, key)?).filter(|&n| n > 0),
        "depth" => p.depth = Some(count::<u32>(words, key)?.max(1)),
        "nodes" => p.nodes = Some(count::<u64>(words, key)?.max(1)),
        "mate" => p.mate = Some(count::<u32>(words, key)?.max(1)),
        "infinite" => p.infinite = true,
        "ponder" => p.ponder = true,
        "searchmoves" => {
            while let Some(m) = words.next_if(|w| !is_go_keyword(w)) {
                p.searchmoves.push(m.to_string());
            }
        }
        _ => {
            // The words up to the next keyword belong to the unknown one.
            let mut unknown = vec![word];
            while let Some(w) = words.next_if(|w| !is_go_keyword(w)) {
                unknown.push(w);
            }
            return Err(format!("unknown go parameter '{}'", unknown.join(" ")));
        }
    }
    Ok(())
}

fn position(args: &str) -> Result<UciCommand, String> {
    let tokens: Vec<&str> = args.split_whitespace().collect();
    let split = tokens.iter().position(|&t| t == "moves");
    let (setup, moves) = match split {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (&tokens[..], &[][..]),
    };
    let moves = moves.iter().map(|m| m.to_string()).collect();
    let fen = match setup {
        ["startpos"] => None,
        ["fen", fen @ ..] if !fen.is_empty() => Some(fen.join(" ")),
        ["fen"] => return Err("position fen needs a FEN".into()),
        _ => {
            return Err(format!(
                "position needs 'startpos' or 'fen FEN', not '{}'",
                setup.join(" ")
            ))
        }
    };
    Ok(UciCommand::Position { fen, moves })
}

/// `setoption name NAME [value VALUE]`; names and values may hold spaces.
fn setoption(args: &str) -> Result<UciCommand, String> {
    let Some(rest) = args.strip_prefix("name") else {
        return Err("setoption needs 'name NAME [value VALUE]'".into());
    };
    let rest = rest.trim();
    let (name, value) = match rest.split_once(" value") {
        Some((n, v)) if v.is_empty() || v.starts_with(char::is_whitespace) => {
            (n.trim(), Some(v.trim().to_string()))
        }
        _ => (rest, None),
    };
    if name.is_empty() {
        return Err("setoption needs an option name".into());
    }
    Ok(UciCommand::SetOption {
        name: name.to_string(),
        value,
    })
}

/// The command word of a line, in lower case (UCI's words are lower case; a GUI or a
/// person that writes `GO` means `go`). Empty for an empty line.
pub fn command_word(line: &str) -> String {
    line.trim_start_matches(crate::protocol::input::TRUNCATED_MARK)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

impl UciCommand {
    /// Parses one input line; the error says why it is not a command.
    pub fn parse(line: &str) -> Result<UciCommand, String> {
        let line = line.trim();
        let args = match line.split_once(char::is_whitespace) {
            Some((_, a)) => a.trim(),
            None => "",
        };
        use UciCommand::*;
        Ok(match command_word(line).as_str() {
            "uci" => Uci,
            "debug" => Debug,
            "isready" => IsReady,
            "setoption" => setoption(args)?,
            "register" => Register,
            "ucinewgame" => UciNewGame,
            "position" => position(args)?,
            "go" => Go(go(args)),
            "stop" => Stop,
            "ponderhit" => PonderHit,
            "quit" => Quit,
            "eval" => Eval,
            _ => return Err(format!("unknown command: {line}")),
        })
    }
}

/// A score as UCI wants it: `cp N` (normalised for the position's `material`; a tablebase
/// win as `cp 20000` less its plies), or `mate N` in moves (negative when being mated).
pub fn score_text(score: i32, material: i32) -> String {
    if crate::search::is_mate_score(score) {
        format!("mate {}", crate::search::mate_in_moves(score))
    } else {
        format!("cp {}", crate::search::shown_centipawns(score, material))
    }
}

/// What an `info` line for a finished iteration carries.
pub struct InfoLine<'a> {
    /// The line's rank among the best root lines (1 without MultiPV; always printed, as
    /// GUIs accept `multipv 1`).
    pub multipv: usize,
    pub depth: u32,
    pub seldepth: u32,
    pub score: i32,
    /// The root's material (`wdl::material`), which scales the centipawns shown.
    pub material: i32,
    /// `lowerbound`/`upperbound` after the score when an aspiration window failed.
    pub bound: crate::search::Bound,
    pub nodes: u64,
    pub elapsed: Duration,
    /// Permille of the hash table in use.
    pub hashfull: usize,
    /// Tablebase probes that gave an answer.
    pub tbhits: u64,
    /// Win, draw and loss chances per mille, shown after the score (`UCI_ShowWDL`).
    pub wdl: Option<(u32, u32, u32)>,
    pub pv: &'a str,
}

impl InfoLine<'_> {
    pub fn format(&self) -> String {
        let ms = self.elapsed.as_millis();
        let nps = (self.nodes as f64 / self.elapsed.as_secs_f64().max(0.001)) as u64;
        let wdl = match self.wdl {
            Some((w, d, l)) => format!(" wdl {w} {d} {l}"),
            None => String::new(),
        };
        let mut line = format!(
            "info depth {} seldepth {} multipv {} score {}{}{wdl} nodes {} nps {nps} hashfull {} tbhits {} time {ms}",
            self.depth,
            self.seldepth,
            self.multipv,
            score_text(self.score, self.material),
            match self.bound {
                crate::search::Bound::Lower => " lowerbound",
                crate::search::Bound::Upper => " upperbound",
                _ => "",
            },
            self.nodes,
            self.hashfull,
            self.tbhits
        );
        if !self.pv.is_empty() {
            line.push_str(" pv ");
            line.push_str(self.pv);
        }
        line
    }
}

/// The `option name …` lines of the table `options`, in its order.
pub fn option_lines(options: &[EngineOption]) -> Vec<String> {
    options.iter().filter_map(option_line).collect()
}

/// The `option name …` line of `option`, if UCI shows it as an option.
pub fn option_line(option: &EngineOption) -> Option<String> {
    let name = option.name_in(Protocol::Uci)?;
    let default = option.default_in(Protocol::Uci);
    Some(match (option.kind, default) {
        (Kind::Spin { min, max, .. }, DefaultValue::Int(d)) => {
            format!("option name {name} type spin default {d} min {min} max {max}")
        }
        (Kind::Check, DefaultValue::Bool(on)) => {
            format!("option name {name} type check default {on}")
        }
        // UCI has no way to write an empty default but a placeholder.
        (Kind::Text | Kind::File, DefaultValue::Text("")) => {
            format!("option name {name} type string default <empty>")
        }
        (Kind::Text | Kind::File, DefaultValue::Text(d)) => {
            format!("option name {name} type string default {d}")
        }
        (Kind::Button, _) => format!("option name {name} type button"),
        (kind, default) => unreachable!("{name}: a {kind:?} option with default {default:?}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_mark_bounds_after_the_score() {
        let mut line = InfoLine {
            multipv: 2,
            depth: 7,
            seldepth: 9,
            score: 35,
            material: 58,
            bound: crate::search::Bound::Lower,
            nodes: 1000,
            elapsed: Duration::from_millis(10),
            hashfull: 3,
            tbhits: 0,
            wdl: None,
            pv: "e2e4",
        };
        let cp = crate::search::wdl::normalised(35, 58);
        assert!(line.format().starts_with(&format!(
            "info depth 7 seldepth 9 multipv 2 score cp {cp} lowerbound nodes 1000 "
        )));
        line.bound = crate::search::Bound::Upper;
        assert!(line
            .format()
            .contains(&format!(" score cp {cp} upperbound nodes ")));
        line.bound = crate::search::Bound::Exact;
        assert!(line.format().contains(&format!(" score cp {cp} nodes ")));
        line.wdl = Some((520, 400, 80));
        assert!(line
            .format()
            .contains(&format!(" score cp {cp} wdl 520 400 80 nodes ")));
    }

    #[test]
    fn parses_go() {
        let Ok(UciCommand::Go(p)) =
            UciCommand::parse("go wtime 1000 btime -5 winc 10 binc 20 movestogo 7")
        else {
            panic!()
        };
        assert_eq!(p.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(p.btime, Some(Duration::ZERO));
        assert_eq!(p.binc, Some(Duration::from_millis(20)));
        assert_eq!(p.movestogo, Some(7));
        let Ok(UciCommand::Go(p)) = UciCommand::parse("go searchmoves e2e4 d2d4 depth 3 ponder")
        else {
            panic!()
        };
        assert_eq!(p.searchmoves, ["e2e4", "d2d4"]);
        assert_eq!(p.depth, Some(3));
        assert!(p.ponder);
        assert!(p.problems.is_empty());
    }

    /// The parts of a `go` line that stand and the problems noted for the rest.
    fn go_of(line: &str) -> GoParams {
        match UciCommand::parse(line) {
            Ok(UciCommand::Go(p)) => p,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn a_bad_part_of_go_is_left_out_and_the_rest_stands() {
        let p = go_of("go depth x wtime 500");
        assert_eq!((p.depth, p.wtime), (None, Some(Duration::from_millis(500))));
        assert_eq!(p.problems.len(), 1, "{p:?}");
        for (line, problems) in [
            ("go depth -1", 1),
            ("go wtime", 1),
            ("go sideways", 1),
            ("go foo bar depth 4", 1),
            ("go nodes -5 movestogo -1", 2),
        ] {
            let p = go_of(line);
            assert_eq!(p.problems.len(), problems, "{line}: {p:?}");
            assert!(p.problems.iter().all(|e| e.ends_with("; ignored")), "{p:?}");
            assert_eq!(p.nodes.or(p.movestogo.map(u64::from)), None, "{line}");
        }
        assert_eq!(go_of("go foo bar depth 4").depth, Some(4));
        // A keyword is never taken as the value of the one before it.
        let p = go_of("go depth infinite");
        assert!(p.infinite && p.depth.is_none(), "{p:?}");
        // A fraction of a millisecond is cut, and said.
        let p = go_of("go wtime 1000.5 btime 999.9");
        assert_eq!(p.wtime, Some(Duration::from_millis(1000)));
        assert_eq!(p.btime, Some(Duration::from_millis(999)));
        assert_eq!(p.problems.len(), 2, "{p:?}");
        // Any case.
        let p = go_of("GO Depth 3");
        assert_eq!((p.depth, p.problems.len()), (Some(3), 0));
        assert!(!p.is_unbounded(Color::White));
        assert!(go_of("go foo").is_unbounded(Color::White));
        assert!(go_of("go btime 100").is_unbounded(Color::White));
        assert!(!go_of("go btime 100").is_unbounded(Color::Black));
        assert!(!go_of("go infinite").is_unbounded(Color::White));
    }

    #[test]
    fn parses_position_and_setoption() {
        assert_eq!(
            UciCommand::parse("position startpos moves e2e4 e7e5"),
            Ok(UciCommand::Position {
                fen: None,
                moves: vec!["e2e4".into(), "e7e5".into()]
            })
        );
        assert_eq!(
            UciCommand::parse("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1"),
            Ok(UciCommand::Position {
                fen: Some("8/8/8/8/8/8/8/K1k5 w - - 0 1".into()),
                moves: vec![]
            })
        );
        assert!(UciCommand::parse("position").is_err());
        assert!(UciCommand::parse("position fen").is_err());
        assert!(UciCommand::parse("position somewhere").is_err());
        assert_eq!(
            UciCommand::parse("setoption name MoveOverhead value 100"),
            Ok(UciCommand::SetOption {
                name: "MoveOverhead".into(),
                value: Some("100".into())
            })
        );
        assert_eq!(
            UciCommand::parse("setoption name Clear Hash"),
            Ok(UciCommand::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
    }

    #[test]
    fn scores() {
        use crate::search::MATE;
        let cp = crate::search::wdl::normalised(35, 40);
        assert_eq!(score_text(35, 40), format!("cp {cp}"));
        assert_eq!(score_text(MATE - 1, 40), "mate 1");
        assert_eq!(score_text(MATE - 3, 78), "mate 2");
        assert_eq!(score_text(-MATE + 2, 2), "mate -1");
    }
}
