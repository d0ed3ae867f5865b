//! Syzygy tablebases with the real binary and the small table set in `tests/data/syzygy`
//! (3- and 4-piece tables: KBNvK, KQvKR, KRvKB, KRvKR, KQvKQ and what they convert to).
//!
//! * Kestrel's root WDL and DTZ against python-chess's own prober on random positions
//!   (`tests/python/syzygy_compare.py`; skipped without python-chess except in CI).
//! * With tables, Kestrel playing both sides at a small node count mates from KBNvK and
//!   KQvKR starts within the 50-move rule, and holds KRvKB draws it loses without them.
//! * UCI `SyzygyPath`: `tbhits` in the info lines and a DTZ-best move; a directory that
//!   does not exist is skipped with a note (XBoard sends its stock `/EGT/Syzygy` to every
//!   engine), one with no or broken tables is an error, and play goes on; xboard
//!   `egtpath syzygy DIR` the same.
//! * Scores, both protocols: a root in the tables shows the tables' verdict (a win in the
//!   band below 20000, a draw 0, a loss the negative), and so does a capture into a won
//!   table, never the internal tablebase score.

use crate::common::{self, *};

use common::{thinking, uci_info, Engine, ScratchDir};
use kestrel::chess::Position;
use std::io::Write;

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

#[test]
fn root_wdl_and_dtz_match_python_chess_on_random_positions() {
    let Some(stdout) = run_python_chess(
        "chess.syzygy",
        "syzygy_compare.py",
        &[KESTREL, TABLES, "400", "1"],
    ) else {
        return;
    };
    assert!(stdout.contains("ok: 400 positions"), "{stdout}");
}

/// A UCI engine with the test tables loaded.
fn uci_with_tables() -> Engine {
    let mut e = Engine::started_uci();
    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let lines = e.ready();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string Syzygy tables: 14 found")),
        "{lines:?}"
    );
    e
}

/// An xboard session with the test tables, to ask `tb` about positions.
fn xboard_with_tables() -> Engine {
    let mut e = Engine::started();
    e.send("force");
    e.send(&format!("egtpath syzygy {TABLES}"));
    e.sync_auto();
    e
}

