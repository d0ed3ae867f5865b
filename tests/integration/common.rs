//! A test harness that starts the real `kestrel` binary and holds a session on its stdin
//! and stdout, as a GUI would.
//!
//! The helpers that skip lines they are not waiting for (`wait_for`, `expect_prefix`,
//! `expect_move`, `sync`) fail on an `Error`, `Illegal move` or `tellusererror` line they
//! skip, unless the test opted in with `allow_errors(true)`: a reply nobody asked for must not
//! go unseen. `expect_move` also pings after the move and fails on anything but thinking
//! output between the move and the pong (a result claim, an error, a second move);
//! `expect_move_and_after` hands those lines to the test instead.
//!
//! For UCI: `started_uci`, `ready` (`isready` ... `readyok`), `expect_bestmove`,
//! `expect_silence_of`, and `uci_info` to read `info` lines; they fail on an unexpected
//! `info string error` the same way.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A second, for timeouts.
pub const SEC: Duration = Duration::from_secs(1);

/// The engine binary under test.
pub const KESTREL: &str = env!("CARGO_BIN_EXE_kestrel");

/// A file of `tests/data`.
pub fn data_file(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Whether this is a CI run (`CI` set to anything but empty, `0` or `false`): there a
/// missing client or tool fails the test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// Runs the python-chess script `tests/python/SCRIPT` with `args`, if python3 can import
/// `module` (a part of python-chess): its stdout, after asserting that it succeeded. `None`
/// when python-chess is missing, which fails the test in CI and elsewhere says so on the
/// terminal (past the harness's output capture) and skips it.
pub fn run_python_chess(module: &str, script: &str, args: &[&str]) -> Option<String> {
    use std::process::Command;
    let has_chess = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success());
    if !has_chess {
        assert!(
            !in_ci(),
            "python3 with python-chess is required in CI (pip install chess)"
        );
        let _ = std::io::Write::write_all(
            &mut std::io::stderr(),
            format!("{script}: SKIPPED, python3 with python-chess not found (pip install chess)\n")
                .as_bytes(),
        );
        return None;
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(script);
    let out = Command::new("python3")
        .arg(path)
        .args(args)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    Some(stdout)
}

/// The square named `name` (`e4`).
pub fn sq(name: &str) -> kestrel::chess::Square {
    kestrel::chess::Square::parse(name).unwrap_or_else(|| panic!("bad square {name}"))
}

/// The position after playing `moves` (coordinate or SAN) from `fen`.
pub fn position_after(fen: &str, moves: &[&str]) -> kestrel::chess::Position {
    position_after_in(fen, false, moves)
}

/// `position_after`, in Chess960 notation (castling as king takes rook) when `chess960` is
/// set or the FEN's castling rights need it.
pub fn position_after_in(fen: &str, chess960: bool, moves: &[&str]) -> kestrel::chess::Position {
    let mut pos = kestrel::chess::Position::from_fen(fen).unwrap();
    pos.set_chess960(chess960 || pos.is_chess960());
    for m in moves {
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("{m} illegal in {}: {e}", pos.to_fen()));
        pos = pos.after(mv);
    }
    pos
}

/// Asks for the position with `fen` (answered at once, also while thinking or pondering).
pub fn read_fen(e: &mut Engine) -> String {
    e.send("fen");
    let (line, _) = e.wait_for("a FEN", 5 * SEC, |l| l.split('/').count() == 8);
    line
}

/// The lines up to the `pong` of `ping n`, none of which may be a move.
pub fn no_move(e: &mut Engine, n: u32) -> Vec<String> {
    let lines = e.sync(n);
    assert!(
        !lines.iter().any(|l| l.starts_with("move ")),
        "a move came: {lines:?}"
    );
    lines
}

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line received so far, for failure messages and later checks.
    pub transcript: Vec<String>,
    /// Every line sent so far (the harness's own pings included).
    pub sent: Vec<String>,
    /// Skipped error replies are allowed (the test reads them itself).
    errors_allowed: bool,
    /// The last `ping` number the helpers used for their own syncs.
    auto_ping: u32,
    /// Thinking lines a helper read past (the ponder search after a move), to be read again.
    replay: std::collections::VecDeque<String>,
}

