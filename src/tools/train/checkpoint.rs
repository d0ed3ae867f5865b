//! The float checkpoint: the net and Adam's state, so a stopped run resumes exactly.

use super::model::{param_count, Network};
use super::Trainer;
use crate::nnue::format::{
    checksum, Activation, KingBuckets, MAX_HIDDEN, MAX_KING_BUCKETS, MAX_OUTPUT_BUCKETS,
};
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
/// Version 1: no king buckets; version 2 adds them after the first header.
pub(super) const CHECKPOINT_VERSION: u32 = 2;
pub(super) const CHECKPOINT_HEADER: usize = 32;
/// Version 2's king buckets: their count and layout.
const KING_BUCKET_BYTES: usize = 36;

impl Trainer {
    /// The float checkpoint: a header (magic `KNTC`, version, hidden, activation, epochs
    /// done, steps, output buckets; version 2: king buckets and their layout), the
    /// parameters and Adam's moments as little-endian f32, an FNV-1a 64. Version 1 when the
    /// net has no king buckets, which older trainers read.
    pub fn to_checkpoint(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(CHECKPOINT_HEADER + 12 * self.net.params.len() + 8);
        out.extend_from_slice(&CHECKPOINT_MAGIC);
        let activation = match self.net.activation {
            Activation::CReLU => 0u32,
            Activation::SCReLU => 1,
        };
        let version = if self.net.king_buckets.is_some() {
            CHECKPOINT_VERSION
        } else {
            1
        };
        for w in [
            version,
            self.net.hidden as u32,
            activation,
            self.epochs_done as u32,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.step.to_le_bytes());
        // Checkpoints from before buckets have a zero here, which reads as one bucket.
        out.extend_from_slice(&(self.net.output_buckets as u32).to_le_bytes());
        if let Some(kings) = &self.net.king_buckets {
            out.extend_from_slice(&(kings.count as u32).to_le_bytes());
            out.extend_from_slice(&kings.layout);
        }
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
        let version = word(1);
        if !(1..=CHECKPOINT_VERSION).contains(&version) {
            return Err(CheckpointError::BadShape(format!("version {version}")));
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
        let (king_buckets, header) = if version == 2 {
            if bytes.len() < CHECKPOINT_HEADER + KING_BUCKET_BYTES {
                return Err(CheckpointError::WrongLength {
                    expected: CHECKPOINT_HEADER + KING_BUCKET_BYTES,
                    found: bytes.len(),
                });
            }
            let count = word(8) as usize;
            let layout: [u8; 32] = bytes[36..68].try_into().unwrap();
            if !(1..=MAX_KING_BUCKETS).contains(&count)
                || layout.iter().any(|&b| b as usize >= count)
            {
                return Err(CheckpointError::BadShape(format!(
                    "{count} king buckets, layout {layout:?}"
                )));
            }
            (
                Some(KingBuckets { count, layout }),
                CHECKPOINT_HEADER + KING_BUCKET_BYTES,
            )
        } else {
            (None, CHECKPOINT_HEADER)
        };
        let kings = king_buckets.map_or(1, |k| k.count);
        let params = param_count(hidden, output_buckets, kings);
        let expected = header + 12 * params + 8;
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
            body[header + 4 * k * params..][..4 * params]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        Ok(Trainer {
            net: Network {
                hidden,
                output_buckets,
                king_buckets,
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