/// The tables' WDL for the side to move in `fen` (from `tb`).
fn tb_wdl(judge: &mut Engine, fen: &str) -> i32 {
    judge.send(&format!("setboard {fen}"));
    judge.send("tb");
    let line = judge.expect_prefix("wdl ", 5 * SEC);
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// How a self-play game ended.
#[derive(Debug, PartialEq)]
enum End {
    /// The side to move is mated, after this many plies.
    Mate(usize),
    /// No mate within the plies played (or a stalemate or a threefold repetition).
    NoMate,
    /// The 50-move counter reached 100 before any mate.
    FiftyMoves,
}

/// Kestrel plays both sides from `fen` at `nodes` a move for at most `max_plies`; every
/// position reached is given to `each` (its FEN).
fn self_play(
    e: &mut Engine,
    fen: &str,
    nodes: u64,
    max_plies: usize,
    mut each: impl FnMut(&str),
) -> End {
    let mut pos = Position::from_fen(fen).unwrap();
    let mut moves: Vec<String> = Vec::new();
    let mut seen = vec![pos.key()];
    e.send("ucinewgame");
    for ply in 0..max_plies {
        if !pos.has_legal_moves() {
            return if pos.in_check() {
                End::Mate(ply)
            } else {
                End::NoMate
            };
        }
        if pos.halfmove_clock() >= 100 {
            return End::FiftyMoves;
        }
        if seen.iter().filter(|&&k| k == pos.key()).count() >= 3 {
            return End::NoMate;
        }
        e.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        e.send(&format!("go nodes {nodes}"));
        let (best, _, _) = e.expect_bestmove(30 * SEC);
        let mv = pos
            .parse_coordinate(&best)
            .unwrap_or_else(|err| panic!("{best} in {}: {err}", pos.to_fen()));
        pos.play(mv);
        moves.push(best);
        seen.push(pos.key());
        each(&pos.to_fen());
    }
    if !pos.has_legal_moves() && pos.in_check() {
        End::Mate(max_plies)
    } else {
        End::NoMate
    }
}

#[test]
fn with_tables_kestrel_mates_kbnk_and_kqkr_within_the_fifty_move_rule() {
    // Won for the side to move; without tables Kestrel at this node count drew each of
    // them by the 50-move rule or repetition (KBNvK all three, KQvKR the first and last).
    let starts = [
        "8/B4k2/8/K7/8/6N1/8/8 w - - 0 1",
        "8/3k2B1/8/8/6N1/8/8/3K4 w - - 0 1",
        "8/8/8/1k6/1N6/4K3/8/7B w - - 0 1",
        "8/8/8/4k3/Q6K/8/8/6r1 w - - 0 1",
        "5r2/4K3/8/8/8/1Q6/3k4/8 w - - 0 1",
        "8/8/1kr5/8/8/8/QK6/8 w - - 0 1",
    ];
    let mut e = uci_with_tables();
    for fen in starts {
        let end = self_play(&mut e, fen, 2000, 200, |_| {});
        assert!(matches!(end, End::Mate(p) if p % 2 == 1), "{fen}: {end:?}");
    }
}

#[test]
fn with_tables_kestrel_holds_krkb_draws_it_loses_without_them() {
    // Drawn with Black to move, and the move given loses the bishop (skewered or cut off
    // from its king). Without tables, at this node count from a fresh start, Kestrel
    // played d7g4 and e3g5 in the first two when this test was written; d1c2 it played in
    // a self-play game reaching the third.
    let starts = [
        ("8/2Rb4/8/8/8/3K4/8/6k1 b - - 1 1", "d7g4"),
        ("8/8/R7/8/8/4b3/1K4k1/8 b - - 7 4", "e3g5"),
        ("8/R7/8/8/3K4/8/5k2/3b4 b - - 19 10", "d1c2"),
    ];
    let mut e = uci_with_tables();
    let mut judge = xboard_with_tables();
    for (fen, losing) in starts {
        assert_eq!(tb_wdl(&mut judge, fen), 0, "{fen} is a draw");
        let start = Position::from_fen(fen).unwrap();
        let lost = start
            .after(start.parse_coordinate(losing).unwrap())
            .to_fen();
        assert_eq!(tb_wdl(&mut judge, &lost), 2, "{losing} loses in {fen}");
        let mut verdicts = Vec::new();
        let end = self_play(&mut e, fen, 300, 120, |after| {
            verdicts.push((after.to_string(), tb_wdl(&mut judge, after)));
        });
        assert!(!matches!(end, End::Mate(_)), "{fen}: {end:?}");
        for (after, wdl) in verdicts {
            assert_eq!(wdl, 0, "{after} is no longer a draw (from {fen})");
        }
    }
}

#[test]
fn uci_go_on_a_table_position_counts_tbhits_and_plays_a_dtz_best_move() {
    let mut e = uci_with_tables();
    // KQvKR: of the winning moves only a2a3, a2d5 and a2f7 reach the next capture soonest
    // (python-chess's DTZ agrees).
    e.send("position fen 8/8/1kr5/8/8/8/QK6/8 w - - 0 1");
    e.send("go nodes 20000");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    assert!(["a2a3", "a2d5", "a2f7"].contains(&best.as_str()), "{best}");
    let tbhits: Vec<u64> = lines
        .iter()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let i = words.iter().position(|&w| w == "tbhits")?;
            words.get(i + 1)?.parse().ok()
        })
        .collect();
    assert!(!tbhits.is_empty(), "no tbhits in {lines:?}");
    assert!(*tbhits.last().unwrap() > 0, "{lines:?}");
    // Off again: no hits.
    e.send("setoption name SyzygyPath value <empty>");
    e.send("go nodes 2000");
    let (_, _, lines) = e.expect_bestmove(30 * SEC);
    assert!(lines.iter().any(|l| l.contains(" tbhits 0 ")), "{lines:?}");
}

/// The `tbhits` count and the score of a UCI info line.
fn tbhits_and_score(line: &str) -> Option<(u64, String)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = |key: &str| words.iter().position(|&w| w == key).map(|i| i + 1);
    let hits = words.get(at("tbhits")?)?.parse().ok()?;
    let score = words.get(at("score")?..at("score")? + 2)?.join(" ");
    Some((hits, score))
}

