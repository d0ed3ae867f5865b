//! Texel-style tuning of the evaluation weights (`kestrel tune`).
//!
//! The evaluation is linear in its weights once a position's phase and drawish-ending scale
//! are fixed: `eval::trace` gives every weight's coefficient (White's count minus Black's).
//! The tuner traces every training position once and keeps only the non-zero coefficients,
//! packed into one vector for the whole data set ([`Dataset`]). A weight set is then judged
//! by the mean squared error between the predicted score `sigmoid(K · eval)` and a target in
//! 0..1 made of the game result and the search score:
//!
//! ```text
//! target = λ · sigmoid(K · score) + (1 − λ) · result
//! sigmoid(x) = 1 / (1 + 10^(−x / 400))
//! ```
//!
//! `K` is fitted first (golden-section search over the error of the current weights against
//! the game results), then the selected weights are moved by Adam on the full batch, with the
//! gradient computed in `f64` in parallel over the positions (one gradient buffer per
//! thread). The learning rate is in centipawns (Adam moves each weight by about that much
//! per epoch while its gradient keeps its sign) and decays exponentially to a tenth of its
//! value over the run. The result is rounded to integers and written with
//! `params::weights_source`, i.e. as a new `src/eval/weights.rs`.
//!
//! Data format, one position per line: `<FEN> | <score> | <result>`, the score an integer
//! in centipawns and the result `1.0`, `0.5` or `0.0` (any fraction in 0..1 is accepted, as
//! are `1-0`, `1/2-1/2`, `0-1`), both from White's view. Lines starting with `#` and blank
//! lines are skipped; malformed lines are counted and reported, not fatal. Positions with
//! insufficient material are skipped: the engine scores them 0 whatever the weights.

use crate::chess::Position;
use crate::eval::params::{self, NUM, SECTIONS};
use crate::eval::{self, Score, MAX_PHASE, SCALE_NORMAL};
use std::path::Path;
use std::time::{Duration, Instant};

/// How many malformed lines a load report describes by line number.
pub const MAX_REPORTED_ERRORS: usize = 5;

/// The predicted result for an evaluation `x` (centipawns, White's view) with scale `k`.
#[inline(always)]
pub fn sigmoid(k: f64, x: f64) -> f64 {
    1.0 / (1.0 + (-k * x * (std::f64::consts::LN_10 / 400.0)).exp())
}

/// What is stored per position besides its coefficients.
#[derive(Clone, Copy, Debug)]
struct Meta {
    /// Where the position's coefficients start in `Dataset::coefs`.
    start: usize,
    len: u16,
    phase: u8,
    scale: u8,
    /// Game result from White's view, 0..1.
    result: f32,
    /// Search score in centipawns from White's view.
    score: i32,
}

/// Traced training positions: the non-zero coefficients of all positions in one vector.
#[derive(Clone, Default)]
pub struct Dataset {
    coefs: Vec<(u16, i16)>,
    meta: Vec<Meta>,
}

/// Counts from loading data.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadReport {
    /// Lines read, including comments and blank lines.
    pub lines: usize,
    /// Positions added.
    pub positions: usize,
    /// Comment and blank lines.
    pub skipped_comments: usize,
    /// Positions left out because the engine scores them 0 (insufficient material).
    pub skipped_drawn: usize,
    /// Lines that could not be read.
    pub malformed: usize,
    /// The first few malformed lines: (1-based line number, what is wrong).
    pub errors: Vec<(usize, String)>,
}

impl LoadReport {
    fn merge(&mut self, other: LoadReport) {
        self.lines += other.lines;
        self.positions += other.positions;
        self.skipped_comments += other.skipped_comments;
        self.skipped_drawn += other.skipped_drawn;
        self.malformed += other.malformed;
        self.errors.extend(other.errors);
        self.errors.sort_by_key(|e| e.0);
        self.errors.truncate(MAX_REPORTED_ERRORS);
    }
}

