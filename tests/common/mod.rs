//! A test harness that starts the real `kestrel` binary and holds a session on its stdin
//! and stdout, as a GUI would.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line received so far, for failure messages and later checks.
    pub transcript: Vec<String>,
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
        let mut child = Command::new(env!("CARGO_BIN_EXE_kestrel"))
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
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to engine");
        stdin.flush().unwrap();
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
                Some(line) => before.push(line),
                None => panic!(
                    "timed out after {timeout:?} waiting for {what}; last lines:\n{}",
                    self.transcript
                        .iter()
                        .rev()
                        .take(15)
                        .rev()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n")
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

    /// Waits for `move X` and returns X.
    pub fn expect_move(&mut self, timeout: Duration) -> String {
        let line = self.expect_prefix("move ", timeout);
        line["move ".len()..].trim().to_string()
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
        let (_, features) = self.wait_for("feature done=1", Duration::from_secs(5), |l| {
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