/// An error reply from the engine: refused command, refused move or refused position
/// (xboard), or an `info string error` (UCI).
pub fn is_error(line: &str) -> bool {
    line.starts_with("Error")
        || line.starts_with("Illegal move")
        || line.starts_with("tellusererror")
        || line.starts_with("info string error")
}

/// One line of thinking output: `ply score time nodes [seldepth nps tbhits]<TAB>pv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Thinking {
    pub depth: u32,
    pub score: i32,
    /// Centiseconds since the search started.
    pub centis: u64,
    pub nodes: u64,
    pub pv: Vec<String>,
}

/// Parses a thinking line; `None` for anything else (result lines like `1-0 {...}` included).
pub fn thinking(line: &str) -> Option<Thinking> {
    let (head, pv) = match line.split_once('\t') {
        Some((h, pv)) => (h, pv),
        None => (line, ""),
    };
    let f: Vec<&str> = head.split_whitespace().collect();
    if f.len() < 4 {
        return None;
    }
    Some(Thinking {
        depth: f[0].parse().ok()?,
        score: f[1].parse().ok()?,
        centis: f[2].parse().ok()?,
        nodes: f[3].parse().ok()?,
        // A fail high or low puts a `!` or `?` after the first move: not a move.
        pv: pv
            .split_whitespace()
            .filter(|m| !matches!(*m, "!" | "?"))
            .map(str::to_string)
            .collect(),
    })
}

pub fn is_thinking(line: &str) -> bool {
    thinking(line).is_some()
}

/// CPU time (user + system) the process has used so far, from `/proc/PID/stat` (Linux).
pub fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which is in parentheses): utime is 14th, stime 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().ok()? + fields[12].parse::<u64>().ok()?;
    // In clock ticks of USER_HZ, which the kernel ABI fixes at 100 per second.
    Some(Duration::from_millis(ticks * 10))
}