/// One parsed line: `Ok(None)` for a comment or blank line.
fn parse_line(line: &str) -> Result<Option<(Position, i32, f64)>, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (pos, score, result) = super::training_data::split_line(line)?;
    let result = match result {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" | "1/2" => 0.5,
        r => match r.parse::<f64>() {
            Ok(x) if (0.0..=1.0).contains(&x) => x,
            _ => return Err(format!("bad result `{r}` (1.0, 0.5 or 0.0)")),
        },
    };
    Ok(Some((pos, score, result)))
}

impl Dataset {
    pub fn new() -> Dataset {
        Dataset::default()
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.meta.len()
    }

    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// The number of stored coefficients (memory use is 4 bytes each, plus 24 bytes per
    /// position).
    pub fn num_coefficients(&self) -> usize {
        self.coefs.len()
    }

    /// Traces `pos` and adds it with its search score (centipawns) and result (0..1), both
    /// from White's view. Returns false (and adds nothing) if the position has insufficient
    /// material, which the engine scores 0 whatever the weights.
    pub fn push(&mut self, pos: &Position, score: i32, result: f64) -> bool {
        if pos.is_insufficient_material() {
            return false;
        }
        let t = eval::trace(pos);
        let start = self.coefs.len();
        for i in 0..NUM {
            let c = t.counts[0][i] - t.counts[1][i];
            if c != 0 {
                self.coefs.push((i as u16, c));
            }
        }
        self.meta.push(Meta {
            start,
            len: (self.coefs.len() - start) as u16,
            phase: t.phase as u8,
            scale: t.scale as u8,
            result: result as f32,
            score,
        });
        true
    }

    /// Appends another data set.
    pub fn append(&mut self, other: Dataset) {
        if self.is_empty() {
            *self = other;
            return;
        }
        let base = self.coefs.len();
        self.coefs.extend_from_slice(&other.coefs);
        self.meta.extend(other.meta.into_iter().map(|mut m| {
            m.start += base;
            m
        }));
    }

