//! Playing below full strength, through the binary: the options in both protocols and the
//! terminal command, refused values, a limited search that still answers at once, its node
//! budget (pondering too, analysis not), the lines the GUI sees, repeatable choices, and
//! mates with KR and KQ against K at the lowest, a middle and the highest setting.

use crate::common::{self, *};

use common::{uci_info, Engine};
use kestrel::search::strength::{Strength, DEFAULT_ELO, FULL_STRENGTH_ELO, MIN_ELO};
use kestrel::search::POLL_INTERVAL;
use std::time::{Duration, Instant};

const LONG: Duration = Duration::from_secs(30);

/// The most nodes a search with a budget of `budget` may report: the budget is checked at
/// each poll.
fn within(budget: u64) -> u64 {
    budget + POLL_INTERVAL
}

fn lowest() -> Strength {
    Strength::at(MIN_ELO).expect("the lowest setting is limited")
}

/// A UCI session with the limit on at `elo`.
fn uci_at(elo: i64) -> Engine {
    let mut e = Engine::started_uci();
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {elo}"));
    e.ready();
    e
}

/// The most nodes any `info` line of `lines` reports.
fn most_nodes(lines: &[String]) -> u64 {
    lines
        .iter()
        .filter_map(|l| uci_info(l))
        .map(|i| i.nodes)
        .max()
        .unwrap_or(0)
}

#[test]
fn the_options_are_announced_in_both_protocols_with_their_ranges() {
    let mut e = Engine::start();
    let uci = e.uci_handshake();
    for option in [
        "option name UCI_LimitStrength type check default false".to_string(),
        format!("option name UCI_Elo type spin default {DEFAULT_ELO} min {MIN_ELO} max {FULL_STRENGTH_ELO}"),
    ] {
        assert!(uci.contains(&option), "{option} not in {uci:?}");
    }
    let mut e = Engine::start();
    let features = e.handshake();
    for option in [
        "feature option=\"LimitStrength -check 0\"".to_string(),
        format!("feature option=\"Elo -spin {DEFAULT_ELO} {MIN_ELO} {FULL_STRENGTH_ELO}\""),
    ] {
        assert!(features.contains(&option), "{option} not in {features:?}");
    }
    // The terminal command is in `help`.
    e.send("help");
    e.wait_for("elo in help", Duration::from_secs(5), |l| {
        l.starts_with("elo N / elo off")
    });
}

/// Values out of range or of the wrong kind are refused with an error and leave the
/// setting as it was: the search after them keeps the lowest setting's node budget.
#[test]
fn bad_values_are_refused_and_change_nothing() {
    let mut e = uci_at(MIN_ELO);
    e.allow_errors(true);
    for bad in [
        format!("setoption name UCI_Elo value {}", MIN_ELO - 1),
        format!("setoption name UCI_Elo value {}", FULL_STRENGTH_ELO + 1),
        "setoption name UCI_Elo value strong".to_string(),
        "setoption name UCI_Elo value".to_string(),
        "setoption name UCI_LimitStrength value maybe".to_string(),
    ] {
        e.send(&bad);
        let line = e.expect_prefix("info string error", Duration::from_secs(5));
        let range = format!("UCI_Elo must be {MIN_ELO}-{FULL_STRENGTH_ELO}");
        assert!(
            line.contains(&range) || line.contains("UCI_LimitStrength must be true or false"),
            "{bad}: {line}"
        );
    }
    e.allow_errors(false);
    e.send("position startpos");
    e.send("go depth 40");
    let (_, _, lines) = e.expect_bestmove(LONG);
    let nodes = most_nodes(&lines);
    assert!(
        nodes > 0 && nodes <= within(lowest().nodes),
        "{nodes} nodes: {lines:?}"
    );

    // xboard: the options and the command, each refused the same way.
    let mut x = Engine::started();
    x.send("option LimitStrength=1");
    x.send("option Elo=1800");
    x.allow_errors(true);
    for bad in [
        format!("option Elo={}", MIN_ELO - 1),
        format!("option Elo={}", FULL_STRENGTH_ELO + 1),
        "option Elo=x".to_string(),
        "option LimitStrength=2".to_string(),
        "elo 50".to_string(),
        "elo strong".to_string(),
    ] {
        x.send(&bad);
        let line = x.expect_prefix("Error", Duration::from_secs(5));
        assert!(line.ends_with(&bad), "{bad}: {line}");
    }
    x.send("elo");
    let shown = x.expect_prefix("# Elo", Duration::from_secs(5));
    let at_1800 = Strength::at(1800).unwrap();
    assert!(
        shown.starts_with(&format!("# Elo 1800: {} nodes", at_1800.nodes)),
        "{shown}"
    );
    x.send("elo off");
    x.expect_prefix("# full strength", Duration::from_secs(5));
    x.send(&format!("elo {FULL_STRENGTH_ELO}"));
    x.expect_prefix(
        &format!("# Elo {FULL_STRENGTH_ELO}: full strength"),
        Duration::from_secs(5),
    );
}