/// A numeric field of `/proc/PID/status` (`VmSize` in kB, `Threads`, ...), Linux only.
pub fn proc_status(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status
        .lines()
        .find(|l| l.split(':').next() == Some(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_with_args(&[])
    }

    /// Started and through the xboard handshake.
    pub fn started() -> Engine {
        let mut e = Engine::start();
        e.handshake();
        e
    }

    pub fn start_with_args(args: &[&str]) -> Engine {
        // KESTREL_TEST_BINARY runs the tests against another build (to see a test fail on
        // the build before a fix, or on a deliberately broken one).
        let binary = std::env::var("KESTREL_TEST_BINARY")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_kestrel").to_string());
        Engine::start_binary(std::path::Path::new(&binary), args)
    }

    /// The engine built at `binary` (e.g. by `make`), with `args`.
    pub fn start_binary(binary: &std::path::Path, args: &[&str]) -> Engine {
        let mut child = Command::new(binary)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start kestrel");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin,
            lines: rx,
            transcript: Vec::new(),
            replay: Default::default(),
            sent: Vec::new(),
            errors_allowed: false,
            auto_ping: 1_000_000,
        }
    }

    /// With `true`, the skipping helpers pass error replies by (for tests that provoke and
    /// check them); with `false` (the default) such a line fails the test.
    pub fn allow_errors(&mut self, allowed: bool) {
        self.errors_allowed = allowed;
    }

    fn last_lines(&self) -> String {
        let n = self.transcript.len().saturating_sub(15);
        self.transcript[n..].join("\n")
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to engine");
        stdin.flush().unwrap();
        self.sent.extend(line.split('\n').map(str::to_string));
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to engine");
        stdin.flush().unwrap();
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or `None` after `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        if let Some(line) = self.replay.pop_front() {
            return Some(line);
        }
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                self.transcript.push(line.clone());
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads until a line satisfies `pred`; returns it and the lines before it.
    pub fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> (String, Vec<String>) {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(line) if pred(&line) => return (line, before),
                Some(line) if is_error(&line) && !self.errors_allowed => panic!(
                    "unexpected error reply while waiting for {what}: {line}\nlast lines:\n{}",
                    self.last_lines()
                ),
                Some(line) => before.push(line),
                None => panic!(
                    "timed out after {timeout:?} waiting for {what}; last lines:\n{}",
                    self.last_lines()
                ),
            }
        }
    }

    /// Waits for a line starting with `prefix`.
    pub fn expect_prefix(&mut self, prefix: &str, timeout: Duration) -> String {
        self.wait_for(prefix, timeout, |l| l.starts_with(prefix)).0
    }

    /// Sends `ping n` and waits for `pong n`; returns the lines in between.
    pub fn sync(&mut self, n: u32) -> Vec<String> {
        self.send(&format!("ping {n}"));
        let want = format!("pong {n}");
        self.wait_for(&want, Duration::from_secs(20), |l| l == want)
            .1
    }

    /// Syncs with a `ping` number of the harness's own.
    pub fn sync_auto(&mut self) -> Vec<String> {
        self.auto_ping += 1;
        self.sync(self.auto_ping)
    }

    /// Waits for `move X` and returns X; fails if anything but thinking output comes after
    /// the move (up to the pong of a ping sent after it).
    pub fn expect_move(&mut self, timeout: Duration) -> String {
        let (mv, after) = self.expect_move_and_after(timeout);
        assert!(
            after.is_empty(),
            "unexpected lines after move {mv}: {after:?}\nlast lines:\n{}",
            self.last_lines()
        );
        mv
    }

    /// Waits for `move X`, then pings; returns X and the lines between the move and the
    /// pong other than thinking output (a result claim, a second move, errors if allowed).
    pub fn expect_move_and_after(&mut self, timeout: Duration) -> (String, Vec<String>) {
        let line = self.expect_prefix("move ", timeout);
        let mv = line["move ".len()..].trim().to_string();
        let (thinking, after) = self.sync_auto().into_iter().partition(|l| is_thinking(l));
        // The thinking that follows the move (pondering) is the caller's to read next.
        let thinking: Vec<String> = thinking;
        self.replay.extend(thinking);
        (mv, after)
    }

    /// Sends `fen` and returns the FEN the engine prints (thinking lines are skipped).
    pub fn fen(&mut self) -> String {
        self.send("fen");
        self.wait_for("FEN", Duration::from_secs(5), |l| {
            l.split_whitespace()
                .next()
                .is_some_and(|f| f.matches('/').count() == 7)
        })
        .0
    }

    /// Nothing arrives for `quiet` (used to show no chatter and no unexpected move).
    pub fn expect_silence(&mut self, quiet: Duration) {
        if let Some(line) = self.next_line(quiet) {
            panic!("expected silence, got: {line}");
        }
    }

    pub fn handshake(&mut self) -> Vec<String> {
        self.send("xboard");
        self.send("protover 2");
        // XBoard's own wait for done=1 is 10 s.
        let (_, features) = self.wait_for("feature done=1", Duration::from_secs(10), |l| {
            l == "feature done=1"
        });
        features
    }

    /// Waits for the process to end; returns whether it exited within `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One UCI `info` line with a score
/// (`info depth D seldepth S [multipv K] score cp|mate N ... pv ...`).
#[derive(Clone, Debug, PartialEq)]
pub struct UciInfo {
    pub depth: u32,
    pub seldepth: u32,
    /// The line's rank with MultiPV (`None` if the line has no `multipv`).
    pub multipv: Option<u32>,
    /// `cp N` or `mate N`, as written.
    pub score: String,
    pub nodes: u64,
    /// Milliseconds since the search started.
    pub time: u64,
    pub pv: Vec<String>,
}

/// Parses an `info` line that reports an iteration (it has a score); `None` for other lines
/// (`currmove` progress, `info string`, anything else).
pub fn uci_info(line: &str) -> Option<UciInfo> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") {
        return None;
    }
    let after = |key: &str| words.iter().position(|&w| w == key).map(|i| i + 1);
    let number = |key: &str| -> Option<u64> { words.get(after(key)?)?.parse().ok() };
    let score_at = after("score")?;
    let score = words.get(score_at..score_at + 2)?.join(" ");
    Some(UciInfo {
        depth: number("depth")? as u32,
        seldepth: number("seldepth")? as u32,
        multipv: number("multipv").map(|k| k as u32),
        score,
        nodes: number("nodes")?,
        time: number("time")?,
        pv: match after("pv") {
            Some(i) => words[i..].iter().map(|w| w.to_string()).collect(),
            None => Vec::new(),
        },
    })
}

