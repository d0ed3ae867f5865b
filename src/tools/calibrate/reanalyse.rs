//! `calibrate --reanalyse`: the centipawn-loss analysis again, deeper, on games already
//! played (the PGN `calibrate --pgn` writes). The analysis during a run is kept cheap so it
//! does not slow the games; telling the strongest settings apart needs more nodes than that,
//! and the games need not be played again for it. Fixed nodes make it load-immune, so it can
//! run beside other work.

use super::stats::{blunder_share, mean_loss, side_losses, BLUNDER_CP};
use super::{CalibrateError, Setting};
use crate::chess::{Color, Move, Position};
use crate::search::Searcher;
use crate::tools::pgn::{read_games, PgnGame};
use std::fmt::Write as _;
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// One game of a calibration PGN: the setting measured, the side that played it, the moves.
#[derive(Clone, Debug)]
pub struct RecordedGame {
    pub setting: Setting,
    pub kestrel: Color,
    /// The other side's setting when it is Kestrel too (`--versus-self-elo` games).
    pub opponent: Option<Setting>,
    pub start: Position,
    pub moves: Vec<Move>,
}

/// Why a game of the PGN cannot be analysed (the game, counted from 1, and what is wrong).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError {
    pub game: usize,
    pub problem: String,
}

impl std::fmt::Display for PgnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "game {}: {}", self.game, self.problem)
    }
}

/// One game of a calibration PGN; `number` counts from 1, for errors.
fn recorded_game(number: usize, game: &PgnGame) -> Result<RecordedGame, PgnError> {
    let error = |problem: String| PgnError {
        game: number,
        problem,
    };
    let event = game.tag("Event").unwrap_or("");
    let setting = event
        .strip_prefix("kestrel calibrate ")
        .ok_or_else(|| {
            error(format!(
                "its Event '{event}' is not 'kestrel calibrate SETTING' (only games \
                 `kestrel calibrate --pgn` wrote say which side played which setting)"
            ))
        })
        .and_then(|s| Setting::parse(s).map_err(error))?;
    let name = format!("Kestrel {setting}");
    let (white, black) = (game.tag("White"), game.tag("Black"));
    let kestrel = match (white == Some(&name), black == Some(&name)) {
        (true, false) => Color::White,
        (false, true) => Color::Black,
        _ => {
            return Err(error(format!(
                "not exactly one side is '{name}' (White '{}', Black '{}')",
                white.unwrap_or("?"),
                black.unwrap_or("?")
            )))
        }
    };
    let opponent = if kestrel == Color::White {
        black
    } else {
        white
    }
    .and_then(|name| name.strip_prefix("Kestrel "))
    .and_then(|s| Setting::parse(s).ok());
    let (start, moves) = game.replay().map_err(|e| error(e.problem))?;
    Ok(RecordedGame {
        setting,
        kestrel,
        opponent,
        start,
        moves,
    })
}

/// Every game of a PGN text, in order.
pub fn read_pgn(text: &str) -> Result<Vec<RecordedGame>, PgnError> {
    read_games(text)
        .iter()
        .enumerate()
        .map(|(i, game)| recorded_game(i + 1, game))
        .collect()
}

/// One setting's analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingLosses {
    pub setting: Setting,
    pub games: usize,
    /// Centipawns lost by each of the setting's moves.
    pub losses: Vec<i32>,
}

impl SettingLosses {
    pub fn acpl(&self) -> Option<f64> {
        mean_loss(&self.losses)
    }

    pub fn blunder_share(&self) -> Option<f64> {
        blunder_share(&self.losses)
    }
}

