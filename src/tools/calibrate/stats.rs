//! The numbers of a measurement: the Elo of a score and its 95% interval, the median, the
//! centipawns each move loses (the analysis), and a setting's tally (`SettingResult`).

use super::game::{win_against, Faults, Played};
use super::{Match, Setting};
use crate::chess::{Color, Move, Position};
use crate::game::{Game, GameResult};
use crate::search::{FixedLimits, SearchParams, Searcher};

/// Evaluations are clamped to this (mates count as it): beyond it a move's loss says
/// nothing more about the player.
pub const EVAL_CLAMP: i32 = 1000;
/// A move losing this much or more is a blunder in the report's share.
pub const BLUNDER_CP: i32 = 200;

/// The loss of a move (centipawns, at least 0): `before` is the position's evaluation for
/// the mover, `after` the next position's for the opponent; both clamped to `EVAL_CLAMP`.
pub fn move_loss(before: i32, after: i32) -> i32 {
    let clamp = |e: i32| e.clamp(-EVAL_CLAMP, EVAL_CLAMP);
    (clamp(before) + clamp(after)).max(0)
}

/// The centipawns each of `mover`'s moves in the game from `start` loses, by a search of
/// `nodes` of every position it needs (each once), at full strength.
pub fn move_losses(
    searcher: &mut Searcher,
    start: Position,
    moves: &[Move],
    mover: Color,
    nodes: u64,
) -> Vec<i32> {
    side_losses(searcher, start, moves, &[mover], nodes)
        .pop()
        .unwrap_or_default()
}

/// `move_losses` of each of `sides` (in that order) from one analysis, each position
/// searched once however many sides need it.
pub fn side_losses(
    searcher: &mut Searcher,
    start: Position,
    moves: &[Move],
    sides: &[Color],
    nodes: u64,
) -> Vec<Vec<i32>> {
    // Fresh per game, so a game's analysis does not depend on which worker made it.
    searcher.clear();
    let mut game = Game::new(start);
    let mut evals = Vec::with_capacity(moves.len() + 1);
    for ply in 0..=moves.len() {
        let to_move = game.position().side_to_move();
        // Before a move of a side analysed, and after one (the opponent then to move).
        let needed = (ply < moves.len() && sides.contains(&to_move))
            || (ply > 0 && sides.contains(&!to_move));
        let eval = if !needed {
            0
        } else if let Some(outcome) = game.outcome() {
            // Only the last position can be over: mated, or drawn.
            if outcome.result == GameResult::Draw {
                0
            } else {
                -EVAL_CLAMP
            }
        } else {
            let params = SearchParams {
                history: game.history_keys(),
                stop_on_mate: true,
                ..SearchParams::default()
            };
            let mut limits = FixedLimits::new(Some(nodes), None);
            searcher
                .search(game.position(), &params, &mut limits)
                .score
                .clamp(-EVAL_CLAMP, EVAL_CLAMP)
        };
        evals.push(eval);
        if let Some(&mv) = moves.get(ply) {
            game.play(mv);
        }
    }
    sides
        .iter()
        .map(|&side| {
            let first = usize::from(start.side_to_move() != side);
            (first..moves.len())
                .step_by(2)
                .map(|ply| move_loss(evals[ply], evals[ply + 1]))
                .collect()
        })
        .collect()
}

/// The logistic Elo difference of a score (0 to 1); infinite at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` makes an even score 0, not -0.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// An Elo difference and its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    pub diff: f64,
    pub low: f64,
    pub high: f64,
}

impl EloEstimate {
    /// From a match's results: the score's standard error from the variance of the
    /// per-game scores, as match tools compute it.
    pub fn from_results(wins: usize, draws: usize, losses: usize) -> Option<EloEstimate> {
        let n = (wins + draws + losses) as f64;
        if n == 0.0 {
            return None;
        }
        let (w, d, l) = (wins as f64 / n, draws as f64 / n, losses as f64 / n);
        let mean = w + d / 2.0;
        let variance =
            w * (1.0 - mean).powi(2) + d * (0.5 - mean).powi(2) + l * (0.0 - mean).powi(2);
        let error = (variance / n).sqrt() * 1.959_964;
        Some(EloEstimate {
            diff: elo_from_score(mean),
            low: elo_from_score(mean - error),
            high: elo_from_score(mean + error),
        })
    }

    /// Half the interval's width (infinite when either end is).
    pub fn margin(&self) -> f64 {
        (self.high - self.low) / 2.0
    }

    /// Moved by `elo` (the opponent's): a measured Elo.
    pub fn shifted(&self, elo: f64) -> EloEstimate {
        EloEstimate {
            diff: self.diff + elo,
            low: self.low + elo,
            high: self.high + elo,
        }
    }
}

/// An Elo with its sign (`+191`, `-inf`); `signed` false for a measured Elo (`1410`).
pub fn format_elo(elo: f64, signed: bool) -> String {
    match (elo.is_finite(), signed) {
        (false, _) if elo.is_nan() => "-".to_string(),
        (false, _) => if elo > 0.0 { "+inf" } else { "-inf" }.to_string(),
        (true, true) => format!("{elo:+.0}"),
        (true, false) => format!("{elo:.0}"),
    }
}