#[test]
fn search_probes_below_a_root_the_tables_do_not_cover() {
    // Five pieces: the root is not in the 4-piece tables, but Qxd4+ leaves KQvKR, which
    // they know is won: the search must find it there (a TB win score, not an evaluation).
    let mut e = uci_with_tables();
    e.send("position fen 1r5k/8/8/8/3b4/8/8/3QK3 w - - 0 1");
    e.send("go depth 6");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    assert_eq!(best, "d1d4");
    let (hits, score) = lines
        .iter()
        .rev()
        .find_map(|l| tbhits_and_score(l))
        .expect("an info line");
    assert!(hits > 0, "{lines:?}");
    let cp: i32 = score
        .strip_prefix("cp ")
        .unwrap_or_else(|| panic!("{score}"))
        .parse()
        .unwrap();
    assert!(TB_WIN_SHOWN.contains(&cp), "{lines:?}");
}

/// Directories joined with the platform's path separator, as SyzygyPath takes them.
fn path_list(dirs: &[&str]) -> String {
    std::env::join_paths(dirs).unwrap().into_string().unwrap()
}

#[test]
fn uci_bad_syzygy_path_is_an_error_and_play_goes_on() {
    let mut e = Engine::started_uci();
    // A directory that does not exist: a note, no error, no tables.
    e.send("setoption name SyzygyPath value /no/such/syzygy/directory");
    let lines = e.ready();
    assert_eq!(
        lines,
        ["info string Syzygy directory /no/such/syzygy/directory does not exist; playing without tables"]
    );
    // One that exists with no tables, or a broken table: an error.
    e.allow_errors(true);
    let empty = ScratchDir::new("syzygy-empty");
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        empty.0.display()
    ));
    let lines = e.ready();
    assert!(
        lines.len() == 1
            && lines[0].starts_with("info string error: no Syzygy tables (.rtbw files) in")
            && lines[0].ends_with("; playing without tables"),
        "{lines:?}"
    );
    let broken = ScratchDir::new("syzygy-broken");
    std::fs::write(broken.0.join("KQvK.rtbw"), [0u8; 100]).unwrap();
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        broken.0.display()
    ));
    let lines = e.ready();
    assert!(
        lines.len() == 1 && lines[0].contains("is incomplete (100 bytes); playing without tables"),
        "{lines:?}"
    );
    e.send("setoption name SyzygyProbeDepth value 0");
    let lines = e.ready();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string error: SyzygyProbeDepth must be 1-100")),
        "{lines:?}"
    );
    e.send("position fen 8/8/1kr5/8/8/8/QK6/8 w - - 0 1");
    e.send("go nodes 5000");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    assert_eq!(best.len(), 4, "{best}");
    assert!(lines
        .iter()
        .all(|l| !l.contains("tbhits") || l.contains(" tbhits 0 ")));
    // A good path after the bad one loads (nothing was left half-open).
    e.send(&format!("setoption name SyzygyPath value {TABLES}"));
    e.send("setoption name SyzygyProbeDepth value 3");
    let lines = e.ready();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string Syzygy tables: 14 found")),
        "{lines:?}"
    );
    let options = e.uci_handshake();
    assert!(options
        .iter()
        .any(|l| l == "option name SyzygyPath type string default <empty>"));
    assert!(options
        .iter()
        .any(|l| l == "option name SyzygyProbeDepth type spin default 1 min 1 max 100"));
}

