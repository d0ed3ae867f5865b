//! Games of a PGN as training data: the games cutechess-cli writes (and so OpenBench's
//! DATAGEN workers), whose comment after each engine move holds the engine's score,
//! `{+0.35/12 0.123s}` (pawns, from the mover's view) or `{-M5/20 …}`, and `{book}` for a
//! book move.
//!
//! A position is kept when the move played from it was searched by a chosen player (every
//! player, or those whose name contains `--player`) with a centipawn score, and — as
//! `datagen` keeps them — the mover is not in check, the move is no capture or promotion,
//! and the score is no mate. The score is written from White's view with the game's result,
//! as `datagen` writes its own (`GameRecord`), and a position already written in the run is
//! not written again. Games without a result (`*`, or cut off before one) and games whose
//! moves or FEN do not read are reported by number and line and skipped whole; adjudicated
//! games and losses on time keep the result the PGN gives and are counted.

use crate::chess::Position;
use crate::game::GameResult;
use crate::search::movepick::is_quiet;
use crate::tools::datagen::GameRecord;
use crate::tools::pgn::{Games, PgnGame};
use crate::tools::training_data::DataFormat;
use std::collections::HashSet;
use std::io::{self, BufRead, Write};

/// What a conversion did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnReport {
    pub games: u64,
    /// Games converted (their positions may all have been skipped).
    pub converted: u64,
    pub positions: u64,
    /// Converted games whose result was adjudicated, or lost on time (cutechess-cli's
    /// `Termination` tag).
    pub adjudicated: u64,
    pub time_losses: u64,
    /// Moves of the chosen players that were no training position, by why.
    pub book_moves: u64,
    pub unscored_moves: u64,
    pub mate_scores: u64,
    pub in_check_or_tactical: u64,
    /// Positions left out as already written in the run.
    pub repeats: u64,
    /// Skipped games: number (from 1), the file's line and why; the first few.
    pub skipped: Vec<(u64, usize, String)>,
    pub skipped_count: u64,
}

/// Reported skipped games, at most; the rest are only counted.
const SKIPPED_KEPT: usize = 20;

/// A move's score as cutechess-cli writes it in the comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommentScore {
    Book,
    /// Centipawns, from the mover's view.
    Centipawns(i32),
    Mate,
}

/// The score at the start of a move's comment: `book`, `+0.35/12 …` (pawns with a depth
/// after the slash) or `±M5/…`; None for anything else (no score, a person's comment).
pub fn comment_score(comment: &str) -> Option<CommentScore> {
    let first = comment.split([' ', ',']).next()?;
    if first == "book" {
        return Some(CommentScore::Book);
    }
    let (score, depth) = first.split_once('/')?;
    depth.parse::<u32>().ok()?;
    let unsigned = score.trim_start_matches(['+', '-']);
    if let Some(moves) = unsigned.strip_prefix('M') {
        return moves.parse::<u32>().ok().map(|_| CommentScore::Mate);
    }
    let pawns: f64 = score.parse().ok()?;
    let centipawns = (pawns * 100.0).round();
    (centipawns.abs() < 1e6).then_some(CommentScore::Centipawns(centipawns as i32))
}

/// The result a game ended with, or why it has none to train on.
fn game_result(game: &PgnGame) -> Result<GameResult, String> {
    let marker = game.termination.as_deref().ok_or_else(|| {
        "cut off: the movetext ends without a result (1-0, 0-1, 1/2-1/2 or *)".to_string()
    })?;
    let result = game.tag("Result").unwrap_or(marker);
    match result {
        "1-0" => Ok(GameResult::WhiteWins),
        "0-1" => Ok(GameResult::BlackWins),
        "1/2-1/2" => Ok(GameResult::Draw),
        "*" => Err("unfinished (result *)".to_string()),
        other => Err(format!("result '{other}' is not 1-0, 0-1, 1/2-1/2 or *")),
    }
}

/// Converts every game of `input`, writing the kept positions to `out` in `format`.
/// `player`: only the moves of players whose name contains it (any case).
pub fn convert_pgn(
    input: &mut dyn BufRead,
    player: Option<&str>,
    format: DataFormat,
    out: &mut dyn Write,
) -> io::Result<PgnReport> {
    let mut report = PgnReport::default();
    let mut written = HashSet::new();
    let player = player.map(str::to_lowercase);
    for game in Games::new(input) {
        report.games += 1;
        let record = match game_record(&game, player.as_deref(), &mut report) {
            Ok(record) => record,
            Err((line, why)) => {
                report.skipped_count += 1;
                if report.skipped.len() < SKIPPED_KEPT {
                    report.skipped.push((report.games, line, why));
                }
                continue;
            }
        };
        report.converted += 1;
        report.adjudicated += u64::from(record.adjudicated);
        let kept = record.write_new(out, format, &mut written)?;
        report.positions += kept;
        report.repeats += record.positions.len() as u64 - kept;
    }
    out.flush()?;
    Ok(report)
}