/// `value ± margin`, the margin `inf` when unbounded.
pub fn format_estimate(estimate: &EloEstimate, signed: bool) -> String {
    let margin = estimate.margin();
    let margin = if margin.is_finite() {
        format!("{margin:.0}")
    } else {
        "inf".to_string()
    };
    format!("{} ± {margin}", format_elo(estimate.diff, signed))
}

/// The scores a reading is trusted from as a label. Kestrel's limited settings beat levels
/// far below them by more than the levels' spacing predicts (a row scoring 88% against
/// Stockfish 1920 read 2266; against 2050 it read 2078), so a label is read near 50%.
pub const TRUSTED_SCORES: std::ops::RangeInclusive<f64> = 0.30..=0.70;

/// One setting's measurement.
#[derive(Clone, Debug)]
pub struct SettingResult {
    pub setting: Setting,
    pub opponent: String,
    pub opponent_elo: i64,
    pub wins: usize,
    pub draws: usize,
    pub losses: usize,
    /// Centipawns lost by each of Kestrel's moves analysed.
    pub move_losses: Vec<i32>,
    /// Kestrel's think time per move, ms.
    pub think_ms: Vec<f64>,
    /// Kestrel's faults and the opponent's.
    pub faults: [Faults; 2],
}

impl SettingResult {
    pub(super) fn new(m: &Match) -> SettingResult {
        SettingResult {
            setting: m.setting,
            opponent: m.opponent.name.clone(),
            opponent_elo: m.opponent_elo,
            wins: 0,
            draws: 0,
            losses: 0,
            move_losses: Vec::new(),
            think_ms: Vec::new(),
            faults: [Faults::default(); 2],
        }
    }

    pub(super) fn add(&mut self, game: &Played) {
        match game.result {
            GameResult::Draw => self.draws += 1,
            r if r == win_against(!game.kestrel) => self.wins += 1,
            _ => self.losses += 1,
        }
        self.move_losses.extend(&game.losses);
        self.think_ms
            .extend(game.think.iter().map(|t| t.as_secs_f64() * 1000.0));
        if let Some((side, fault)) = game.fault {
            self.faults[side].add(fault);
        }
    }

    pub fn games(&self) -> usize {
        self.wins + self.draws + self.losses
    }

    /// Kestrel's score, 0 to 1.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games().max(1) as f64
    }

    /// When the score is too far from even for the reading to be a label: what to play
    /// instead.
    pub fn uneven_warning(&self) -> Option<String> {
        let score = self.score();
        if self.games() == 0 || TRUSTED_SCORES.contains(&score) {
            return None;
        }
        let advice = match self.measured().map(|e| e.diff).filter(|d| d.is_finite()) {
            Some(elo) => format!(
                "measure it again with --reference-elo near {:.0}",
                (elo / 10.0).round() * 10.0
            ),
            None => "measure it again against a reference nearer its strength".to_string(),
        };
        Some(format!(
            "{} scored {:.0}% against {}, outside {:.0}-{:.0}%: the reading is not a label \
             (scores far from even overstate the gap); {advice}",
            self.setting,
            score * 100.0,
            self.opponent_elo,
            TRUSTED_SCORES.start() * 100.0,
            TRUSTED_SCORES.end() * 100.0,
        ))
    }

    pub fn elo_difference(&self) -> Option<EloEstimate> {
        EloEstimate::from_results(self.wins, self.draws, self.losses)
    }

    /// The setting's Elo: the opponent's plus the difference.
    pub fn measured(&self) -> Option<EloEstimate> {
        self.elo_difference()
            .map(|e| e.shifted(self.opponent_elo as f64))
    }

    /// Mean centipawn loss per move, if any move was analysed.
    pub fn acpl(&self) -> Option<f64> {
        mean_loss(&self.move_losses)
    }

    /// The share of analysed moves losing `BLUNDER_CP` or more.
    pub fn blunder_share(&self) -> Option<f64> {
        blunder_share(&self.move_losses)
    }

    pub fn median_think_ms(&self) -> Option<f64> {
        median(&self.think_ms)
    }

    pub(super) fn wdl(&self) -> String {
        format!("{}-{}-{}", self.wins, self.draws, self.losses)
    }
}

/// The mean of move losses (centipawns), if there are any.
pub fn mean_loss(losses: &[i32]) -> Option<f64> {
    (!losses.is_empty())
        .then(|| losses.iter().map(|&l| f64::from(l)).sum::<f64>() / losses.len() as f64)
}

/// The share of move losses of `BLUNDER_CP` or more, if there are any.
pub fn blunder_share(losses: &[i32]) -> Option<f64> {
    (!losses.is_empty())
        .then(|| losses.iter().filter(|&&l| l >= BLUNDER_CP).count() as f64 / losses.len() as f64)
}