/// A limited search that ran out of nodes takes part of its time before it answers, and
/// answers `isready` meanwhile and `stop` at once.
#[test]
fn a_limited_search_answers_isready_and_stop_at_once() {
    let mut e = uci_at(MIN_ELO);
    e.send("position startpos moves e2e4");
    // 10 minutes each: the clock's target is many seconds, far more than 2000 nodes take.
    e.send("go wtime 600000 btime 600000");
    e.expect_silence_of("bestmove", Duration::from_millis(1500));
    let asked = Instant::now();
    e.send("isready");
    let (_, before) = e.wait_for("readyok", Duration::from_secs(5), |l| l == "readyok");
    assert!(asked.elapsed() < Duration::from_millis(500), "{before:?}");
    assert!(
        before.iter().all(|l| !l.starts_with("bestmove")),
        "{before:?}"
    );
    let stopped = Instant::now();
    e.send("stop");
    let (best, _, _) = e.expect_bestmove(Duration::from_secs(5));
    assert!(
        stopped.elapsed() < Duration::from_millis(500),
        "{:?}",
        stopped.elapsed()
    );
    assert_eq!(best.len(), 4, "{best}");

    // xboard: `?` moves at once, a ping waits behind the move as at full strength.
    let mut x = Engine::started();
    x.send(&format!("elo {MIN_ELO}"));
    x.send("new");
    x.send("level 0 10 0");
    x.send("time 60000");
    x.send("otim 60000");
    x.sync_auto();
    x.send("e2e4");
    x.expect_silence(Duration::from_millis(1500));
    let hurried = Instant::now();
    x.send("?");
    x.expect_move(Duration::from_secs(5));
    assert!(
        hurried.elapsed() < Duration::from_millis(500),
        "{:?}",
        hurried.elapsed()
    );
}

/// Left alone, the limited move comes after part of the time a full search would take,
/// well before the hard limit.
#[test]
fn a_limited_move_takes_part_of_its_time_and_never_all_of_it() {
    let mut e = uci_at(MIN_ELO);
    e.send("position startpos");
    let started = Instant::now();
    // 30 s: a target near 0.9 s, a hard limit near 3.5 s.
    e.send("go wtime 30000 btime 30000");
    let (_, _, lines) = e.expect_bestmove(Duration::from_secs(10));
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(300) && took < Duration::from_millis(3000),
        "{took:?}"
    );
    assert!(most_nodes(&lines) <= within(lowest().nodes), "{lines:?}");

    // Short of time the pause never costs the game (the bound allows for the pipes of a
    // busy machine).
    for left in [300, 50, 0] {
        let started = Instant::now();
        e.send(&format!("go wtime {left} btime 30000"));
        e.expect_bestmove(Duration::from_secs(5));
        let took = started.elapsed();
        assert!(
            took < Duration::from_millis(left.max(100) + 50),
            "{left} ms left: {took:?}"
        );
    }
}