/// Analyses at most `per_setting` games of each setting (the first ones) with `nodes` a
/// position on `threads` threads; the settings in rising order, full strength last. With
/// `both_sides`, the moves of an opponent that is Kestrel at another setting count for
/// that setting too (the same games then measure both).
pub fn reanalyse(
    games: &[RecordedGame],
    per_setting: usize,
    both_sides: bool,
    nodes: u64,
    threads: usize,
    hash_mb: usize,
    out: &mut (dyn Write + Send),
) -> Result<Vec<SettingLosses>, CalibrateError> {
    // The sides analysed in a game, each with the setting its moves count for.
    let sides_of = |game: &RecordedGame| {
        let mut sides = vec![(game.kestrel, game.setting)];
        if let (true, Some(opponent)) = (both_sides, game.opponent) {
            sides.push((!game.kestrel, opponent));
        }
        sides
    };
    let mut chosen: Vec<&RecordedGame> = Vec::new();
    let mut taken: Vec<(Setting, usize)> = Vec::new();
    for game in games {
        let index = match taken.iter().position(|&(s, _)| s == game.setting) {
            Some(i) => i,
            None => {
                taken.push((game.setting, 0));
                taken.len() - 1
            }
        };
        if taken[index].1 < per_setting {
            taken[index].1 += 1;
            chosen.push(game);
        }
    }
    let mut results: Vec<SettingLosses> = Vec::new();
    for game in &chosen {
        for (_, setting) in sides_of(game) {
            match results.iter_mut().find(|r| r.setting == setting) {
                Some(r) => r.games += 1,
                None => results.push(SettingLosses {
                    setting,
                    games: 1,
                    losses: Vec::new(),
                }),
            }
        }
    }
    results.sort_by_key(|r| r.setting.elo(i64::MAX));
    writeln!(
        out,
        "analysing {} games ({} setting{}) at {nodes} nodes a position on {threads} thread{}",
        chosen.len(),
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        if threads == 1 { "" } else { "s" }
    )?;
    // Each game's losses in the games' order, so the result does not depend on which
    // thread analysed which game.
    let losses: Mutex<Vec<Vec<Vec<i32>>>> = Mutex::new(vec![Vec::new(); chosen.len()]);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let progress = Mutex::new(out);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, chosen.len().max(1)) {
            scope.spawn(|| {
                let mut searcher = Searcher::new(hash_mb);
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(game) = chosen.get(i) else { break };
                    let sides: Vec<Color> = sides_of(game).iter().map(|&(c, _)| c).collect();
                    let game_losses =
                        side_losses(&mut searcher, game.start, &game.moves, &sides, nodes);
                    losses.lock().expect("no thread panics holding it")[i] = game_losses;
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if finished.is_multiple_of(20) || finished == chosen.len() {
                        let mut p = progress.lock().expect("no thread panics holding it");
                        let _ = writeln!(p, "  {finished}/{} games analysed", chosen.len());
                    }
                }
            });
        }
    });
    let losses = losses.into_inner().expect("no thread panicked holding it");
    for (game, game_losses) in chosen.iter().zip(losses) {
        for ((_, setting), side_losses) in sides_of(game).into_iter().zip(game_losses) {
            let result = results
                .iter_mut()
                .find(|r| r.setting == setting)
                .expect("every side's setting has a row");
            result.losses.extend(side_losses);
        }
    }
    Ok(results)
}

