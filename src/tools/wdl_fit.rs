//! `kestrel wdl-fit`: fits the win/draw/loss model of [`crate::search::wdl`] to self-play
//! data (`FEN | score | result` lines, White's view, as `datagen` writes them) and checks
//! it on held-out games.
//!
//! Positions are counted by (material, score) cell, each counted for both sides (the score
//! and result turned over for Black), so the model is symmetric. `a(m)`, the score at which a
//! side wins as often as not, is what a shown +1.00 means, so it is read from the data
//! itself: at each material, where the won share (from 0 up, made non-decreasing) reaches
//! one half; the cubic through those points is fitted by weighted least squares. `b` then
//! minimises the negative log-likelihood of the wins (a win against a draw or a loss) at
//! scores from 0 up, by Adam. A logistic fitted to everything (or to the wins alone) missed
//! the won share at a shown +1.00 by 9-11 points: Kestrel's games are not won as surely as
//! a logistic says far ahead (nor lost far behind), and the tails pulled `a` off. The last
//! `holdout` share of each file (whole games but the one cut, as datagen writes a game's
//! positions together) is left out of the fit and read back against it.

use crate::search::wdl::{chances, params_at};
use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;

/// Scores beyond this (centipawns) are counted at it: the model is flat there.
const SCORE_CAP: i32 = 2_000;

/// Win, draw and loss counts of positions with one material and score, one side's view.
#[derive(Clone, Copy, Default, Debug)]
struct Outcomes {
    win: f64,
    draw: f64,
    loss: f64,
}

/// Positions by (material, score), both sides' view, in order (so the fit sums alike every run).
#[derive(Default)]
pub struct Cells {
    cells: BTreeMap<(i32, i32), Outcomes>,
    pub positions: u64,
}

impl Cells {
    /// Counts one data line (`FEN | score | result`, White's view); `false` if it is none.
    pub fn add_line(&mut self, line: &str) -> bool {
        let mut parts = line.split('|').map(str::trim);
        let (Some(fen), Some(score), Some(result)) = (parts.next(), parts.next(), parts.next())
        else {
            return false;
        };
        let (Ok(score), Ok(result)) = (score.parse::<i32>(), result.parse::<f64>()) else {
            return false;
        };
        let Some(material) = fen_material(fen) else {
            return false;
        };
        let score = score.clamp(-SCORE_CAP, SCORE_CAP);
        for (score, result) in [(score, result), (-score, 1.0 - result)] {
            let cell = self.cells.entry((material, score)).or_default();
            match result {
                r if r > 0.75 => cell.win += 1.0,
                r if r < 0.25 => cell.loss += 1.0,
                _ => cell.draw += 1.0,
            }
        }
        self.positions += 1;
        true
    }

    /// The cells' negative log-likelihood of their wins per position-side under `a`, `b`,
    /// and its gradient in the eight coefficients.
    fn loss_and_gradient(&self, a: &[f64; 4], b: &[f64; 4]) -> (f64, [f64; 8]) {
        let mut loss = 0.0;
        let mut grad = [0.0; 8];
        let mut total = 0.0;
        // Scores from 0 up: the losses at those scores are the other side's wins.
        for (&(material, score), n) in self.cells.iter().filter(|(&(_, s), _)| s >= 0) {
            let (pa, pb) = params_at(material, a, b);
            let s = f64::from(score);
            let u = (s - pa) / pb;
            let win = (1.0 / (1.0 + (-u).exp())).clamp(1e-9, 1.0 - 1e-9);
            let other = n.draw + n.loss;
            loss -= n.win * win.ln() + other * (1.0 - win).ln();
            total += n.win + other;
            // d(loss)/d(win) = -(wins / win - others / (1 - win)); d(win)/d(a) = -win (1 - win)
            // / b, d(win)/d(b) = the same times u.
            let d_win = -(n.win / win - other / (1.0 - win));
            let slope = win * (1.0 - win) / pb;
            let (d_da, d_db) = (d_win * -slope, d_win * -slope * u);
            let x = f64::from(material.clamp(17, 78)) / 58.0;
            let mut power = 1.0;
            for i in 0..4 {
                grad[i] += d_da * power;
                grad[4 + i] += d_db * power;
                power *= x;
            }
        }
        let total = total.max(1.0);
        (loss / total, grad.map(|g| g / total))
    }

