//! The stdin reader thread: reads whole lines and sends them down a channel, nothing more.
//! End of input becomes `quit`. Bytes that are not UTF-8 are replaced (the session rejects
//! such lines with an error), and an endless line is cut at `MAX_LINE` bytes.

use crossbeam_channel::{unbounded, Receiver, Sender};
use std::io::{BufRead, Read};
use std::thread;

/// Longer input lines are cut here; the rest up to the newline is dropped.
pub const MAX_LINE: usize = 1 << 20;

pub use crate::engine::TRUNCATED_MARK;

/// Starts the reader thread on `input` and returns the receiving end of its channel.
pub fn spawn_reader<R: BufRead + Send + 'static>(input: R) -> Receiver<String> {
    let (tx, rx) = unbounded();
    thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || read_lines(input, tx))
        .expect("failed to start the input thread");
    rx
}

fn read_lines<R: BufRead>(mut input: R, tx: Sender<String>) {
    let mut buf = Vec::with_capacity(256);
    loop {
        buf.clear();
        let read = (&mut input)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut buf);
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let mut truncated = false;
        if buf.last() != Some(&b'\n') && buf.len() >= MAX_LINE {
            // Drop the rest of the overlong line.
            truncated = true;
            let mut sink = Vec::new();
            if input.read_until(b'\n', &mut sink).is_err() {
                break;
            }
        }
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        let mut line = String::from_utf8_lossy(&buf).into_owned();
        if truncated {
            line.insert_str(0, TRUNCATED_MARK);
        }
        if tx.send(line).is_err() {
            return; // the session has ended
        }
    }
    let _ = tx.send("quit".to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn lines_then_quit_at_eof() {
        let rx = spawn_reader(Cursor::new(b"xboard\r\nping 1\nlast".to_vec()));
        let lines: Vec<String> = rx.iter().collect();
        assert_eq!(lines, ["xboard", "ping 1", "last", "quit"]);
    }

    #[test]
    fn bad_utf8_is_replaced_and_long_lines_cut() {
        let mut data = b"ab\xff\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        data.extend(b"\nping 2\n");
        let rx = spawn_reader(Cursor::new(data));
        let lines: Vec<String> = rx.iter().collect();
        assert_eq!(lines[0], "ab\u{FFFD}");
        assert!(lines[1].starts_with(TRUNCATED_MARK));
        assert_eq!(lines[2], "ping 2");
        assert_eq!(lines[3], "quit");
    }
}
