//! The network's hot loops, written once per instruction set and chosen at run time: AVX2
//! where the CPU has it, SSE2 on every other x86-64, plain Rust elsewhere. The plain
//! `cargo build --release` binary thus runs the AVX2 code on an AVX2 machine without a
//! `-C target-cpu` build; the choice is made once ([`Level::detected`]).
//!
//! Every path computes the same integers: i16 additions wrap, products and sums are those
//! of the portable code (tests compare them on random nets).

use super::format::Activation;

/// The instruction set the loops use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Sse2,
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Level {
    /// The best this CPU runs, found on the first call.
    pub fn detected() -> Level {
        static DETECTED: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if is_x86_feature_detected!("avx2") {
                    return Level::Avx2;
                }
                // SSE2 is part of x86-64 itself.
                Level::Sse2
            }
            #[cfg(not(target_arch = "x86_64"))]
            Level::Portable
        })
    }

    /// Every level this CPU runs, the portable one first.
    pub fn supported() -> Vec<Level> {
        let mut levels = vec![Level::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            levels.push(Level::Sse2);
            if is_x86_feature_detected!("avx2") {
                levels.push(Level::Avx2);
            }
        }
        levels
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => "SSE2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => "AVX2",
        }
    }
}

/// Lanes every slice length is a multiple of (the hidden size is a multiple of 16).
pub const LANES: usize = 16;

/// `dst = src + Σ column(a) − Σ column(s)`, where `column(f)` is
/// `weights[f·n .. (f+1)·n]` and `n = dst.len()`. One pass over `dst`: each block of lanes
/// is loaded once, gets every column, and is stored once.
#[inline]
pub fn update(
    level: Level,
    dst: &mut [i16],
    src: &[i16],
    weights: &[i16],
    adds: &[usize],
    subs: &[usize],
) {
    let n = dst.len();
    assert!(n.is_multiple_of(LANES) && src.len() == n);
    // The kernels read columns without bounds checks: every one must be inside `weights`.
    let columns = weights.len() / n;
    assert!(adds.iter().chain(subs).all(|&f| f < columns));
    match level {
        Level::Portable => update_portable(dst, src, weights, adds, subs),
        // SAFETY: the lengths and column indices were checked above; the level is one the
        // CPU runs (`detected`/`supported` chose it).
        #[cfg(target_arch = "x86_64")]
        Level::Sse2 => unsafe { x86::update_sse2(dst, src, weights, adds, subs) },
        // SAFETY: as for SSE2.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { x86::update_avx2(dst, src, weights, adds, subs) },
    }
}

fn update_portable(dst: &mut [i16], src: &[i16], weights: &[i16], adds: &[usize], subs: &[usize]) {
    let n = dst.len();
    dst.copy_from_slice(src);
    for &f in adds {
        for (d, &w) in dst.iter_mut().zip(&weights[f * n..(f + 1) * n]) {
            *d = d.wrapping_add(w);
        }
    }
    for &f in subs {
        for (d, &w) in dst.iter_mut().zip(&weights[f * n..(f + 1) * n]) {
            *d = d.wrapping_sub(w);
        }
    }
}

/// The hidden layer's dot product with the output weights: `Σ act(x_i)·w_i` over both
/// halves, `us` with `weights[..n]` and `them` with `weights[n..]`, where act is
/// `clamp(x, 0, qa)` for CReLU and its square for SCReLU (so the sum is in units of
/// `qa·qb`, or `qa²·qb`).
///
/// The SIMD paths multiply `clamp(x)·w` in 16 bits before the second factor: callers pass
/// `narrow_products` only when every `qa·|w|` fits an i16 (the network checks this once), or
/// get the portable path. Lanes sum in 32 bits: exact while no lane's partial sum leaves
/// i32, which a trained net is far from.
#[inline]
pub fn output(
    level: Level,
    activation: Activation,
    qa: i16,
    us: &[i16],
    them: &[i16],
    weights: &[i16],
    narrow_products: bool,
) -> i64 {
    let n = us.len();
    assert!(n.is_multiple_of(LANES) && them.len() == n && weights.len() == 2 * n && qa > 0);
    let level = match (activation, narrow_products) {
        (Activation::SCReLU, false) => Level::Portable,
        _ => level,
    };
    match level {
        Level::Portable => output_portable(activation, qa, us, them, weights),
        // SAFETY: lengths checked above; the level is one the CPU runs.
        #[cfg(target_arch = "x86_64")]
        Level::Sse2 => unsafe { x86::output_sse2(activation, qa, us, them, weights) },
        // SAFETY: as for SSE2.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { x86::output_avx2(activation, qa, us, them, weights) },
    }
}