    /// At each material from 17 to 78 with enough positions, the score from which a side
    /// wins as often as not, and the positions near it (the point's weight).
    pub fn crossings(&self) -> Vec<(i32, f64, f64)> {
        const STEP: i32 = 10;
        const MIN_POSITIONS: f64 = 2_000.0;
        let mut by_material: BTreeMap<i32, Vec<(f64, f64)>> = BTreeMap::new();
        for (&(material, score), n) in self.cells.iter().filter(|(&(_, s), _)| s >= 0) {
            let bins = by_material.entry(material).or_default();
            let bin = (score / STEP) as usize;
            if bins.len() <= bin {
                bins.resize(bin + 1, (0.0, 0.0));
            }
            bins[bin].0 += n.win;
            bins[bin].1 += n.win + n.draw + n.loss;
        }
        let mut points = Vec::new();
        // The model reads material 17-78 (less counts as 17): a bare pawn ending's crossing
        // would pull the cubic's low end far up.
        for (&material, bins) in by_material.range(17..=78) {
            // The bins that hold positions: their centre score, wins and positions.
            let bins: Vec<(f64, f64, f64)> = bins
                .iter()
                .enumerate()
                .filter(|(_, b)| b.1 > 0.0)
                .map(|(i, b)| (f64::from(i as i32 * STEP + STEP / 2), b.0, b.1))
                .collect();
            if bins.iter().map(|b| b.2).sum::<f64>() < MIN_POSITIONS {
                continue;
            }
            let share = non_decreasing(&bins.iter().map(|b| (b.1, b.2)).collect::<Vec<_>>());
            let Some(i) = share.iter().position(|&s| s >= 0.5) else {
                continue;
            };
            // Between the last bin below one half and the first at or above it.
            let score = match i.checked_sub(1) {
                Some(j) => {
                    let (lo, hi) = (share[j], share[i]);
                    let t = if hi > lo { (0.5 - lo) / (hi - lo) } else { 0.0 };
                    bins[j].0 + t * (bins[i].0 - bins[j].0)
                }
                None => bins[i].0,
            };
            let near: f64 = bins
                .iter()
                .filter(|b| (b.0 - score).abs() <= 50.0)
                .map(|b| b.2)
                .sum();
            points.push((material, score, near));
        }
        points
    }

    /// Win share observed against the model's, by shown score (normalised centipawns), in
    /// buckets of `width` starting at multiples of it plus `offset`.
    pub fn calibration(&self, a: &[f64; 4], b: &[f64; 4], width: i32, offset: i32) -> Vec<Bucket> {
        let mut buckets: HashMap<i32, Bucket> = HashMap::new();
        for (&(material, score), n) in &self.cells {
            let (pa, _) = params_at(material, a, b);
            let shown = (100.0 * f64::from(score) / pa.max(1.0)).round() as i32;
            if !(-400..400).contains(&shown) {
                continue;
            }
            let from = (shown - offset).div_euclid(width) * width + offset;
            let (win, _, _) = chances(f64::from(score), material, a, b);
            let count = n.win + n.draw + n.loss;
            let bucket = buckets.entry(from).or_insert(Bucket {
                from,
                to: from + width,
                ..Bucket::default()
            });
            bucket.positions += count;
            bucket.observed_win += n.win;
            bucket.predicted_win += win * count;
        }
        let mut list: Vec<Bucket> = buckets
            .into_values()
            .map(|mut b| {
                b.observed_win /= b.positions;
                b.predicted_win /= b.positions;
                b
            })
            .collect();
        list.sort_by_key(|b| b.from);
        list
    }
}

