//! A transcript of a session: every line in and out with milliseconds since the start, for
//! debugging a GUI session after the fact (`--log FILE` or the `LogFile` option).
//!
//! ```text
//!      0.002 < xboard
//!      0.015 > feature done=1
//! ```

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::time::Instant;

#[derive(Default)]
pub struct Transcript {
    file: Option<BufWriter<File>>,
    start: Option<Instant>,
}

impl Transcript {
    /// Starts writing to `path` (appending), or stops with `None`.
    pub fn open(&mut self, path: Option<&Path>) -> io::Result<()> {
        self.file = None;
        if let Some(path) = path {
            let f = OpenOptions::new().create(true).append(true).open(path)?;
            self.file = Some(BufWriter::new(f));
            self.start.get_or_insert_with(Instant::now);
        }
        Ok(())
    }

    pub fn input(&mut self, line: &str) {
        self.write('<', line);
    }

    pub fn output(&mut self, line: &str) {
        self.write('>', line);
    }

    fn write(&mut self, dir: char, line: &str) {
        let Some(f) = self.file.as_mut() else { return };
        let t = self.start.map_or(0.0, |s| s.elapsed().as_secs_f64());
        // Flushed per line: the transcript must survive a crash or a kill.
        let ok = writeln!(f, "{t:10.3} {dir} {line}").and_then(|_| f.flush());
        if ok.is_err() {
            log::warn!("transcript write failed; transcript closed");
            self.file = None;
        }
    }
}