/// The lines that come in `time`, none of them a `bestmove`.
fn waiting(e: &mut Engine, time: Duration) -> Vec<String> {
    let deadline = Instant::now() + time;
    let mut lines = Vec::new();
    while let Some(line) = e.next_line(deadline.saturating_duration_since(Instant::now())) {
        assert!(!line.starts_with("bestmove"), "{line} before it was due");
        lines.push(line);
    }
    lines
}

/// Analysis is at full strength; pondering keeps the budget and waits for the GUI.
#[test]
fn analysis_is_unlimited_and_pondering_is_limited() {
    let mut e = uci_at(MIN_ELO);
    e.send("position startpos moves d2d4");
    e.send("go infinite");
    let early = waiting(&mut e, Duration::from_millis(1500));
    e.send("stop");
    let (_, _, lines) = e.expect_bestmove(Duration::from_secs(5));
    let nodes = most_nodes(&[early, lines].concat());
    assert!(nodes > 20 * lowest().nodes, "{nodes}");

    e.send("position startpos moves d2d4 d7d5");
    e.send("go ponder wtime 60000 btime 60000");
    let early = waiting(&mut e, Duration::from_millis(1000));
    e.send("ponderhit");
    let (_, _, lines) = e.expect_bestmove(LONG);
    let lines = [early, lines].concat();
    let nodes = most_nodes(&lines);
    assert!(
        nodes > 0 && nodes <= within(lowest().nodes),
        "{nodes}: {lines:?}"
    );
}

/// xboard pondering: the ponder search keeps the budget, ends on its own, and the reply
/// expected is answered at once when it comes.
#[test]
fn xboard_pondering_is_limited_and_a_hit_is_answered() {
    let mut x = Engine::started();
    for line in ["new", "hard", "post", &format!("elo {MIN_ELO}"), "st 1"] {
        x.send(line);
    }
    x.sync_auto();
    x.send("e2e4");
    x.expect_move(Duration::from_secs(10));
    // The ponder search has long used its 2000 nodes.
    std::thread::sleep(Duration::from_millis(500));
    x.send("hint");
    let (hint, pondering) = x.wait_for("Hint", Duration::from_secs(5), |l| l.starts_with("Hint: "));
    let nodes: Vec<u64> = pondering
        .iter()
        .filter_map(|l| common::thinking(l))
        .map(|t| t.nodes)
        .collect();
    assert!(!nodes.is_empty(), "{pondering:?}");
    assert!(
        nodes.iter().all(|&n| n <= within(lowest().nodes)),
        "{pondering:?}"
    );
    let hit = Instant::now();
    x.send(hint.trim_start_matches("Hint: "));
    x.expect_move(Duration::from_secs(5));
    assert!(
        hit.elapsed() < Duration::from_millis(500),
        "{:?}",
        hit.elapsed()
    );
}

/// The GUI sees the lines it asked for, not the candidates the choice weighs; MultiPV
/// still shows its lines.
#[test]
fn the_gui_sees_the_lines_it_asked_for() {
    let mut e = uci_at(MIN_ELO);
    assert_eq!(lowest().candidates, 4);
    e.send("position startpos");
    e.send("go depth 30");
    let (_, _, lines) = e.expect_bestmove(LONG);
    let infos: Vec<_> = lines.iter().filter_map(|l| uci_info(l)).collect();
    assert!(!infos.is_empty());
    assert!(
        infos.iter().all(|i| i.multipv.unwrap_or(1) == 1),
        "{lines:?}"
    );

    e.send("setoption name MultiPV value 2");
    e.send("go depth 30");
    let (_, _, lines) = e.expect_bestmove(LONG);
    let shown: Vec<u32> = lines
        .iter()
        .filter_map(|l| uci_info(l))
        .filter_map(|i| i.multipv)
        .collect();
    assert!(shown.contains(&2), "{lines:?}");
    assert!(shown.iter().all(|&k| k <= 2), "{lines:?}");
}