/// The positions of one game to train on, or the line and why the game is skipped.
fn game_record(
    game: &PgnGame,
    player: Option<&str>,
    report: &mut PgnReport,
) -> Result<GameRecord, (usize, String)> {
    let result = game_result(game).map_err(|why| (game.line, why))?;
    let (start, moves) = game.replay().map_err(|e| (e.line, e.problem))?;
    let chosen = |name: Option<&str>| match player {
        None => true,
        Some(p) => name.is_some_and(|n| n.to_lowercase().contains(p)),
    };
    let (white_chosen, black_chosen) = (chosen(game.tag("White")), chosen(game.tag("Black")));
    let mut positions = Vec::new();
    let mut pos: Position = start;
    for (written, mv) in game.moves.iter().zip(moves) {
        let white = pos.side_to_move() == crate::chess::Color::White;
        if if white { white_chosen } else { black_chosen } {
            match written.comment.as_deref().and_then(comment_score) {
                Some(CommentScore::Book) => report.book_moves += 1,
                None => report.unscored_moves += 1,
                Some(CommentScore::Mate) => report.mate_scores += 1,
                Some(CommentScore::Centipawns(_)) if pos.in_check() || !is_quiet(&pos, mv) => {
                    report.in_check_or_tactical += 1
                }
                Some(CommentScore::Centipawns(cp)) => {
                    positions.push((pos, if white { cp } else { -cp }));
                }
            }
        }
        pos.play(mv);
    }
    let termination = game.tag("Termination").unwrap_or("").to_ascii_lowercase();
    report.time_losses += u64::from(termination == "time forfeit");
    Ok(GameRecord {
        positions,
        result,
        plies: game.moves.len(),
        adjudicated: termination.contains("adjudication"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_scores_are_read_as_cutechess_writes_them() {
        use CommentScore::*;
        for (comment, score) in [
            ("+0.35/12 0.123s", Some(Centipawns(35))),
            ("-1.07/9 12s", Some(Centipawns(-107))),
            ("0.00/1 0s", Some(Centipawns(0))),
            ("+0.35/12 0.12s, n=1234 sd=20", Some(Centipawns(35))),
            ("+M5/20 0.1s", Some(Mate)),
            ("-M12/30 1s", Some(Mate)),
            ("book", Some(Book)),
            ("", None),
            ("White resigns", None),
            ("+0.35 no depth", None),
            ("+x/12", None),
        ] {
            assert_eq!(comment_score(comment), score, "{comment:?}");
        }
    }

    const GAMES: &str = r#"[White "Kestrel"]
[Black "Other"]
[Result "0-1"]
[Termination "time forfeit"]

1. e4 {book} e5 {+0.20/10 0.1s} 2. Nf3 {+0.30/11 0.1s} Nc6 {-0.25/9 0.1s}
3. Bb5 {+0.40/12 0.1s} Nf6 {book} 4. Bxc6 {+0.50/12 0.1s} dxc6 {-0.45/10 0.1s}
5. O-O {+M7/15 0.1s} Bd6 {-0.10/8} 0-1

[White "Other"]
[Black "Kestrel"]
[Result "*"]

1. d4 {+0.10/5 0.1s} *

[White "Kestrel"]
[Black "Other"]
[Result "1/2-1/2"]

1. e4 {+0.10/5 0.1s} e5 2. Ke3 {+0.10/5 0.1s} 1/2-1/2

[White "Kestrel"]
[Black "Kestrel"]
[Result "1-0"]
[Termination "adjudication"]

1. e4 {book} e5 {+0.20/10 0.1s} 2. Nf3 {+0.31/11 0.1s} 1-0

[White "Kestrel"]
[Black "Other"]
[Result "1-0"]

1. e4 {+0.30/10 0.1s} e5 {-0.20/9 0.1s} 2. Nf3
"#;

    #[test]
    fn kestrels_scored_quiet_moves_become_positions_with_the_result() {
        let mut out = Vec::new();
        let report = convert_pgn(
            &mut GAMES.as_bytes(),
            Some("kestrel"),
            DataFormat::Text,
            &mut out,
        )
        .unwrap();
        let lines: Vec<String> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        let after = |moves: &[&str]| {
            let mut pos = Position::startpos();
            for m in moves {
                pos.play(pos.parse_san(m).unwrap());
            }
            pos.to_fen()
        };
        // Game 1: White is Kestrel; e4 is book, Bxc6 a capture, O-O a mate score.
        // Game 4: both sides are Kestrel; e5's position is new, Nf3's is game 1's and is
        // left out.
        let want = [
            format!("{} | 30 | 0.0", after(&["e4", "e5"])),
            format!("{} | 40 | 0.0", after(&["e4", "e5", "Nf3", "Nc6"])),
            format!("{} | -20 | 1.0", after(&["e4"])),
        ];
        assert_eq!(lines, want);
        assert_eq!(report.games, 5);
        assert_eq!(report.converted, 2);
        assert_eq!(report.positions, 3);
        assert_eq!((report.adjudicated, report.time_losses), (1, 1));
        assert_eq!(report.book_moves, 2);
        assert_eq!(report.mate_scores, 1);
        assert_eq!(report.in_check_or_tactical, 1);
        assert_eq!(report.repeats, 1);
        let skipped: Vec<(u64, usize)> = report.skipped.iter().map(|s| (s.0, s.1)).collect();
        assert_eq!(skipped, [(2, 10), (3, 20), (5, 29)]);
        assert!(report.skipped[0].2.contains("unfinished"));
        assert!(report.skipped[1].2.contains("Ke3"));
        assert!(report.skipped[2].2.contains("cut off"));
    }

    #[test]
    fn every_player_counts_without_a_name_and_records_pack_the_same_positions() {
        let mut text = Vec::new();
        let all = convert_pgn(&mut GAMES.as_bytes(), None, DataFormat::Text, &mut text).unwrap();
        // Game 1's Black moves e5, Nc6 and Bd6 join White's Nf3 and Bb5; game 4's two
        // scored positions are then repeats.
        assert_eq!((all.positions, all.repeats), (5, 2));
        let mut records = Vec::new();
        let packed = convert_pgn(
            &mut GAMES.as_bytes(),
            None,
            DataFormat::Bullet,
            &mut records,
        )
        .unwrap();
        assert_eq!(packed.positions, 5);
        assert_eq!(records.len(), 5 * crate::tools::training_data::RECORD_BYTES);
    }
}