/// One bucket of the calibration table.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bucket {
    /// Shown centipawns, from (inclusive) and to (exclusive).
    pub from: i32,
    pub to: i32,
    /// Position-sides counted.
    pub positions: f64,
    pub observed_win: f64,
    pub predicted_win: f64,
}

/// The model's material count from a FEN's board field.
fn fen_material(fen: &str) -> Option<i32> {
    let board = fen.split_whitespace().next()?;
    Some(
        board
            .chars()
            .map(|c| match c.to_ascii_lowercase() {
                'p' => 1,
                'n' | 'b' => 3,
                'r' => 5,
                'q' => 9,
                _ => 0,
            })
            .sum(),
    )
}

/// Reads `reader`'s data lines: all but the last `holdout` share into `fit`, those into
/// `check`. Returns the lines that were no data.
pub fn read_split(
    reader: impl BufRead,
    holdout: f64,
    fit: &mut Cells,
    check: &mut Cells,
) -> std::io::Result<u64> {
    let lines: Vec<String> = reader.lines().collect::<Result<_, _>>()?;
    let cut = ((lines.len() as f64) * (1.0 - holdout)).round() as usize;
    let mut bad = 0;
    for (i, line) in lines.iter().enumerate() {
        let cells = if i < cut { &mut *fit } else { &mut *check };
        if !line.trim().is_empty() && !line.starts_with('#') && !cells.add_line(line) {
            bad += 1;
        }
    }
    Ok(bad)
}

/// The win shares of `(wins, positions)` bins (none empty) made non-decreasing: adjacent
/// bins whose share falls are pooled, and each bin gets its pool's share.
fn non_decreasing(bins: &[(f64, f64)]) -> Vec<f64> {
    // Pools of (wins, positions, bins covered).
    let mut pools: Vec<(f64, f64, usize)> = Vec::new();
    for &(wins, n) in bins {
        pools.push((wins, n, 1));
        while let [.., (w1, n1, c1), (w2, n2, c2)] = pools[..] {
            if w2 / n2 >= w1 / n1 {
                break;
            }
            pools.pop();
            *pools.last_mut().unwrap() = (w1 + w2, n1 + n2, c1 + c2);
        }
    }
    pools
        .into_iter()
        .flat_map(|(wins, n, count)| std::iter::repeat_n(wins / n, count))
        .collect()
}

