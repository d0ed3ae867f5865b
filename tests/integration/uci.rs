//! UCI through the real binary: the handshake and its options, `isready` during a search,
//! `position`/`go` with every kind of limit, `go infinite` and `go ponder` waiting for
//! `stop`/`ponderhit`, a game on a low clock, bad input that changes nothing, a refused
//! `position` that leaves no position to search, a malformed `go` that is still answered,
//! a game of thousands of plies, Chess960 and Shredder-FEN castling, options that take
//! effect (check values in any case), and `ucinewgame`.
//!
//! Every `bestmove` is checked against the position the test itself keeps (with the
//! engine's own move generator, as a library). An unexpected `info string error` line fails
//! the waiting helpers unless a test allows errors.

use crate::common::{self, *};

use common::{proc_status, uci_info, Engine, UciInfo};
use kestrel::chess::{Position, STARTPOS_FEN};
use std::time::{Duration, Instant};

/// Asserts that `mv` is a legal move in `pos`, written as UCI wants it (the engine's own
/// coordinate form: king-takes-rook castling in Chess960).
fn assert_legal(pos: &Position, mv: &str) {
    let m = pos
        .parse_coordinate(mv)
        .unwrap_or_else(|e| panic!("bestmove {mv} illegal in {}: {e}", pos.to_fen()));
    assert_eq!(pos.coordinate(m), mv, "not in UCI form in {}", pos.to_fen());
}

fn infos(lines: &[String]) -> Vec<UciInfo> {
    lines.iter().filter_map(|l| uci_info(l)).collect()
}

#[test]
fn handshake_names_the_engine_and_lists_every_option() {
    let mut e = Engine::start();
    let lines = e.uci_handshake();
    assert!(
        lines.iter().any(|l| l.starts_with("id name Kestrel")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("id author ")),
        "{lines:?}"
    );
    for want in [
        "option name Hash type spin default 64 min 1 max 1048576",
        "option name Threads type spin default 1 min 1 max 1024",
        "option name Ponder type check default false",
        "option name MoveOverhead type spin default 50 min 0 max 5000",
        "option name MultiPV type spin default 1 min 1 max 256",
        "option name UCI_Chess960 type check default false",
        "option name Clear Hash type button",
        "option name UCI_ShowWDL type check default false",
    ] {
        assert!(
            lines.iter().any(|l| l == want),
            "missing '{want}' in {lines:?}"
        );
    }
    // Nothing but id and option lines before uciok.
    for l in &lines {
        assert!(l.starts_with("id ") || l.starts_with("option name "), "{l}");
    }
    assert!(e.ready().is_empty());
}

#[test]
fn isready_is_answered_at_once_during_a_search() {
    let mut e = Engine::started_uci();
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(SEC / 2);
    let asked = Instant::now();
    let before = e.ready();
    let waited = asked.elapsed();
    assert!(waited < SEC, "readyok took {waited:?}");
    assert!(
        !before.iter().any(|l| l.starts_with("bestmove")),
        "the search ended: {before:?}"
    );
    e.send("stop");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_legal(&Position::startpos(), &best);
}

#[test]
fn position_with_moves_then_go_depth_gives_info_and_a_legal_move() {
    let mut e = Engine::started_uci();
    e.send("ucinewgame");
    e.ready();
    e.send("position startpos moves e2e4 e7e5 g1f3");
    e.send("go depth 6");
    let (best, ponder, lines) = e.expect_bestmove(30 * SEC);
    let pos = position_after_in(STARTPOS_FEN, false, &["e2e4", "e7e5", "g1f3"]);
    assert_legal(&pos, &best);
    if let Some(reply) = ponder {
        assert_legal(&pos.after(pos.parse_coordinate(&best).unwrap()), &reply);
    }
    let infos = infos(&lines);
    assert_eq!(infos.last().map(|i| i.depth), Some(6), "{lines:?}");
    for info in &infos {
        assert!(info.seldepth >= 1 && info.nodes > 0, "{info:?}");
        assert!(info.score.starts_with("cp ") || info.score.starts_with("mate "));
        assert!(!info.pv.is_empty());
        assert_legal(&pos, &info.pv[0]);
    }
    assert_eq!(infos.last().unwrap().pv[0], best);
    let last = lines.iter().rev().find(|l| uci_info(l).is_some()).unwrap();
    for field in [" nps ", " hashfull ", " time "] {
        assert!(last.contains(field), "no{field}in {last}");
    }
}

#[test]
fn go_movetime_stops_in_time() {
    let mut e = Engine::started_uci();
    e.send("position startpos moves d2d4");
    let start = Instant::now();
    e.send("go movetime 500");
    let (best, _, lines) = e.expect_bestmove(20 * SEC);
    let wall = start.elapsed();
    assert_legal(&position_after_in(STARTPOS_FEN, false, &["d2d4"]), &best);
    // By the engine's own clock the last report is within the move time; the wall clock
    // is only loosely bound (the machine may be busy).
    let last = infos(&lines).last().cloned().expect("an info line");
    assert!(last.time <= 500, "{last:?}");
    assert!(wall < 5 * SEC, "{wall:?}");
    assert!(wall >= SEC / 10, "stopped far too early: {wall:?}");
}