/// A session's choices repeat in a new session given the same commands (a seeded draw),
/// and the lowest setting does not always play its best line: at depth 1 (no line but the
/// iteration's own reports) a chosen other line shows as a second line 1 after the best.
#[test]
fn the_choices_of_a_session_repeat() {
    let positions = [
        "startpos",
        "startpos moves e2e4",
        "startpos moves d2d4 g8f6",
        "startpos moves e2e4 c7c5 g1f3",
        "fen r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "fen rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
        "fen r1bq1rk1/pppp1ppp/2n2n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQK2R w KQ - 1 6",
        "fen 2kr3r/ppp2ppp/2n5/8/8/2N5/PPP2PPP/2KR3R w - - 0 14",
    ];
    let play = || {
        let mut e = uci_at(MIN_ELO);
        let mut moves = Vec::new();
        let mut off_the_best_line = 0;
        for position in positions {
            e.send(&format!("position {position}"));
            e.send("go depth 1");
            let (shallow, _, lines) = e.expect_bestmove(LONG);
            let infos: Vec<_> = lines.iter().filter_map(|l| uci_info(l)).collect();
            assert!(infos.iter().all(|i| i.depth == 1), "{lines:?}");
            if infos[0].pv[0] != shallow {
                assert_eq!(infos.len(), 2, "{lines:?}");
                assert_eq!(infos[1].pv[0], shallow, "{lines:?}");
                off_the_best_line += 1;
            }
            e.send("go depth 30");
            let (deep, _, _) = e.expect_bestmove(LONG);
            moves.push((shallow, deep));
        }
        (moves, off_the_best_line)
    };
    let (first, off) = play();
    let (second, _) = play();
    assert_eq!(first, second);
    assert!(off > 0, "always the best line: {first:?}");
}

/// At the lowest, a middle and the highest setting Kestrel mates with KR and KQ against K
/// defended at full strength (the strength-mates tool, on fixed positions).
#[test]
fn every_setting_mates_with_rook_or_queen_against_a_bare_king() {
    let fens = [
        // KRvK: the lone king in the centre, the kings apart.
        "8/8/8/4k3/8/8/8/R5K1 w - - 0 1",
        "7R/8/8/8/3k4/8/8/K7 w - - 0 1",
        // KQvK, Black the stronger side in one.
        "8/8/8/3k4/8/8/8/Q5K1 w - - 0 1",
        "8/8/8/8/4K3/8/8/q5k1 b - - 0 1",
    ];
    let mut args = vec!["strength-mates".to_string(), "--full-nodes=20000".into()];
    for elo in [MIN_ELO, 1800, FULL_STRENGTH_ELO] {
        args.push(format!("--elo={elo}"));
    }
    for fen in fens {
        args.push(format!("--fen={fen}"));
    }
    let binary = std::env::var("KESTREL_TEST_BINARY").unwrap_or_else(|_| KESTREL.to_string());
    let output = std::process::Command::new(binary)
        .args(&args)
        .output()
        .expect("run strength-mates");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    for elo in [MIN_ELO, 1800, FULL_STRENGTH_ELO] {
        for ending in ["KRvK", "KQvK"] {
            let line = format!("elo {elo} {ending}: 2/2 mated");
            assert!(text.contains(&line), "{line} not in:\n{text}");
        }
    }
    assert!(text.contains("total: 12/12 mated"), "{text}");
}

/// The same through UCI at the lowest setting: the engine's own move choice in a game
/// against a full-strength defender mates KR vs K before the 50-move rule.
#[test]
fn the_lowest_setting_mates_with_a_rook_through_uci() {
    let start = "8/8/8/4k3/8/8/8/R5K1 w - - 0 1";
    let mut attacker = uci_at(MIN_ELO);
    let mut defender = Engine::started_uci();
    let mut moves: Vec<String> = Vec::new();
    let mut position = kestrel::chess::Position::from_fen(start).unwrap();
    let mut game = kestrel::game::Game::new(position);
    while game.outcome().is_none() {
        let white = position.side_to_move() == kestrel::chess::Color::White;
        let e = if white { &mut attacker } else { &mut defender };
        let line = if moves.is_empty() {
            format!("position fen {start}")
        } else {
            format!("position fen {start} moves {}", moves.join(" "))
        };
        e.send(&line);
        // The attacker's budget is its setting's; the defender searches 20000 nodes.
        e.send("go nodes 20000");
        let (best, _, _) = e.expect_bestmove(LONG);
        let mv = position.parse_coordinate(&best).expect("a legal move");
        position = position.after(mv);
        game.play(mv);
        moves.push(best);
    }
    let outcome = game.outcome().unwrap();
    assert_eq!(outcome.reason, "White mates", "{moves:?}");
    assert!(moves.len() < 100, "{moves:?}");
}

