//! The fit: the `LEVELS` anchor rows relabelled with the Elo each measured (checked to
//! rise), and the snippet of strength.rs with the new labels.

use super::stats::format_elo;
use crate::search::strength::{Strength, MIN_NODES};
use std::fmt::Write as _;

/// A `LEVELS` row relabelled by the fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relabelled {
    pub old: i64,
    pub new: i64,
    /// False when it kept its label (not measured, or measured without a finite Elo).
    pub measured: bool,
}

/// The fit: the rows relabelled, and what stands in the way of pasting them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fit {
    pub rows: Vec<Relabelled>,
    /// Problems, one line each; a label not above the one below means that row's parameters
    /// need changing, not its label.
    pub problems: Vec<String>,
}

impl Fit {
    /// Whether the labels rise from row to row (the interpolation needs it).
    pub fn increasing(&self) -> bool {
        self.rows.windows(2).all(|w| w[1].new > w[0].new)
    }
}

/// Rounded to the nearest 10.
pub fn round_to_ten(elo: f64) -> i64 {
    ((elo / 10.0).round() * 10.0) as i64
}

/// Relabels each row (`label`, its measured Elo if measured) with the measurement rounded
/// to 10, and checks the labels still rise.
pub fn relabel(rows: &[(i64, Option<f64>)]) -> Fit {
    let mut problems = Vec::new();
    let relabelled: Vec<Relabelled> = rows
        .iter()
        .map(|&(old, measured)| match measured {
            Some(elo) if elo.is_finite() => Relabelled {
                old,
                new: round_to_ten(elo),
                measured: true,
            },
            Some(elo) => {
                problems.push(format!(
                    "row {old}: measured {} (every game won or lost): play it against a \
                     reference nearer its strength; its label is kept",
                    format_elo(elo, false)
                ));
                Relabelled {
                    old,
                    new: old,
                    measured: false,
                }
            }
            None => Relabelled {
                old,
                new: old,
                measured: false,
            },
        })
        .collect();
    for pair in relabelled.windows(2) {
        let (below, row) = (pair[0], pair[1]);
        if row.new <= below.new {
            problems.push(format!(
                "row {} measures {}, not above row {} at {}: change its parameters (or the \
                 row below's), not just its label",
                row.old, row.new, below.old, below.new
            ));
        }
    }
    Fit {
        rows: relabelled,
        problems,
    }
}

/// `12345` as `12_345`, as the source writes big numbers.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

/// The constants and `LEVELS` of strength.rs with the fitted labels, to paste there.
pub fn levels_snippet(anchors: &[Strength], fit: &Fit) -> String {
    let label = |i: usize| fit.rows.get(i).map_or(anchors[i].elo, |r| r.new);
    let last = anchors.len() - 1;
    let mut s = String::new();
    let _ = writeln!(s, "pub const MIN_ELO: i64 = {};", label(0));
    let _ = writeln!(s, "pub const FULL_STRENGTH_ELO: i64 = {};", label(last));
    let _ = writeln!(s, "const LEVELS: [Level; {}] = [", anchors.len());
    for (i, a) in anchors.iter().enumerate() {
        let elo = match i {
            0 => "MIN_ELO".to_string(),
            _ if i == last => "FULL_STRENGTH_ELO".to_string(),
            _ => label(i).to_string(),
        };
        let nodes = if a.nodes == MIN_NODES {
            "MIN_NODES".to_string()
        } else {
            grouped(a.nodes)
        };
        let _ = writeln!(s, "    Level {{");
        let _ = writeln!(s, "        elo: {elo},");
        let _ = writeln!(s, "        nodes: {nodes},");
        let _ = writeln!(s, "        candidates: {},", a.candidates);
        let _ = writeln!(s, "        temperature: {:?},", a.temperature);
        let _ = writeln!(s, "        max_loss: {},", a.max_loss);
        let _ = writeln!(s, "        eval_noise: {},", a.eval_noise);
        let _ = writeln!(s, "    }},");
    }
    s.push_str("];\n");
    s
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relabelling_rounds_to_ten_and_flags_labels_that_do_not_rise() {
        let fit = relabel(&[
            (1000, Some(1083.0)),
            (1400, None),
            (1800, Some(1796.0)),
            (2200, Some(2214.9)),
            (2600, Some(2575.0)),
        ]);
        let new: Vec<i64> = fit.rows.iter().map(|r| r.new).collect();
        assert_eq!(new, [1080, 1400, 1800, 2210, 2580]);
        assert!(!fit.rows[1].measured && fit.rows[2].measured);
        assert!(fit.increasing() && fit.problems.is_empty(), "{fit:?}");

        // 1800 plays no better than 1400 measured: its parameters, not its label, are wrong.
        let fit = relabel(&[
            (1400, Some(1510.0)),
            (1800, Some(1504.0)),
            (2600, Some(2590.0)),
        ]);
        assert!(!fit.increasing());
        assert_eq!(fit.problems.len(), 1, "{:?}", fit.problems);
        assert!(
            fit.problems[0].starts_with("row 1800 measures 1500"),
            "{:?}",
            fit.problems
        );

        // A row won or lost outright keeps its label and says why.
        let fit = relabel(&[(1000, Some(f64::NEG_INFINITY)), (1400, Some(1390.0))]);
        assert_eq!(
            fit.rows[0],
            Relabelled {
                old: 1000,
                new: 1000,
                measured: false
            }
        );
        assert_eq!(fit.problems.len(), 1);
        assert!(fit.increasing());
    }

    #[test]
    fn the_snippet_carries_the_new_labels_and_the_old_parameters() {
        let anchors = Strength::anchors();
        let rows: Vec<(i64, Option<f64>)> = anchors
            .iter()
            .map(|a| (a.elo, Some(a.elo as f64 + 31.0)))
            .collect();
        let snippet = levels_snippet(&anchors, &relabel(&rows));
        assert!(snippet.contains(&format!(
            "pub const MIN_ELO: i64 = {};",
            anchors[0].elo + 30
        )));
        let full = anchors.last().unwrap().elo + 30;
        assert!(snippet.contains(&format!("pub const FULL_STRENGTH_ELO: i64 = {full};")));
        assert!(
            snippet.contains(&format!("elo: {},", anchors[1].elo + 30)),
            "{snippet}"
        );
        assert!(snippet.contains("nodes: MIN_NODES,") && snippet.contains("nodes: 20_000,"));
        assert_eq!(snippet.matches("Level {").count(), anchors.len());
        assert_eq!(grouped(1_000_000), "1_000_000");
        assert_eq!(grouped(999), "999");
    }
}