#[test]
fn go_infinite_waits_for_stop_even_when_the_depth_is_reached() {
    let mut e = Engine::started_uci();
    e.send("position startpos");
    e.send("go infinite");
    e.expect_silence_of("bestmove", SEC);
    e.send("stop");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_legal(&Position::startpos(), &best);

    // A depth limit ends the search, not the waiting.
    e.send("go infinite depth 2");
    e.expect_silence_of("bestmove", SEC);
    e.send("stop");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_legal(&Position::startpos(), &best);

    // `stop` without a search says nothing.
    e.send("stop");
    let lines = e.ready();
    assert!(lines.is_empty(), "{lines:?}");
}

#[test]
fn go_ponder_then_ponderhit_becomes_a_timed_search() {
    let mut e = Engine::started_uci();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4 e7e5");
    e.send("go ponder wtime 3000 btime 3000 winc 0 binc 0");
    e.expect_silence_of("bestmove", SEC);
    let hit = Instant::now();
    e.send("ponderhit");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    // A share of a 3 s clock, not an endless search.
    assert!(hit.elapsed() < 3 * SEC, "{:?}", hit.elapsed());
    assert_legal(
        &position_after_in(STARTPOS_FEN, false, &["e2e4", "e7e5"]),
        &best,
    );
    assert!(e.ready().is_empty());
}

#[test]
fn go_ponder_then_stop_answers_at_once() {
    let mut e = Engine::started_uci();
    e.send("position startpos moves e2e4 c7c5");
    e.send("go ponder wtime 60000 btime 60000");
    e.expect_silence_of("bestmove", SEC);
    let stop = Instant::now();
    e.send("stop");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert!(stop.elapsed() < 2 * SEC);
    assert_legal(
        &position_after_in(STARTPOS_FEN, false, &["e2e4", "c7c5"]),
        &best,
    );
    // The ponder search that ends on its own (depth 1) still waits for the hit.
    e.send("go ponder depth 1 wtime 60000 btime 60000");
    e.expect_silence_of("bestmove", SEC);
    e.send("ponderhit");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_legal(
        &position_after_in(STARTPOS_FEN, false, &["e2e4", "c7c5"]),
        &best,
    );
}

#[test]
fn a_low_clock_game_never_runs_out() {
    let mut e = Engine::started_uci();
    e.send("ucinewgame");
    e.send("setoption name MoveOverhead value 30");
    e.ready();
    let mut moves: Vec<String> = Vec::new();
    let inc = 20u64;
    let mut clocks = [1500u64, 1500u64];
    let mut pos = Position::startpos();
    for ply in 0..60 {
        if !pos.has_legal_moves() {
            break;
        }
        let line = if moves.is_empty() {
            "position startpos".to_string()
        } else {
            format!("position startpos moves {}", moves.join(" "))
        };
        e.send(&line);
        let start = Instant::now();
        e.send(&format!(
            "go wtime {} btime {} winc {inc} binc {inc}",
            clocks[0], clocks[1]
        ));
        let (best, _, _) = e.expect_bestmove(10 * SEC);
        let used = start.elapsed().as_millis() as u64;
        let side = ply % 2;
        assert!(
            used < clocks[side],
            "ply {ply}: used {used} ms of {} ms",
            clocks[side]
        );
        clocks[side] = clocks[side] - used + inc;
        assert_legal(&pos, &best);
        pos = pos.after(pos.parse_coordinate(&best).unwrap());
        moves.push(best);
    }
    assert!(moves.len() >= 20, "{moves:?}");
}

#[test]
fn bad_input_gets_an_info_string_and_changes_nothing() {
    let mut e = Engine::started_uci();
    e.send("position startpos moves e2e4");
    e.ready();
    let vm_before = proc_status(e.pid(), "VmSize").expect("VmSize");
    e.allow_errors(true);
    for bad in [
        "frobnicate",
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name Threads value 1025",
        "setoption name MoveOverhead value -1",
        "setoption name MultiPV value 0",
        "setoption name MultiPV value 257",
        "setoption name MultiPV value three",
        "setoption name UCI_Chess960 value maybe",
        "setoption name No Such Option value 1",
    ] {
        e.send(bad);
        let lines = e.ready();
        let errors: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("info string"))
            .collect();
        assert_eq!(errors.len(), 1, "'{bad}' gave {lines:?}");
        assert_eq!(errors.len(), lines.len(), "'{bad}' gave {lines:?}");
    }
    e.allow_errors(false);
    // Still after 1. e4, Black to move, one thread, one line. (A refused `position` is
    // different: see `go_after_a_refused_position_answers_0000_until_a_good_one`; a
    // malformed `go` is answered: `every_malformed_go_gets_exactly_one_legal_bestmove`.)
    e.send("go depth 5");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    assert_legal(&position_after_in(STARTPOS_FEN, false, &["e2e4"]), &best);
    let infos = infos(&lines);
    assert!(
        !infos.is_empty() && infos.iter().all(|i| i.multipv == Some(1)),
        "{lines:?}"
    );
    // The 64 MB table was not resized (a 1 MB one would show here).
    let vm_after = proc_status(e.pid(), "VmSize").expect("VmSize");
    assert!(
        vm_after.abs_diff(vm_before) < 16 * 1024,
        "{vm_before} kB -> {vm_after} kB"
    );
}