/// The cubic in `m / 58` through weighted points `(m, y, weight)`, by least squares.
fn cubic_through(points: &[(i32, f64, f64)]) -> Option<[f64; 4]> {
    let mut normal = [[0.0f64; 5]; 4];
    for &(material, y, weight) in points {
        let x = f64::from(material.clamp(17, 78)) / 58.0;
        let powers = [1.0, x, x * x, x * x * x];
        for i in 0..4 {
            for j in 0..4 {
                normal[i][j] += weight * powers[i] * powers[j];
            }
            normal[i][4] += weight * powers[i] * y;
        }
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..4 {
        let pivot =
            (col..4).max_by(|&r, &s| normal[r][col].abs().total_cmp(&normal[s][col].abs()))?;
        if normal[pivot][col].abs() < 1e-12 {
            return None;
        }
        normal.swap(col, pivot);
        for row in 0..4 {
            if row != col {
                let factor = normal[row][col] / normal[col][col];
                let pivot_row = normal[col];
                for (x, p) in normal[row].iter_mut().zip(pivot_row).skip(col) {
                    *x -= factor * p;
                }
            }
        }
    }
    Some(std::array::from_fn(|i| normal[i][4] / normal[i][i]))
}

/// The fitted coefficients of `a` and `b`, and the final loss per position-side.
pub struct Fit {
    pub a: [f64; 4],
    pub b: [f64; 4],
    pub loss: f64,
}

/// Fits `a` to the crossings of `cells` (a flat 200 if there are too few), then `b` by Adam
/// from a flat 80, `iterations` full passes.
pub fn fit(cells: &Cells, iterations: u32) -> Fit {
    let crossings = cells.crossings();
    let a = if crossings.len() >= 4 {
        cubic_through(&crossings).unwrap_or([200.0, 0.0, 0.0, 0.0])
    } else {
        [200.0, 0.0, 0.0, 0.0]
    };
    // a's coefficients then b's, lowest power first; only b's move.
    let mut theta = [a[0], a[1], a[2], a[3], 80.0, 0.0, 0.0, 0.0];
    let split = |t: &[f64; 8]| -> ([f64; 4], [f64; 4]) {
        ([t[0], t[1], t[2], t[3]], [t[4], t[5], t[6], t[7]])
    };
    let (mut m, mut v) = ([0.0; 8], [0.0; 8]);
    let (beta1, beta2, eps) = (0.9, 0.999, 1e-8);
    let mut loss = f64::INFINITY;
    for step in 1..=iterations {
        let (a, b) = split(&theta);
        let (l, grad) = cells.loss_and_gradient(&a, &b);
        loss = l;
        // Centipawn-sized steps at first, a tenth of that at the end.
        let rate = 2.0 * (1.0 - 0.9 * f64::from(step) / f64::from(iterations));
        for i in 4..8 {
            m[i] = beta1 * m[i] + (1.0 - beta1) * grad[i];
            v[i] = beta2 * v[i] + (1.0 - beta2) * grad[i] * grad[i];
            let m_hat = m[i] / (1.0 - beta1.powi(step as i32));
            let v_hat = v[i] / (1.0 - beta2.powi(step as i32));
            theta[i] -= rate * m_hat / (v_hat.sqrt() + eps);
        }
    }
    let (a, b) = split(&theta);
    Fit { a, b, loss }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Data drawn from a known model is fitted back close to it.
    #[test]
    fn a_known_model_is_recovered() {
        let (a, b) = ([150.0, 0.0, 100.0, 0.0], [60.0, 20.0, 0.0, 0.0]);
        let mut cells = Cells::default();
        // Exact expected counts rather than draws: the fit must find the model itself.
        for material in (17..=78).step_by(3) {
            // Scores at the middle of the crossing search's 10-cp bins, as real data is spread.
            for score in (-595..=595).step_by(10) {
                let (w, d, l) = chances(f64::from(score), material, &a, &b);
                let cell = cells.cells.entry((material, score)).or_default();
                cell.win += 1000.0 * w;
                cell.draw += 1000.0 * d;
                cell.loss += 1000.0 * l;
            }
        }
        let fitted = fit(&cells, 3000);
        for material in [20, 40, 60, 78] {
            let (pa, pb) = params_at(material, &a, &b);
            let (fa, fb) = params_at(material, &fitted.a, &fitted.b);
            assert!((pa - fa).abs() < 5.0, "a at {material}: {fa} for {pa}");
            assert!((pb - fb).abs() < 5.0, "b at {material}: {fb} for {pb}");
        }
    }

    #[test]
    fn falling_shares_are_pooled() {
        let shares = non_decreasing(&[(1.0, 10.0), (3.0, 10.0), (1.0, 10.0), (6.0, 10.0)]);
        assert_eq!(shares, [0.1, 0.2, 0.2, 0.6]);
    }

    #[test]
    fn lines_are_counted_for_both_sides() {
        let mut cells = Cells::default();
        assert!(cells.add_line("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 | 120 | 1.0"));
        assert!(!cells.add_line("not a line"));
        assert_eq!(cells.positions, 1);
        assert_eq!(cells.cells[&(1, 120)].win, 1.0);
        assert_eq!(cells.cells[&(1, -120)].loss, 1.0);
    }
}
