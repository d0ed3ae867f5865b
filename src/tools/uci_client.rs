//! A small UCI client for engines run as child processes (the `calibrate` tool's players):
//! start one, hold the handshake, set options, and read its lines with deadlines. Every
//! line read carries the time it arrived, so a move's think time does not include how long
//! the caller took to look.

use crossbeam_channel::{Receiver, RecvTimeoutError};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// How long an engine may take to answer `uci` or `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// What went wrong talking to an engine.
#[derive(Debug)]
pub enum ClientError {
    /// The program could not be started.
    Spawn { program: PathBuf, error: String },
    /// The engine closed its output (it crashed or quit).
    Eof,
    /// No awaited reply before the deadline.
    Timeout { awaited: &'static str },
    /// Writing to the engine failed (it is gone).
    Write(String),
    /// The engine refused something it was told (an `info string error` or the like).
    Refused(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Spawn { program, error } => {
                write!(f, "cannot start {}: {error}", program.display())
            }
            ClientError::Eof => f.write_str("the engine closed its output (crashed or quit)"),
            ClientError::Timeout { awaited } => write!(f, "no '{awaited}' in time"),
            ClientError::Write(e) => write!(f, "cannot write to the engine: {e}"),
            ClientError::Refused(line) => write!(f, "the engine refused a setting: {line}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// A `spin` option as an engine announces it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spin {
    pub default: i64,
    pub min: i64,
    pub max: i64,
}

/// What the engine said in reply to `uci`.
#[derive(Clone, Debug, Default)]
pub struct EngineId {
    /// `id name`, or the program's file name if it gave none.
    pub name: String,
    /// The `option` lines, as sent.
    pub options: Vec<String>,
}

impl EngineId {
    /// Whether the engine announces the option `name` (UCI option names ignore case).
    pub fn has_option(&self, name: &str) -> bool {
        self.options
            .iter()
            .any(|line| option_name(line).is_some_and(|n| n.eq_ignore_ascii_case(name)))
    }

    /// The range of the spin option `name`, if announced as one.
    pub fn spin(&self, name: &str) -> Option<Spin> {
        self.options.iter().find_map(|line| {
            option_name(line)
                .filter(|n| n.eq_ignore_ascii_case(name))
                .and_then(|_| parse_spin(line))
        })
    }
}

/// The name of an `option name NAME type ...` line (names may hold spaces).
pub fn option_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("option name ")?;
    let end = rest.find(" type ").unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// The default, min and max of an `option name .. type spin default D min A max B` line.
pub fn parse_spin(line: &str) -> Option<Spin> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let type_at = words.iter().position(|&w| w == "type")?;
    if words.get(type_at + 1) != Some(&"spin") {
        return None;
    }
    let value = |key: &str| -> Option<i64> {
        let at = words[type_at..].iter().position(|&w| w == key)? + type_at;
        words.get(at + 1)?.parse().ok()
    };
    Some(Spin {
        default: value("default")?,
        min: value("min")?,
        max: value("max")?,
    })
}

/// `program` as a file to run: a path (anything with a `/`) as it is, a bare name looked up
/// in PATH and then in `extra` directories.
pub fn find_program(program: &str, extra: &[&str]) -> Option<PathBuf> {
    if program.contains('/') || program.contains(std::path::MAIN_SEPARATOR) {
        let path = PathBuf::from(program);
        return path.is_file().then_some(path);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra.iter().map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

/// A line the engine wrote, and when it arrived.
struct Line {
    text: String,
    at: Instant,
}

/// A running UCI engine. Dropping it sends `quit` and ends the process.
pub struct UciEngine {
    child: Child,
    stdin: Option<ChildStdin>,
    /// `None` once the engine's output ended.
    lines: Receiver<Option<Line>>,
    pub id: EngineId,
}

impl UciEngine {
    /// Starts `program` and holds the `uci` handshake.
    pub fn start(program: &Path) -> Result<UciEngine, ClientError> {
        let mut child = Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| ClientError::Spawn {
                program: program.to_path_buf(),
                error: e.to_string(),
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stdin = child.stdin.take();
        let (tx, rx) = crossbeam_channel::unbounded();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(text) = line else { break };
                let line = Line {
                    text,
                    at: Instant::now(),
                };
                if tx.send(Some(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(None);
        });
        let mut engine = UciEngine {
            child,
            stdin,
            lines: rx,
            id: EngineId::default(),
        };
        engine.send("uci")?;
        let deadline = Instant::now() + HANDSHAKE_TIMEOUT;
        let mut id = EngineId::default();
        loop {
            let (line, _) = engine.next_line(deadline, "uciok")?;
            if line == "uciok" {
                break;
            }
            if let Some(name) = line.strip_prefix("id name ") {
                id.name = name.trim().to_string();
            } else if line.starts_with("option name ") {
                id.options.push(line);
            }
        }
        if id.name.is_empty() {
            id.name = program
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        }
        engine.id = id;
        Ok(engine)
    }

    pub fn send(&mut self, line: &str) -> Result<(), ClientError> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| ClientError::Write("input closed".into()))?;
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|e| ClientError::Write(e.to_string()))
    }

    /// `setoption name NAME value VALUE`.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), ClientError> {
        self.send(&format!("setoption name {name} value {value}"))
    }

    /// `isready`, and waits for `readyok`; lines before it are passed by, except an error
    /// report (an option refused), which is returned as `Refused`.
    pub fn sync(&mut self, timeout: Duration) -> Result<(), ClientError> {
        self.send("isready")?;
        let deadline = Instant::now() + timeout;
        let mut refused = None;
        loop {
            let (line, _) = self.next_line(deadline, "readyok")?;
            if line == "readyok" {
                return refused.map_or(Ok(()), |l| Err(ClientError::Refused(l)));
            }
            let lower = line.to_ascii_lowercase();
            if refused.is_none()
                && (lower.starts_with("info string error")
                    || lower.starts_with("no such option")
                    || lower.starts_with("error"))
            {
                refused = Some(line);
            }
        }
    }

    /// `ucinewgame`, then `isready`/`readyok`.
    pub fn new_game(&mut self) -> Result<(), ClientError> {
        self.send("ucinewgame")?;
        self.sync(HANDSHAKE_TIMEOUT)
    }

    /// Sends `go ...` and waits until `deadline` for `bestmove`: the move's text (the word
    /// after `bestmove`, empty if none) and the time from sending `go` to its arrival.
    pub fn go(&mut self, go: &str, deadline: Instant) -> Result<(String, Duration), ClientError> {
        let sent = Instant::now();
        self.send(go)?;
        loop {
            let (line, at) = self.next_line(deadline, "bestmove")?;
            let mut words = line.split_whitespace();
            if words.next() == Some("bestmove") {
                let mv = words.next().unwrap_or("").to_string();
                return Ok((mv, at.saturating_duration_since(sent)));
            }
        }
    }

    /// The next line before `deadline`, and when it arrived.
    fn next_line(
        &mut self,
        deadline: Instant,
        awaited: &'static str,
    ) -> Result<(String, Instant), ClientError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(Some(line)) => Ok((line.text, line.at)),
            Ok(None) | Err(RecvTimeoutError::Disconnected) => Err(ClientError::Eof),
            Err(RecvTimeoutError::Timeout) => Err(ClientError::Timeout { awaited }),
        }
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        // Ask politely, then insist: an engine that hangs must not outlive the tool.
        let _ = self.send("quit");
        self.stdin = None;
        let until = Instant::now() + Duration::from_millis(500);
        while Instant::now() < until {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spin_options_are_read_with_their_ranges() {
        let line = "option name UCI_Elo type spin default 1350 min 1350 max 2850";
        assert_eq!(option_name(line), Some("UCI_Elo"));
        assert_eq!(
            parse_spin(line),
            Some(Spin {
                default: 1350,
                min: 1350,
                max: 2850
            })
        );
        let id = EngineId {
            name: "x".into(),
            options: vec![
                "option name Clear Hash type button".into(),
                "option name MoveOverhead type spin default 10 min 0 max 5000".into(),
                line.into(),
            ],
        };
        assert!(id.has_option("uci_elo") && id.has_option("Clear Hash"));
        assert!(!id.has_option("UCI_LimitStrength"));
        assert_eq!(id.spin("MoveOverhead").map(|s| s.max), Some(5000));
        assert_eq!(id.spin("Clear Hash"), None);
        assert_eq!(
            parse_spin("option name X type check default false"),
            None,
            "not a spin"
        );
    }

    #[test]
    fn a_program_that_does_not_exist_is_not_found() {
        assert_eq!(find_program("no-such-engine-kestrel-test", &[]), None);
        assert_eq!(find_program("./no/such/engine", &[]), None);
    }
}