#[test]
fn no_legal_move_gives_bestmove_0000() {
    let mut e = Engine::started_uci();
    // Fool's mate: White is mated.
    e.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    e.send("go depth 3");
    let (best, ponder, _) = e.expect_bestmove(5 * SEC);
    assert_eq!((best.as_str(), ponder), ("0000", None));
    // Stalemate, with a clock.
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go wtime 1000 btime 1000");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_eq!(best, "0000");
}

#[test]
fn chess960_castling_is_king_takes_rook() {
    let mut e = Engine::started_uci();
    e.send("setoption name UCI_Chess960 value true");
    // King on b1/b8, rooks on a and g: short castling is b1g1 (king takes rook).
    let fen = "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GAga - 0 1";
    e.send(&format!("position fen {fen} moves b1g1"));
    e.send("go depth 2 searchmoves b8g8");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_eq!(best, "b8g8");
    let pos = position_after_in(fen, true, &["b1g1"]);
    assert_legal(&pos, &best);
    // And a free search from the castled position plays legal moves.
    e.send(&format!("position fen {fen} moves b1g1 b8g8"));
    e.send("go depth 4");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_legal(&position_after_in(fen, true, &["b1g1", "b8g8"]), &best);
    // With UCI_Chess960 on, the standard array castles king-takes-rook too.
    e.send("position startpos moves e2e4 e7e5 g1f3 g8f6 f1c4 f8c5 e1h1");
    e.send("go depth 2 searchmoves e8h8");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_eq!(best, "e8h8");
    // Standard chess castles king-two-squares.
    e.send("setoption name UCI_Chess960 value false");
    e.send("position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6");
    e.send("go depth 2 searchmoves e1g1");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_eq!(best, "e1g1");
}

#[test]
fn threads_and_hash_options_take_effect() {
    let mut e = Engine::started_uci();
    let pid = e.pid();
    let vm = |e: &Engine| proc_status(e.pid(), "VmSize").expect("VmSize");
    let small = {
        e.send("setoption name Hash value 1");
        e.ready();
        vm(&e)
    };
    // Below the size that is faulted in by a background thread, which would be counted
    // among the threads below while it runs.
    e.send("setoption name Hash value 192");
    e.ready();
    let big = vm(&e);
    assert!(big >= small + 150 * 1024, "VmSize {small} kB -> {big} kB");

    let threads_searching = |e: &mut Engine| {
        e.send("position startpos");
        e.send("go infinite");
        std::thread::sleep(SEC / 2);
        let n = proc_status(pid, "Threads").expect("Threads");
        e.send("stop");
        e.expect_bestmove(5 * SEC);
        n
    };
    let one = threads_searching(&mut e);
    e.send("setoption name Threads value 3");
    e.ready();
    let three = threads_searching(&mut e);
    assert!(
        three >= one + 2,
        "threads while searching: {one} then {three}"
    );
}

/// Nodes of a fixed single-threaded search: the same with a clean table and history,
/// fewer with what an earlier search left.
fn nodes_at_depth(e: &mut Engine, depth: u32) -> u64 {
    e.send("position startpos moves e2e4 e7e5");
    e.send(&format!("go depth {depth}"));
    let (_, _, lines) = e.expect_bestmove(60 * SEC);
    infos(&lines).last().expect("info").nodes
}

#[test]
fn ucinewgame_and_clear_hash_forget_what_was_learned() {
    let mut e = Engine::started_uci();
    e.send("ucinewgame");
    let fresh = nodes_at_depth(&mut e, 9);
    let again = nodes_at_depth(&mut e, 9);
    assert!(
        again < fresh,
        "a warm table should help: {fresh} then {again}"
    );
    e.send("ucinewgame");
    assert_eq!(nodes_at_depth(&mut e, 9), fresh);
    nodes_at_depth(&mut e, 9);
    e.send("setoption name Clear Hash");
    assert_eq!(nodes_at_depth(&mut e, 9), fresh);
}

