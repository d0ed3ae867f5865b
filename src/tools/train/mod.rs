//! `train`: the NNUE trainer, on the CPU.
//!
//! The model is the net of `nnue::format`: 768 inputs (for each king bucket) → N hidden, the same weights for both
//! sides' accumulators, SCReLU or CReLU, then one output read from the side to move's half
//! first, by the output bucket of the position's piece count; `output × 400` is the evaluation in centipawns for the side to move. A position's
//! target blends the game's result with its search score, both for the side to move:
//! `t = λ·result + (1 − λ)·sigmoid(score / 400)`, and the loss is the mean of
//! `(sigmoid(output) − t)²`.
//!
//! Training is Adam on shuffled mini-batches with a cosine learning-rate decay to 1% of the
//! starting rate over the planned epochs. Every parameter is clipped to ±`WEIGHT_LIMIT` after
//! each step, so that quantisation (× QA for the feature weights and biases, × QB for the
//! output weights) always fits an i16 and the accumulator of 32 pieces cannot overflow.
//!
//! A batch is split into one contiguous share per thread; each thread sums its share's
//! gradient into its own buffer, and the buffers are added in thread order: a run is the same
//! for the same seed, data and thread count, and resuming from a checkpoint continues it
//! exactly (the shuffle of epoch K depends only on the seed and K).//!
//! The parts: `model` (the float net), `gradient` (forward and backward pass), `optimiser`
//! (Adam), `schedule` (shuffle and learning rate), `checkpoint` (the float state on disk),
//! `dataset` (reading the data), `start` (a run's starting state from the command line's
//! choices).

mod checkpoint;
mod dataset;
mod gradient;
mod model;
mod optimiser;
mod schedule;
mod start;

pub use checkpoint::CheckpointError;
pub use dataset::{is_validation, load, Dataset};
pub use gradient::{loss_and_gradient, mean_loss, target};
pub use model::{param_count, Network, EVAL_SCALE, QA, QB, WEIGHT_LIMIT};
pub use schedule::learning_rate;
pub use start::{start, Shape, Start};

use crate::nnue::format::{Activation, KingBuckets};
use crate::tools::training_data::PackedPosition;
use gradient::{accumulate, Scratch};
use schedule::epoch_order;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// How to train.
#[derive(Clone, Debug)]
pub struct Options {
    pub hidden: usize,
    /// Output buckets by material (1 = none).
    pub output_buckets: usize,
    /// King buckets (`None`: one input set, never mirrored).
    pub king_buckets: Option<KingBuckets>,
    pub activation: Activation,
    /// Epochs planned in all (a resumed run counts those already done).
    pub epochs: usize,
    pub batch: usize,
    /// Adam's starting learning rate.
    pub lr: f32,
    /// Weight of the game result against the search score in the target.
    pub lambda: f32,
    pub seed: u64,
    pub threads: usize,
    /// Train on each position or its mirror image (files turned), chosen afresh each epoch.
    pub mirror: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hidden: 256,
            output_buckets: 1,
            king_buckets: None,
            activation: Activation::SCReLU,
            epochs: 10,
            batch: 16384,
            lr: 0.001,
            lambda: 0.3,
            seed: 1,
            threads: 2,
            mirror: false,
        }
    }
}

/// The net and the optimiser's state: everything a checkpoint holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Trainer {
    pub net: Network,
    /// Adam's first and second moment estimates, per parameter.
    m: Vec<f32>,
    v: Vec<f32>,
    /// Optimiser steps taken.
    pub step: u64,
    pub epochs_done: usize,
}

/// One epoch's figures.
#[derive(Clone, Debug)]
pub struct EpochReport {
    pub epoch: usize,
    /// Mean loss over the epoch's batches (as the net was at each).
    pub train_loss: f64,
    pub validation_loss: f64,
    /// Learning rate at the epoch's end.
    pub lr: f32,
    pub positions: usize,
    /// Time spent on the training steps (not on validation or files).
    pub train_time: Duration,
}

impl EpochReport {
    pub fn positions_per_second(&self) -> f64 {
        self.positions as f64 / self.train_time.as_secs_f64().max(1e-9)
    }
}