    /// Parses and traces the lines of `text` with `threads` threads. Line numbers in the
    /// report start at `first_line`.
    pub fn parse(text: &str, threads: usize, first_line: usize) -> (Dataset, LoadReport) {
        let lines: Vec<&str> = text.lines().collect();
        let threads = threads.clamp(1, lines.len().max(1));
        let per = lines.len().div_ceil(threads).max(1);
        let parts: Vec<(Dataset, LoadReport)> = std::thread::scope(|s| {
            let handles: Vec<_> = lines
                .chunks(per)
                .enumerate()
                .map(|(n, chunk)| {
                    s.spawn(move || {
                        let mut data = Dataset::new();
                        let mut report = LoadReport::default();
                        for (k, line) in chunk.iter().enumerate() {
                            report.lines += 1;
                            match parse_line(line) {
                                Ok(None) => report.skipped_comments += 1,
                                Ok(Some((pos, score, result))) => {
                                    if data.push(&pos, score, result) {
                                        report.positions += 1;
                                    } else {
                                        report.skipped_drawn += 1;
                                    }
                                }
                                Err(e) => {
                                    report.malformed += 1;
                                    if report.errors.len() < MAX_REPORTED_ERRORS {
                                        report.errors.push((first_line + n * per + k, e));
                                    }
                                }
                            }
                        }
                        (data, report)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a loading thread panicked"))
                .collect()
        });
        let mut data = Dataset::new();
        let mut report = LoadReport::default();
        data.coefs
            .reserve(parts.iter().map(|p| p.0.coefs.len()).sum());
        data.meta.reserve(parts.iter().map(|p| p.0.len()).sum());
        for (d, r) in parts {
            data.append(d);
            report.merge(r);
        }
        (data, report)
    }

    /// Reads a data file (see the module documentation for the format).
    pub fn load(path: &Path, threads: usize) -> std::io::Result<(Dataset, LoadReport)> {
        let text = std::fs::read_to_string(path)?;
        Ok(Dataset::parse(&text, threads, 1))
    }

    /// Which weights have a non-zero coefficient in some position.
    pub fn occurring(&self) -> Vec<bool> {
        let mut seen = vec![false; NUM];
        for &(i, _) in &self.coefs {
            seen[i as usize] = true;
        }
        seen
    }

    /// The evaluation of position `n` from White's view with weights `w` (flat, `2 * NUM`
    /// values: the middlegame and endgame value of each weight in turn), in `f64`: the
    /// engine's formula without its integer rounding.
    pub fn evaluate(&self, n: usize, w: &[f64]) -> f64 {
        let m = &self.meta[n];
        let (mg, eg) = sums(&self.coefs[m.start..m.start + m.len as usize], w);
        let (fm, fe) = factors(m);
        mg * fm + eg * fe
    }

    /// Position `n`'s phase and scale.
    pub fn phase_scale(&self, n: usize) -> (i32, i32) {
        (self.meta[n].phase as i32, self.meta[n].scale as i32)
    }

    /// Position `n`'s coefficients as (flat weight index, White's count minus Black's).
    pub fn coefficients(&self, n: usize) -> &[(u16, i16)] {
        let m = &self.meta[n];
        &self.coefs[m.start..m.start + m.len as usize]
    }

    /// The targets for scale `k` and weight `lambda` of the search score.
    pub fn targets(&self, k: f64, lambda: f64) -> Vec<f64> {
        self.meta
            .iter()
            .map(|m| lambda * sigmoid(k, m.score as f64) + (1.0 - lambda) * m.result as f64)
            .collect()
    }

    /// Mean squared error of `sigmoid(k · eval)` against `targets`.
    pub fn mse(&self, w: &[f64], k: f64, targets: &[f64], threads: usize) -> f64 {
        let evals = self.evaluations(w, threads);
        mse_of(&evals, k, targets)
    }

    /// Every position's evaluation, in parallel.
    fn evaluations(&self, w: &[f64], threads: usize) -> Vec<f64> {
        let mut out = vec![0.0; self.len()];
        let per = self.len().div_ceil(threads.max(1)).max(1);
        std::thread::scope(|s| {
            for (c, chunk) in out.chunks_mut(per).enumerate() {
                s.spawn(move || {
                    for (j, e) in chunk.iter_mut().enumerate() {
                        *e = self.evaluate(c * per + j, w);
                    }
                });
            }
        });
        out
    }

    /// The sum of squared errors and its gradient (added to `grad`) over positions `range`.
    fn gradient_range(
        &self,
        range: std::ops::Range<usize>,
        w: &[f64],
        k: f64,
        targets: &[f64],
        grad: &mut [f64],
    ) -> f64 {
        let dk = k * std::f64::consts::LN_10 / 400.0;
        let mut sse = 0.0;
        for n in range {
            let m = &self.meta[n];
            let coefs = &self.coefs[m.start..m.start + m.len as usize];
            let (mg, eg) = sums(coefs, w);
            let (fm, fe) = factors(m);
            let p = sigmoid(k, mg * fm + eg * fe);
            let err = p - targets[n];
            sse += err * err;
            // d(err²)/d(eval) = 2 · err · p · (1 − p) · K ln10 / 400.
            let g = 2.0 * err * p * (1.0 - p) * dk;
            let (gm, ge) = (g * fm, g * fe);
            for &(i, c) in coefs {
                let c = c as f64;
                let i = 2 * i as usize;
                grad[i] += c * gm;
                grad[i + 1] += c * ge;
            }
        }
        sse
    }

    /// The mean squared error at `w` and its gradient, computed with `threads` threads.
    fn gradient(&self, w: &[f64], k: f64, targets: &[f64], threads: usize) -> (f64, Vec<f64>) {
        let n = self.len();
        let per = n.div_ceil(threads.max(1)).max(1);
        let parts: Vec<(f64, Vec<f64>)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .step_by(per)
                .map(|start| {
                    s.spawn(move || {
                        let mut grad = vec![0.0; 2 * NUM];
                        let sse = self.gradient_range(
                            start..(start + per).min(n),
                            w,
                            k,
                            targets,
                            &mut grad,
                        );
                        (sse, grad)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a tuning thread panicked"))
                .collect()
        });
        let mut grad = vec![0.0; 2 * NUM];
        let mut sse = 0.0;
        for (s, g) in parts {
            sse += s;
            for (a, b) in grad.iter_mut().zip(&g) {
                *a += b;
            }
        }
        let scale = 1.0 / n.max(1) as f64;
        grad.iter_mut().for_each(|g| *g *= scale);
        (sse * scale, grad)
    }
}

/// The middlegame and endgame sums of coefficient × weight.
#[inline(always)]
fn sums(coefs: &[(u16, i16)], w: &[f64]) -> (f64, f64) {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(i, c) in coefs {
        let c = c as f64;
        let i = 2 * i as usize;
        mg += c * w[i];
        eg += c * w[i + 1];
    }
    (mg, eg)
}

/// How much the middlegame and the endgame sum count in the evaluation.
#[inline(always)]
fn factors(m: &Meta) -> (f64, f64) {
    let phase = m.phase as f64 / MAX_PHASE as f64;
    let scale = m.scale as f64 / SCALE_NORMAL as f64;
    (phase * scale, (1.0 - phase) * scale)
}

fn mse_of(evals: &[f64], k: f64, targets: &[f64]) -> f64 {
    let sse: f64 = evals
        .iter()
        .zip(targets)
        .map(|(&e, &t)| (sigmoid(k, e) - t).powi(2))
        .sum();
    sse / evals.len().max(1) as f64
}

/// Weights as the tuner's flat `f64` vector (middlegame, endgame, middlegame, ...).
pub fn to_f64(weights: &[Score]) -> Vec<f64> {
    weights
        .iter()
        .flat_map(|s| [s.mg as f64, s.eg as f64])
        .collect()
}

/// The tuner's weights rounded to the nearest integers.
pub fn to_scores(w: &[f64]) -> Vec<Score> {
    w.chunks(2)
        .map(|p| Score::new(p[0].round() as i32, p[1].round() as i32))
        .collect()
}

/// The source of `weights.rs` for the tuner's weights (rounded).
pub fn weights_source(w: &[f64]) -> String {
    params::weights_source(&to_scores(w))
}

/// The flat indices of the weights in the named sections (comma-separated, case-insensitive
/// names as in `params`, e.g. `MATERIAL,PSQT`).
pub fn select_sections(names: &str) -> Result<Vec<bool>, String> {
    let mut mask = vec![false; NUM];
    for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let sec = SECTIONS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                let all: Vec<&str> = SECTIONS.iter().map(|s| s.name).collect();
                format!("unknown section `{name}` (sections: {})", all.join(", "))
            })?;
        mask[sec.offset..sec.offset + sec.size()].fill(true);
    }
    Ok(mask)
}

/// The scale `K` that minimises the error of `sigmoid(K · eval(w))` against the game results
/// (golden-section search, 0 < K ≤ 10).
pub fn fit_k(data: &Dataset, w: &[f64], threads: usize) -> f64 {
    let evals = data.evaluations(w, threads);
    let results = data.targets(1.0, 0.0);
    let f = |k: f64| mse_of(&evals, k, &results);
    let inv_phi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut a, mut b) = (0.0, 10.0);
    let mut c = b - inv_phi * (b - a);
    let mut d = a + inv_phi * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    while b - a > 1e-6 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - inv_phi * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + inv_phi * (b - a);
            fd = f(d);
        }
    }
    (a + b) / 2.0
}