#[test]
fn a_command_that_is_not_uci_first_keeps_xboard() {
    let mut e = Engine::start();
    e.send("ping 7");
    e.expect_prefix("pong 7", 5 * SEC);
    // `uci` later is just an unknown command to the xboard driver.
    e.allow_errors(true);
    e.send("uci");
    e.expect_prefix("Error (unknown command): uci", 5 * SEC);
}

#[test]
fn move_overhead_is_an_option_in_both_protocols() {
    let mut e = Engine::started_uci();
    e.send("setoption name MoveOverhead value 5000");
    e.send("setoption name MoveOverhead value 0");
    assert!(e.ready().is_empty());

    let mut x = Engine::start();
    let features = x.handshake();
    assert!(
        features
            .iter()
            .any(|l| l == "feature option=\"MoveOverhead -spin 50 0 5000\""),
        "{features:?}"
    );
    x.send("option MoveOverhead=200");
    assert!(x.sync(1).is_empty());
    x.allow_errors(true);
    x.send("option MoveOverhead=5001");
    let lines = x.sync(2);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with("Error (MoveOverhead must be 0-5000 ms)"),
        "{lines:?}"
    );
}

/// The score of an info line in centipawns, mates far beyond any centipawn score.
fn score_value(info: &UciInfo) -> i64 {
    let (kind, n) = info.score.split_once(' ').unwrap();
    let n: i64 = n.parse().unwrap();
    match kind {
        "cp" => n,
        _ => n.signum() * 1_000_000 - n,
    }
}

#[test]
fn multi_pv_shows_the_best_lines_in_order_and_plays_the_first() {
    let mut e = Engine::started_uci();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos moves e2e4 e7e5 g1f3");
    e.send("go depth 6");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    let pos = position_after_in(STARTPOS_FEN, false, &["e2e4", "e7e5", "g1f3"]);
    let reports = infos(&lines);
    assert!(reports.iter().all(|i| i.multipv.is_some()), "{lines:?}");
    // The last depth ends with its three lines, best first.
    let last: Vec<&UciInfo> = reports[reports.len() - 3..].iter().collect();
    assert_eq!(
        last.iter()
            .map(|i| (i.multipv, i.depth))
            .collect::<Vec<_>>(),
        [(Some(1), 6), (Some(2), 6), (Some(3), 6)],
        "{lines:?}"
    );
    for info in &last {
        let mut at = pos;
        for m in &info.pv {
            assert_legal(&at, m);
            at = at.after(at.parse_coordinate(m).unwrap());
        }
    }
    let firsts: Vec<&str> = last.iter().map(|i| i.pv[0].as_str()).collect();
    assert!(
        firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2],
        "{lines:?}"
    );
    assert!(
        last.windows(2)
            .all(|w| score_value(w[0]) >= score_value(w[1])),
        "{lines:?}"
    );
    assert_eq!(best, firsts[0], "{lines:?}");

    // Back to one line.
    e.send("setoption name MultiPV value 1");
    e.send("go depth 5");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    let reports = infos(&lines);
    assert!(reports.iter().all(|i| i.multipv == Some(1)), "{lines:?}");
    assert_eq!(reports.last().unwrap().pv[0], best);

    // More lines than moves: one per legal move (the king has three).
    e.send("setoption name MultiPV value 5");
    e.send("position fen k7/8/8/8/8/8/8/7K w - - 0 1");
    e.send("go depth 3");
    let (_, _, lines) = e.expect_bestmove(30 * SEC);
    let reports = infos(&lines);
    let lines_shown: Vec<u32> = reports.iter().filter_map(|i| i.multipv).collect();
    assert_eq!(lines_shown.iter().max(), Some(&3), "{lines:?}");
}

/// A ponder hit keeps the ponder search: after `ponderhit` the iterations go on from the
/// depth reached (a fresh timed search would start again at depth 1), nodes and time never
/// go back, and at least one deeper iteration follows on the clock's share.
#[test]
fn ponderhit_continues_the_ponder_search() {
    let mut e = Engine::started_uci();
    e.send("setoption name Ponder value true");
    e.send("position startpos moves e2e4 e7e5 g1f3");
    e.send("go ponder wtime 60000 btime 60000 winc 0 binc 0");
    let mut before = Vec::new();
    while before.last().is_none_or(|i: &UciInfo| i.depth < 4) {
        let (line, _) = e.wait_for("ponder output", 30 * SEC, |l| uci_info(l).is_some());
        before.push(uci_info(&line).unwrap());
    }
    e.send("ponderhit");
    let (best, _, lines) = e.expect_bestmove(30 * SEC);
    let deepest = before.iter().map(|i| i.depth).max().unwrap();
    let last = before.last().unwrap().clone();
    let after = infos(&lines);
    assert!(!after.is_empty(), "nothing searched after the hit");
    for i in &after {
        // Lines printed between our last read and the hit belong to the ponder search and
        // obey the same rules.
        assert!(
            i.depth >= deepest,
            "depth {} after the hit, {deepest} before: {after:?}",
            i.depth
        );
        assert!(i.time >= last.time, "time went back: {last:?} then {i:?}");
        assert!(
            i.nodes >= last.nodes,
            "nodes went back: {last:?} then {i:?}"
        );
    }
    assert!(
        after.iter().any(|i| i.depth > deepest),
        "no deeper iteration after the hit (deepest before {deepest}): {after:?}"
    );
    let pos = position_after_in(STARTPOS_FEN, false, &["e2e4", "e7e5", "g1f3"]);
    assert_legal(&pos, &best);
    assert_eq!(after.last().unwrap().pv.first(), Some(&best));
}

