//! Training data: files read into records (text or bullet), split into training and
//! validation records by a hash of each record.

use crate::nnue::format::checksum;
use crate::tools::training_data::{PackedPosition, RECORD_BYTES};
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

/// Training data in memory, split into training and validation records.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    pub train: Vec<PackedPosition>,
    pub validation: Vec<PackedPosition>,
}

/// Whether a record is held out for validation: by a hash of its bytes, so the choice is the
/// same whatever the order or the other files, and duplicate positions fall on one side.
pub fn is_validation(record: &PackedPosition, fraction: f64) -> bool {
    let h = checksum(record.as_bytes());
    ((h >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.train.len() + self.validation.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn add(&mut self, records: Vec<PackedPosition>, validation_fraction: f64) {
        for record in records {
            if is_validation(&record, validation_fraction) {
                self.validation.push(record);
            } else {
                self.train.push(record);
            }
        }
    }
}

/// Reads a data file, text (`FEN | score | result` lines) or bullet records, told apart by
/// the first line. Text: blank and `#` lines are skipped, a bad line is an error naming it.
pub fn load(path: &Path) -> Result<Vec<PackedPosition>, String> {
    let name = path.display();
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let head = reader
        .fill_buf()
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    let first_line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let is_text = std::str::from_utf8(first_line).is_ok_and(|line| {
        let line = line.trim();
        line.starts_with('#') || PackedPosition::parse_line(line).is_ok()
    });
    if is_text {
        let mut records = Vec::new();
        for (i, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| format!("cannot read {name}: {e}"))?;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let record =
                PackedPosition::parse_line(line).map_err(|e| format!("{name}:{}: {e}", i + 1))?;
            records.push(record);
        }
        return Ok(records);
    }
    if len % RECORD_BYTES as u64 != 0 {
        return Err(format!(
            "{name} is neither text data (`FEN | score | result` lines) nor bullet records \
             ({len} bytes is not a multiple of {RECORD_BYTES})"
        ));
    }
    let mut records = Vec::with_capacity((len / RECORD_BYTES as u64) as usize);
    let mut buffer = vec![0u8; RECORD_BYTES << 15];
    loop {
        let filled =
            read_full(&mut reader, &mut buffer).map_err(|e| format!("cannot read {name}: {e}"))?;
        for bytes in buffer[..filled].chunks_exact(RECORD_BYTES) {
            let record = PackedPosition::from_bytes(bytes.try_into().unwrap());
            record.validate().map_err(|e| {
                format!(
                    "{name}: record {} is not a position ({e}): not bullet chess data?",
                    records.len()
                )
            })?;
            records.push(record);
        }
        if filled < buffer.len() {
            break;
        }
    }
    Ok(records)
}

/// Reads until `buffer` is full or the input ends; the bytes read.
pub(super) fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