/// Settings and MultiPV counts the played-line tests cycle through.
const PLAYED_LINE_SETTINGS: [(i64, usize); 6] = [
    (MIN_ELO, 1),
    (1450, 3),
    (1700, 1),
    (1950, 3),
    (2150, 1),
    (FULL_STRENGTH_ELO - 10, 3),
];

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Plies of self-play per setting in the played-line tests.
const PLAYED_LINE_PLIES: usize = 8;

/// Under a limited strength the last line the GUI reads before the move (UCI: the last
/// `info … multipv 1`; xboard: the last thinking line) starts with the move played, whatever
/// line the choice took and however many lines the GUI asked for: GUIs attach that line's
/// score and PV to the move.
#[test]
fn uci_the_last_line_shown_is_the_move_played() {
    let mut searches = 0;
    for (elo, multi_pv) in PLAYED_LINE_SETTINGS {
        let mut e = uci_at(elo);
        e.send(&format!("setoption name MultiPV value {multi_pv}"));
        let mut moves: Vec<String> = Vec::new();
        for _ in 0..PLAYED_LINE_PLIES {
            e.send(format!("position startpos moves {}", moves.join(" ")).trim_end());
            e.send("go wtime 1500 btime 1500 winc 15 binc 15");
            let (best, _, lines) = e.expect_bestmove(LONG);
            let last = lines
                .iter()
                .filter_map(|l| uci_info(l))
                .rfind(|i| i.multipv.unwrap_or(1) == 1)
                .unwrap_or_else(|| panic!("no line 1 at {elo}: {lines:?}"));
            assert_eq!(
                last.pv.first(),
                Some(&best),
                "at {elo}, MultiPV {multi_pv}: {lines:?}"
            );
            moves.push(best);
            searches += 1;
        }
    }
    assert_eq!(searches, PLAYED_LINE_SETTINGS.len() * PLAYED_LINE_PLIES);
}

#[test]
fn xboard_the_last_line_shown_is_the_move_played() {
    for (elo, multi_pv) in PLAYED_LINE_SETTINGS {
        let mut e = Engine::started();
        e.send("new");
        e.send("post");
        e.send("level 0 0:02 0");
        e.send("option LimitStrength=1");
        e.send(&format!("option Elo={elo}"));
        e.send(&format!("option MultiPV={multi_pv}"));
        let mut played = Vec::new();
        for _ in 0..PLAYED_LINE_PLIES {
            // `go` with the engine to move makes it play the side to move: self-play.
            e.send("go");
            let (line, before) = e.wait_for("move", LONG, |l| l.starts_with("move "));
            let mv = line["move ".len()..].to_string();
            let last = before
                .iter()
                .filter_map(|l| common::thinking(l))
                .next_back()
                .unwrap_or_else(|| panic!("no thinking at {elo}: {before:?}"));
            let played_so_far: Vec<&str> = played.iter().map(String::as_str).collect();
            let position = position_after(START, &played_so_far);
            let shown = position
                .parse_move(&last.pv[0])
                .unwrap_or_else(|_| panic!("{} is no move: {before:?}", last.pv[0]));
            assert_eq!(
                position.coordinate(shown),
                mv,
                "at {elo}, MultiPV {multi_pv}: {before:?}"
            );
            played.push(mv);
            e.send("force");
        }
    }
}