/// `go nodes N` stops within one poll interval a thread of N (a node budget honoured only
/// at a multiple of N shows in the iterations' node counts).
#[test]
fn go_nodes_is_a_budget_of_nodes() {
    for threads in [1u64, 2] {
        let mut e = Engine::started_uci();
        e.send(&format!("setoption name Threads value {threads}"));
        for budget in [3_000u64, 20_000] {
            e.send("ucinewgame");
            e.send("position startpos moves d2d4 g8f6 c2c4");
            e.send(&format!("go nodes {budget}"));
            let (best, _, lines) = e.expect_bestmove(30 * SEC);
            let infos = infos(&lines);
            assert!(!infos.is_empty(), "nothing searched");
            for i in &infos {
                assert!(
                    i.nodes <= budget + threads * 1024,
                    "{threads} threads, go nodes {budget}: {i:?}"
                );
            }
            assert_legal(
                &position_after_in(STARTPOS_FEN, false, &["d2d4", "g8f6", "c2c4"]),
                &best,
            );
        }
    }
}

/// A legal game of `plies` plies from the start position, in UCI coordinates: the king's
/// knights go out and back, and every 35 plies a side pushes a pawn when its knight is home
/// (no captures; a pawn move well within every 50 moves while the pushes last), then the
/// knights alone. Returns the moves and the final position.
fn long_game(plies: usize) -> (Vec<String>, Position) {
    let pushes = |from: u8, to: u8| -> Vec<String> {
        let mid = (from + to) / 2;
        let mut list = Vec::new();
        for file in "abcdefgh".chars() {
            if file == 'f' {
                // In two steps the f-pawn would stand where the knight goes.
                list.push(format!("f{from}f{to}"));
            } else {
                list.push(format!("{file}{from}{file}{mid}"));
                list.push(format!("{file}{mid}{file}{to}"));
            }
        }
        list
    };
    let mut pawn_moves = [pushes(2, 4).into_iter(), pushes(7, 5).into_iter()];
    let knight = [["g1f3", "f3g1"], ["g8f6", "f6g8"]];
    let mut knight_out = [false, false];
    let mut push_due = [false, false];
    let mut pos = Position::startpos();
    let mut moves = Vec::with_capacity(plies);
    for ply in 0..plies {
        let side = ply % 2;
        if ply % 70 == side * 35 {
            push_due[side] = true;
        }
        let pawn = if push_due[side] && !knight_out[side] {
            push_due[side] = false;
            pawn_moves[side].next()
        } else {
            None
        };
        let text = pawn.unwrap_or_else(|| {
            let m = knight[side][usize::from(knight_out[side])];
            knight_out[side] = !knight_out[side];
            m.to_string()
        });
        let mv = pos
            .parse_coordinate(&text)
            .unwrap_or_else(|e| panic!("ply {ply}: {text} in {}: {e}", pos.to_fen()));
        assert!(pos.role_on(mv.to()).is_none(), "ply {ply}: {text} captures");
        pos.play(mv);
        moves.push(text);
    }
    (moves, pos)
}

#[test]
fn a_game_of_thousands_of_plies_is_taken_whole() {
    let mut e = Engine::started_uci();
    // 1,100 plies (about 5.5 KB, beyond the 4,096 characters of other commands), then
    // 6,000 (about 30 KB).
    for (plies, depth) in [(1100, 3), (6000, 2)] {
        let (moves, end) = long_game(plies);
        let line = format!("position startpos moves {}", moves.join(" "));
        assert!(
            line.len() > 4096 && line.len() > plies * 4,
            "{}",
            line.len()
        );
        e.send(&line);
        e.send(&format!("go depth {depth}"));
        let (best, _, lines) = e.expect_bestmove(30 * SEC);
        assert_legal(&end, &best);
        let infos = infos(&lines);
        assert_eq!(infos.last().map(|i| i.depth), Some(depth), "{lines:?}");
        for info in &infos {
            assert_legal(&end, &info.pv[0]);
        }
    }
}