/// Settings of a tuning run.
#[derive(Clone, Debug)]
pub struct Options {
    pub epochs: usize,
    /// Adam's learning rate in centipawns (decays to a tenth over the run).
    pub lr: f64,
    /// Weight of the search score against the game result in the target.
    pub lambda: f64,
    pub threads: usize,
    /// Which flat weights may change (`None`: all).
    pub only: Option<Vec<bool>>,
    /// A fixed `K` instead of fitting one.
    pub k: Option<f64>,
    /// Call the progress callback every this many epochs (0: never).
    pub report_every: usize,
    /// L2 pull toward the starting weights: `l2 · Σ (w − start)²` is added to the error.
    /// Weights the data barely determines (rare terms, or the middlegame half of a term
    /// seen only in endgames) then stay near their start instead of drifting, since Adam
    /// moves every weight at the same pace whatever the size of its gradient.
    pub l2: f64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            epochs: 2000,
            lr: 1.0,
            lambda: 0.0,
            threads: 1,
            only: None,
            k: None,
            report_every: 100,
            l2: 0.0,
        }
    }
}

/// The outcome of a tuning run.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub k: f64,
    /// Weights the run could change: selected and occurring in the data.
    pub tuned: usize,
    /// The error of the starting weights.
    pub mse_before: f64,
    /// The error of the tuned weights rounded to integers (the ones written).
    pub mse_after: f64,
    /// The tuned weights, unrounded (flat, see [`to_f64`]).
    pub weights: Vec<f64>,
}

