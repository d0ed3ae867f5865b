//! Playing below full strength (`UCI_LimitStrength` / `UCI_Elo`): what a setting means for
//! the search, and the choice of the move among the best few root lines.
//!
//! A weaker player looks less far ahead, considers a few good-looking moves and does not
//! always pick the best of them, and errs less the more clearly a move matters. So a
//! setting gives:
//!
//! * a node budget per move, growing geometrically with the setting (less depth);
//! * a number of candidate lines searched at the root (MultiPV), whose scores the choice
//!   weighs;
//! * a temperature: the move is drawn with probability proportional to
//!   `exp((score - best) / temperature)`, so near-equal moves are interchangeable and a
//!   worse move is chosen the less often the more it loses;
//! * a cap on the loss against the best line: no candidate further below it is chosen;
//! * a small noise in the static evaluation, the same for a position every time it is seen:
//!   a less exact judgement of positions, not of the moves alone.
//!
//! Won positions are converted: the temperature and the cap shrink as the best score
//! rises from `EVEN` to `WON` and are nil beyond it, and a mate the search found is played.
//! The node budget stays whatever the position (no special case turns the limit off), and
//! is never below `MIN_NODES`, enough for the limited search to mate with KQ or KR vs K.
//!
//! Each row's parameters were chosen by hand; its label is what `kestrel calibrate`
//! measured it at (docs/measurements.md holds the measurements), and the tool prints the
//! labels anew whenever it is rerun. `LEVELS` is the one place these numbers live.

use super::{is_mate_score, SearchInfo, SearchParams, SearchResult};
use crate::rng::Rng;

/// The lowest setting: what the weakest row measured (docs/measurements.md). A weaker row
/// would need fewer than `MIN_NODES`, which fails the KR vs K mates.
pub const MIN_ELO: i64 = 1270;
/// The setting that is full strength, and the highest: Kestrel's own strength on the scale
/// the settings use (Stockfish 15.1's `UCI_Elo` at 5+0.05), read from its score against a
/// Stockfish level near it (kestrel-17: against 2850, Stockfish's highest). A setting this
/// high plays without any limit. `kestrel calibrate` remeasures it whenever the engine's
/// strength changes; the measurements behind it are in docs/measurements.md.
pub const FULL_STRENGTH_ELO: i64 = 2810;
/// The setting before any is chosen (the limit itself is off by default).
pub const DEFAULT_ELO: i64 = 1500;
/// The fewest nodes any setting searches a move with: enough for the limited search to mate
/// with KR vs K (the strength-mates tool checks it at every setting; 800 of 800 random
/// KRvK and KQvK positions at the two lowest rows, seeds 1-10, at the first calibration;
/// 1,000 nodes failed 4 of 1,200).
pub const MIN_NODES: u64 = 2_000;
/// Best scores (centipawns) from which the choice narrows (`EVEN`) and at which it is the
/// best line alone (`WON`).
pub const EVEN: i32 = 150;
pub const WON: i32 = 600;

/// One anchor of the settings: between two anchors the node budget is interpolated
/// geometrically, the rest linearly.
struct Level {
    elo: i64,
    nodes: u64,
    candidates: usize,
    /// Centipawns.
    temperature: f64,
    /// Centipawns.
    max_loss: i32,
    /// Centipawns.
    eval_noise: i32,
}

/// The anchors, lowest first, each labelled with its measured Elo (net kestrel-17: 100
/// games each at 5+0.05 against Stockfish 15.1, full strength 200; docs/measurements.md).
/// A label is read from a score near even: far from it the gap is overstated (row 2080
/// scored 88% against 1920 and read 2266). The last is full strength (its row only shapes
/// the settings just below it).
const LEVELS: [Level; 8] = [
    Level {
        elo: MIN_ELO,
        nodes: MIN_NODES,
        candidates: 4,
        temperature: 300.0,
        max_loss: 700,
        eval_noise: 90,
    },
    Level {
        elo: 1380,
        nodes: MIN_NODES,
        candidates: 4,
        temperature: 180.0,
        max_loss: 450,
        eval_noise: 50,
    },
    Level {
        elo: 1610,
        nodes: 6_000,
        candidates: 4,
        temperature: 110.0,
        max_loss: 300,
        eval_noise: 35,
    },
    Level {
        elo: 1820,
        nodes: 20_000,
        candidates: 4,
        temperature: 60.0,
        max_loss: 180,
        eval_noise: 20,
    },
    Level {
        elo: 2080,
        nodes: 80_000,
        candidates: 3,
        temperature: 25.0,
        max_loss: 80,
        eval_noise: 8,
    },
    Level {
        elo: 2290,
        nodes: 150_000,
        candidates: 2,
        temperature: 12.0,
        max_loss: 40,
        eval_noise: 4,
    },
    Level {
        elo: 2400,
        nodes: 400_000,
        candidates: 2,
        temperature: 6.0,
        max_loss: 20,
        eval_noise: 2,
    },
    Level {
        elo: FULL_STRENGTH_ELO,
        nodes: 1_000_000,
        candidates: 1,
        temperature: 0.0,
        max_loss: 0,
        eval_noise: 0,
    },
];

