//! The float model: the net of `nnue::format` as one vector of f32 parameters, its fresh
//! initialisation, reading a quantised net back, and quantising it for the engine.

use super::gradient::{forward, Scratch};
use crate::nnue::format::{
    Activation, KingBuckets, NetFile, INPUTS, MAX_HIDDEN, MAX_OUTPUT_BUCKETS,
};
use crate::rng::Rng;
use crate::tools::training_data::{Features, PackedPosition};

/// Accumulator scale of the quantised net.
pub const QA: i32 = 255;
/// Output weight scale of the quantised net.
pub const QB: i32 = 64;
/// Centipawns per unit of the net's output (and the sigmoid's scale for scores).
pub const EVAL_SCALE: i32 = 400;
/// Every parameter stays within this after each step: 1.98 × QA × 32 pieces (plus the bias)
/// fits an i16 accumulator, and 1.98 × QB fits comfortably.
pub const WEIGHT_LIMIT: f32 = 1.98;

/// The float network: every parameter in one vector, laid out as the net file lays out its
/// integers: feature weights (`inputs × hidden`, feature-major, `inputs` = 768 × king
/// buckets), hidden biases (`hidden`),
/// output weights (`buckets × 2 × hidden`, each bucket the side to move's half first),
/// output biases (`buckets`).
#[derive(Clone, Debug, PartialEq)]
pub struct Network {
    pub hidden: usize,
    pub output_buckets: usize,
    /// King buckets and their layout; `None`: one input set, never mirrored.
    pub king_buckets: Option<KingBuckets>,
    pub activation: Activation,
    pub params: Vec<f32>,
}

/// Parameters of a net with `hidden` neurons, `output_buckets` buckets and `king_buckets`
/// input sets (1 without king buckets).
pub fn param_count(hidden: usize, output_buckets: usize, king_buckets: usize) -> usize {
    INPUTS * king_buckets * hidden + hidden + output_buckets * (2 * hidden + 1)
}

/// A uniform random number in `[-limit, limit)`.
pub(super) fn uniform(rng: &mut Rng, limit: f32) -> f32 {
    let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    (2.0 * unit - 1.0) * limit
}

impl Network {
    /// A fresh net: weights uniform within ±1/√(inputs of their layer; 768 for the
    /// feature weights, which one king bucket's inputs feed), biases zero.
    pub fn new(
        hidden: usize,
        output_buckets: usize,
        king_buckets: Option<KingBuckets>,
        activation: Activation,
        seed: u64,
    ) -> Network {
        assert!(hidden.is_multiple_of(16) && (16..=MAX_HIDDEN).contains(&hidden));
        assert!((1..=MAX_OUTPUT_BUCKETS).contains(&output_buckets));
        let mut rng = Rng::new(seed ^ 0x6E6E_7565_696E_6974);
        let kings = king_buckets.map_or(1, |k| k.count);
        let mut params = vec![0.0; param_count(hidden, output_buckets, kings)];
        let feature_limit = 1.0 / (INPUTS as f32).sqrt();
        let inputs = INPUTS * kings;
        for w in &mut params[..inputs * hidden] {
            *w = uniform(&mut rng, feature_limit);
        }
        let output_limit = 1.0 / (2.0 * hidden as f32).sqrt();
        let outputs = inputs * hidden + hidden;
        for w in &mut params[outputs..outputs + output_buckets * 2 * hidden] {
            *w = uniform(&mut rng, output_limit);
        }
        Network {
            hidden,
            output_buckets,
            king_buckets,
            activation,
            params,
        }
    }

    /// Inputs per view: 768 for each king bucket.
    pub fn inputs(&self) -> usize {
        INPUTS * self.king_buckets.map_or(1, |k| k.count)
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
        let kings = file.king_buckets.map_or(1, |k| k.count);
        let mut params = Vec::with_capacity(param_count(file.hidden, buckets, kings));
        params.extend(file.feature_weights.iter().map(|&w| f32::from(w) / qa));
        params.extend(file.feature_bias.iter().map(|&b| f32::from(b) / qa));
        params.extend(file.output_weights.iter().map(|&w| f32::from(w) / qb));
        let qab = f64::from(file.qa) * f64::from(file.qb);
        params.extend(
            file.output_bias
                .iter()
                .map(|&b| (f64::from(b) / qab) as f32),
        );
        debug_assert_eq!(params.len(), param_count(file.hidden, buckets, kings));
        Ok(Network {
            hidden: file.hidden,
            output_buckets: buckets,
            king_buckets: file.king_buckets,
            activation: file.activation,
            params,
        })
    }

    /// The float net of the net file at `path` ([`from_net_file`](Self::from_net_file));
    /// a refusal says why, for a person.
    pub fn read(path: &std::path::Path) -> Result<Network, String> {
        std::fs::read(path)
            .map_err(|e| format!("cannot read it: {e}"))
            .and_then(|bytes| NetFile::parse(&bytes).map_err(|e| e.to_string()))
            .and_then(|file| Network::from_net_file(&file))
    }

