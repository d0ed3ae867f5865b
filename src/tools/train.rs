//! `train`: the NNUE trainer, on the CPU.
//!
//! The model is the net of `nnue::format`: 768 inputs → N hidden, the same weights for both
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
//! exactly (the shuffle of epoch K depends only on the seed and K).

use crate::nnue::format::{
    checksum, output_bucket, Activation, NetFile, INPUTS, MAX_HIDDEN, MAX_OUTPUT_BUCKETS,
};
use crate::rng::Rng;
use crate::tools::data::{Features, PackedPosition, RECORD_BYTES};
use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::time::{Duration, Instant};

/// Accumulator scale of the quantised net.
pub const QA: i32 = 255;
/// Output weight scale of the quantised net.
pub const QB: i32 = 64;
/// Centipawns per unit of the net's output (and the sigmoid's scale for scores).
pub const EVAL_SCALE: i32 = 400;
/// Every parameter stays within this after each step: 1.98 × QA × 32 pieces (plus the bias)
/// fits an i16 accumulator, and 1.98 × QB fits comfortably.
pub const WEIGHT_LIMIT: f32 = 1.98;
/// The learning rate at the end of the planned epochs, as a fraction of the starting one.
const FINAL_LR_FRACTION: f32 = 0.01;
const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const ADAM_EPSILON: f32 = 1e-8;

/// How to train.
#[derive(Clone, Debug)]
pub struct Options {
    pub hidden: usize,
    /// Output buckets by material (1 = none).
    pub output_buckets: usize,
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

/// The float network: every parameter in one vector, laid out as the net file lays out its
/// integers: feature weights (`INPUTS × hidden`, feature-major), hidden biases (`hidden`),
/// output weights (`buckets × 2 × hidden`, each bucket the side to move's half first),
/// output biases (`buckets`).
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub hidden: usize,
    pub output_buckets: usize,
    pub activation: Activation,
    pub params: Vec<f32>,
}

/// Parameters of a net with `hidden` neurons and `output_buckets` buckets.
pub fn param_count(hidden: usize, output_buckets: usize) -> usize {
    INPUTS * hidden + hidden + output_buckets * (2 * hidden + 1)
}

/// A uniform random number in `[-limit, limit)`.
fn uniform(rng: &mut Rng, limit: f32) -> f32 {
    let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    (2.0 * unit - 1.0) * limit
}

impl Network {
    /// A fresh net: weights uniform within ±1/√(inputs of their layer), biases zero.
    pub fn new(hidden: usize, output_buckets: usize, activation: Activation, seed: u64) -> Network {
        assert!(hidden.is_multiple_of(16) && (16..=MAX_HIDDEN).contains(&hidden));
        assert!((1..=MAX_OUTPUT_BUCKETS).contains(&output_buckets));
        let mut rng = Rng::new(seed ^ 0x6E6E_7565_696E_6974);
        let mut params = vec![0.0; param_count(hidden, output_buckets)];
        let feature_limit = 1.0 / (INPUTS as f32).sqrt();
        for w in &mut params[..INPUTS * hidden] {
            *w = uniform(&mut rng, feature_limit);
        }
        let output_limit = 1.0 / (2.0 * hidden as f32).sqrt();
        let outputs = INPUTS * hidden + hidden;
        for w in &mut params[outputs..outputs + output_buckets * 2 * hidden] {
            *w = uniform(&mut rng, output_limit);
        }
        Network {
            hidden,
            output_buckets,
            activation,
            params,
        }
    }

    /// The float net a net file was quantised from, as near as its integers tell: each
    /// parameter divided by its scale (feature weights and biases by QA, output weights by
    /// QB, the output bias by QA·QB). Quantising it again gives the same file when the file
    /// has this trainer's scales. Refused when its evaluation scale is not `EVAL_SCALE`,
    /// where the net's output would mean other centipawns.
    pub fn from_net_file(file: &NetFile) -> Result<Network, String> {
        if file.scale != EVAL_SCALE {
            return Err(format!(
                "the net's evaluation scale is {}; the trainer's is {EVAL_SCALE}",
                file.scale
            ));
        }
        let (qa, qb) = (file.qa as f32, file.qb as f32);
        let buckets = file.output_buckets;
        let mut params = Vec::with_capacity(param_count(file.hidden, buckets));
        params.extend(file.feature_weights.iter().map(|&w| f32::from(w) / qa));
        params.extend(file.feature_bias.iter().map(|&b| f32::from(b) / qa));
        params.extend(file.output_weights.iter().map(|&w| f32::from(w) / qb));
        let qab = f64::from(file.qa) * f64::from(file.qb);
        params.extend(
            file.output_bias
                .iter()
                .map(|&b| (f64::from(b) / qab) as f32),
        );
        debug_assert_eq!(params.len(), param_count(file.hidden, buckets));
        Ok(Network {
            hidden: file.hidden,
            output_buckets: buckets,
            activation: file.activation,
            params,
        })
    }

