//! A net ready to evaluate: the file's weights in cache-line-aligned memory, and the output
//! computed from the two accumulators as `format` defines it.

use super::format::{king_view, output_bucket, Activation, KingBuckets, KingView, NetFile, INPUTS};
use super::simd::{self, Level};
use crate::chess::{Color, Square};

/// A cache line of i16s: the unit of [`AlignedI16`].
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([i16; 32]);

/// i16s that start on a cache line, so that the SIMD loads of a column or a perspective's
/// half never straddle two lines (the hidden size is a multiple of 16: 32 bytes).
#[derive(Clone)]
pub struct AlignedI16 {
    lines: Vec<Line>,
    len: usize,
}

impl AlignedI16 {
    pub fn zeroed(len: usize) -> AlignedI16 {
        AlignedI16 {
            lines: vec![Line([0; 32]); len.div_ceil(32)],
            len,
        }
    }

    pub fn from_slice(values: &[i16]) -> AlignedI16 {
        let mut aligned = AlignedI16::zeroed(values.len());
        aligned.as_mut_slice().copy_from_slice(values);
        aligned
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[i16] {
        // SAFETY: `lines` holds at least `len` i16s, contiguous (repr(C) arrays of i16).
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr() as *const i16, self.len) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [i16] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr() as *mut i16, self.len) }
    }
}

/// The largest evaluation the net gives, in centipawns: far beyond any real one, well
/// inside the search's tablebase and mate scores.
pub const MAX_EVAL: i32 = 10_000;

/// A perspective net, 768 (× king buckets) → hidden (×2) → 1, with the output layer chosen
/// by material.
pub struct Network {
    hidden: usize,
    output_buckets: usize,
    king_buckets: Option<KingBuckets>,
    activation: Activation,
    qa: i32,
    qb: i32,
    scale: i32,
    /// `inputs × hidden`, feature-major: feature `f`'s column is `[f·hidden, (f+1)·hidden)`.
    feature_weights: AlignedI16,
    feature_bias: AlignedI16,
    /// Bucket by bucket: the side to move's half, then the other side's.
    output_weights: AlignedI16,
    output_bias: Vec<i32>,
    /// Every `qa·|w|` of the output weights fits an i16, as the SIMD output needs.
    narrow_products: bool,
    level: Level,
}

impl Network {
    /// The net of `file`, evaluated with the best instruction set this CPU has.
    pub fn new(file: &NetFile) -> Network {
        Network::with_level(file, Level::detected())
    }

    /// The net of `file`, evaluated with the instructions of `level`, which the CPU must run.
    pub fn with_level(file: &NetFile, level: Level) -> Network {
        assert_eq!(file.feature_weights.len(), file.inputs() * file.hidden);
        assert_eq!(file.feature_bias.len(), file.hidden);
        assert_eq!(
            file.output_weights.len(),
            file.output_buckets * 2 * file.hidden
        );
        assert_eq!(file.output_bias.len(), file.output_buckets);
        let widest = file
            .output_weights
            .iter()
            .map(|&w| (w as i32).abs())
            .max()
            .unwrap_or(0);
        Network {
            hidden: file.hidden,
            output_buckets: file.output_buckets,
            king_buckets: file.king_buckets,
            activation: file.activation,
            qa: file.qa,
            qb: file.qb,
            scale: file.scale,
            feature_weights: AlignedI16::from_slice(&file.feature_weights),
            feature_bias: AlignedI16::from_slice(&file.feature_bias),
            output_weights: AlignedI16::from_slice(&file.output_weights),
            output_bias: file.output_bias.clone(),
            narrow_products: file.qa * widest <= i16::MAX as i32,
            level,
        }
    }