#[test]
fn go_after_a_refused_position_answers_0000_until_a_good_one() {
    let mut e = Engine::started_uci();
    let after_e4 = position_after_in(STARTPOS_FEN, false, &["e2e4"]);
    let too_long = format!(
        "position startpos moves {}",
        "g1f3 g8f6 f3g1 f6g8 ".repeat(7000)
    );
    let refused = [
        "position fen not/a/fen w - - 0 1".to_string(),
        "position startpos moves e7e5".to_string(),
        "position startpos moves e2e4 e7e5 e1e3".to_string(),
        "position nowhere".to_string(),
        "position fen".to_string(),
        too_long,
    ];
    for bad in &refused {
        e.send("position startpos moves e2e4");
        e.send("go depth 1");
        let (best, _, _) = e.expect_bestmove(10 * SEC);
        assert_legal(&after_e4, &best);
        e.allow_errors(true);
        e.send(bad);
        let lines = e.ready();
        assert!(
            lines.len() == 1 && lines[0].starts_with("info string error: "),
            "{}: {lines:?}",
            &bad[..bad.len().min(60)]
        );
        // Twice: it stays so until a good position.
        for _ in 0..2 {
            e.send("go depth 3");
            let (best, ponder, before) = e.expect_bestmove(10 * SEC);
            assert_eq!((best.as_str(), ponder), ("0000", None), "{before:?}");
            assert_eq!(
                before,
                ["info string error: no valid position to search (the last position command was refused)"]
            );
        }
        e.allow_errors(false);
    }
    // `go infinite` still waits for `stop`, and then has nothing to play.
    e.allow_errors(true);
    e.send("go infinite");
    e.expect_silence_of("bestmove", SEC / 2);
    e.send("stop");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_eq!(best, "0000");
    e.allow_errors(false);
    // Refused while a search runs (even one that does not parse): that search is answered,
    // then `go` has no position.
    e.send("position startpos moves e2e4");
    e.send("go infinite");
    e.expect_silence_of("bestmove", SEC / 4);
    e.allow_errors(true);
    e.send("position nowhere");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_legal(&after_e4, &best);
    e.send("go depth 2");
    let (best, _, before) = e.expect_bestmove(5 * SEC);
    assert_eq!(best, "0000", "{before:?}");
    e.allow_errors(false);
    // ucinewgame is a good position too: the start position.
    e.send("ucinewgame");
    e.send("go depth 2");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_legal(&Position::startpos(), &best);
}

#[test]
fn every_malformed_go_gets_exactly_one_legal_bestmove() {
    let mut e = Engine::started_uci();
    let pos = position_after_in(STARTPOS_FEN, false, &["e2e4"]);
    let overlong = format!("go {}", "depth 3 ".repeat(1000));
    for (go, errors) in [
        ("go depth -1", 1),
        ("go depth abc", 1),
        ("go foo", 1),
        ("go wtime 1000.5 btime 1000.5", 2),
        ("go movestogo -1", 1),
        ("go nodes -5", 1),
        ("GO depth 3", 0),
        ("go depth 3 foo", 1),
        ("go nodes -5 depth 2", 1),
        // A negative move time is refused (leaving no limit: the short fallback search).
        ("go movetime -100", 1),
        // White's clock only, Black to move: no limit for the side to move.
        ("go wtime 1000 winc 10", 1),
        ("go searchmoves e7e5 zz", 1),
        (overlong.as_str(), 1),
    ] {
        e.send("position startpos moves e2e4");
        e.allow_errors(true);
        let sent = Instant::now();
        e.send(go);
        let (best, _, before) = e.expect_bestmove(10 * SEC);
        let took = sent.elapsed();
        assert_legal(&pos, &best);
        let shown = &go[..go.len().min(40)];
        let error_lines = before
            .iter()
            .filter(|l| l.starts_with("info string error: "))
            .count();
        assert_eq!(error_lines, errors, "{shown}: {before:?}");
        // It searched: at least depth 1 (not the first move of a list).
        assert!(!infos(&before).is_empty(), "{shown}: {before:?}");
        // A later stop (and anything after) gets no second bestmove.
        e.send("stop");
        let after = e.ready();
        assert!(
            after.iter().all(|l| !l.starts_with("bestmove")),
            "{shown}: {after:?}"
        );
        e.allow_errors(false);
        // Only a loose bound: the fallback is a short search, not an endless one.
        assert!(took < 8 * SEC, "{shown}: {took:?}");
    }
}

