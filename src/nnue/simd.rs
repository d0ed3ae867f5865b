//! The network's hot loops, written once per instruction set and chosen at run time:
//! AVX-512 (with its 16-bit integer instructions, AVX-512BW) or AVX2 where the CPU has it,
//! SSE2 on every other x86-64, plain Rust elsewhere. The plain `cargo build --release`
//! binary thus runs the widest code the machine has without a `-C target-cpu` build; the
//! choice is made once ([`Level::detected`]), and the environment variable `KESTREL_SIMD`
//! (`portable`, `sse2`, `avx2`, `avx512`) can cap it, to compare the paths on one machine.
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
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Level {
    /// The best this CPU runs, found on the first call; no higher than `KESTREL_SIMD`
    /// names, where it names a level.
    pub fn detected() -> Level {
        static DETECTED: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
        *DETECTED.get_or_init(|| {
            let supported = Level::supported();
            let best = *supported.last().expect("the portable level always runs");
            let cap = std::env::var("KESTREL_SIMD").ok();
            match cap.and_then(|name| supported.into_iter().find(|l| l.key() == name)) {
                Some(capped) => capped,
                None => best,
            }
        })
    }

    /// Every level this CPU runs, the portable one first, each wider than the one before.
    pub fn supported() -> Vec<Level> {
        let mut levels = vec![Level::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            // SSE2 is part of x86-64 itself.
            levels.push(Level::Sse2);
            if is_x86_feature_detected!("avx2") {
                levels.push(Level::Avx2);
                if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
                    levels.push(Level::Avx512);
                }
            }
        }
        levels
    }

    /// The level's name in `KESTREL_SIMD`.
    fn key(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => "sse2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => "avx512",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            Level::Sse2 => "SSE2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => "AVX2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => "AVX-512",
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
    adds: &[u16],
    subs: &[u16],
) {
    let n = dst.len();
    assert!(n.is_multiple_of(LANES) && src.len() == n);
    // The kernels read columns without bounds checks: every one must be inside `weights`.
    let columns = weights.len() / n;
    assert!(adds.iter().chain(subs).all(|&f| usize::from(f) < columns));
    match level {
        Level::Portable => update_portable(dst, src, weights, adds, subs),
        // SAFETY: the lengths and column indices were checked above; the level is one the
        // CPU runs (`detected`/`supported` chose it).
        #[cfg(target_arch = "x86_64")]
        Level::Sse2 => unsafe { x86::update_sse2(dst, src, weights, adds, subs) },
        // SAFETY: as for SSE2.
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 => unsafe { x86::update_avx2(dst, src, weights, adds, subs) },
        // SAFETY: as for SSE2. A length that is not a whole number of 512-bit blocks takes
        // the AVX2 path, which the CPU also runs.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe {
            if n.is_multiple_of(2 * LANES) {
                x86::update_avx512(dst, src, weights, adds, subs)
            } else {
                x86::update_avx2(dst, src, weights, adds, subs)
            }
        },
    }
}