    /// A one-bucket net as a net of `buckets` output buckets, each a copy of its output
    /// layer: the same evaluation, from which each bucket can learn its own.
    pub fn spread_over_buckets(&self, buckets: usize) -> Network {
        assert_eq!(self.output_buckets, 1);
        assert!((1..=MAX_OUTPUT_BUCKETS).contains(&buckets));
        let (weights, bias, output, output_bias) = self.parts();
        let mut params = Vec::with_capacity(param_count(self.hidden, buckets));
        params.extend_from_slice(weights);
        params.extend_from_slice(bias);
        for _ in 0..buckets {
            params.extend_from_slice(output);
        }
        params.extend(std::iter::repeat_n(output_bias[0], buckets));
        Network {
            hidden: self.hidden,
            output_buckets: buckets,
            activation: self.activation,
            params,
        }
    }

    /// (feature weights, hidden biases, output weights, output biases)
    fn parts(&self) -> (&[f32], &[f32], &[f32], &[f32]) {
        split(&self.params, self.hidden, self.output_buckets)
    }

    /// The net's output for a record (× `EVAL_SCALE` = centipawns for the side to move).
    pub fn evaluate(&self, record: &PackedPosition) -> f32 {
        let mut scratch = Scratch::new(self.hidden);
        match self.activation {
            Activation::SCReLU => forward::<true>(self, &record.features(), &mut scratch),
            Activation::CReLU => forward::<false>(self, &record.features(), &mut scratch),
        }
    }

    /// The net file: each parameter clipped to ±`WEIGHT_LIMIT`, scaled (feature weights and
    /// biases × QA, output weights × QB, the output bias × QA·QB) and rounded to the nearest
    /// integer (halves away from zero).
    pub fn quantise(&self) -> NetFile {
        let (weights, bias, output, output_bias) = self.parts();
        let qab = f64::from(QA * QB);
        let q16 = |values: &[f32], scale: i32| -> Vec<i16> {
            values
                .iter()
                .map(|v| (v.clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT) * scale as f32).round() as i16)
                .collect()
        };
        NetFile {
            hidden: self.hidden,
            output_buckets: self.output_buckets,
            activation: self.activation,
            qa: QA,
            qb: QB,
            scale: EVAL_SCALE,
            feature_weights: q16(weights, QA),
            feature_bias: q16(bias, QA),
            output_weights: q16(output, QB),
            output_bias: output_bias
                .iter()
                .map(|b| (f64::from(b.clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT)) * qab).round() as i32)
                .collect(),
        }
    }
}

fn split(params: &[f32], hidden: usize, buckets: usize) -> (&[f32], &[f32], &[f32], &[f32]) {
    let (weights, rest) = params.split_at(INPUTS * hidden);
    let (bias, rest) = rest.split_at(hidden);
    let (output, rest) = rest.split_at(buckets * 2 * hidden);
    (weights, bias, output, rest)
}

type PartsMut<'a> = (&'a mut [f32], &'a mut [f32], &'a mut [f32], &'a mut [f32]);

fn split_mut(params: &mut [f32], hidden: usize, buckets: usize) -> PartsMut<'_> {
    let (weights, rest) = params.split_at_mut(INPUTS * hidden);
    let (bias, rest) = rest.split_at_mut(hidden);
    let (output, rest) = rest.split_at_mut(buckets * 2 * hidden);
    (weights, bias, output, rest)
}

/// A thread's working space for one position: both accumulators and their gradients.
struct Scratch {
    ours: Vec<f32>,
    theirs: Vec<f32>,
    d_ours: Vec<f32>,
    d_theirs: Vec<f32>,
}

impl Scratch {
    fn new(hidden: usize) -> Scratch {
        Scratch {
            ours: vec![0.0; hidden],
            theirs: vec![0.0; hidden],
            d_ours: vec![0.0; hidden],
            d_theirs: vec![0.0; hidden],
        }
    }
}