#[test]
fn check_options_take_any_case() {
    let mut e = Engine::started_uci();
    for value in ["TRUE", "True", "true"] {
        e.send(&format!("setoption name UCI_Chess960 value {value}"));
        e.send(&format!("setoption name Ponder value {value}"));
        e.send(&format!("setoption name OwnBook value {value}"));
        assert!(e.ready().is_empty(), "{value}");
        // Chess960 is on: the standard array castles king takes rook.
        e.send("position startpos moves e2e4 e7e5 g1f3 g8f6 f1c4 f8c5");
        e.send("go depth 2 searchmoves e1h1");
        let (best, _, _) = e.expect_bestmove(10 * SEC);
        assert_eq!(best, "e1h1", "{value}");
        e.send("setoption name UCI_Chess960 value FALSE");
        assert!(e.ready().is_empty());
        e.send("position startpos moves e2e4 e7e5 g1f3 g8f6 f1c4 f8c5");
        e.send("go depth 2 searchmoves e1g1");
        let (best, _, _) = e.expect_bestmove(10 * SEC);
        assert_eq!(best, "e1g1", "{value}");
    }
    e.allow_errors(true);
    e.send("setoption name UCI_Chess960 value yes");
    let lines = e.ready();
    assert!(
        lines.len() == 1 && lines[0].contains("UCI_Chess960 must be true or false"),
        "{lines:?}"
    );
}

#[test]
fn a_shredder_fen_castles_king_two_squares_without_chess960() {
    let mut e = Engine::started_uci();
    // The start position with its rooks named by file (as some GUIs write every FEN).
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1";
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"];
    e.send(&format!("position fen {start} moves {}", moves.join(" ")));
    e.send("go depth 2 searchmoves e1g1");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_eq!(best, "e1g1");
    // Castled as the GUI writes it, both sides, then a free search.
    e.send(&format!(
        "position fen {start} moves {} e1g1 f8c5",
        moves.join(" ")
    ));
    e.send("go depth 3");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    let mut played: Vec<&str> = moves.to_vec();
    played.extend(["e1g1", "f8c5"]);
    assert_legal(&position_after_in(start, false, &played), &best);
    // Both wings, and Black.
    let both = "r3k2r/pppq1ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPPQ1PPP/R3K2R b HAha - 0 8";
    for (castle, written) in [("e8g8", "e8g8"), ("e8c8", "e8c8"), ("e8h8", "e8g8")] {
        e.send(&format!("position fen {both}"));
        e.send(&format!("go depth 2 searchmoves {castle}"));
        let (best, _, _) = e.expect_bestmove(10 * SEC);
        assert_eq!(best, written, "{castle}");
    }
    // With UCI_Chess960 on, the same FEN castles king takes rook.
    e.send("setoption name UCI_Chess960 value true");
    e.send(&format!("position fen {both}"));
    e.send("go depth 2 searchmoves e8g8");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_eq!(best, "e8h8");
    // A real Chess960 array (king on b1) with UCI_Chess960 off: king takes rook is the
    // only way to say which castling is meant. (Queenside: king to c1 would be the
    // two-square form; on the king side b1g1 reads the same both ways.)
    e.send("setoption name UCI_Chess960 value false");
    let fen = "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GAga - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go depth 2 searchmoves b1a1");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert_eq!(best, "b1a1");
}

#[test]
fn a_spin_value_out_of_range_keeps_the_value_set_before() {
    let mut e = Engine::started_uci();
    e.send("setoption name MultiPV value 3");
    e.allow_errors(true);
    for bad in ["0", "257", "-1", "three"] {
        e.send(&format!("setoption name MultiPV value {bad}"));
        let lines = e.ready();
        assert!(
            lines.len() == 1 && lines[0].starts_with("info string error: MultiPV must be"),
            "{bad}: {lines:?}"
        );
    }
    e.allow_errors(false);
    e.send("position startpos");
    e.send("go depth 3");
    let (_, _, lines) = e.expect_bestmove(20 * SEC);
    let shown: Vec<u32> = infos(&lines)
        .iter()
        .filter(|i| i.depth == 3)
        .filter_map(|i| i.multipv)
        .collect();
    // A new best move found during the iteration is shown as line 1 before the full set.
    assert!(shown.iter().all(|l| (1..=3).contains(l)), "{lines:?}");
    assert_eq!(
        shown[shown.len().saturating_sub(3)..],
        [1, 2, 3],
        "{lines:?}"
    );
}