    /// Neurons per perspective.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn activation(&self) -> Activation {
        self.activation
    }

    pub fn level(&self) -> Level {
        self.level
    }

    pub(super) fn feature_weights(&self) -> &[i16] {
        self.feature_weights.as_slice()
    }

    pub(super) fn feature_bias(&self) -> &[i16] {
        self.feature_bias.as_slice()
    }

    pub fn output_buckets(&self) -> usize {
        self.output_buckets
    }

    /// King buckets (1 for a net without them).
    pub fn king_buckets(&self) -> usize {
        self.king_buckets.map_or(1, |k| k.count)
    }

    /// Inputs per view.
    pub fn inputs(&self) -> usize {
        INPUTS * self.king_buckets()
    }

    /// The hidden layer and what feeds it, for a person: `256 hidden neurons` or, with king
    /// buckets, `256 hidden neurons, 4 king buckets`.
    pub fn describe_hidden(&self) -> String {
        match self.king_buckets {
            None => format!("{} hidden neurons", self.hidden),
            Some(k) => format!(
                "{} hidden neurons, {} king bucket{}",
                self.hidden,
                k.count,
                if k.count == 1 { "" } else { "s" }
            ),
        }
    }

    /// Which inputs `view`'s accumulator reads while its king stands on `king`.
    #[inline(always)]
    pub fn king_view(&self, view: Color, king: Square) -> KingView {
        king_view(self.king_buckets.as_ref(), view, king)
    }

    /// The output in centipawns for the side to move, unclamped, from the side to move's
    /// accumulator `us`, the other side's `them` and the count of pieces on the board (which
    /// picks the output bucket): the hidden sum brought to the scale `qa·qb` (SCReLU's
    /// squares carry one `qa` more, divided out first), the bias added, times the eval scale
    /// over `qa·qb`. Divisions truncate toward zero.
    pub fn raw_output(&self, us: &[i16], them: &[i16], pieces: u32) -> i64 {
        let bucket = output_bucket(pieces, self.output_buckets);
        let width = 2 * self.hidden;
        let sum = simd::output(
            self.level,
            self.activation,
            self.qa as i16,
            us,
            them,
            &self.output_weights.as_slice()[bucket * width..][..width],
            self.narrow_products,
        );
        let sum = match self.activation {
            Activation::CReLU => sum,
            Activation::SCReLU => sum / self.qa as i64,
        };
        (sum + self.output_bias[bucket] as i64) * self.scale as i64
            / (self.qa as i64 * self.qb as i64)
    }

    /// [`raw_output`](Self::raw_output) within ±[`MAX_EVAL`].
    pub fn output(&self, us: &[i16], them: &[i16], pieces: u32) -> i32 {
        self.raw_output(us, them, pieces)
            .clamp(-MAX_EVAL as i64, MAX_EVAL as i64) as i32
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rng::Rng;

    /// A net with random weights in the range a trained one has: accumulators far from
    /// overflowing i16, output weights whose `qa·|w|` fits 16 bits.
    pub(crate) fn random_net(hidden: usize, activation: Activation, seed: u64) -> NetFile {
        random_bucketed_net(hidden, 1, activation, seed)
    }

    /// [`random_net`] with `output_buckets` output buckets.
    pub(crate) fn random_bucketed_net(
        hidden: usize,
        output_buckets: usize,
        activation: Activation,
        seed: u64,
    ) -> NetFile {
        random_king_net(hidden, output_buckets, None, activation, seed)
    }

    /// [`random_bucketed_net`] with king buckets.
    pub(crate) fn random_king_net(
        hidden: usize,
        output_buckets: usize,
        king_buckets: Option<KingBuckets>,
        activation: Activation,
        seed: u64,
    ) -> NetFile {
        let inputs = INPUTS * king_buckets.map_or(1, |k| k.count);
        let mut rng = Rng::new(seed);
        let mut v = |n: usize, range: u64| {
            (0..n)
                .map(|_| (rng.below(2 * range + 1) as i64 - range as i64) as i16)
                .collect::<Vec<_>>()
        };
        NetFile {
            hidden,
            output_buckets,
            king_buckets,
            activation,
            qa: 255,
            qb: 64,
            scale: 400,
            feature_weights: v(inputs * hidden, 100),
            feature_bias: v(hidden, 200),
            output_weights: v(output_buckets * 2 * hidden, 127),
            output_bias: (0..output_buckets as i32)
                .map(|b| b * 5000 - 12345)
                .collect(),
        }
    }

    /// format.rs's formula read literally, one neuron at a time, in 64-bit integers.
    pub(crate) fn reference_output(file: &NetFile, us: &[i16], them: &[i16], pieces: u32) -> i64 {
        let qa = file.qa as i64;
        let bucket = output_bucket(pieces, file.output_buckets);
        let weights = &file.output_weights[bucket * 2 * file.hidden..];
        let mut sum = 0i64;
        for (i, &x) in us.iter().chain(them).enumerate() {
            let h = (x as i64).clamp(0, qa);
            let h = match file.activation {
                Activation::CReLU => h,
                Activation::SCReLU => h * h,
            };
            sum += h * weights[i] as i64;
        }
        if file.activation == Activation::SCReLU {
            sum /= qa;
        }
        (sum + file.output_bias[bucket] as i64) * file.scale as i64 / (qa * file.qb as i64)
    }

    #[test]
    fn the_output_is_the_formula_of_the_format_on_every_level() {
        let mut rng = Rng::new(5);
        for (activation, buckets) in [
            (Activation::CReLU, 1),
            (Activation::SCReLU, 1),
            (Activation::SCReLU, 8),
        ] {
            let file = random_bucketed_net(64, buckets, activation, 9);
            for level in simd::Level::supported() {
                let net = Network::with_level(&file, level);
                assert!(net.narrow_products);
                let mut distinct = std::collections::HashSet::new();
                for _ in 0..200 {
                    let mut acc =
                        || -> Vec<i16> { (0..64).map(|_| rng.below(400) as i16 - 100).collect() };
                    let (us, them) = (acc(), acc());
                    let pieces = 2 + rng.below(31) as u32;
                    let expected = reference_output(&file, &us, &them, pieces);
                    let found = net.raw_output(&us, &them, pieces);
                    assert_eq!(found, expected, "{}", level.name());
                    distinct.insert(expected);
                }
                // The comparison saw real variety, not one clamped value.
                assert!(distinct.len() > 100);
            }
        }
    }

    #[test]
    fn output_weights_too_wide_for_16_bit_products_are_still_exact() {
        let mut file = random_net(32, Activation::SCReLU, 4);
        file.output_weights[3] = 20_000;
        let net = Network::new(&file);
        assert!(!net.narrow_products);
        let us: Vec<i16> = (0..32).map(|i| i * 9).collect();
        let them: Vec<i16> = (0..32).map(|i| 255 - i * 3).collect();
        assert_eq!(
            net.raw_output(&us, &them, 32),
            reference_output(&file, &us, &them, 32)
        );
    }
}