#[test]
fn xboard_egtpath_loads_replaces_and_reports_bad_paths() {
    let mut e = Engine::start();
    let features = e.handshake().join("\n");
    assert!(features.contains("egt=\"syzygy\""), "{features}");
    e.send("force");
    e.allow_errors(true);
    let empty = ScratchDir::new("egtpath-empty");
    e.send(&format!("egtpath syzygy {}", empty.0.display()));
    let lines = e.sync_auto();
    assert!(
        lines.len() == 1 && lines[0].starts_with("tellusererror no Syzygy tables (.rtbw files) in"),
        "{lines:?}"
    );
    e.send("tb");
    let lines = e.sync_auto();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Error (no Syzygy tables loaded")),
        "{lines:?}"
    );
    // Loaded, then loaded again in place of the first set.
    for _ in 0..2 {
        e.send(&format!("egtpath syzygy {TABLES}"));
        let lines = e.sync_auto();
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("# Syzygy tables: 14 found, up to 4 pieces")),
            "{lines:?}"
        );
    }
    e.send("setboard 8/B4k2/8/K7/8/6N1/8/8 w - - 0 1");
    e.send("tb");
    assert_eq!(
        e.expect_prefix("wdl ", 5 * SEC),
        "wdl 2 dtz 46 best a5b5 a7e3 a7b8"
    );
    // Play goes on after a bad path, with the last good tables dropped.
    e.send(&format!("egtpath syzygy {}", empty.0.display()));
    e.send("sd 4");
    e.send("go");
    let mv = e.expect_move(20 * SEC);
    assert_eq!(mv.len(), 4, "{mv}");
}

/// The band a tablebase win is shown in, in both protocols (README, Syzygy tablebases):
/// 20000 less the plies to the table position, at most 128 (the search's ply limit). Every
/// evaluation is shown below it, and it is never a mate.
const TB_WIN_SHOWN: std::ops::RangeInclusive<i32> = 19_872..=20_000;

/// The tables' outcome for the side to move, as the score must show it.
#[derive(Clone, Copy, Debug)]
enum Verdict {
    Win,
    Draw,
    Loss,
}

impl Verdict {
    fn shown_by(self, cp: i32) -> bool {
        match self {
            Verdict::Win => TB_WIN_SHOWN.contains(&cp),
            Verdict::Draw => cp == 0,
            Verdict::Loss => TB_WIN_SHOWN.contains(&-cp),
        }
    }
}

/// Positions whose reported score is the tables' verdict, and whether the root itself is in
/// the tables (then every iteration shows it, not only the last). Without the root's own
/// probe the search showed its evaluation: about 1130 for KQvK, 95 for the KPvK draw.
const VERDICTS: [(&str, Verdict, bool); 4] = [
    ("8/8/8/3k4/8/8/8/KQ6 w - - 0 1", Verdict::Win, true),
    ("8/8/8/3k4/8/8/8/KQ6 b - - 0 1", Verdict::Loss, true),
    ("8/8/4k3/8/4P3/4K3/8/8 w - - 0 1", Verdict::Draw, true),
    // Five pieces, so outside the tables; Qxd4+ captures into a won KQvKR.
    ("1r5k/8/8/8/3b4/8/8/3QK3 w - - 0 1", Verdict::Win, false),
];

/// Checks the scores of one search of `fen` (oldest first) against its verdict.
fn assert_verdict_shown(fen: &str, verdict: Verdict, root_in_tables: bool, scores: &[i32]) {
    assert!(!scores.is_empty(), "{fen}: no scores");
    let checked = if root_in_tables {
        scores
    } else {
        &scores[scores.len() - 1..]
    };
    for &cp in checked {
        assert!(
            verdict.shown_by(cp),
            "{fen}: score {cp} does not show a {verdict:?} (scores {scores:?})"
        );
    }
}

#[test]
fn uci_scores_show_the_tables_verdict() {
    let mut e = uci_with_tables();
    for (fen, verdict, root_in_tables) in VERDICTS {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send("go depth 6");
        let (_, _, lines) = e.expect_bestmove(30 * SEC);
        let scores: Vec<i32> = lines
            .iter()
            .filter_map(|l| uci_info(l))
            .map(|info| match info.score.strip_prefix("cp ") {
                Some(cp) => cp.parse().unwrap(),
                None => panic!("{fen}: score {} is no table verdict", info.score),
            })
            .collect();
        assert_verdict_shown(fen, verdict, root_in_tables, &scores);
    }
}