/// The table of a reanalysis, plain and in Markdown.
pub fn losses_table(results: &[SettingLosses], nodes: u64) -> String {
    let share = |r: &SettingLosses| {
        r.blunder_share()
            .map_or_else(|| "-".to_string(), |s| format!("{:.1}%", s * 100.0))
    };
    let acpl = |r: &SettingLosses| {
        r.acpl()
            .map_or_else(|| "-".to_string(), |a| format!("{a:.1}"))
    };
    let mut text = String::new();
    let _ = writeln!(
        text,
        "\n{:<8} {:>6} {:>7} {:>7} {:>9}   (analysis at {nodes} nodes a position)",
        "setting",
        "games",
        "moves",
        "ACPL",
        format!(">={BLUNDER_CP}cp")
    );
    for r in results {
        let _ = writeln!(
            text,
            "{:<8} {:>6} {:>7} {:>7} {:>9}",
            r.setting.to_string(),
            r.games,
            r.losses.len(),
            acpl(r),
            share(r)
        );
    }
    let _ = writeln!(
        text,
        "\n| setting | games | moves | ACPL | ≥{BLUNDER_CP} cp share |\n|---|---|---|---|---|"
    );
    for r in results {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} |",
            r.setting,
            r.games,
            r.losses.len(),
            acpl(r),
            share(r)
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGN: &str = r#"[Event "kestrel calibrate 1400"]
[Site "?"]
[White "Kestrel 1180"]
[Black "Kestrel 1400"]
[Result "0-1"]

1. f3 e5 2. g4 {a blunder} $4 (2. e4 Nc6) Qh4# {Black mates} 0-1

[Event "kestrel calibrate full"]
[White "Kestrel full"]
[Black "stockfish"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/8/R3K3 w - - 0 1"]
[Result "*"]

1.Ra7 Kd8 2. Ke2 ; to the end of the line
Kc8 *
"#;

    #[test]
    fn calibration_games_are_read_with_the_measured_side() {
        let games = read_pgn(PGN).expect("both games read");
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].setting, Setting::Elo(1400));
        assert_eq!(games[0].kestrel, Color::Black);
        assert_eq!(games[0].opponent, Some(Setting::Elo(1180)));
        assert_eq!(
            games[0].moves.len(),
            4,
            "the variation and the NAG are skipped"
        );
        let mut last = games[0].start;
        games[0].moves.iter().for_each(|&mv| last.play(mv));
        assert!(last.legal_moves().is_empty(), "the game ends in mate");
        assert_eq!(games[1].setting, Setting::Full);
        assert_eq!(games[1].kestrel, Color::White);
        assert_eq!(games[1].opponent, None, "Stockfish is not a setting");
        assert_eq!(games[1].moves.len(), 4);
    }

    #[test]
    fn games_the_tool_did_not_write_or_bad_moves_are_named() {
        let foreign = "[Event \"casual\"]\n[White \"a\"]\n[Black \"b\"]\n\n1. e4 *\n";
        assert_eq!(
            read_pgn(foreign).map(|g| g.len()).map_err(|e| e.game),
            Err(1)
        );
        let illegal = PGN.replace("2. g4", "2. Ke3");
        let error = read_pgn(&illegal).expect_err("Ke3 is not legal");
        assert_eq!(error.game, 1);
        assert!(error.problem.contains("Ke3"), "{}", error.problem);
    }

    #[test]
    fn each_setting_is_analysed_once_in_rising_order() {
        let games = read_pgn(PGN).expect("both games read");
        let mut out = Vec::new();
        let results = reanalyse(&games, 10, false, 2_000, 2, 1, &mut out).expect("analysed");
        assert_eq!(
            results.iter().map(|r| r.setting).collect::<Vec<_>>(),
            [Setting::Elo(1400), Setting::Full]
        );
        // Black's two moves in the fool's mate: e5 loses nothing much, Qh4# nothing.
        assert_eq!(results[0].losses.len(), 2);
        assert!(results[0].acpl().expect("moves analysed") < 100.0);
        let table = losses_table(&results, 2_000);
        assert!(table.contains("| 1400 | 1 | 2 |"), "{table}");

        // Both sides: the 1180 side of the first game counts too, and its g4 loses the game.
        let both = reanalyse(&games, 10, true, 2_000, 2, 1, &mut out).expect("analysed");
        assert_eq!(
            both.iter().map(|r| r.setting).collect::<Vec<_>>(),
            [Setting::Elo(1180), Setting::Elo(1400), Setting::Full]
        );
        assert_eq!(both[0].losses.len(), 2);
        assert!(
            both[0].losses[1] >= 800,
            "g4 allows mate: {:?}",
            both[0].losses
        );
        assert_eq!(both[1].losses.len(), 2);
    }
}
