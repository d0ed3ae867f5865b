//! The forward and backward pass: a position's output from both accumulators, the loss
//! against its target, and the gradient of every parameter, summed over a batch share.

use super::model::{split_mut, Network, EVAL_SCALE};
use crate::nnue::format::{output_bucket, Activation};
use crate::tools::training_data::{Features, PackedPosition};

/// A thread's working space for one position: both accumulators and their gradients.
pub(super) struct Scratch {
    ours: Vec<f32>,
    theirs: Vec<f32>,
    d_ours: Vec<f32>,
    d_theirs: Vec<f32>,
}

impl Scratch {
    pub(super) fn new(hidden: usize) -> Scratch {
        Scratch {
            ours: vec![0.0; hidden],
            theirs: vec![0.0; hidden],
            d_ours: vec![0.0; hidden],
            d_theirs: vec![0.0; hidden],
        }
    }
}

#[inline(always)]
pub(super) fn activate<const SCRELU: bool>(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    if SCRELU {
        c * c
    } else {
        c
    }
}

/// The activation's derivative (0 where it is clipped).
#[inline(always)]
pub(super) fn slope<const SCRELU: bool>(x: f32) -> f32 {
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
pub(super) fn add_to(into: &mut [f32], row: &[f32]) {
    let (into, _) = into.as_chunks_mut::<8>();
    let (row, _) = row.as_chunks::<8>();
    for (a, w) in into.iter_mut().zip(row) {
        for k in 0..8 {
            a[k] += w[k];
        }
    }
}

#[inline(never)]
pub(super) fn dot_activated<const SCRELU: bool>(acc: &[f32], weights: &[f32]) -> f32 {
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
pub(super) fn backward_half<const SCRELU: bool>(
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
pub(super) fn bucket_of(net: &Network, f: &Features) -> usize {
    output_bucket(f.len as u32, net.output_buckets)
}

/// Fills both accumulators and returns the output.
#[inline(always)]
pub(super) fn forward<const SCRELU: bool>(net: &Network, f: &Features, s: &mut Scratch) -> f32 {
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

pub(super) fn sigmoid(x: f32) -> f32 {
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
pub(super) fn accumulate<const SCRELU: bool>(
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
    let (g_weights, g_bias, g_output, g_output_bias) =
        split_mut(grad, net.inputs(), n, net.output_buckets);
    let mut loss = 0.0f64;
    for record in records {
        let f = net.features(
            record,
            mirror_salt.is_some_and(|salt| mirrors(record, salt)),
        );
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
pub(super) fn mirrors(record: &PackedPosition, salt: u64) -> bool {
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
pub(super) fn loss_sum(net: &Network, records: &[PackedPosition], lambda: f32) -> f64 {
    let mut s = Scratch::new(net.hidden);
    records
        .iter()
        .map(|record| {
            let f = net.features(record, false);
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
