//! What the run prints: the whole run's results (`Report`), the progress and summary
//! lines, the tables, the fit with its snippet, and each game as PGN.

use super::fit::{levels_snippet, relabel};
use super::game::{Played, KESTREL, OPPONENT};
use super::stats::{format_estimate, EloEstimate, SettingResult, BLUNDER_CP};
use super::{CalibrateError, Config, Match, Setting};
use crate::chess::Color;
use crate::search::strength::Strength;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The whole run: every setting's result, in the order given.
#[derive(Clone, Debug)]
pub struct Report {
    pub results: Vec<SettingResult>,
}

impl Report {
    /// Faults of Kestrel's sides (the opponent's too when it is Kestrel).
    pub fn kestrel_faults(&self, versus_self: bool) -> usize {
        self.results
            .iter()
            .map(|r| {
                r.faults[KESTREL].total() + usize::from(versus_self) * r.faults[OPPONENT].total()
            })
            .sum()
    }
}

fn optional(value: Option<f64>, format: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "-".to_string(), format)
}

pub(super) fn progress_line(r: &SettingResult, games: usize) -> String {
    let elo = r
        .elo_difference()
        .map_or_else(|| "-".to_string(), |e| format_estimate(&e, true));
    format!(
        "{}: {}/{games} games, {} ({:.1}%), Elo {elo}, ACPL {}",
        r.setting,
        r.games(),
        r.wdl(),
        r.score() * 100.0,
        optional(r.acpl(), |a| format!("{a:.1}"))
    )
}

pub(super) fn summary_line(r: &SettingResult) -> String {
    let measured = r
        .measured()
        .map_or_else(|| "-".to_string(), |e| format_estimate(&e, false));
    format!(
        "setting {}: measured Elo {measured} (against {} at {}), {} in {} games, \
         ACPL {}, >= {BLUNDER_CP} cp {}, median {} ms/move, faults {} (Kestrel) {} (opponent)",
        r.setting,
        r.opponent,
        r.opponent_elo,
        r.wdl(),
        r.games(),
        optional(r.acpl(), |a| format!("{a:.1}")),
        optional(r.blunder_share(), |s| format!("{:.1}%", s * 100.0)),
        optional(r.median_think_ms(), |m| format!("{m:.0}")),
        r.faults[KESTREL],
        r.faults[OPPONENT],
    )
}

/// The table of all settings, then the same as Markdown for the README.
pub(super) fn write_tables(
    out: &mut dyn Write,
    config: &Config,
    report: &Report,
) -> io::Result<()> {
    writeln!(
        out,
        "{:<8} {:<34} {:>5} {:>5} {:>11} {:>6} {:>12} {:>12} {:>6} {:>7} {:>9} {:>8} {:>8}",
        "setting",
        "opponent",
        "Elo",
        "games",
        "W-D-L",
        "score",
        "Elo diff",
        "measured",
        "ACPL",
        ">=200cp",
        "median ms",
        "faults K",
        "faults O"
    )?;
    for r in &report.results {
        let estimate = |e: Option<EloEstimate>, signed| {
            e.map_or_else(|| "-".to_string(), |e| format_estimate(&e, signed))
        };
        writeln!(
            out,
            "{:<8} {:<34} {:>5} {:>5} {:>11} {:>5.1}% {:>12} {:>12} {:>6} {:>7} {:>9} {:>8} {:>8}",
            r.setting.to_string(),
            r.opponent,
            r.opponent_elo,
            r.games(),
            r.wdl(),
            r.score() * 100.0,
            estimate(r.elo_difference(), true),
            estimate(r.measured(), false),
            optional(r.acpl(), |a| format!("{a:.1}")),
            optional(r.blunder_share(), |s| format!("{:.1}%", s * 100.0)),
            optional(r.median_think_ms(), |m| format!("{m:.0}")),
            r.faults[KESTREL].to_string(),
            r.faults[OPPONENT].to_string(),
        )?;
    }
    writeln!(out, "(faults: illegal/time forfeit/crash or no reply)")?;
    // The issue asks the limited settings to think at least 30% of full strength's time.
    let full = report
        .results
        .iter()
        .find(|r| r.setting == Setting::Full)
        .and_then(SettingResult::median_think_ms);
    if let Some(full) = full.filter(|&f| f > 0.0) {
        let shares: Vec<String> = report
            .results
            .iter()
            .filter_map(|r| {
                let m = r.median_think_ms()?;
                Some(format!("{} {:.0}%", r.setting, 100.0 * m / full))
            })
            .collect();
        writeln!(
            out,
            "median think time against full strength's: {}",
            shares.join(", ")
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "| setting | measured Elo ± 95% | W-D-L | games | time control | ACPL | ≥{BLUNDER_CP} cp share | median ms/move |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    for r in &report.results {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.setting,
            r.measured()
                .map_or_else(|| "-".to_string(), |e| format_estimate(&e, false)),
            r.wdl(),
            r.games(),
            config.time_control,
            optional(r.acpl(), |a| format!("{a:.1}")),
            optional(r.blunder_share(), |s| format!("{:.1}%", s * 100.0)),
            optional(r.median_think_ms(), |m| format!("{m:.0}")),
        )?;
    }
    writeln!(out)
}