impl Trainer {
    pub fn new(options: &Options) -> Trainer {
        Trainer::from_net(Network::new(
            options.hidden,
            options.output_buckets,
            options.king_buckets,
            options.activation,
            options.seed,
        ))
    }

    /// A trainer that starts from `net` (fine-tuning) with a fresh optimiser state.
    pub fn from_net(net: Network) -> Trainer {
        let len = net.params.len();
        Trainer {
            net,
            m: vec![0.0; len],
            v: vec![0.0; len],
            step: 0,
            epochs_done: 0,
        }
    }

    /// One pass over `data` in a shuffled order; the validation loss is left NaN.
    pub fn train_epoch(&mut self, data: &[PackedPosition], options: &Options) -> EpochReport {
        let start = Instant::now();
        let threads = options.threads.max(1);
        let batch = options.batch.max(1);
        let batches_per_epoch = data.len().div_ceil(batch) as u64;
        let total_steps = batches_per_epoch * options.epochs as u64;
        let order = epoch_order(data.len(), options.seed, self.epochs_done);
        let params = self.net.params.len();
        let mut grads = vec![vec![0.0f32; params]; threads];
        let mut scratch: Vec<Scratch> = (0..threads)
            .map(|_| Scratch::new(self.net.hidden))
            .collect();
        let mut records = Vec::with_capacity(batch);
        let mut loss = 0.0f64;
        let mut lr = options.lr;
        for indices in order.chunks(batch) {
            records.clear();
            records.extend(indices.iter().map(|&i| data[i as usize]));
            let weight = 1.0 / records.len() as f32;
            let share = records.len().div_ceil(threads);
            let net = &self.net;
            let lambda = options.lambda;
            let salt = options.mirror.then(|| {
                options.seed ^ (self.epochs_done as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            });
            loss += std::thread::scope(|scope| {
                let handles: Vec<_> = records
                    .chunks(share)
                    .zip(grads.iter_mut().zip(scratch.iter_mut()))
                    .map(|(part, (grad, s))| {
                        scope.spawn(move || {
                            grad.fill(0.0);
                            match net.activation {
                                Activation::SCReLU => {
                                    accumulate::<true>(net, part, lambda, weight, salt, grad, s)
                                }
                                Activation::CReLU => {
                                    accumulate::<false>(net, part, lambda, weight, salt, grad, s)
                                }
                            }
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).sum::<f64>()
            });
            let used = records.len().div_ceil(share);
            lr = learning_rate(options.lr, self.step, total_steps);
            self.step += 1;
            self.adam_step(&grads[..used], lr, threads);
        }
        self.epochs_done += 1;
        EpochReport {
            epoch: self.epochs_done,
            train_loss: loss / data.len().max(1) as f64,
            validation_loss: f64::NAN,
            lr,
            positions: data.len(),
            train_time: start.elapsed(),
        }
    }
}

/// Trains from `trainer`'s state up to `options.epochs`, writing after each epoch the
/// quantised net `out/epoch-K.nnue` and the float checkpoint `out/checkpoint.bin`, and
/// telling `report` the epoch's figures.
pub fn run(
    trainer: &mut Trainer,
    data: &Dataset,
    options: &Options,
    out: &Path,
    report: &mut dyn FnMut(&EpochReport),
) -> io::Result<()> {
    std::fs::create_dir_all(out)?;
    while trainer.epochs_done < options.epochs {
        let mut epoch = trainer.train_epoch(&data.train, options);
        epoch.validation_loss = mean_loss(
            &trainer.net,
            &data.validation,
            options.lambda,
            options.threads,
        );
        let net = out.join(format!("epoch-{}.nnue", epoch.epoch));
        std::fs::write(net, trainer.net.quantise().to_bytes())?;
        // Written aside, then renamed: a run stopped mid-write keeps the last checkpoint.
        let partial = out.join("checkpoint.bin.partial");
        std::fs::write(&partial, trainer.to_checkpoint())?;
        std::fs::rename(&partial, out.join("checkpoint.bin"))?;
        report(&epoch);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