/// One progress report: epoch (1-based), error at the start of the epoch, time so far.
pub struct Progress {
    pub epoch: usize,
    pub mse: f64,
    pub elapsed: Duration,
}

/// Tunes `start` on `data`, calling `progress` every `opts.report_every` epochs.
pub fn tune(
    data: &Dataset,
    start: &[Score],
    opts: &Options,
    mut progress: impl FnMut(&Progress),
) -> Outcome {
    assert_eq!(start.len(), NUM);
    let threads = opts.threads.max(1);
    let mut w = to_f64(start);
    let w0 = w.clone();
    let k = opts.k.unwrap_or_else(|| fit_k(data, &w, threads));
    let targets = data.targets(k, opts.lambda);
    let occurs = data.occurring();
    let free: Vec<bool> = (0..2 * NUM)
        .map(|j| occurs[j / 2] && opts.only.as_ref().is_none_or(|m| m[j / 2]))
        .collect();
    let tuned = (0..NUM).filter(|&i| free[2 * i]).count();
    let mse_before = data.mse(&w, k, &targets, threads);

    const BETA1: f64 = 0.9;
    const BETA2: f64 = 0.999;
    const EPSILON: f64 = 1e-8;
    let mut m = vec![0.0; 2 * NUM];
    let mut v = vec![0.0; 2 * NUM];
    let clock = Instant::now();
    for epoch in 1..=opts.epochs {
        let (mse, grad) = data.gradient(&w, k, &targets, threads);
        if opts.report_every > 0 && (epoch % opts.report_every == 0 || epoch == 1) {
            progress(&Progress {
                epoch,
                mse,
                elapsed: clock.elapsed(),
            });
        }
        let lr = opts.lr * 0.1f64.powf((epoch - 1) as f64 / opts.epochs as f64);
        let (c1, c2) = (
            1.0 - BETA1.powi(epoch as i32),
            1.0 - BETA2.powi(epoch as i32),
        );
        for j in (0..2 * NUM).filter(|&j| free[j]) {
            let g = grad[j] + 2.0 * opts.l2 * (w[j] - w0[j]);
            m[j] = BETA1 * m[j] + (1.0 - BETA1) * g;
            v[j] = BETA2 * v[j] + (1.0 - BETA2) * g * g;
            w[j] -= lr * (m[j] / c1) / ((v[j] / c2).sqrt() + EPSILON);
        }
    }
    let rounded = to_f64(&to_scores(&w));
    let mse_after = data.mse(&rounded, k, &targets, threads);
    Outcome {
        k,
        tuned,
        mse_before,
        mse_after,
        weights: w,
    }
}