fn update_portable(dst: &mut [i16], src: &[i16], weights: &[i16], adds: &[u16], subs: &[u16]) {
    let n = dst.len();
    dst.copy_from_slice(src);
    for f in adds.iter().map(|&f| usize::from(f)) {
        for (d, &w) in dst.iter_mut().zip(&weights[f * n..(f + 1) * n]) {
            *d = d.wrapping_add(w);
        }
    }
    for f in subs.iter().map(|&f| usize::from(f)) {
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
        // SAFETY: as for the update.
        #[cfg(target_arch = "x86_64")]
        Level::Avx512 => unsafe {
            if n.is_multiple_of(2 * LANES) {
                x86::output_avx512(activation, qa, us, them, weights)
            } else {
                x86::output_avx2(activation, qa, us, them, weights)
            }
        },
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

    /// The update and output kernels of one vector width, written once: the feature list
    /// the functions are compiled for, the vector type and its i16 lanes, and the
    /// intrinsics (load, store, add, sub, zero, splat, max, min, mullo, madd, add32).
    macro_rules! kernels {
        ($update:ident, $output:ident, $features:literal, $vec:ty, $lanes:literal,
         $load:ident, $store:ident, $add:ident, $sub:ident, $zero:ident, $splat:ident,
         $max:ident, $min:ident, $mullo:ident, $madd:ident, $add32:ident) => {
            #[target_feature(enable = $features)]
            pub(super) unsafe fn $update(
                dst: &mut [i16],
                src: &[i16],
                weights: &[i16],
                adds: &[u16],
                subs: &[u16],
            ) {
                let n = dst.len();
                let w = weights.as_ptr();
                let column = |f: &u16| w.add(usize::from(*f) * n);
                let (from, to) = (src.as_ptr(), dst.as_mut_ptr());
                // The column counts of nearly every update get loops of their own: a quiet
                // move (one piece in, one out), a capture (one in, two out), castling (two
                // and two). The general loop pays for its inner loops in every block.
                match (adds, subs) {
                    ([a], [s]) => fixed(n, from, to, [column(a)], [column(s)]),
                    ([a], [s, t]) => fixed(n, from, to, [column(a)], [column(s), column(t)]),
                    ([a, b], [s, t]) => {
                        fixed(n, from, to, [column(a), column(b)], [column(s), column(t)])
                    }
                    _ => {
                        let mut i = 0;
                        while i < n {
                            let mut v = $load(from.add(i) as *const $vec);
                            for f in adds {
                                v = $add(v, $load(column(f).add(i) as *const $vec));
                            }
                            for f in subs {
                                v = $sub(v, $load(column(f).add(i) as *const $vec));
                            }
                            $store(to.add(i) as *mut $vec, v);
                            i += $lanes;
                        }
                    }
                }

                /// `to = from + Σ adds − Σ subs` over `n` lanes, the counts known when
                /// compiled, so the column loops unroll.
                #[target_feature(enable = $features)]
                #[inline]
                unsafe fn fixed<const A: usize, const S: usize>(
                    n: usize,
                    from: *const i16,
                    to: *mut i16,
                    adds: [*const i16; A],
                    subs: [*const i16; S],
                ) {
                    let mut i = 0;
                    while i < n {
                        let mut v = $load(from.add(i) as *const $vec);
                        for a in adds {
                            v = $add(v, $load(a.add(i) as *const $vec));
                        }
                        for s in subs {
                            v = $sub(v, $load(s.add(i) as *const $vec));
                        }
                        $store(to.add(i) as *mut $vec, v);
                        i += $lanes;
                    }
                }
            }

            #[target_feature(enable = $features)]
            pub(super) unsafe fn $output(
                activation: Activation,
                qa: i16,
                us: &[i16],
                them: &[i16],
                weights: &[i16],
            ) -> i64 {
                let n = us.len();
                let zero = $zero();
                let top = $splat(qa);
                let mut sum = $zero();
                for (half, values) in [us, them].into_iter().enumerate() {
                    let w = weights.as_ptr().add(half * n);
                    let mut i = 0;
                    while i < n {
                        let x = $load(values.as_ptr().add(i) as *const $vec);
                        let v = $min($max(x, zero), top);
                        let wv = $load(w.add(i) as *const $vec);
                        let products = match activation {
                            Activation::CReLU => $madd(v, wv),
                            Activation::SCReLU => $madd($mullo(v, wv), v),
                        };
                        sum = $add32(sum, products);
                        i += $lanes;
                    }
                }
                let mut lanes = [0i32; $lanes / 2];
                $store(lanes.as_mut_ptr() as *mut $vec, sum);
                lanes.iter().map(|&l| l as i64).sum()
            }
        };
    }

    kernels!(
        update_avx512,
        output_avx512,
        "avx512f,avx512bw",
        __m512i,
        32,
        _mm512_loadu_si512,
        _mm512_storeu_si512,
        _mm512_add_epi16,
        _mm512_sub_epi16,
        _mm512_setzero_si512,
        _mm512_set1_epi16,
        _mm512_max_epi16,
        _mm512_min_epi16,
        _mm512_mullo_epi16,
        _mm512_madd_epi16,
        _mm512_add_epi32
    );
    kernels!(
        update_avx2,
        output_avx2,
        "avx2",
        __m256i,
        16,
        _mm256_loadu_si256,
        _mm256_storeu_si256,
        _mm256_add_epi16,
        _mm256_sub_epi16,
        _mm256_setzero_si256,
        _mm256_set1_epi16,
        _mm256_max_epi16,
        _mm256_min_epi16,
        _mm256_mullo_epi16,
        _mm256_madd_epi16,
        _mm256_add_epi32
    );
    kernels!(
        update_sse2,
        output_sse2,
        "sse2",
        __m128i,
        8,
        _mm_loadu_si128,
        _mm_storeu_si128,
        _mm_add_epi16,
        _mm_sub_epi16,
        _mm_setzero_si128,
        _mm_set1_epi16,
        _mm_max_epi16,
        _mm_min_epi16,
        _mm_mullo_epi16,
        _mm_madd_epi16,
        _mm_add_epi32
    );
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
                let adds: Vec<u16> = (0..trial % 5).map(|_| rng.below(768) as u16).collect();
                let subs: Vec<u16> = (0..trial % 4).map(|_| rng.below(768) as u16).collect();
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
        if std::env::var_os("KESTREL_SIMD").is_none() {
            assert_eq!(Some(&Level::detected()), Level::supported().last());
        }
    }
}
