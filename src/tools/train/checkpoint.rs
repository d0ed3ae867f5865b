//! The float checkpoint: the net and Adam's state, so a stopped run resumes exactly.

use super::model::{param_count, Network};
use super::Trainer;
use crate::nnue::format::{checksum, Activation, MAX_HIDDEN, MAX_OUTPUT_BUCKETS};
use std::fmt;

/// Why a checkpoint cannot be resumed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckpointError {
    BadMagic,
    WrongLength { expected: usize, found: usize },
    BadShape(String),
    BadChecksum,
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            CheckpointError::BadMagic => write!(f, "not a Kestrel trainer checkpoint"),
            CheckpointError::WrongLength { expected, found } => write!(
                f,
                "the checkpoint is {found} bytes; one of its shape is {expected} (truncated?)"
            ),
            CheckpointError::BadShape(why) => write!(f, "bad checkpoint header: {why}"),
            CheckpointError::BadChecksum => write!(f, "the checkpoint's checksum does not match"),
        }
    }
}

pub(super) const CHECKPOINT_MAGIC: [u8; 4] = *b"KNTC";
pub(super) const CHECKPOINT_VERSION: u32 = 1;
pub(super) const CHECKPOINT_HEADER: usize = 32;

impl Trainer {
    /// The float checkpoint: a header (magic `KNTC`, version, hidden, activation, epochs
    /// done, steps, output buckets), the parameters and Adam's moments as little-endian f32, an FNV-1a 64.
    pub fn to_checkpoint(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(CHECKPOINT_HEADER + 12 * self.net.params.len() + 8);
        out.extend_from_slice(&CHECKPOINT_MAGIC);
        let activation = match self.net.activation {
            Activation::CReLU => 0u32,
            Activation::SCReLU => 1,
        };
        for w in [
            CHECKPOINT_VERSION,
            self.net.hidden as u32,
            activation,
            self.epochs_done as u32,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.step.to_le_bytes());
        // Checkpoints from before buckets have a zero here, which reads as one bucket.
        out.extend_from_slice(&(self.net.output_buckets as u32).to_le_bytes());
        for x in self.net.params.iter().chain(&self.m).chain(&self.v) {
            out.extend_from_slice(&x.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    pub fn from_checkpoint(bytes: &[u8]) -> Result<Trainer, CheckpointError> {
        if bytes.len() < CHECKPOINT_HEADER || bytes[..4] != CHECKPOINT_MAGIC {
            return Err(CheckpointError::BadMagic);
        }
        let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
        if word(1) != CHECKPOINT_VERSION {
            return Err(CheckpointError::BadShape(format!("version {}", word(1))));
        }
        let hidden = word(2) as usize;
        if !hidden.is_multiple_of(16) || !(16..=MAX_HIDDEN).contains(&hidden) {
            return Err(CheckpointError::BadShape(format!(
                "{hidden} hidden neurons"
            )));
        }
        let activation = match word(3) {
            0 => Activation::CReLU,
            1 => Activation::SCReLU,
            a => return Err(CheckpointError::BadShape(format!("activation {a}"))),
        };
        let output_buckets = match word(7) {
            0 => 1,
            b if b as usize <= MAX_OUTPUT_BUCKETS => b as usize,
            b => return Err(CheckpointError::BadShape(format!("{b} output buckets"))),
        };
        let params = param_count(hidden, output_buckets);
        let expected = CHECKPOINT_HEADER + 12 * params + 8;
        if bytes.len() != expected {
            return Err(CheckpointError::WrongLength {
                expected,
                found: bytes.len(),
            });
        }
        let (body, sum) = bytes.split_at(expected - 8);
        if checksum(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
            return Err(CheckpointError::BadChecksum);
        }
        let floats = |k: usize| -> Vec<f32> {
            body[CHECKPOINT_HEADER + 4 * k * params..][..4 * params]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        Ok(Trainer {
            net: Network {
                hidden,
                output_buckets,
                activation,
                params: floats(0),
            },
            m: floats(1),
            v: floats(2),
            step: u64::from_le_bytes(bytes[20..28].try_into().unwrap()),
            epochs_done: word(4) as usize,
        })
    }
}