/// What a setting below full strength means for one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strength {
    pub elo: i64,
    /// Nodes per move, all threads.
    pub nodes: u64,
    /// Root lines searched for the choice (MultiPV), at least 1.
    pub candidates: usize,
    /// Centipawns; 0 plays the best line.
    pub temperature: f64,
    /// Centipawns below the best line beyond which no line is chosen.
    pub max_loss: i32,
    /// Centipawns of noise either way in every static evaluation (`SearchParams`).
    pub eval_noise: i32,
}

impl Strength {
    /// The anchor rows (`LEVELS`), lowest first, each as the setting it labels; the last is
    /// full strength's row (which only shapes the settings below it). For the calibration,
    /// which measures the rows and prints them relabelled.
    pub fn anchors() -> Vec<Strength> {
        LEVELS
            .iter()
            .map(|l| Strength {
                elo: l.elo,
                nodes: l.nodes,
                candidates: l.candidates,
                temperature: l.temperature,
                max_loss: l.max_loss,
                eval_noise: l.eval_noise,
            })
            .collect()
    }

    /// The strength of the setting `elo` (clamped to the range); `None` at full strength.
    pub fn at(elo: i64) -> Option<Strength> {
        let elo = elo.clamp(MIN_ELO, FULL_STRENGTH_ELO);
        if elo >= FULL_STRENGTH_ELO {
            return None;
        }
        let upper = LEVELS.iter().position(|l| l.elo > elo)?;
        let (a, b) = (&LEVELS[upper - 1], &LEVELS[upper]);
        let t = (elo - a.elo) as f64 / (b.elo - a.elo) as f64;
        let linear = |x: f64, y: f64| x + (y - x) * t;
        let nodes = (a.nodes as f64).ln() + ((b.nodes as f64).ln() - (a.nodes as f64).ln()) * t;
        Some(Strength {
            elo,
            nodes: (nodes.exp().round() as u64).max(MIN_NODES),
            candidates: linear(a.candidates as f64, b.candidates as f64)
                .round()
                .max(1.0) as usize,
            temperature: linear(a.temperature, b.temperature),
            max_loss: linear(a.max_loss as f64, b.max_loss as f64).round() as i32,
            eval_noise: linear(f64::from(a.eval_noise), f64::from(b.eval_noise)).round() as i32,
        })
    }

    /// `params` for a limited search: at least `candidates` root lines.
    pub fn params(&self, params: &SearchParams) -> SearchParams {
        SearchParams {
            multi_pv: params.multi_pv.max(self.candidates),
            eval_noise: self.eval_noise,
            ..params.clone()
        }
    }

    /// Makes `result` (of a search under `params`) the line chosen among its finished lines:
    /// its move, PV, expected reply and score. Returns the chosen line, or `None` when the
    /// search finished no iteration and its own best move stays.
    pub fn choose_in(&self, result: &mut SearchResult, rng: &mut Rng) -> Option<SearchInfo> {
        if result.lines.is_empty() {
            return None;
        }
        let line = result.lines[self.choose(&result.lines, rng)].clone();
        result.best = line.pv.first().copied();
        result.ponder = line.pv.get(1).copied();
        result.pv = line.pv.clone();
        result.score = line.score;
        Some(line)
    }

