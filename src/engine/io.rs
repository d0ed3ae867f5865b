//! The session's lines: input from the reader thread, output to the GUI, the transcript of
//! both, and the checks every input line passes whatever the protocol.

use super::transcript::Transcript;
use crate::chess::{Move, Position};
use crossbeam_channel::Receiver;
use std::collections::VecDeque;
use std::io::Write;

/// Lines longer than this are refused: no command needs more than a FEN and a bit, except
/// a UCI `position` with a whole game's moves (`MAX_POSITION_LEN`).
pub const MAX_COMMAND_LEN: usize = 4096;
/// Marks a line the reader thread cut; the session (xboard or UCI) answers it with an error.
pub const TRUNCATED_MARK: &str = "\u{0}truncated\u{0}";
/// The longest UCI `position` line taken. GUIs send the whole game with every move, about
/// five characters a ply; 128 KiB holds more than 20,000 plies, beyond the longest game the
/// 75-move rule allows (under 18,000 plies), with the FEN. Longer is not a game.
pub const MAX_POSITION_LEN: usize = 128 * 1024;

/// The session's input (lines from the reader thread) and output, with its transcript.
pub struct Io {
    rx: Receiver<String>,
    /// Input read during a search and not yet handled, in arrival order.
    pub pending: VecDeque<String>,
    out: Box<dyn Write + Send>,
    pub transcript: Transcript,
    /// `quit` was read, or nobody reads our output any more.
    pub quit: bool,
    /// A command whose failure is the session's (`genfens`, which OpenBench runs from the
    /// command line) failed: the process exits with a failure status.
    pub failed: bool,
}

impl Io {
    pub fn new(rx: Receiver<String>, out: Box<dyn Write + Send>) -> Io {
        Io {
            rx,
            pending: VecDeque::new(),
            out,
            transcript: Transcript::default(),
            quit: false,
            failed: false,
        }
    }

    /// The next input line, waiting for it (end of input reads as `quit`).
    pub fn receive(&mut self) -> String {
        let line = self.rx.recv().unwrap_or_else(|_| "quit".into());
        self.transcript.input(&line);
        line
    }

    /// The next line to handle: a queued one first, else the next input line.
    pub fn next_line(&mut self) -> String {
        match self.pending.pop_front() {
            Some(line) => line,
            None => self.receive(),
        }
    }

    /// The next input line if one comes before `deadline`.
    pub fn receive_until(&mut self, deadline: std::time::Instant) -> Option<String> {
        match self.rx.recv_deadline(deadline) {
            Ok(line) => {
                self.transcript.input(&line);
                Some(line)
            }
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => None,
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => Some("quit".into()),
        }
    }

    /// The next input line if one is there.
    pub fn try_receive(&mut self) -> Option<String> {
        match self.rx.try_recv() {
            Ok(line) => {
                self.transcript.input(&line);
                Some(line)
            }
            Err(crossbeam_channel::TryRecvError::Empty) => None,
            Err(crossbeam_channel::TryRecvError::Disconnected) => Some("quit".into()),
        }
    }

    pub fn send(&mut self, line: &str) {
        log::debug!("out: {line}");
        self.transcript.output(line);
        let ok = writeln!(self.out, "{line}").and_then(|_| self.out.flush());
        if ok.is_err() {
            // Nobody listens any more (GUI gone): stop.
            self.quit = true;
        }
    }
}

/// Why an input line is refused outright, whatever the protocol: the reason and a
/// printable preview of the line.
pub fn line_problem(line: &str) -> Option<(&'static str, String)> {
    line_problem_within(line, MAX_COMMAND_LEN)
}

/// `line_problem` for a command that may be up to `max_len` bytes long.
pub fn line_problem_within(line: &str, max_len: usize) -> Option<(&'static str, String)> {
    let preview: String = line.chars().filter(|c| !c.is_control()).take(40).collect();
    if line.starts_with(TRUNCATED_MARK) || line.len() > max_len {
        Some(("line too long", format!("{preview}...")))
    } else if line.contains('\u{FFFD}') {
        Some(("input is not valid UTF-8", preview))
    } else {
        None
    }
}

/// A PV as text, as far as its moves are legal, each move written by `text`.
pub fn pv_text(root: &Position, pv: &[Move], text: impl Fn(&Position, Move) -> String) -> String {
    let mut pos = *root;
    let mut parts = Vec::with_capacity(pv.len());
    for &m in pv {
        if !pos.is_legal(m) {
            break;
        }
        parts.push(text(&pos, m));
        pos.play(m);
    }
    parts.join(" ")
}