impl Engine {
    /// Started and through the UCI handshake (`uci` ... `uciok`).
    pub fn started_uci() -> Engine {
        let mut e = Engine::start();
        e.uci_handshake();
        e
    }

    /// Sends `uci` and returns the lines before `uciok`.
    pub fn uci_handshake(&mut self) -> Vec<String> {
        self.send("uci");
        self.wait_for("uciok", Duration::from_secs(10), |l| l == "uciok")
            .1
    }

    /// Sends `isready` and waits for `readyok`; returns the lines in between.
    pub fn ready(&mut self) -> Vec<String> {
        self.send("isready");
        self.wait_for("readyok", Duration::from_secs(20), |l| l == "readyok")
            .1
    }

    /// Waits for `bestmove X [ponder Y]`; returns X, Y and the lines before it.
    pub fn expect_bestmove(&mut self, timeout: Duration) -> (String, Option<String>, Vec<String>) {
        let (line, before) = self.wait_for("bestmove", timeout, |l| l.starts_with("bestmove"));
        let words: Vec<&str> = line.split_whitespace().collect();
        let best = words
            .get(1)
            .unwrap_or_else(|| panic!("bare bestmove: {line}"));
        let ponder = match words.get(2..) {
            Some(["ponder", m]) => Some(m.to_string()),
            Some([]) => None,
            _ => panic!("malformed bestmove line: {line}"),
        };
        (best.to_string(), ponder, before)
    }
}

impl Engine {
    /// Reads for `quiet`; fails if a line starting with `prefix` (or an unexpected error)
    /// arrives. Other lines (search output) are passed by.
    pub fn expect_silence_of(&mut self, prefix: &str, quiet: Duration) {
        let deadline = Instant::now() + quiet;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            match self.next_line(left) {
                None => return,
                Some(line) if line.starts_with(prefix) => {
                    panic!("expected no '{prefix}' yet, got: {line}")
                }
                Some(line) if is_error(&line) && !self.errors_allowed => {
                    panic!("unexpected error reply: {line}")
                }
                Some(_) => {}
            }
        }
    }
}

use kestrel::nnue::format::{Activation, NetFile, INPUTS};
use kestrel::rng::Rng;

/// A net of random weights in a trained net's range (accumulators far from overflowing
/// i16), for the tests of net loading and evaluation.
pub fn random_net(hidden: usize, activation: Activation, seed: u64) -> NetFile {
    let mut rng = Rng::new(seed);
    let mut v = |n: usize, range: u64| {
        (0..n)
            .map(|_| (rng.below(2 * range + 1) as i64 - range as i64) as i16)
            .collect::<Vec<_>>()
    };
    NetFile {
        hidden,
        output_buckets: 1,
        king_buckets: None,
        activation,
        qa: 255,
        qb: 64,
        scale: 400,
        feature_weights: v(INPUTS * hidden, 60),
        feature_bias: v(hidden, 100),
        output_weights: v(2 * hidden, 100),
        output_bias: vec![1000],
    }
}

/// A directory of one test's own (`kestrel-NAME-PID` in the system's temporary directory),
/// emptied when made and removed when dropped, so a test leaves nothing behind whether it
/// passed or failed.
pub struct ScratchDir(pub std::path::PathBuf);

impl ScratchDir {
    pub fn new(name: &str) -> ScratchDir {
        let dir = std::env::temp_dir().join(format!("kestrel-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        ScratchDir(dir)
    }

    /// `name` inside the directory.
    pub fn path(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