/// A position with no legal move gets a line that says why (mated: `mate 0`; stalemate:
/// `cp 0`) and `bestmove 0000`, in analysis after `stop` as always.
#[test]
fn a_finished_game_is_reported_as_mate_or_stalemate() {
    let mut e = Engine::started_uci();
    e.send("position fen rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    e.send("go infinite");
    e.wait_for("mate line", 5 * SEC, |l| l == "info depth 0 score mate 0");
    e.send("stop");
    let (best, _, _) = e.expect_bestmove(5 * SEC);
    assert_eq!(best, "0000");
    e.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    e.send("go depth 3");
    let (best, _, lines) = e.expect_bestmove(5 * SEC);
    assert_eq!(best, "0000");
    assert!(
        lines.iter().any(|l| l == "info depth 0 score cp 0"),
        "{lines:?}"
    );
}

/// `go mate N` searches 2N plies at full width (no pruning or reduction judged by the
/// evaluation) and stops once a mate is proven. WAC 1's Qg6 is a queen sacrifice that mates
/// in 2: a net that dislikes it must not hide it from a mate search.
#[test]
fn mate_searches_find_every_mate_within_their_depth() {
    let fen = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1";
    let mut e = Engine::started_uci();
    for (go, last_depth) in [("go mate 2", 4), ("go mate 3", 6), ("go mate 5", 6)] {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send(go);
        let (best, _, lines) = e.expect_bestmove(30 * SEC);
        let infos = infos(&lines);
        let last = infos.last().unwrap_or_else(|| panic!("{go}: no info"));
        assert_eq!(best, "g3g6", "{go}");
        assert_eq!(last.score, "mate 2", "{go}: {last:?}");
        // It stops two plies past the mate in 2, or at 2N plies if that comes first.
        assert_eq!(last.depth, last_depth, "{go}: {infos:?}");
    }
}

/// A timed search stops once a mate is proven (two plies past its length); a search to a
/// given depth goes on to that depth. (Two rooks mate in 2: Rb7, then Ra8.)
#[test]
fn timed_searches_stop_once_a_mate_is_proven() {
    let fen = "7k/8/8/8/8/8/R7/1R4K1 w - - 0 1";
    let mut e = Engine::started_uci();
    for (go, last_depth) in [("go wtime 60000 btime 60000", 6), ("go depth 8", 8)] {
        e.send("ucinewgame");
        e.send(&format!("position fen {fen}"));
        e.send(go);
        let (_, _, lines) = e.expect_bestmove(30 * SEC);
        let infos = infos(&lines);
        let last = infos.last().unwrap_or_else(|| panic!("{go}: no info"));
        assert_eq!(last.score, "mate 2", "{go}: {last:?}");
        assert_eq!(last.depth, last_depth, "{go}: {infos:?}");
    }
}

/// A long search names the root move it is on (`currmove`, `currmovenumber`), for a GUI's
/// progress display, but only after its first second: before that the lines would only
/// flood the GUI.
#[test]
fn currmove_lines_come_after_the_first_second() {
    let mut e = Engine::started_uci();
    e.send("position startpos");
    e.ready();
    let start = Instant::now();
    e.send("go movetime 2500");
    let legal: Vec<String> = Position::startpos()
        .legal_moves()
        .iter()
        .map(|&m| Position::startpos().coordinate(m))
        .collect();
    let mut currmoves = 0;
    loop {
        let line = e
            .next_line(Duration::from_secs(10))
            .expect("no bestmove after go movetime 2500");
        if line.starts_with("bestmove") {
            break;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(at) = words.iter().position(|&w| w == "currmove") else {
            continue;
        };
        let arrived = start.elapsed();
        assert!(
            arrived >= Duration::from_millis(900),
            "{line} after {arrived:?}"
        );
        assert_eq!(words[..2], ["info", "depth"], "{line}");
        assert!(words[2].parse::<u32>().unwrap() >= 1, "{line}");
        assert!(legal.contains(&words[at + 1].to_string()), "{line}");
        assert_eq!(words[at + 2], "currmovenumber", "{line}");
        let number: usize = words[at + 3].parse().unwrap();
        assert!((1..=legal.len()).contains(&number), "{line}");
        currmoves += 1;
    }
    assert!(currmoves > 0, "no currmove line in 2.5 s");
}

/// `UCI_ShowWDL` (off by default): every `info` line with a score carries `wdl W D L`, per
/// mille, summing to 1000; a mate is certain.
#[test]
fn show_wdl_puts_the_chances_on_every_scored_line() {
    let mut e = Engine::started_uci();
    e.send("position startpos");
    e.send("go depth 5");
    let (_, _, lines) = e.expect_bestmove(10 * SEC);
    assert!(lines.iter().all(|l| !l.contains(" wdl ")), "{lines:?}");

    e.send("setoption name UCI_ShowWDL value true");
    e.send("go depth 5");
    let (_, _, lines) = e.expect_bestmove(10 * SEC);
    let scored: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
    assert!(!scored.is_empty());
    for line in scored {
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = words
            .iter()
            .position(|&w| w == "wdl")
            .unwrap_or_else(|| panic!("{line}"));
        let wdl: Vec<u32> = words[at + 1..at + 4]
            .iter()
            .map(|w| w.parse().unwrap())
            .collect();
        assert_eq!(wdl.iter().sum::<u32>(), 1000, "{line}");
    }

    e.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    e.send("go depth 4");
    let (best, _, lines) = e.expect_bestmove(10 * SEC);
    assert_eq!(best, "d1d8");
    let last = lines.iter().rfind(|l| l.contains(" score ")).unwrap();
    assert!(last.contains("score mate 1 wdl 1000 0 0"), "{last}");
}