/// The median of `values`, if any.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_of_a_score_is_logistic_and_unbounded_at_the_ends() {
        assert_eq!(format_elo(elo_from_score(0.5), true), "+0");
        assert!((elo_from_score(0.75) - 190.85).abs() < 0.01);
        assert!((elo_from_score(0.25) + 190.85).abs() < 0.01);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(format_elo(f64::INFINITY, true), "+inf");
        assert_eq!(format_elo(f64::NEG_INFINITY, false), "-inf");
        assert_eq!(format_elo(190.85, true), "+191");
        assert_eq!(format_elo(1410.2, false), "1410");
    }

    #[test]
    fn the_interval_comes_from_the_per_game_variance() {
        assert_eq!(EloEstimate::from_results(0, 0, 0), None);
        // 60 wins, 40 losses: score 0.6, per-game variance 0.24, error sqrt(0.24 / 100).
        let e = EloEstimate::from_results(60, 0, 40).unwrap();
        assert!((e.diff - 70.44).abs() < 0.01, "{e:?}");
        let half_width = 1.959_964 * (0.24f64 / 100.0).sqrt();
        assert!(
            (e.low - elo_from_score(0.6 - half_width)).abs() < 1e-9,
            "{e:?}"
        );
        assert!(
            (e.high - elo_from_score(0.6 + half_width)).abs() < 1e-9,
            "{e:?}"
        );
        assert!(e.low < e.diff && e.diff < e.high);
        // Draws narrow the interval at the same score.
        let drawish = EloEstimate::from_results(20, 80, 0).unwrap();
        assert!((drawish.diff - e.diff).abs() < 1e-9);
        assert!(drawish.margin() < e.margin() / 2.0, "{drawish:?} {e:?}");
        // Even: centred on 0.
        let even = EloEstimate::from_results(30, 40, 30).unwrap();
        assert_eq!(even.diff, 0.0);
        assert!((even.high + even.low).abs() < 1e-9);
        // All won: no finite difference or margin.
        let won = EloEstimate::from_results(10, 0, 0).unwrap();
        assert_eq!(won.diff, f64::INFINITY);
        assert_eq!(format_estimate(&won, true), "+inf ± inf");
        assert_eq!(
            format_estimate(&even.shifted(1400.0), false)
                .split(' ')
                .next(),
            Some("1400")
        );
    }

    #[test]
    fn a_score_far_from_even_is_not_taken_as_a_label() {
        let result = |wins, draws, losses| SettingResult {
            setting: Setting::Elo(1920),
            opponent: "reference".to_string(),
            opponent_elo: 1920,
            wins,
            draws,
            losses,
            move_losses: Vec::new(),
            think_ms: Vec::new(),
            faults: [Faults::default(); 2],
        };
        assert_eq!(result(0, 0, 0).uneven_warning(), None);
        assert_eq!(result(47, 14, 39).uneven_warning(), None);
        assert_eq!(result(70, 0, 30).uneven_warning(), None);
        // 88%: reads 1920 + 346; the advice names the reading rounded to 10.
        let high = result(86, 4, 10).uneven_warning().unwrap();
        assert!(high.contains("scored 88% against 1920"), "{high}");
        assert!(high.contains("--reference-elo near 2270"), "{high}");
        let low = result(20, 10, 70).uneven_warning().unwrap();
        assert!(low.contains("scored 25%"), "{low}");
        let lost = result(0, 0, 10).uneven_warning().unwrap();
        assert!(lost.contains("a reference nearer its strength"), "{lost}");
    }

    #[test]
    fn a_move_loses_what_the_evaluation_drops_clamped_and_never_below_zero() {
        // +50 before; the opponent then stands at +150: 200 lost.
        assert_eq!(move_loss(50, 150), 200);
        // Better than expected: no loss.
        assert_eq!(move_loss(50, -80), 0);
        // Mates count as 1000 either way.
        assert_eq!(move_loss(31_000 - 5, 31_000 - 8), 2000);
        assert_eq!(move_loss(900, 31_000 - 4), 1900);
    }

    #[test]
    fn analysis_finds_the_blunder_and_scores_the_mate() {
        // Fool's mate: White's 2. g4 allows mate in one, Black mates.
        let start = Position::startpos();
        let mut pos = start;
        let moves: Vec<Move> = ["f2f3", "e7e5", "g2g4", "d8h4"]
            .iter()
            .map(|m| {
                let mv = pos.parse_coordinate(m).unwrap();
                pos.play(mv);
                mv
            })
            .collect();
        let mut searcher = Searcher::new(1);
        let white = move_losses(&mut searcher, start, &moves, Color::White, 3000);
        assert_eq!(white.len(), 2);
        assert!(white[1] >= 900, "{white:?}");
        let black = move_losses(&mut searcher, start, &moves, Color::Black, 3000);
        assert_eq!(black.len(), 2);
        assert_eq!(black[1], 0, "the mate loses nothing: {black:?}");
    }
}