/// The weights that changed most after rounding: (flat index, old, new), largest first.
pub fn largest_changes(
    before: &[Score],
    after: &[f64],
    count: usize,
) -> Vec<(usize, Score, Score)> {
    let after = to_scores(after);
    let mut changes: Vec<(usize, Score, Score)> = (0..NUM)
        .filter(|&i| before[i] != after[i])
        .map(|i| (i, before[i], after[i]))
        .collect();
    let size = |(_, a, b): &(usize, Score, Score)| (a.mg - b.mg).abs().max((a.eg - b.eg).abs());
    changes.sort_by_key(|c| std::cmp::Reverse(size(c)));
    changes.truncate(count);
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Color;
    use crate::eval::params::WEIGHTS;

    use crate::rng::Rng;

    /// Positions from random games started at the sample openings.
    fn random_positions(games_per_opening: usize, plies: usize, every: usize) -> Vec<Position> {
        let openings = include_str!("../../tests/data/openings-sample.epd");
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut out = Vec::new();
        for fen in openings.lines().filter(|l| !l.trim().is_empty()) {
            let start = Position::from_fen(fen).expect("sample openings are valid");
            for _ in 0..games_per_opening {
                let mut pos = start;
                for ply in 1..=plies {
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    pos.play(moves[rng.below(moves.len() as u64) as usize]);
                    if ply % every == 0 {
                        out.push(pos);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn tuner_evaluation_matches_the_engine() {
        let w = to_f64(&WEIGHTS);
        let mut checked = 0;
        for fen in crate::tools::bench::POSITIONS {
            let pos = Position::from_fen(fen).unwrap();
            let mut data = Dataset::new();
            if !data.push(&pos, 0, 0.5) {
                continue;
            }
            let engine = match pos.side_to_move() {
                Color::White => eval::evaluate(&pos),
                Color::Black => -eval::evaluate(&pos),
            };
            let tuner = data.evaluate(0, &w);
            // The engine truncates twice (after the phase blend and after the scale).
            let (_, scale) = data.phase_scale(0);
            let slack = if scale == SCALE_NORMAL { 1.0 } else { 2.0 };
            assert!(
                (tuner - engine as f64).abs() < slack,
                "{fen}: tuner {tuner}, engine {engine}"
            );
            // The stored coefficients are the trace's, exactly.
            assert_eq!(
                data.coefficients(0),
                &eval::trace(&pos).sparse()[..],
                "{fen}"
            );
            checked += 1;
        }
        assert!(checked >= 45, "only {checked} positions checked");
    }

    #[test]
    fn recovers_known_material_values() {
        // "True" weights: the committed ones with different material values.
        let mut truth = WEIGHTS.to_vec();
        let material = [(90, 140), (340, 290), (350, 340), (470, 560), (990, 970)];
        for (r, &(mg, eg)) in material.iter().enumerate() {
            truth[params::MATERIAL + r] = Score::new(mg, eg);
        }
        assert_ne!(truth[..], WEIGHTS[..]);
        let true_w = to_f64(&truth);
        const K: f64 = 1.0;

        // Label each position with the true model's prediction: a fractional "result".
        let mut data = Dataset::new();
        for pos in random_positions(3, 48, 4) {
            let mut one = Dataset::new();
            if !one.push(&pos, 0, 0.0) {
                continue;
            }
            let e = one.evaluate(0, &true_w);
            if e.abs() < 800.0 {
                data.push(&pos, 0, sigmoid(K, e));
            }
        }
        assert!(data.len() > 500, "only {} positions", data.len());

        // K is found again from the true weights.
        let k = fit_k(&data, &true_w, 2);
        assert!((k - K).abs() < 0.01, "fitted K {k}");

        let opts = Options {
            epochs: 800,
            lr: 2.0,
            threads: 2,
            only: Some(select_sections("material").unwrap()),
            k: Some(K),
            report_every: 0,
            ..Options::default()
        };
        // A fixed start, whatever the committed material values are.
        let mut start = WEIGHTS.to_vec();
        let start_material = [(100, 125), (320, 300), (335, 320), (480, 530), (960, 1000)];
        for (r, &(mg, eg)) in start_material.iter().enumerate() {
            start[params::MATERIAL + r] = Score::new(mg, eg);
        }
        let out = tune(&data, &start, &opts, |_| {});
        assert_eq!(out.tuned, 5, "the king's material never occurs");
        assert!(
            out.mse_before > 1e-4,
            "the start should be off: {}",
            out.mse_before
        );
        assert!(out.mse_after < 1e-6, "MSE after {}", out.mse_after);
        let tuned = to_scores(&out.weights);
        for r in 0..6 {
            let (t, x) = (truth[params::MATERIAL + r], tuned[params::MATERIAL + r]);
            assert!(
                (t.mg - x.mg).abs() <= 2 && (t.eg - x.eg).abs() <= 2,
                "material {r}: true {t:?}, tuned {x:?}"
            );
        }
        // A strong pull toward the start keeps the weights between the start and the truth,
        // nearer the start.
        let pulled = to_scores(
            &tune(
                &data,
                &start,
                &Options {
                    l2: 1.0,
                    ..opts.clone()
                },
                |_| {},
            )
            .weights,
        );
        for r in 0..5 {
            let (t, x, s) = (
                truth[params::MATERIAL + r],
                pulled[params::MATERIAL + r],
                start[params::MATERIAL + r],
            );
            assert!(
                (x.mg - s.mg).abs() * 2 <= (t.mg - s.mg).abs() + 2
                    && (x.eg - s.eg).abs() * 2 <= (t.eg - s.eg).abs() + 2,
                "material {r} with l2: start {s:?}, truth {t:?}, tuned {x:?}"
            );
        }
        // Nothing outside the selection moved.
        for i in (0..NUM).filter(|i| !(params::MATERIAL..params::MATERIAL + 6).contains(i)) {
            assert_eq!(tuned[i], WEIGHTS[i], "{}", params::weight_name(i));
        }
    }

    #[test]
    fn loader_reads_the_format() {
        let text = "# made by a test\n\
            \n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 15 | 0.5\n\
            r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | -20 | 1.0\n\
            \x20  # indented comment\n\
            not a fen | 0 | 0.5\n\
            4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1\n\
            4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900\n\
            4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | nine | 1.0\n\
            4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 2.0\n\
            4k3/8/8/8/8/8/8/4K3 w - - 0 1 | 0 | 0.5\n\
            4k3/8/8/8/8/8/8/3qK3 w - - 0 1 | -900 | 0-1\n";
        for threads in [1, 3] {
            let (data, report) = Dataset::parse(text, threads, 1);
            assert_eq!(report.lines, 12);
            assert_eq!(report.skipped_comments, 3);
            assert_eq!(report.positions, 4);
            assert_eq!(report.skipped_drawn, 1);
            assert_eq!(report.malformed, 4);
            let lines: Vec<usize> = report.errors.iter().map(|e| e.0).collect();
            assert_eq!(lines, [6, 8, 9, 10]);
            assert_eq!(data.len(), 4);
            let t = data.targets(1.0, 0.0);
            assert_eq!(t, [0.5, 1.0, 1.0, 0.0]);
            // With λ = 1 the target is the search score's prediction.
            let t = data.targets(1.0, 1.0);
            assert!((t[0] - sigmoid(1.0, 15.0)).abs() < 1e-12);
            assert!((t[1] - sigmoid(1.0, -20.0)).abs() < 1e-12);
            // The queen ending's coefficients include one white queen.
            assert!(data
                .coefficients(2)
                .contains(&(params::MATERIAL as u16 + 4, 1)));
        }
    }

    #[test]
    fn writing_unchanged_weights_reproduces_the_file() {
        let w = to_f64(&WEIGHTS);
        assert_eq!(to_scores(&w), WEIGHTS.to_vec());
        assert_eq!(weights_source(&w), params::weights_source(&WEIGHTS));
        assert_eq!(weights_source(&w), include_str!("../eval/weights.rs"));
        // A run that cannot move anything writes the same file.
        let mut data = Dataset::new();
        data.push(&Position::startpos(), 0, 0.5);
        let opts = Options {
            epochs: 3,
            only: Some(select_sections("KING_DANGER").unwrap()),
            k: Some(1.0),
            ..Options::default()
        };
        let out = tune(&data, &WEIGHTS, &opts, |_| {});
        assert_eq!(out.tuned, 0);
        assert_eq!(
            weights_source(&out.weights),
            include_str!("../eval/weights.rs")
        );
    }

    #[test]
    fn sections_are_selected_by_name() {
        let mask = select_sections("MATERIAL, tempo").unwrap();
        assert_eq!(mask.iter().filter(|&&b| b).count(), 7);
        assert!(mask[params::TEMPO] && mask[params::MATERIAL + 5] && !mask[params::PSQT]);
        assert!(select_sections("MATERIAL,NOPE")
            .unwrap_err()
            .contains("NOPE"));
    }
}