#[test]
fn xboard_thinking_shows_the_tables_verdict() {
    let mut e = xboard_with_tables();
    e.send("post");
    e.send("sd 6");
    for (fen, verdict, root_in_tables) in VERDICTS {
        e.send("force");
        e.send(&format!("setboard {fen}"));
        e.send("go");
        let (_, before) = e.wait_for("move", 30 * SEC, |l| l.starts_with("move "));
        let scores: Vec<i32> = before
            .iter()
            .filter_map(|l| thinking(l))
            .map(|t| t.score)
            .collect();
        assert_verdict_shown(fen, verdict, root_in_tables, &scores);
        // The thinking line's seventh field counts the probes that answered, as UCI's
        // `tbhits` does: a search in the tables has some.
        let tbhits: Vec<u64> = before
            .iter()
            .filter(|l| thinking(l).is_some())
            .filter_map(|l| {
                l.split('\t')
                    .next()?
                    .split_whitespace()
                    .nth(6)?
                    .parse()
                    .ok()
            })
            .collect();
        assert!(
            tbhits.last().is_some_and(|&n| n > 0),
            "{fen}: tbhits {tbhits:?}"
        );
    }
}

#[test]
fn xboard_stock_egtpath_is_a_note_and_play_goes_on() {
    // What XBoard's stock settings send to every engine that announces egt="syzygy".
    if std::path::Path::new("/EGT/Syzygy").exists() {
        let _ = writeln!(
            std::io::stderr(),
            "stock egtpath: SKIPPED, /EGT/Syzygy exists on this machine"
        );
        return;
    }
    let mut e = Engine::started();
    e.send("new");
    e.send("egtpath syzygy /EGT/Syzygy");
    // One comment line, no error (the harness fails on a tellusererror), no tables.
    let lines = e.sync_auto();
    assert_eq!(
        lines,
        ["# Syzygy directory /EGT/Syzygy does not exist; playing without tables"]
    );
    e.allow_errors(true);
    e.send("tb");
    let lines = e.sync_auto();
    assert!(
        lines.len() == 1 && lines[0].starts_with("Error (no Syzygy tables loaded"),
        "{lines:?}"
    );
    e.allow_errors(false);
    e.send("sd 3");
    e.send("go");
    let mv = e.expect_move(20 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok(), "{mv}");
}

#[test]
fn several_directories_skip_the_missing_and_keep_the_rest() {
    let good_and_missing = path_list(&[TABLES, "/no/such/syzygy/directory"]);
    let mut e = Engine::started_uci();
    e.send(&format!(
        "setoption name SyzygyPath value {good_and_missing}"
    ));
    let lines = e.ready();
    assert_eq!(
        lines,
        [
            "info string Syzygy directory /no/such/syzygy/directory does not exist: skipped",
            "info string Syzygy tables: 14 found, up to 4 pieces"
        ]
    );
    // The tables of the good directory are used.
    e.send("position fen 8/8/1kr5/8/8/8/QK6/8 w - - 0 1");
    e.send("go nodes 20000");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    assert!(["a2a3", "a2d5", "a2f7"].contains(&best.as_str()), "{best}");
    assert!(
        lines
            .iter()
            .filter_map(|l| tbhits_and_score(l))
            .any(|(hits, _)| hits > 0),
        "{lines:?}"
    );
    // None of them exists: a note, no error.
    let all_missing = path_list(&["/no/such/a", "/no/such/b"]);
    e.send(&format!("setoption name SyzygyPath value {all_missing}"));
    let lines = e.ready();
    assert_eq!(
        lines,
        ["info string Syzygy directories /no/such/a, /no/such/b do not exist; playing without tables"]
    );

    // xboard: the same, as comment lines.
    let mut x = xboard_with_tables();
    x.send(&format!("egtpath syzygy {good_and_missing}"));
    let lines = x.sync_auto();
    assert_eq!(
        lines,
        [
            "# Syzygy directory /no/such/syzygy/directory does not exist: skipped",
            "# Syzygy tables: 14 found, up to 4 pieces"
        ]
    );
    assert_eq!(tb_wdl(&mut x, "8/B4k2/8/K7/8/6N1/8/8 w - - 0 1"), 2);
}

/// A directory that does not exist is said once, on stdout (XBoard reads stderr from the
/// same pipe): nothing on stderr without `RUST_LOG`.
#[test]
fn a_missing_directory_is_said_once_and_not_on_stderr() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(KESTREL)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = "xboard\nprotover 2\negtpath syzygy /no/such/syzygy/directory\nping 1\nquit\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.matches("does not exist").count(), 1, "{stdout}");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