#[inline(always)]
fn activate<const SCRELU: bool>(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    if SCRELU {
        c * c
    } else {
        c
    }
}

/// The activation's derivative (0 where it is clipped).
#[inline(always)]
fn slope<const SCRELU: bool>(x: f32) -> f32 {
    let inside = x > 0.0 && x < 1.0;
    let d = if SCRELU { 2.0 * x } else { 1.0 };
    if inside {
        d
    } else {
        0.0
    }
}

// The loops below work on arrays of 8 (`as_chunks`), with separate lanes for sums, so that
// the compiler vectorises them with plain SSE2 (hidden sizes are multiples of 16). They are
// not inlined: inlined into the training loop, the compiler could no longer tell that their
// slices do not overlap and kept them scalar (3× slower).

#[inline(never)]
fn add_to(into: &mut [f32], row: &[f32]) {
    let (into, _) = into.as_chunks_mut::<8>();
    let (row, _) = row.as_chunks::<8>();
    for (a, w) in into.iter_mut().zip(row) {
        for k in 0..8 {
            a[k] += w[k];
        }
    }
}

#[inline(never)]
fn dot_activated<const SCRELU: bool>(acc: &[f32], weights: &[f32]) -> f32 {
    let (acc, _) = acc.as_chunks::<8>();
    let (weights, _) = weights.as_chunks::<8>();
    let mut lanes = [0.0f32; 8];
    for (a, w) in acc.iter().zip(weights) {
        for k in 0..8 {
            lanes[k] += activate::<SCRELU>(a[k]) * w[k];
        }
    }
    lanes.iter().sum()
}

/// One side's half of the backward pass for an output gradient `g`: adds to the output
/// weights' gradient and writes the accumulator's gradient.
#[inline(never)]
fn backward_half<const SCRELU: bool>(
    g: f32,
    acc: &[f32],
    output: &[f32],
    g_output: &mut [f32],
    d_acc: &mut [f32],
) {
    let (acc, _) = acc.as_chunks::<8>();
    let (output, _) = output.as_chunks::<8>();
    let (g_output, _) = g_output.as_chunks_mut::<8>();
    let (d_acc, _) = d_acc.as_chunks_mut::<8>();
    for (((a, w), go), d) in acc.iter().zip(output).zip(g_output).zip(d_acc) {
        for k in 0..8 {
            go[k] += g * activate::<SCRELU>(a[k]);
            d[k] = g * w[k] * slope::<SCRELU>(a[k]);
        }
    }
}

/// The output bucket of a record's features (one feature per piece).
#[inline(always)]
fn bucket_of(net: &Network, f: &Features) -> usize {
    output_bucket(f.len as u32, net.output_buckets)
}