/// The relabelled `LEVELS`, when at least two rows were measured.
pub(super) fn write_fit(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let anchors = Strength::anchors();
    let last = anchors.len() - 1;
    let rows: Vec<(i64, Option<f64>)> = anchors
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let measured = report.results.iter().find(|r| match r.setting {
                Setting::Full => i == last,
                Setting::Elo(elo) => elo == a.elo,
            });
            (a.elo, measured.and_then(|r| r.measured()).map(|e| e.diff))
        })
        .collect();
    if rows.iter().filter(|(_, m)| m.is_some()).count() < 2 {
        return Ok(());
    }
    let mut fit = relabel(&rows);
    fit.problems.extend(
        report
            .results
            .iter()
            .filter_map(SettingResult::uneven_warning),
    );
    writeln!(
        out,
        "LEVELS relabelled by the measurements (rounded to 10):"
    )?;
    for (i, row) in fit.rows.iter().enumerate() {
        let what = if i == last { " (full strength)" } else { "" };
        let how = if row.measured { "" } else { " (kept)" };
        writeln!(out, "  {} -> {}{what}{how}", row.old, row.new)?;
    }
    if fit.increasing() && fit.problems.is_empty() {
        writeln!(
            out,
            "The labels rise: paste this over the constants and LEVELS in \
             src/search/strength.rs (MIN_ELO and FULL_STRENGTH_ELO bound UCI_Elo's range, \
             which the README and tests name):"
        )?;
    } else {
        for problem in &fit.problems {
            writeln!(out, "  problem: {problem}")?;
        }
        writeln!(
            out,
            "Not ready to paste as it is; the snippet with these labels, for reference:"
        )?;
    }
    writeln!(out, "\n{}", levels_snippet(&anchors, &fit))
}

/// One game in PGN: the headers, the moves in SAN, the result.
pub(super) fn write_pgn(
    pgn: &mut dyn Write,
    config: &Config,
    m: &Match,
    game: &Played,
) -> Result<(), CalibrateError> {
    let (white, black) = if game.kestrel == Color::White {
        (&m.kestrel.name, &m.opponent.name)
    } else {
        (&m.opponent.name, &m.kestrel.name)
    };
    let mut text = String::new();
    for (tag, value) in [
        ("Event", format!("kestrel calibrate {}", m.setting)),
        ("Site", "?".to_string()),
        ("Date", "????.??.??".to_string()),
        ("Round", (game.index + 1).to_string()),
        ("White", white.clone()),
        ("Black", black.clone()),
        ("Result", game.result.as_pgn().to_string()),
        ("SetUp", "1".to_string()),
        ("FEN", game.start.to_fen()),
        ("TimeControl", config.time_control.to_string()),
        ("Termination", game.reason.clone()),
    ] {
        let _ = writeln!(text, "[{tag} \"{}\"]", value.replace('"', "'"));
    }
    text.push('\n');
    let mut pos = game.start;
    let mut line = String::new();
    let mut words = Vec::new();
    for (i, &mv) in game.moves.iter().enumerate() {
        let number = pos.fullmove_number();
        if pos.side_to_move() == Color::White {
            words.push(format!("{number}."));
        } else if i == 0 {
            words.push(format!("{number}..."));
        }
        words.push(pos.san(mv));
        pos.play(mv);
    }
    words.push(format!("{{{}}}", game.reason));
    words.push(game.result.as_pgn().to_string());
    for word in words {
        if !line.is_empty() && line.len() + word.len() + 1 > 79 {
            text.push_str(&line);
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    text.push_str(&line);
    text.push_str("\n\n");
    pgn.write_all(text.as_bytes())?;
    Ok(())
}