    /// A net without king buckets as one with `kings`, each bucket's inputs a copy of its
    /// one input set: the same evaluation wherever the kings stand on files a-d, and that of
    /// the mirror image where one stands on e-h (not the same: nets trained with `--mirror`
    /// are still not symmetric), from which each bucket can learn its own.
    pub fn spread_over_king_buckets(&self, kings: KingBuckets) -> Network {
        assert!(self.king_buckets.is_none());
        let (weights, bias, output, output_bias) = self.parts();
        let mut params =
            Vec::with_capacity(param_count(self.hidden, self.output_buckets, kings.count));
        for _ in 0..kings.count {
            params.extend_from_slice(weights);
        }
        params.extend_from_slice(bias);
        params.extend_from_slice(output);
        params.extend_from_slice(output_bias);
        Network {
            hidden: self.hidden,
            output_buckets: self.output_buckets,
            king_buckets: Some(kings),
            activation: self.activation,
            params,
        }
    }

    /// A one-bucket net as a net of `buckets` output buckets, each a copy of its output
    /// layer: the same evaluation, from which each bucket can learn its own.
    pub fn spread_over_buckets(&self, buckets: usize) -> Network {
        assert_eq!(self.output_buckets, 1);
        assert!((1..=MAX_OUTPUT_BUCKETS).contains(&buckets));
        let (weights, bias, output, output_bias) = self.parts();
        let kings = self.king_buckets.map_or(1, |k| k.count);
        let mut params = Vec::with_capacity(param_count(self.hidden, buckets, kings));
        params.extend_from_slice(weights);
        params.extend_from_slice(bias);
        for _ in 0..buckets {
            params.extend_from_slice(output);
        }
        params.extend(std::iter::repeat_n(output_bias[0], buckets));
        Network {
            hidden: self.hidden,
            output_buckets: buckets,
            king_buckets: self.king_buckets,
            activation: self.activation,
            params,
        }
    }

    /// This net with `hidden` neurons instead of its own, fewer: its neurons kept as they
    /// are, the new ones with random feature weights (as a fresh net's) and output weights
    /// of zero, so the evaluation is unchanged and the new neurons learn what the old ones
    /// miss. A wider net can so start from a trained one instead of needing the data to
    /// learn from nothing.
    pub fn widen(&self, hidden: usize, seed: u64) -> Network {
        assert!(hidden > self.hidden && hidden.is_multiple_of(16) && hidden <= MAX_HIDDEN);
        let mut rng = Rng::new(seed ^ 0x7769_6465_6E65_6421);
        let (weights, bias, output, output_bias) = self.parts();
        let kings = self.king_buckets.map_or(1, |k| k.count);
        let added = hidden - self.hidden;
        let feature_limit = 1.0 / (INPUTS as f32).sqrt();
        let mut params = Vec::with_capacity(param_count(hidden, self.output_buckets, kings));
        for feature in weights.chunks_exact(self.hidden) {
            params.extend_from_slice(feature);
            params.extend((0..added).map(|_| uniform(&mut rng, feature_limit)));
        }
        params.extend_from_slice(bias);
        params.extend(std::iter::repeat_n(0.0, added));
        // Each bucket's output weights: the side to move's half, then the other side's.
        for half in output.chunks_exact(self.hidden) {
            params.extend_from_slice(half);
            params.extend(std::iter::repeat_n(0.0, added));
        }
        params.extend_from_slice(output_bias);
        debug_assert_eq!(
            params.len(),
            param_count(hidden, self.output_buckets, kings)
        );
        Network {
            hidden,
            output_buckets: self.output_buckets,
            king_buckets: self.king_buckets,
            activation: self.activation,
            params,
        }
    }

    /// (feature weights, hidden biases, output weights, output biases)
    pub(super) fn parts(&self) -> (&[f32], &[f32], &[f32], &[f32]) {
        split(
            &self.params,
            self.inputs(),
            self.hidden,
            self.output_buckets,
        )
    }

    /// A record's features as this net reads them.
    #[inline(always)]
    pub(super) fn features(&self, record: &PackedPosition, mirror_files: bool) -> Features {
        record.features_in(mirror_files, self.king_buckets.as_ref())
    }

    /// The net's output for a record (× `EVAL_SCALE` = centipawns for the side to move).
    pub fn evaluate(&self, record: &PackedPosition) -> f32 {
        let mut scratch = Scratch::new(self.hidden);
        match self.activation {
            Activation::SCReLU => {
                forward::<true>(self, &self.features(record, false), &mut scratch)
            }
            Activation::CReLU => {
                forward::<false>(self, &self.features(record, false), &mut scratch)
            }
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
            king_buckets: self.king_buckets,
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

pub(super) fn split(
    params: &[f32],
    inputs: usize,
    hidden: usize,
    buckets: usize,
) -> (&[f32], &[f32], &[f32], &[f32]) {
    let (weights, rest) = params.split_at(inputs * hidden);
    let (bias, rest) = rest.split_at(hidden);
    let (output, rest) = rest.split_at(buckets * 2 * hidden);
    (weights, bias, output, rest)
}

pub(super) type PartsMut<'a> = (&'a mut [f32], &'a mut [f32], &'a mut [f32], &'a mut [f32]);

pub(super) fn split_mut(
    params: &mut [f32],
    inputs: usize,
    hidden: usize,
    buckets: usize,
) -> PartsMut<'_> {
    let (weights, rest) = params.split_at_mut(inputs * hidden);
    let (bias, rest) = rest.split_at_mut(hidden);
    let (output, rest) = rest.split_at_mut(buckets * 2 * hidden);
    (weights, bias, output, rest)
}