/// Fills both accumulators and returns the output.
#[inline(always)]
fn forward<const SCRELU: bool>(net: &Network, f: &Features, s: &mut Scratch) -> f32 {
    let n = net.hidden;
    let (weights, bias, output, output_bias) = net.parts();
    s.ours.copy_from_slice(bias);
    s.theirs.copy_from_slice(bias);
    for i in 0..f.len {
        add_to(&mut s.ours, &weights[f.ours[i] as usize * n..][..n]);
        add_to(&mut s.theirs, &weights[f.theirs[i] as usize * n..][..n]);
    }
    let bucket = bucket_of(net, f);
    let output = &output[bucket * 2 * n..][..2 * n];
    output_bias[bucket]
        + dot_activated::<SCRELU>(&s.ours, &output[..n])
        + dot_activated::<SCRELU>(&s.theirs, &output[n..])
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The training target of a record, for the side to move.
#[inline]
pub fn target(record: &PackedPosition, lambda: f32) -> f32 {
    let result = f32::from(record.result()) / 2.0;
    let score = sigmoid(f32::from(record.score()) / EVAL_SCALE as f32);
    lambda * result + (1.0 - lambda) * score
}

/// Adds `weight ×` the gradient of the loss over `records` to `grad` (laid out as the
/// parameters) and returns the sum of the records' losses.
fn accumulate<const SCRELU: bool>(
    net: &Network,
    records: &[PackedPosition],
    lambda: f32,
    weight: f32,
    mirror_salt: Option<u64>,
    grad: &mut [f32],
    s: &mut Scratch,
) -> f64 {
    let n = net.hidden;
    let (_, _, output, _) = net.parts();
    let (g_weights, g_bias, g_output, g_output_bias) = split_mut(grad, n, net.output_buckets);
    let mut loss = 0.0f64;
    for record in records {
        let f = match mirror_salt {
            Some(salt) => record.features_turned(mirrors(record, salt)),
            None => record.features(),
        };
        let p = sigmoid(forward::<SCRELU>(net, &f, s));
        let error = p - target(record, lambda);
        loss += f64::from(error * error);
        let g = 2.0 * error * p * (1.0 - p) * weight;
        let bucket = bucket_of(net, &f);
        g_output_bias[bucket] += g;
        let (w_ours, w_theirs) = output[bucket * 2 * n..][..2 * n].split_at(n);
        let (g_ours, g_theirs) = g_output[bucket * 2 * n..][..2 * n].split_at_mut(n);
        backward_half::<SCRELU>(g, &s.ours, w_ours, g_ours, &mut s.d_ours);
        backward_half::<SCRELU>(g, &s.theirs, w_theirs, g_theirs, &mut s.d_theirs);
        add_to(g_bias, &s.d_ours);
        add_to(g_bias, &s.d_theirs);
        for i in 0..f.len {
            add_to(&mut g_weights[f.ours[i] as usize * n..][..n], &s.d_ours);
            add_to(&mut g_weights[f.theirs[i] as usize * n..][..n], &s.d_theirs);
        }
    }
    loss
}

/// Whether this epoch (its `salt`) trains on the mirror image of `record`: about half the
/// records, a different half each epoch.
fn mirrors(record: &PackedPosition, salt: u64) -> bool {
    let mut h = u64::from_le_bytes(record.as_bytes()[..8].try_into().unwrap()) ^ salt;
    h ^= u64::from_le_bytes(record.as_bytes()[8..16].try_into().unwrap());
    h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^= h >> 32;
    h.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 63 == 1
}

/// The mean loss over `records` and its gradient (one thread): what a batch step uses.
pub fn loss_and_gradient(
    net: &Network,
    records: &[PackedPosition],
    lambda: f32,
) -> (f64, Vec<f32>) {
    let mut grad = vec![0.0; net.params.len()];
    let mut s = Scratch::new(net.hidden);
    let weight = 1.0 / records.len() as f32;
    let sum = match net.activation {
        Activation::SCReLU => {
            accumulate::<true>(net, records, lambda, weight, None, &mut grad, &mut s)
        }
        Activation::CReLU => {
            accumulate::<false>(net, records, lambda, weight, None, &mut grad, &mut s)
        }
    };
    (sum / records.len() as f64, grad)
}

/// The sum of the losses over `records`.
fn loss_sum(net: &Network, records: &[PackedPosition], lambda: f32) -> f64 {
    let mut s = Scratch::new(net.hidden);
    records
        .iter()
        .map(|record| {
            let f = record.features();
            let o = match net.activation {
                Activation::SCReLU => forward::<true>(net, &f, &mut s),
                Activation::CReLU => forward::<false>(net, &f, &mut s),
            };
            let error = sigmoid(o) - target(record, lambda);
            f64::from(error * error)
        })
        .sum()
}

/// The mean loss over `records`, on `threads` threads.
pub fn mean_loss(net: &Network, records: &[PackedPosition], lambda: f32, threads: usize) -> f64 {
    if records.is_empty() {
        return f64::NAN;
    }
    let share = records.len().div_ceil(threads.max(1));
    let sums: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = records
            .chunks(share)
            .map(|part| scope.spawn(move || loss_sum(net, part, lambda)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    sums.iter().sum::<f64>() / records.len() as f64
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

const CHECKPOINT_MAGIC: [u8; 4] = *b"KNTC";
const CHECKPOINT_VERSION: u32 = 1;
const CHECKPOINT_HEADER: usize = 32;

/// The shuffled order of the training records in epoch `epoch` (from 0).
fn epoch_order(len: usize, seed: u64, epoch: usize) -> Vec<u32> {
    let mut rng = Rng::new(seed ^ (epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut order: Vec<u32> = (0..len as u32).collect();
    for i in (1..len).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// The learning rate at `step` of `total`: a cosine from `lr` down to `lr × FINAL_LR_FRACTION`.
pub fn learning_rate(lr: f32, step: u64, total: u64) -> f32 {
    let done = (step as f64 / total.max(1) as f64).min(1.0);
    let end = f64::from(lr * FINAL_LR_FRACTION);
    (end + 0.5 * (f64::from(lr) - end) * (1.0 + (std::f64::consts::PI * done).cos())) as f32
}

impl Trainer {
    pub fn new(options: &Options) -> Trainer {
        Trainer::from_net(Network::new(
            options.hidden,
            options.output_buckets,
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

    /// Adam on the summed gradients, then the clip; the parameters are split among threads
    /// (each parameter's update is independent of the split).
    fn adam_step(&mut self, grads: &[Vec<f32>], lr: f32, threads: usize) {
        let t = self.step as i32;
        let step_size = lr * (1.0 - BETA2.powi(t)).sqrt() / (1.0 - BETA1.powi(t));
        let share = self.net.params.len().div_ceil(threads).next_multiple_of(16);
        std::thread::scope(|scope| {
            let parts = self
                .net
                .params
                .chunks_mut(share)
                .zip(self.m.chunks_mut(share))
                .zip(self.v.chunks_mut(share))
                .enumerate();
            for (i, ((params, m), v)) in parts {
                let from = i * share;
                scope.spawn(move || {
                    for j in 0..params.len() {
                        let mut g = 0.0;
                        for grad in grads {
                            g += grad[from + j];
                        }
                        m[j] = BETA1 * m[j] + (1.0 - BETA1) * g;
                        v[j] = BETA2 * v[j] + (1.0 - BETA2) * g * g;
                        let p = params[j] - step_size * m[j] / (v[j].sqrt() + ADAM_EPSILON);
                        params[j] = p.clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT);
                    }
                });
            }
        });
    }

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
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
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
mod tests {
    use super::*;
    use crate::chess::{Color, Position};
    use crate::game::GameResult;
    use std::sync::OnceLock;

    fn sample_records() -> Vec<PackedPosition> {
        include_str!("../../tests/data/selfplay-sample.txt")
            .lines()
            .map(|line| PackedPosition::parse_line(line).unwrap())
            .collect()
    }

    /// Material by the usual values, White's view.
    fn white_material(pos: &Position) -> i32 {
        const VALUES: [i32; 6] = [100, 300, 300, 500, 900, 0];
        pos.occupied()
            .map(|sq| {
                let piece = pos.piece_on(sq).unwrap();
                let value = VALUES[piece.role().index()];
                if piece.color() == Color::White {
                    value
                } else {
                    -value
                }
            })
            .sum()
    }

    /// Random positions of the perft suite and their children, scored by material: a target
    /// a net of this shape can learn exactly.
    fn material_data() -> Vec<PackedPosition> {
        let mut records = Vec::new();
        for line in include_str!("../../tests/data/perft-random.epd").lines() {
            let pos = Position::from_fen(line.split(';').next().unwrap()).unwrap();
            for child in std::iter::once(pos).chain(pos.legal_moves().iter().map(|&m| pos.after(m)))
            {
                records.push(PackedPosition::new(
                    &child,
                    white_material(&child),
                    GameResult::Draw,
                ));
            }
        }
        records
    }

    fn material_options() -> Options {
        Options {
            hidden: 32,
            // Buckets, so that learning and quantising them are checked too.
            output_buckets: 4,
            activation: Activation::SCReLU,
            epochs: 12,
            batch: 1024,
            lr: 0.005,
            lambda: 0.0,
            seed: 3,
            threads: 2,
            // Material does not change in the mirror, so the test learns it either way and
            // the mirrored path is trained and resumed too.
            mirror: true,
        }
    }

    /// The net trained on material, its data, and the validation loss before training.
    fn material_net() -> &'static (Trainer, Dataset, f64) {
        static NET: OnceLock<(Trainer, Dataset, f64)> = OnceLock::new();
        NET.get_or_init(|| {
            let options = material_options();
            let mut data = Dataset::default();
            data.add(material_data(), 0.05);
            let mut trainer = Trainer::new(&options);
            let before = mean_loss(&trainer.net, &data.validation, 0.0, 2);
            while trainer.epochs_done < options.epochs {
                trainer.train_epoch(&data.train, &options);
            }
            (trainer, data, before)
        })
    }

    fn variance(values: impl Iterator<Item = f64> + Clone) -> f64 {
        let n = values.clone().count() as f64;
        let mean = values.clone().sum::<f64>() / n;
        values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
    }

    #[test]
    fn the_analytic_gradient_is_the_numerical_one() {
        let records: Vec<PackedPosition> = sample_records().into_iter().take(6).collect();
        for (activation, buckets) in [
            (Activation::SCReLU, 1),
            (Activation::CReLU, 1),
            (Activation::SCReLU, 3),
        ] {
            let mut net = Network::new(16, buckets, activation, 11);
            // Larger weights than a fresh net's, so that accumulators spread over the
            // activation's clipped and open ranges and every gradient is far from zero.
            let mut rng = Rng::new(5);
            for p in &mut net.params {
                *p = uniform(&mut rng, 0.4);
            }
            let (_, analytic) = loss_and_gradient(&net, &records, 0.3);
            let loss = |net: &Network| loss_sum(net, &records, 0.3) / records.len() as f64;
            let features = records[0].features();
            let n = net.hidden;
            let mut checked = Vec::new();
            // Every weight of two features of the first position, biases, outputs.
            for f in [features.ours[0], features.theirs[3]] {
                checked.extend(f as usize * n..(f as usize + 1) * n);
            }
            checked.extend(INPUTS * n..net.params.len());
            let scale = checked
                .iter()
                .map(|&j| analytic[j].abs())
                .fold(0.0f32, f32::max);
            assert!(scale > 1e-3, "{scale}");
            let eps = 1e-3;
            let mut worst = 0.0f64;
            for &j in &checked {
                let mut plus = net.clone();
                plus.params[j] += eps;
                let mut minus = net.clone();
                minus.params[j] -= eps;
                let numerical = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(eps));
                let error = (numerical - f64::from(analytic[j])).abs();
                worst = worst.max(error);
                assert!(
                    error <= 0.01 * f64::from(scale),
                    "{activation:?} parameter {j}: analytic {} numerical {numerical}",
                    analytic[j]
                );
            }
            assert!(worst > 0.0);
        }
    }

    #[test]
    fn the_trainer_learns_material_to_within_a_percent_of_its_variance() {
        let (trainer, data, before) = material_net();
        let targets = data.validation.iter().map(|r| f64::from(target(r, 0.0)));
        let spread = variance(targets);
        let after = mean_loss(&trainer.net, &data.validation, 0.0, 2);
        assert!(data.validation.len() > 5000, "{}", data.validation.len());
        assert!(
            after <= 0.01 * spread,
            "validation MSE {after:.6} from {before:.6}; the target's variance is {spread:.6}"
        );
        assert!(after < 0.1 * before, "{before} -> {after}");
    }

    /// The quantised net's evaluation, in integers, as the net file's format describes it.
    fn integer_eval(net: &NetFile, record: &PackedPosition) -> i64 {
        let n = net.hidden;
        let f = record.features();
        let mut ours: Vec<i64> = net.feature_bias.iter().map(|&b| i64::from(b)).collect();
        let mut theirs = ours.clone();
        for i in 0..f.len {
            for k in 0..n {
                ours[k] += i64::from(net.feature_weights[f.ours[i] as usize * n + k]);
                theirs[k] += i64::from(net.feature_weights[f.theirs[i] as usize * n + k]);
            }
        }
        let qa = i64::from(net.qa);
        let bucket = output_bucket(f.len as u32, net.output_buckets);
        let weights = &net.output_weights[bucket * 2 * n..];
        let mut sum = 0i64;
        for (k, acc) in ours.iter().chain(&theirs).enumerate() {
            let h = (*acc).clamp(0, qa);
            let h = match net.activation {
                Activation::SCReLU => h * h,
                Activation::CReLU => h,
            };
            sum += h * i64::from(weights[k]);
        }
        if net.activation == Activation::SCReLU {
            sum /= qa;
        }
        (sum + i64::from(net.output_bias[bucket])) * i64::from(net.scale) / (qa * i64::from(net.qb))
    }

    #[test]
    fn the_quantised_net_evaluates_as_the_float_one_within_a_few_centipawns() {
        let (trainer, _, _) = material_net();
        let file = NetFile::parse(&trainer.net.quantise().to_bytes()).unwrap();
        let mut errors = Vec::new();
        let mut largest = 0.0f32;
        for line in include_str!("../../tests/data/perft.epd").lines() {
            let pos = Position::from_fen(line.split(';').next().unwrap()).unwrap();
            let record = PackedPosition::new(&pos, 0, GameResult::Draw);
            let float = trainer.net.evaluate(&record) * EVAL_SCALE as f32;
            largest = largest.max(float.abs());
            errors.push((integer_eval(&file, &record) as f32 - float).abs());
        }
        errors.sort_by(f32::total_cmp);
        let (median, max) = (errors[errors.len() / 2], errors[errors.len() - 1]);
        // A net that says nothing would agree trivially.
        assert!(largest > 300.0, "{largest}");
        assert!(
            median <= 5.0 && max <= 20.0,
            "median {median} cp, max {max} cp"
        );
    }

    #[test]
    fn a_net_file_read_back_for_training_quantises_to_the_same_file() {
        for buckets in [1, 8] {
            let net = Network::new(32, buckets, Activation::SCReLU, 7);
            let file = net.quantise();
            let back = Network::from_net_file(&file).expect("the trainer's own scales");
            assert_eq!(
                (back.hidden, back.output_buckets, back.activation),
                (32, buckets, Activation::SCReLU)
            );
            assert_eq!(back.params.len(), net.params.len());
            assert_eq!(back.quantise(), file);
            // Each parameter is within half a quantisation step of the float it came from.
            let (weights, _, output, _) = split(&net.params, 32, buckets);
            let (read, _, read_output, _) = split(&back.params, 32, buckets);
            for (a, b) in weights.iter().zip(read) {
                assert!((a - b).abs() <= 0.5 / QA as f32 + 1e-6, "{a} {b}");
            }
            for (a, b) in output.iter().zip(read_output) {
                assert!((a - b).abs() <= 0.5 / QB as f32 + 1e-6, "{a} {b}");
            }
            // A fine-tuning trainer starts from exactly that net.
            assert_eq!(Trainer::from_net(back.clone()).net, back);
        }
        let file = Network::new(32, 1, Activation::SCReLU, 7).quantise();
        let mut other_scale = file.clone();
        other_scale.scale = 300;
        assert!(Network::from_net_file(&other_scale)
            .unwrap_err()
            .contains("scale is 300"));
    }

    #[test]
    fn a_net_spread_over_buckets_evaluates_as_before_and_then_learns_each_bucket() {
        // Positions in the even buckets only, so the odd ones must not move.
        let mut records = sample_records();
        records.retain(|r| output_bucket(r.features().len as u32, 8).is_multiple_of(2));
        let one = Network::new(32, 1, Activation::SCReLU, 4);
        let spread = one.spread_over_buckets(8);
        assert_eq!(spread.params.len(), param_count(32, 8));
        for record in &records {
            assert_eq!(spread.evaluate(record), one.evaluate(record));
        }
        // Training moves only the buckets the positions fall in.
        let pieces: std::collections::HashSet<usize> = records
            .iter()
            .map(|r| output_bucket(r.features().len as u32, 8))
            .collect();
        assert_eq!(pieces.len(), 4, "{pieces:?}");
        let (_, grad) = loss_and_gradient(&spread, &records, 0.3);
        let (_, _, g_output, g_bias) = split(&grad, 32, 8);
        for bucket in 0..8 {
            let moved =
                g_bias[bucket] != 0.0 || g_output[bucket * 64..][..64].iter().any(|&g| g != 0.0);
            assert_eq!(moved, pieces.contains(&bucket), "bucket {bucket}");
        }
    }

    #[test]
    fn quantisation_clips_scales_and_rounds() {
        let mut net = Network::new(16, 1, Activation::CReLU, 1);
        net.params.fill(0.0);
        let bias = INPUTS * 16;
        let output = bias + 16;
        let last = net.params.len() - 1;
        for (j, v) in [
            (0, 1.0),
            (1, -0.5),
            (2, 2.5 / 255.0),
            (3, -2.5 / 255.0),
            (4, 7.0),
            (5, -7.0),
            (bias, 0.1),
            (output, 1.0),
            (output + 1, 0.3),
            (output + 17, -5.0),
            (last, 0.5),
        ] {
            net.params[j] = v;
        }
        let q = net.quantise();
        assert_eq!(q.feature_weights[..6], [255, -128, 3, -3, 505, -505]);
        assert_eq!(q.feature_bias[0], 26);
        assert_eq!(q.output_weights[..2], [64, 19]);
        assert_eq!(q.output_weights[17], -127);
        assert_eq!(q.output_bias, [255 * 64 / 2]);
        assert_eq!((q.qa, q.qb, q.scale), (QA, QB, EVAL_SCALE));
    }

    #[test]
    fn training_keeps_every_weight_within_the_limit() {
        let options = Options {
            hidden: 16,
            epochs: 3,
            batch: 16,
            lr: 0.5,
            ..Options::default()
        };
        let mut trainer = Trainer::new(&options);
        let data = sample_records();
        for _ in 0..3 {
            trainer.train_epoch(&data, &options);
        }
        let largest = trainer
            .net
            .params
            .iter()
            .fold(0.0f32, |m, p| m.max(p.abs()));
        assert!(largest <= WEIGHT_LIMIT, "{largest}");
        // The huge rate must have pushed some weight to the limit, or this shows nothing.
        assert_eq!(largest, WEIGHT_LIMIT);
    }

    #[test]
    fn a_resumed_run_is_the_uninterrupted_one() {
        let options = Options {
            hidden: 16,
            output_buckets: 2,
            epochs: 3,
            batch: 50,
            lr: 0.01,
            threads: 2,
            ..Options::default()
        };
        let data = sample_records();
        let mut straight = Trainer::new(&options);
        for _ in 0..3 {
            straight.train_epoch(&data, &options);
        }
        let mut first = Trainer::new(&options);
        first.train_epoch(&data, &options);
        let bytes = first.to_checkpoint();
        let mut resumed = Trainer::from_checkpoint(&bytes).unwrap();
        assert_eq!(resumed, first);
        resumed.train_epoch(&data, &options);
        let mut resumed = Trainer::from_checkpoint(&resumed.to_checkpoint()).unwrap();
        resumed.train_epoch(&data, &options);
        assert_eq!((resumed.epochs_done, resumed.step), (3, 3 * 5));
        assert_eq!(resumed, straight);
        // Another seed is another run.
        let mut other = Trainer::new(&Options {
            seed: 2,
            ..options.clone()
        });
        other.train_epoch(&data, &options);
        assert_ne!(other.net, first.net);
    }

    #[test]
    fn damaged_checkpoints_are_refused() {
        let bytes = Trainer::new(&Options {
            hidden: 16,
            ..Options::default()
        })
        .to_checkpoint();
        let mut flipped = bytes.clone();
        flipped[100] ^= 1;
        assert_eq!(
            Trainer::from_checkpoint(&flipped),
            Err(CheckpointError::BadChecksum)
        );
        assert!(matches!(
            Trainer::from_checkpoint(&bytes[..bytes.len() - 4]),
            Err(CheckpointError::WrongLength { .. })
        ));
        assert_eq!(
            Trainer::from_checkpoint(b"KNUE"),
            Err(CheckpointError::BadMagic)
        );
    }

    #[test]
    fn each_epoch_visits_every_position_once_in_a_new_order() {
        let orders: Vec<Vec<u32>> = (0..3).map(|epoch| epoch_order(1000, 7, epoch)).collect();
        for order in &orders {
            let mut sorted = order.clone();
            sorted.sort_unstable();
            assert!(sorted.iter().enumerate().all(|(i, &k)| i as u32 == k));
        }
        assert_ne!(orders[0], orders[1]);
        assert_ne!(orders[1], orders[2]);
        assert_eq!(orders[1], epoch_order(1000, 7, 1));
        assert_ne!(orders[1], epoch_order(1000, 8, 1));
    }

    #[test]
    fn the_learning_rate_decays_from_the_given_one_to_a_hundredth() {
        assert_eq!(learning_rate(0.001, 0, 100), 0.001);
        assert!((learning_rate(0.001, 100, 100) - 0.00001).abs() < 1e-9);
        let half = learning_rate(0.001, 50, 100);
        assert!((half - 0.000505).abs() < 1e-7, "{half}");
        assert!((1..100).all(|s| learning_rate(0.001, s, 100) < learning_rate(0.001, s - 1, 100)));
    }

    #[test]
    fn the_validation_set_is_about_the_fraction_asked_and_fixed_by_position() {
        let records = material_data();
        let held: Vec<bool> = records.iter().map(|r| is_validation(r, 0.05)).collect();
        let share = held.iter().filter(|&&h| h).count() as f64 / records.len() as f64;
        assert!((0.04..0.06).contains(&share), "{share}");
        assert!(records.iter().all(|r| !is_validation(r, 0.0)));
        let mut data = Dataset::default();
        data.add(records.iter().rev().copied().collect(), 0.05);
        assert_eq!(data.validation.len(), held.iter().filter(|&&h| h).count());
    }
}