fn output_portable(
    activation: Activation,
    qa: i16,
    us: &[i16],
    them: &[i16],
    weights: &[i16],
) -> i64 {
    let hidden = us.iter().chain(them);
    let mut sum = 0i64;
    for (&x, &w) in hidden.zip(weights) {
        let v = x.clamp(0, qa) as i64;
        sum += match activation {
            Activation::CReLU => v * w as i64,
            Activation::SCReLU => v * v * w as i64,
        };
    }
    sum
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::format::Activation;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn update_avx2(
        dst: &mut [i16],
        src: &[i16],
        weights: &[i16],
        adds: &[usize],
        subs: &[usize],
    ) {
        let n = dst.len();
        let w = weights.as_ptr();
        let mut i = 0;
        while i < n {
            let mut v = _mm256_loadu_si256(src.as_ptr().add(i) as *const __m256i);
            for &f in adds {
                let c = _mm256_loadu_si256(w.add(f * n + i) as *const __m256i);
                v = _mm256_add_epi16(v, c);
            }
            for &f in subs {
                let c = _mm256_loadu_si256(w.add(f * n + i) as *const __m256i);
                v = _mm256_sub_epi16(v, c);
            }
            _mm256_storeu_si256(dst.as_mut_ptr().add(i) as *mut __m256i, v);
            i += 16;
        }
    }

    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn update_sse2(
        dst: &mut [i16],
        src: &[i16],
        weights: &[i16],
        adds: &[usize],
        subs: &[usize],
    ) {
        let n = dst.len();
        let w = weights.as_ptr();
        let mut i = 0;
        while i < n {
            let mut v = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            for &f in adds {
                let c = _mm_loadu_si128(w.add(f * n + i) as *const __m128i);
                v = _mm_add_epi16(v, c);
            }
            for &f in subs {
                let c = _mm_loadu_si128(w.add(f * n + i) as *const __m128i);
                v = _mm_sub_epi16(v, c);
            }
            _mm_storeu_si128(dst.as_mut_ptr().add(i) as *mut __m128i, v);
            i += 8;
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn output_avx2(
        activation: Activation,
        qa: i16,
        us: &[i16],
        them: &[i16],
        weights: &[i16],
    ) -> i64 {
        let n = us.len();
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(qa);
        let mut sum = _mm256_setzero_si256();
        for (half, values) in [us, them].into_iter().enumerate() {
            let w = weights.as_ptr().add(half * n);
            let mut i = 0;
            while i < n {
                let x = _mm256_loadu_si256(values.as_ptr().add(i) as *const __m256i);
                let v = _mm256_min_epi16(_mm256_max_epi16(x, zero), top);
                let wv = _mm256_loadu_si256(w.add(i) as *const __m256i);
                let products = match activation {
                    Activation::CReLU => _mm256_madd_epi16(v, wv),
                    Activation::SCReLU => _mm256_madd_epi16(_mm256_mullo_epi16(v, wv), v),
                };
                sum = _mm256_add_epi32(sum, products);
                i += 16;
            }
        }
        let mut lanes = [0i32; 8];
        _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum);
        lanes.iter().map(|&l| l as i64).sum()
    }

    #[target_feature(enable = "sse2")]
    pub(super) unsafe fn output_sse2(
        activation: Activation,
        qa: i16,
        us: &[i16],
        them: &[i16],
        weights: &[i16],
    ) -> i64 {
        let n = us.len();
        let zero = _mm_setzero_si128();
        let top = _mm_set1_epi16(qa);
        let mut sum = _mm_setzero_si128();
        for (half, values) in [us, them].into_iter().enumerate() {
            let w = weights.as_ptr().add(half * n);
            let mut i = 0;
            while i < n {
                let x = _mm_loadu_si128(values.as_ptr().add(i) as *const __m128i);
                let v = _mm_min_epi16(_mm_max_epi16(x, zero), top);
                let wv = _mm_loadu_si128(w.add(i) as *const __m128i);
                let products = match activation {
                    Activation::CReLU => _mm_madd_epi16(v, wv),
                    Activation::SCReLU => _mm_madd_epi16(_mm_mullo_epi16(v, wv), v),
                };
                sum = _mm_add_epi32(sum, products);
                i += 8;
            }
        }
        let mut lanes = [0i32; 4];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, sum);
        lanes.iter().map(|&l| l as i64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random(rng: &mut Rng, n: usize, range: i16) -> Vec<i16> {
        (0..n)
            .map(|_| (rng.below(2 * range as u64 + 1) as i64 - range as i64) as i16)
            .collect()
    }

    #[test]
    fn every_supported_level_updates_as_the_portable_code() {
        let mut rng = Rng::new(11);
        for n in [16, 32, 256] {
            let weights = random(&mut rng, 768 * n, i16::MAX);
            for trial in 0..50 {
                let src = random(&mut rng, n, i16::MAX);
                let adds: Vec<usize> = (0..trial % 5).map(|_| rng.below(768) as usize).collect();
                let subs: Vec<usize> = (0..trial % 4).map(|_| rng.below(768) as usize).collect();
                let mut expected = vec![0; n];
                update(Level::Portable, &mut expected, &src, &weights, &adds, &subs);
                for level in Level::supported() {
                    let mut got = vec![0; n];
                    update(level, &mut got, &src, &weights, &adds, &subs);
                    assert_eq!(got, expected, "{} n {n} trial {trial}", level.name());
                }
            }
        }
    }

    #[test]
    fn every_supported_level_gives_the_portable_output() {
        let mut rng = Rng::new(12);
        for n in [16, 64, 512] {
            for activation in [Activation::CReLU, Activation::SCReLU] {
                for _ in 0..50 {
                    let qa = 1 + rng.below(255) as i16;
                    // Output weights as a quantised net has them: `qa·|w|` fits 16 bits.
                    let weights = random(&mut rng, 2 * n, i16::MAX / qa);
                    // Values below 0 and above qa, to exercise the clamp.
                    let us = random(&mut rng, n, 2 * qa);
                    let them = random(&mut rng, n, 2 * qa);
                    let expected = output_portable(activation, qa, &us, &them, &weights);
                    for level in Level::supported() {
                        let got = output(level, activation, qa, &us, &them, &weights, true);
                        assert_eq!(got, expected, "{} {activation:?} n {n}", level.name());
                    }
                }
            }
        }
    }

    #[test]
    fn wide_output_weights_take_the_exact_path() {
        let n = 16;
        let us = vec![255; n];
        let them = vec![0; n];
        let weights = vec![i16::MAX; 2 * n];
        let exact = 255 * 255 * i16::MAX as i64 * n as i64;
        for level in Level::supported() {
            let got = output(level, Activation::SCReLU, 255, &us, &them, &weights, false);
            assert_eq!(got, exact, "{}", level.name());
        }
    }

    #[test]
    fn the_detected_level_is_supported() {
        assert!(Level::supported().contains(&Level::detected()));
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            assert_eq!(Level::detected(), Level::Avx2);
        }
    }
}