    /// The index of the line to play among `lines` (one finished iteration's, best first,
    /// scores from the side to move's view), drawn with `rng`. Empty `lines`: 0.
    pub fn choose(&self, lines: &[SearchInfo], rng: &mut Rng) -> usize {
        let Some(best) = lines.first().map(|l| l.score) else {
            return 0;
        };
        // A mate found is played, as anyone would.
        if is_mate_score(best) && best > 0 {
            return 0;
        }
        // Nil when clearly won: the limited search alone then converts.
        let open = 1.0 - ((best - EVEN) as f64 / (WON - EVEN) as f64).clamp(0.0, 1.0);
        let temperature = self.temperature * open;
        let max_loss = f64::from(self.max_loss) * open;
        if temperature < 1.0 {
            return 0;
        }
        let weights: Vec<f64> = lines
            .iter()
            .map(|l| {
                let loss = f64::from(best.saturating_sub(l.score));
                if loss > max_loss || (is_mate_score(l.score) && l.score < 0) {
                    0.0
                } else {
                    (-loss / temperature).exp()
                }
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let mut draw = unit(rng) * total;
        for (i, w) in weights.iter().enumerate() {
            if draw < *w {
                return i;
            }
            draw -= w;
        }
        0
    }
}

/// A number in [0, 1) from `rng`.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Move;
    use crate::search::Bound;

    fn lines(scores: &[i32]) -> Vec<SearchInfo> {
        scores
            .iter()
            .enumerate()
            .map(|(i, &score)| SearchInfo {
                line: i + 1,
                depth: 5,
                seldepth: 5,
                score,
                bound: Bound::Exact,
                nodes: 0,
                best_move_nodes: 0,
                tbhits: 0,
                pv: vec![Move::NONE],
            })
            .collect()
    }

    /// How often each line is chosen in `draws` draws.
    fn counts(strength: &Strength, scores: &[i32], draws: usize, seed: u64) -> Vec<usize> {
        let lines = lines(scores);
        let mut rng = Rng::new(seed);
        let mut counts = vec![0; scores.len()];
        for _ in 0..draws {
            counts[strength.choose(&lines, &mut rng)] += 1;
        }
        counts
    }

    #[test]
    fn settings_weaken_steadily_from_full_strength_down() {
        assert_eq!(Strength::at(FULL_STRENGTH_ELO), None);
        assert_eq!(Strength::at(FULL_STRENGTH_ELO + 500), None);
        assert_eq!(Strength::at(MIN_ELO - 500), Strength::at(MIN_ELO));
        let low = Strength::at(MIN_ELO).unwrap();
        assert_eq!(low.nodes, MIN_NODES);
        let mut last = low;
        for elo in (MIN_ELO + 50..FULL_STRENGTH_ELO).step_by(50) {
            let s = Strength::at(elo).unwrap();
            // The two lowest rows both search the fewest nodes a setting may.
            assert!(s.nodes >= last.nodes, "{s:?} after {last:?}");
            assert!(s.temperature < last.temperature, "{s:?} after {last:?}");
            assert!(s.max_loss <= last.max_loss, "{s:?} after {last:?}");
            assert!(s.eval_noise <= last.eval_noise, "{s:?} after {last:?}");
            assert!((1..=4).contains(&s.candidates), "{s:?}");
            last = s;
        }
        // Each anchor is its own setting, and the anchors run from the lowest setting to
        // full strength.
        let anchor = Strength::at(1820).unwrap();
        assert_eq!((anchor.nodes, anchor.candidates), (20_000, 4));
        assert!(Strength::at(FULL_STRENGTH_ELO - 1).unwrap().nodes > 100_000);
        let anchors = Strength::anchors();
        assert_eq!(anchors.first().map(|a| a.elo), Some(MIN_ELO));
        assert_eq!(anchors.last().map(|a| a.elo), Some(FULL_STRENGTH_ELO));
        for a in &anchors[..anchors.len() - 1] {
            assert_eq!(Strength::at(a.elo), Some(*a));
        }
        assert!(low.eval_noise > 0 && Strength::at(FULL_STRENGTH_ELO - 1).unwrap().eval_noise == 0);
    }

    #[test]
    fn the_choice_favours_better_lines_and_never_passes_the_loss_cap() {
        let low = Strength::at(MIN_ELO).unwrap();
        // Near-equal moves share the choice; a 100 cp worse one is rarer; one beyond the cap
        // (700 cp at the lowest setting) never comes.
        let beyond = 20 - low.max_loss - 10;
        let c = counts(&low, &[20, 10, -80, beyond], 10_000, 1);
        assert!(c[0] > c[1] && c[1] > c[2] && c[2] > 0, "{c:?}");
        assert!(c[1] > 3_000, "{c:?}");
        assert_eq!(c[3], 0, "{c:?}");
        // A move into a mate is never chosen while the best line is not lost.
        let c = counts(&low, &[0, -31_000 + 10], 2_000, 2);
        assert_eq!(c[1], 0, "{c:?}");
        // Higher settings keep closer to the best line.
        let high = Strength::at(2200).unwrap();
        let c_low = counts(&low, &[0, -60, -120], 10_000, 3);
        let c_high = counts(&high, &[0, -60, -120], 10_000, 3);
        assert!(c_high[0] > c_low[0] + 1_000, "{c_low:?} {c_high:?}");
        assert_eq!(c_high[2], 0, "{c_high:?}");
    }

    #[test]
    fn won_positions_and_found_mates_are_played_out() {
        let low = Strength::at(MIN_ELO).unwrap();
        // Clearly won: the best line, however close the others.
        assert_eq!(counts(&low, &[WON, WON - 5, WON - 5], 1_000, 4)[0], 1_000);
        assert_eq!(counts(&low, &[31_000 - 9, 900, 800], 1_000, 5)[0], 1_000);
        // Half way there: narrower than when even.
        let mid = (EVEN + WON) / 2;
        let narrowed = counts(&low, &[mid, mid - 200], 10_000, 6);
        let even = counts(&low, &[0, -200], 10_000, 6);
        assert!(
            narrowed[1] * 10 < even[1] * 7 && narrowed[1] > 0,
            "{narrowed:?} {even:?}"
        );
    }

    #[test]
    fn the_same_seed_makes_the_same_choices() {
        let low = Strength::at(1200).unwrap();
        let scores = [30, 25, 0, -40];
        assert_eq!(
            counts(&low, &scores, 1, 9),
            counts(&low, &scores, 1, 9),
            "one draw"
        );
        let draws = |seed| {
            let lines = lines(&scores);
            let mut rng = Rng::new(seed);
            (0..64)
                .map(|_| low.choose(&lines, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(draws(11), draws(11));
        assert_ne!(draws(11), draws(12));
    }
}
