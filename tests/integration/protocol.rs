//! Black-box protocol sessions with the real binary: handshake, games the way cutechess-cli
//! drives them, force/undo/remove/setboard, analysis, pondering, `?`, `ping` ordering, time
//! limits and every kind of bad input. Timing bounds are generous; the rest is exact.

use crate::common::{self, *};

use common::{is_thinking, thinking, Engine, Thinking};
use kestrel::chess::Position;
use kestrel::game::Game;
use std::time::{Duration, Instant};

#[test]
fn handshake_declares_the_features_in_one_go() {
    let mut e = Engine::start();
    let features = e.handshake();
    let all = features.join(" ");
    for f in [
        "ping=1",
        "setboard=1",
        "usermove=1",
        "time=1",
        "draw=1",
        "sigint=0",
        "sigterm=0",
        "reuse=1",
        "analyze=1",
        "colors=0",
        "playother=1",
        "name=1",
        "myname=\"Kestrel",
        "nps=1",
        "memory=1",
        "smp=1",
        "debug=1",
        "exclude=1",
        "setscore=1",
        "pause=1",
        "variants=\"normal,fischerandom\"",
        "option=\"ResignThreshold",
        "option=\"MultiPV -spin 1 1 256\"",
    ] {
        assert!(all.contains(f), "feature {f} missing in {all}");
    }
    // Only feature lines, no chatter, and no empty quoted values (cutechess skips them).
    assert!(
        features.iter().all(|l| l.starts_with("feature ")),
        "{features:?}"
    );
    assert!(!all.contains("=\"\""));
    assert_eq!(e.sync(1), Vec::<String>::new());
}

/// Plays one game between two engine processes the way cutechess-cli does: `ping` before
/// every move, `time`/`otim`, then `usermove` (or `go` for the first move). Returns the
/// number of plies played. Every move is checked for legality here.
fn cutechess_game(engines: &mut [Engine; 2], max_plies: usize, ping: &mut u32) -> usize {
    let mut game = Game::default();
    for e in engines.iter_mut() {
        e.send("new");
        e.send("force");
        e.send("level 0 0:04 0.05");
        e.send("post");
        e.send("easy");
    }
    let mut clocks = [Duration::from_secs(4); 2];
    let mut started = [false; 2];
    let mut last_move: Option<String> = None;
    let mut plies = 0;
    while plies < max_plies && game.outcome().is_none() {
        let side = plies % 2;
        let e = &mut engines[side];
        *ping += 1;
        // Since this engine's last move: nothing but thinking output (no claim, error or
        // second move); the game is not over yet.
        let between = e.sync(*ping);
        assert!(between.iter().all(|l| is_thinking(l)), "{between:?}");
        e.send(&format!(
            "time {}\notim {}",
            clocks[side].as_millis() / 10,
            clocks[1 - side].as_millis() / 10
        ));
        let start = Instant::now();
        if let Some(m) = &last_move {
            e.send(&format!("usermove {m}"));
        }
        if !started[side] {
            e.send("go");
            started[side] = true;
        }
        let (line, before) = e.wait_for("move", 15 * SEC, |l| l.starts_with("move "));
        let used = start.elapsed();
        assert!(
            !before
                .iter()
                .any(|l| l.starts_with("Illegal") || l.starts_with("Error")),
            "{before:?}"
        );
        let text = line["move ".len()..].to_string();
        let mv = game
            .position()
            .parse_move(&text)
            .unwrap_or_else(|err| panic!("engine played illegal {text}: {err}"));
        game.play(mv);
        assert!(
            used < clocks[side],
            "move took {used:?} with {:?} left",
            clocks[side]
        );
        clocks[side] = clocks[side] - used + Duration::from_millis(50);
        last_move = Some(text);
        plies += 1;
    }
    // Game end as cutechess does it: force, the last move, result, ping.
    let outcome = game.outcome().map(|o| o.to_string());
    let result = outcome
        .clone()
        .unwrap_or_else(|| "1/2-1/2 {Adjudication}".into());
    let last_mover = (plies + 1) % 2;
    for (i, e) in engines.iter_mut().enumerate() {
        e.send("force");
        if i != last_mover {
            e.send(&format!("usermove {}", last_move.as_ref().unwrap()));
        }
        e.send(&format!("result {result}"));
        *ping += 1;
        let between: Vec<String> = e
            .sync(*ping)
            .into_iter()
            .filter(|l| !is_thinking(l))
            .collect();
        // The engine whose move ended the game claims the result the board shows; nothing
        // else comes from either engine (no move after `force`).
        let expected: Vec<String> = match &outcome {
            Some(o) if i == last_mover => vec![o.clone()],
            _ => Vec::new(),
        };
        assert_eq!(between, expected, "engine {i} at the end of the game");
    }
    plies
}

#[test]
fn two_games_against_itself_like_cutechess() {
    let mut engines = [Engine::started(), Engine::started()];
    let mut ping = 0;
    let first = cutechess_game(&mut engines, 40, &mut ping);
    assert!(first >= 10, "first game only {first} plies");
    // A second game in the same processes, after `new`.
    let second = cutechess_game(&mut engines, 16, &mut ping);
    assert!(second > 0);
    for e in engines.iter_mut() {
        e.send("quit");
        assert!(e.wait_exit(5 * SEC), "quit did not end the engine");
    }
}

#[test]
fn force_undo_remove_and_setboard_keep_exact_state() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("e2e4");
    e.send("e7e5");
    e.send("undo");
    // Black is to move again: e7e5 is legal, a white move is not.
    e.send("d2d4");
    e.expect_prefix("Illegal move", 5 * SEC);
    e.send("c7c5");
    e.send("g1f3");
    e.send("remove");
    // Two plies back: Black to move after 1. e4.
    e.send("g1f3");
    e.expect_prefix("Illegal move", 5 * SEC);
    e.send("e7e6");
    assert_eq!(e.sync(1), Vec::<String>::new());

    e.send("setboard 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    e.send("e2e4");
    e.send("e8d7");
    e.send("undo");
    e.send("undo");
    e.send("undo");
    e.expect_prefix("Error (no move to undo)", 5 * SEC);
    // The start of the set-up position: e2e4 legal again.
    e.send("e2e4");
    assert_eq!(e.sync(2), Vec::<String>::new());
}

#[test]
fn engine_moves_for_the_side_it_plays_and_claims_mate() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    // White to mate in one: Qxf7#.
    e.send("setboard r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4");
    e.send("sd 4");
    e.send("go");
    let (mv, after) = e.expect_move_and_after(20 * SEC);
    assert_eq!(mv, "h5f7");
    assert_eq!(after, ["1-0 {White mates}"]);
}

/// `stat01`'s moves left is exact: with the root narrowed to one move by `exclude all` and
/// `include`, none is left after it; with two, at most one.
#[test]
fn stat_counts_the_root_moves_left_exactly() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("analyze");
    e.send("exclude all");
    e.send("include e2e4");
    let stat = |e: &mut Engine| -> (u32, u32, String) {
        std::thread::sleep(Duration::from_millis(150));
        e.send(".");
        let (stat, _) = e.wait_for("stat01", 5 * SEC, |l| l.starts_with("stat01:"));
        let f: Vec<&str> = stat.split_whitespace().collect();
        assert_eq!(f.len(), 7, "{stat}");
        (
            f[4].parse().unwrap(),
            f[5].parse().unwrap(),
            f[6].to_string(),
        )
    };
    for _ in 0..3 {
        assert_eq!(stat(&mut e), (0, 1, "e2e4".to_string()));
    }
    e.send("include d2d4");
    for _ in 0..3 {
        let (left, total, name) = stat(&mut e);
        assert_eq!(total, 2, "{name}");
        assert!(left <= 1, "{left} left of {total} at {name}");
        assert!(["e2e4", "d2d4"].contains(&name.as_str()), "{name}");
    }
    e.send("exit");
}

#[test]
fn analysis_posts_answers_stat_and_honours_exclude() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    let started = Instant::now();
    e.send("analyze");
    let first = e.expect_prefix("1 ", 5 * SEC);
    // `stat01: time nodes ply mvleft mvtot mvname`, twice, checked against the thinking
    // output around it: the same search, moving on.
    let mut seen: Vec<Thinking> = vec![thinking(&first).unwrap()];
    let mut previous: Option<(u64, u64)> = None;
    for _ in 0..2 {
        e.send(".");
        let (stat, before) = e.wait_for("stat01", 5 * SEC, |l| l.starts_with("stat01:"));
        seen.extend(before.iter().filter_map(|l| thinking(l)));
        let f: Vec<&str> = stat.split_whitespace().collect();
        assert_eq!(f.len(), 7, "{stat}");
        let num = |i: usize| -> u64 { f[i].parse().unwrap_or_else(|_| panic!("{stat}")) };
        let (centis, nodes, ply, left, total) = (num(1), num(2), num(3), num(4), num(5));
        // 20 legal moves at the start; the one being searched is one of them.
        assert_eq!(total, 20, "{stat}");
        assert!(left < total, "{stat}");
        assert!(Position::startpos().parse_move(f[6]).is_ok(), "{stat}");
        // The iteration printed last, or the next one.
        let last = seen.last().expect("thinking output before stat01");
        let deepest = seen.iter().map(|t| t.depth as u64).max().unwrap();
        assert!(
            ply == deepest || ply == deepest + 1,
            "{stat} after {last:?}"
        );
        assert!(
            nodes >= last.nodes && centis >= last.centis,
            "{stat} after {last:?}"
        );
        // Centiseconds of the search, which began after `analyze` was sent.
        let wall = started.elapsed().as_millis() as u64 / 10;
        assert!(
            centis <= wall + 1,
            "{stat}: {centis} cs, but only {wall} cs passed"
        );
        if let Some((c, n)) = previous {
            assert!(nodes > n && centis >= c, "{stat}: analysis did not go on");
        }
        previous = Some((centis, nodes));
        std::thread::sleep(Duration::from_millis(100));
    }
    // ping during analysis: answered at once, and the analysis goes on.
    let t = Instant::now();
    e.send("ping 7");
    // Bounded against "not until the analysis ends" (never), generously for a busy machine.
    e.expect_prefix("pong 7", 10 * SEC);
    assert!(t.elapsed() < 10 * SEC);
    e.wait_for("more thinking", 10 * SEC, |l| {
        l.split_whitespace()
            .next()
            .is_some_and(|w| w.parse::<u32>().is_ok())
    });
    // Only d2d4 left: every PV from now on starts with it.
    e.send("exclude all");
    e.send("include d2d4");
    e.sync(8);
    let mut seen = 0;
    while seen < 3 {
        let line = e.next_line(10 * SEC).expect("thinking output");
        if let Some((_, pv)) = line.split_once('\t') {
            assert!(pv.starts_with("d2d4"), "{line}");
            seen += 1;
        }
    }
    // A move in analysis mode is played and analysis continues on the new position.
    e.send("d2d4");
    e.send("exit");
    assert!(!e.sync(9).iter().any(|l| l.starts_with("move ")));
    e.expect_silence(Duration::from_millis(500));
}

/// A legal move in `pos`, from its text.
fn parse(pos: &Position, text: &str) -> kestrel::chess::Move {
    pos.parse_move(text)
        .unwrap_or_else(|e| panic!("{text} is not legal in {}: {e}", pos.to_fen()))
}

/// Whether every move of `pv` is legal in turn from `pos`.
fn pv_is_legal(pos: &Position, pv: &[String]) -> bool {
    let mut pos = *pos;
    for m in pv {
        match pos.parse_move(m) {
            Ok(m) => pos = pos.after(m),
            Err(_) => return false,
        }
    }
    true
}

/// What `ponder_setup` leaves behind: the engine (Black, pondering, `post` on) has answered
/// 1. e4 and ponders on its hint.
struct Pondering {
    /// The position after 1. e4 and the engine's reply: White (the test) to move.
    game: Game,
    hint: String,
    /// The ponder search's thinking lines, in order, up to one of at least `min_depth`.
    lines: Vec<Thinking>,
}

/// The engine plays Black with pondering and thinking output on, 60 s on each clock and no
/// move count (about 2 s a move); returns once the ponder search has printed a line of at
/// least `min_depth` plies.
fn ponder_setup(e: &mut Engine, min_depth: u32) -> Pondering {
    e.send("new");
    e.send("hard");
    e.send("post");
    e.send("level 0 1 0");
    e.send("time 6000");
    e.send("otim 6000");
    e.send("usermove e2e4");
    let reply = e.expect_prefix("move ", 30 * SEC)["move ".len()..].to_string();
    let mut game = Game::default();
    game.play(parse(game.position(), "e2e4"));
    game.play(parse(game.position(), &reply));
    // The hint is the move the engine now ponders on; asking does not stop pondering.
    e.send("hint");
    let (hint, before) = e.wait_for("hint", 5 * SEC, |l| l.starts_with("Hint: "));
    let hint = hint["Hint: ".len()..].to_string();
    let after_hint = game.position().after(parse(game.position(), &hint));
    let mut lines = Vec::new();
    for l in before {
        lines.push(thinking(&l).unwrap_or_else(|| panic!("after the move: {l}")));
    }
    while lines.last().is_none_or(|t: &Thinking| t.depth < min_depth) {
        let (l, _) = e.wait_for("ponder output", 30 * SEC, is_thinking);
        lines.push(thinking(&l).unwrap());
    }
    // Pondering on the hint: every PV is a line from the position after it.
    for t in &lines {
        assert!(pv_is_legal(&after_hint, &t.pv), "ponder PV {t:?}");
    }
    Pondering { game, hint, lines }
}

/// A ponder hit keeps the ponder search: the search goes on from the depth and the time it
/// had reached (thinking output before and after the hit), instead of starting again at
/// depth 1 with a fresh clock. And `ping` is answered while pondering.
#[test]
fn ponder_hit_continues_the_ponder_search() {
    let mut e = Engine::started();
    let Pondering {
        mut game,
        hint,
        mut lines,
    } = ponder_setup(&mut e, 4);
    // Pondering is searching on the opponent's time: a ping is answered at once (bounded
    // only against "not until pondering ends", which would be never).
    e.send("ping 3");
    let (_, before) = e.wait_for("pong 3", 10 * SEC, |l| l == "pong 3");
    lines.extend(
        before
            .iter()
            .map(|l| thinking(l).expect("only thinking output")),
    );
    let deepest = lines.iter().map(|t| t.depth).max().unwrap();
    let last = lines.last().unwrap().clone();
    e.send("time 5900");
    e.send("otim 5900");
    e.send(&format!("usermove {hint}"));
    // The hard limit from the hit is 4 x the ~2 s target; far more than enough.
    let (line, between) = e.wait_for("move", 30 * SEC, |l| l.starts_with("move "));
    let after: Vec<Thinking> = between
        .iter()
        .map(|l| thinking(l).unwrap_or_else(|| panic!("unexpected {l}")))
        .collect();
    game.play(parse(game.position(), &hint));
    let mv = line["move ".len()..].to_string();
    parse(game.position(), &mv);
    // One search, before and after the hit: depths never go back (a restart would print
    // depth 1 again), the time since its start never goes back, and the PVs stay lines from
    // the position after the hint, which is now the real one.
    for t in &after {
        assert!(
            t.depth >= deepest,
            "depth {} after the hit, {deepest} before: {after:?}",
            t.depth
        );
        assert!(
            t.centis >= last.centis,
            "clock went back: {last:?} then {t:?}"
        );
        assert!(
            t.nodes >= last.nodes,
            "node count went back: {last:?} then {t:?}"
        );
        assert!(pv_is_legal(game.position(), &t.pv), "{t:?}");
    }
    // About 2 s per move and the hit came early: the search went on after it.
    assert!(
        after.iter().any(|t| t.depth > deepest),
        "no deeper iteration after the hit (deepest before {deepest}): {after:?}"
    );
    // After the move: nothing but the next ponder search's output.
    let rest = e.sync(4);
    assert!(rest.iter().all(|l| is_thinking(l)), "{rest:?}");
}

/// A ponder miss: the engine plays on the move that was really made (read back with `fen`)
/// and its reply comes from a fresh search of the real position.
#[test]
fn ponder_miss_searches_the_real_position() {
    let mut e = Engine::started();
    let Pondering {
        mut game,
        hint,
        lines,
    } = ponder_setup(&mut e, 4);
    let pos = *game.position();
    // Some other legal move (the first in a fixed order that is not the hint).
    let other = pos
        .legal_moves()
        .iter()
        .map(|&m| pos.coordinate(m))
        .find(|m| *m != hint)
        .unwrap();
    e.sync(3);
    e.send("time 5900");
    e.send("otim 5900");
    e.send(&format!("usermove {other}"));
    let (line, between) = e.wait_for("move", 30 * SEC, |l| l.starts_with("move "));
    game.play(parse(&pos, &other));
    let real = *game.position();
    let mv = line["move ".len()..].to_string();
    game.play(parse(&real, &mv));
    let after: Vec<Thinking> = between
        .iter()
        .map(|l| thinking(l).unwrap_or_else(|| panic!("unexpected {l}")))
        .collect();
    // Ponder lines (depth >= 4 by now) may still come first; the search the move came
    // from starts at depth 1 after them, and all its PVs are lines of the real position.
    let start = after.iter().rposition(|t| t.depth == 1).unwrap_or_else(|| {
        panic!("no fresh search after the miss (ponder lines {lines:?}); after: {after:?}")
    });
    for t in &after[start..] {
        assert!(
            pv_is_legal(&real, &t.pv),
            "PV {t:?} not from {}",
            real.to_fen()
        );
    }
    // The move played is that search's own result: the best move it last reported.
    let reported = after[start..].last().unwrap();
    assert_eq!(
        reported.pv.first(),
        Some(&mv),
        "played {mv}, the fresh search reported {reported:?}"
    );
    // The engine's board is the real game: its reply is played on the position after the
    // move that was made, not after the hint.
    assert_eq!(e.fen(), game.position().to_fen());
}

#[test]
fn question_mark_moves_at_once_and_ping_waits_for_the_move() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("st 60");
    e.send("go");
    std::thread::sleep(Duration::from_millis(300));
    // A ping while the engine thinks on its own move is answered after the move.
    e.send("ping 5");
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    e.send("?");
    let (line, _) = e.wait_for("move", 3 * SEC, |l| {
        l.starts_with("move ") || l.starts_with("pong")
    });
    assert!(
        line.starts_with("move "),
        "pong came before the move: {line}"
    );
    // Generous for a loaded machine; without `?` the move would take up to 60 s.
    assert!(t.elapsed() < 10 * SEC, "took {:?} after ?", t.elapsed());
    e.expect_prefix("pong 5", 5 * SEC);
}

/// The engine's own transcript: (seconds since its start, '<' or '>', the line).
fn read_log(path: &std::path::Path) -> Vec<(f64, char, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|l| {
            let mut parts = l.trim_start().splitn(3, ' ');
            let t: f64 = parts.next().unwrap().parse().unwrap();
            let dir = parts.next().unwrap().chars().next().unwrap();
            (t, dir, parts.next().unwrap_or("").to_string())
        })
        .collect()
}

/// `st 1`: the search takes most of the second and never more. Timed by the engine's own
/// transcript (from reading `go` to writing the move), so a slow test thread on a loaded
/// machine cannot make it fail; the test's wall clock only checks the order of magnitude.
#[test]
fn st_1_uses_most_of_the_second_and_no_more() {
    let log = std::env::temp_dir().join(format!("kestrel-st1-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let mut e = Engine::start_with_args(&["--log", log.to_str().unwrap()]);
    e.handshake();
    e.send("new");
    e.send("force");
    e.send("st 1");
    let t = Instant::now();
    e.send("go");
    let mv = e.expect_move(30 * SEC);
    let wall = t.elapsed();
    assert!(Position::startpos().parse_move(&mv).is_ok());
    e.send("quit");
    assert!(e.wait_exit(5 * SEC));
    let lines = read_log(&log);
    let _ = std::fs::remove_file(&log);
    let when = |dir: char, text: &str| {
        lines
            .iter()
            .find(|(_, d, l)| *d == dir && l == text)
            .unwrap_or_else(|| panic!("no {dir} {text} in the transcript"))
            .0
    };
    let used = when('>', &format!("move {mv}")) - when('<', "go");
    // No new iteration after 0.6 of the (margin-reduced) limit, hard stop at 0.95 s: the
    // lower bound holds on any machine; the upper one leaves 0.5 s for a descheduled
    // search thread and would still catch the default 40-moves-in-5-minutes pace (7.5 s).
    assert!(used > 0.5, "suspiciously fast: {used:.3} s");
    assert!(used < 1.5, "took {used:.3} s by the engine's own clock");
    assert!(wall < 10 * SEC, "took {wall:?} from the test's side");
}

#[test]
fn every_kind_of_bad_input_gets_a_clear_reply_and_changes_nothing() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("e2e4");

    let cases: &[(&str, &str)] = &[
        ("e2e5", "Illegal move"),
        ("usermove e7e4", "Illegal move"),
        ("usermove d2d4", "Illegal move"),
        ("usermove", "Error (missing move)"),
        ("e7e8q", "Illegal move"),
        ("O-O", "Illegal move"),
        ("frobnicate", "Error (unknown command): frobnicate"),
        ("setboard nonsense", "tellusererror Illegal position"),
        (
            "setboard 8/8/8/8/8/8/8/8 w - - 0 1",
            "tellusererror Illegal position",
        ),
        (
            "setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 junk",
            "tellusererror Illegal position",
        ),
        ("setboard", "Error (missing FEN)"),
        ("level 40 x 0", "Error ("),
        ("level", "Error ("),
        ("st -1", "Error ("),
        ("st abc", "Error ("),
        ("sd 0", "Error ("),
        ("sd many", "Error ("),
        ("time abc", "Error ("),
        ("otim", "Error ("),
        ("memory -1", "Error ("),
        ("cores x", "Error ("),
        ("nps -5", "Error ("),
        ("protover x", "Error ("),
        ("option Nonsense=1", "Error (unknown option)"),
        ("option ResignThreshold=abc", "Error (ResignThreshold"),
        ("option MultiPV=0", "Error (MultiPV must be 1-256)"),
        ("option MultiPV=257", "Error (MultiPV must be 1-256)"),
        ("option MultiPV=x", "Error (MultiPV must be 1-256)"),
        ("option MultiPV", "Error (MultiPV must be 1-256)"),
        ("exclude z9z9", "Illegal move"),
        ("variant crazyhouse", "Error (unsupported variant)"),
    ];
    for (i, (input, reply)) in cases.iter().enumerate() {
        e.send(input);
        let got = e
            .next_line(5 * SEC)
            .unwrap_or_else(|| panic!("no reply to {input}"));
        assert!(
            got.starts_with(reply),
            "{input}: got '{got}', want '{reply}'"
        );
        assert_eq!(
            e.sync(100 + i as u32),
            Vec::<String>::new(),
            "after {input}"
        );
    }

    // A 200 KB line and bytes that are not UTF-8.
    let long = "x".repeat(200_000);
    e.send(&long);
    assert!(e
        .next_line(5 * SEC)
        .unwrap()
        .starts_with("Error (line too long)"));
    e.send_bytes(b"e7\xff\xfee5\n");
    assert!(e
        .next_line(5 * SEC)
        .unwrap()
        .starts_with("Error (input is not valid UTF-8)"));
    e.send("");
    e.send("   ");
    assert_eq!(e.sync(200), Vec::<String>::new());

    // The game is exactly as before: Black to move after 1. e4. The refused boards leave
    // the engine taking no move until a board is set up again; then e7e5 is legal, and the
    // engine plays a legal White move.
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    assert_eq!(e.fen(), after_e4);
    e.send("e7e5");
    assert!(e
        .next_line(5 * SEC)
        .unwrap()
        .starts_with("Illegal move (no position"));
    e.send(&format!("setboard {after_e4}"));
    e.send("e7e5");
    e.send("sd 3");
    e.send("go");
    let mv = e.expect_move(10 * SEC);
    let mut pos = Position::startpos();
    for m in ["e2e4", "e7e5"] {
        pos = pos.after(pos.parse_move(m).unwrap());
    }
    assert!(pos.parse_move(&mv).is_ok(), "illegal {mv}");
}

#[test]
fn end_of_input_while_thinking_exits_promptly() {
    let mut e = Engine::started();
    e.send("new");
    e.send("st 30");
    e.send("go");
    std::thread::sleep(Duration::from_millis(300));
    e.close_stdin();
    assert!(
        e.wait_exit(10 * SEC),
        "engine still running after stdin closed"
    );
}

/// Chess960 castling through the binary, read back with `fen` (expected FENs written out
/// by the rules: the king and rook land on the g/f or c/d files, the rights go).
#[test]
fn chess960_castling_in_and_out() {
    let mut e = Engine::started();
    e.send("new");
    e.send("variant fischerandom");
    e.send("force");
    // King b1, rooks a1 and h1: O-O-O puts the king on c1 and the rook on d1.
    e.send("setboard r1k4r/8/8/8/8/8/8/RK5R w KQkq - 0 1");
    e.send("O-O-O");
    let long = "r1k4r/8/8/8/8/8/8/2KR3R b kq - 1 1";
    assert_eq!(e.fen(), long);
    e.send("undo");
    // The same castling written king-takes-rook.
    e.send("b1a1");
    assert_eq!(e.fen(), long);
    e.send("undo");
    // O-O: the king goes from b1 over c1-f1 to g1, the rook from h1 to f1.
    e.send("O-O");
    assert_eq!(e.fen(), "r1k4r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    // Black's O-O now crosses f8, attacked by the rook on f1: refused. O-O-O is fine.
    e.send("O-O");
    e.expect_prefix("Illegal move", 5 * SEC);
    e.send("c8a8");
    assert_eq!(e.fen(), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    assert_eq!(e.sync(1), Vec::<String>::new());

    // The engine castles when it is clearly best (here each castling mates at once and
    // nothing else does) and writes it O-O / O-O-O, the form XBoard expects in Chess960
    // (a king-one-square text such as f1g1 would be read as a plain king move).
    for (fen, castle, after) in [
        (
            "4rkr1/4p1p1/8/8/8/8/8/5K1R w K - 0 1",
            "O-O",
            "4rkr1/4p1p1/8/8/8/8/8/5RK1 b - - 1 1",
        ),
        (
            "2rkr3/2p1p3/8/8/8/8/8/RK6 w Q - 0 1",
            "O-O-O",
            "2rkr3/2p1p3/8/8/8/8/8/2KR4 b - - 1 1",
        ),
    ] {
        e.send("new");
        e.send("variant fischerandom");
        e.send("force");
        e.send(&format!("setboard {fen}"));
        e.send("sd 3");
        e.send("go");
        let (mv, after_move) = e.expect_move_and_after(10 * SEC);
        assert_eq!(mv, castle, "{fen}");
        assert_eq!(after_move, ["1-0 {White mates}"]);
        assert_eq!(e.fen(), after);
    }
}

#[test]
fn legacy_edit_mode_sets_up_a_position() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("edit");
    e.send("#");
    e.send("Ke1");
    e.send("Ra1");
    e.send("Pe4");
    e.send("c");
    e.send("Ke8");
    e.send("Pd5");
    e.send("xd5");
    e.send("Zz9");
    e.expect_prefix("Error (edit mode expects", 5 * SEC);
    e.send(".");
    e.send("fen");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "4k3/8/8/8/4P3/8/8/R3K3 w Q - 0 1"
    );
    // An impossible set-up is refused and the old position kept.
    e.send("edit");
    e.send("#");
    e.send(".");
    e.expect_prefix("tellusererror Illegal position", 5 * SEC);
    e.send("fen");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "4k3/8/8/8/4P3/8/8/R3K3 w Q - 0 1"
    );
}

/// The notice that a command ended legacy edit mode: a `#` comment line, which XBoard (with
/// `debug=1` declared) and cutechess-cli ignore.
fn is_edit_mode_notice(line: &str, word: &str) -> bool {
    line.starts_with(&format!("# edit mode ended by '{word}'"))
}

#[test]
fn ping_is_answered_at_once_in_edit_mode() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("edit");
    e.send("xe2");
    e.send("ping 7");
    // At once, and nothing else: no error, no notice, edit mode goes on.
    assert_eq!(e.next_line(5 * SEC).unwrap(), "pong 7");
    e.send("xd2");
    e.send(".");
    assert_eq!(
        e.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPP2PPP/RNBQKBNR w KQkq - 0 1"
    );
}

#[test]
fn new_and_setboard_end_edit_mode_with_a_notice_and_are_carried_out() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("edit");
    e.send("#");
    e.send("Ke1");
    e.send("c");
    e.send("Ke8");
    e.send("new");
    let (notice, before) = e.wait_for("notice", 5 * SEC, |l| is_edit_mode_notice(l, "new"));
    assert!(before.is_empty(), "{before:?}");
    assert!(notice.contains("applied"), "{notice}");
    assert_eq!(e.fen(), kestrel::chess::STARTPOS_FEN);
    // Not in edit mode any more: a placement is now taken as a (here illegal) move.
    e.allow_errors(true);
    e.send("xe2");
    e.expect_prefix("Illegal move", 5 * SEC);
    e.allow_errors(false);
    assert_eq!(e.fen(), kestrel::chess::STARTPOS_FEN);

    // `new` made Kestrel play Black again: force, so the set-up position stays put.
    e.send("force");
    let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1";
    e.send("edit");
    e.send("xe2");
    e.send(&format!("setboard {fen}"));
    let (_, before) = e.wait_for("notice", 5 * SEC, |l| is_edit_mode_notice(l, "setboard"));
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(e.fen(), fen);
}

#[test]
fn go_ends_edit_mode_and_plays_in_the_position_set_up() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("sd 4");
    e.send("edit");
    e.send("#");
    e.send("Kg1");
    e.send("Qd1");
    e.send("c");
    e.send("Kg8");
    e.send("Pa7");
    e.send("go");
    let (_, before) = e.wait_for("notice", 5 * SEC, |l| is_edit_mode_notice(l, "go"));
    assert!(before.is_empty(), "{before:?}");
    let mv = e.expect_move(20 * SEC);
    let set_up = Position::from_fen("6k1/p7/8/8/8/8/8/3Q2K1 w - - 0 1").unwrap();
    assert!(
        set_up.parse_move(&mv).is_ok(),
        "{mv} in {}",
        set_up.to_fen()
    );
}

/// A board set up so far that is no legal position is refused as `.` refuses it (the old
/// position stays), and a board left as it was keeps the game and its moves.
#[test]
fn a_command_ends_edit_mode_keeping_the_old_position_if_the_set_up_is_illegal() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("e2e4");
    let after_e4 = e.fen();
    e.send("edit");
    e.send("#");
    e.send("Ke1");
    e.allow_errors(true);
    e.send("force");
    let (_, before) = e.wait_for("notice", 5 * SEC, |l| is_edit_mode_notice(l, "force"));
    assert!(before.is_empty(), "{before:?}");
    e.expect_prefix("tellusererror Illegal position", 5 * SEC);
    e.allow_errors(false);
    assert_eq!(e.fen(), after_e4);

    e.send("edit");
    e.send("c");
    e.send("usermove e7e5");
    let (notice, _) = e.wait_for("notice", 5 * SEC, |l| is_edit_mode_notice(l, "usermove"));
    assert!(notice.contains("not edited"), "{notice}");
    let mut pos = Position::startpos();
    for m in ["e2e4", "e7e5"] {
        pos = pos.after(pos.parse_move(m).unwrap());
    }
    assert_eq!(e.fen(), pos.to_fen());
    // The moves are still the game's: both can be taken back.
    e.send("remove");
    assert_eq!(e.fen(), kestrel::chess::STARTPOS_FEN);
}

/// `edit foo` is not edit mode: an error, and the next lines are commands as before.
#[test]
fn edit_with_arguments_is_refused() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.allow_errors(true);
    e.send("edit foo");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "Error (edit takes no arguments, not 'foo')"
    );
    e.send("xe2");
    e.expect_prefix("Illegal move", 5 * SEC);
    e.allow_errors(false);
    e.send(".");
    assert_eq!(e.fen(), kestrel::chess::STARTPOS_FEN);
}

/// A command with a bad argument, or a line that is no command, in edit mode is refused
/// and changes nothing: edit mode goes on.
#[test]
fn a_bad_command_in_edit_mode_leaves_it_on() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("edit");
    e.allow_errors(true);
    e.send("level 40");
    e.expect_prefix("Error (level needs three values", 5 * SEC);
    e.send("frobnicate");
    e.expect_prefix("Error (edit mode expects", 5 * SEC);
    // Shaped like a placement, so a bad one, although it looks like a SAN move too.
    e.send("Ae4");
    e.expect_prefix("Error (edit mode expects", 5 * SEC);
    e.allow_errors(false);
    e.send("xe2");
    e.send(".");
    assert_eq!(
        e.fen(),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
    );
}

/// In analysis the board can be set up in edit mode: no search runs meanwhile (it took the
/// edit lines as commands: `#` as an unknown one, `.` as `stat`).
#[test]
fn edit_mode_works_in_analysis() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("analyze");
    e.send("edit");
    e.send("#");
    e.send("Ke1");
    e.send("c");
    e.send("Ke8");
    e.send(".");
    e.send("exit");
    let lines = e.sync(1);
    assert!(lines.iter().all(|l| is_thinking(l)), "{lines:?}");
    assert_eq!(e.fen(), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
}

/// `pause` during a search stops it: no move, no CPU, until `resume`. `go` and `pause` are
/// sent together, so the pause lands before the 0.5 s search could end, however slow the
/// machine; then 1.5 s (three times the limit) pass without a move.
#[test]
fn pause_stops_thinking_until_resume() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("st 0.5");
    e.send("go\npause");
    let paused = e.sync(1);
    assert!(paused.iter().all(|l| is_thinking(l)), "{paused:?}");
    let cpu = common::cpu_time(e.pid());
    e.expect_silence(Duration::from_millis(1500));
    if let (Some(before), Some(after)) = (cpu, common::cpu_time(e.pid())) {
        // A paused engine waits for input: CPU time hardly moves, busy machine or not.
        assert!(
            after - before < Duration::from_millis(100),
            "used {:?} CPU while paused",
            after - before
        );
    }
    e.send("resume");
    let mv = e.expect_move(10 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
}

#[test]
fn draws_book_and_resignation() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    // The protocol has no reply for declining: the engine ignores the offer. So silence is
    // only half the check; the other half is that the decision depends on the game: no
    // score yet and nothing dead, declined...
    e.send("draw");
    assert_eq!(e.sync(1), Vec::<String>::new());
    // ... a queen up after a search, declined...
    e.send("setboard 7k/8/8/8/8/1Q6/8/K7 w - - 0 1");
    e.send("sd 4");
    e.send("go");
    e.expect_move(10 * SEC);
    e.send("force");
    e.send("draw");
    assert_eq!(e.sync(2), Vec::<String>::new());
    // ... a queen down after a search, accepted.
    e.send("setboard 7k/8/8/8/8/8/1Q6/K7 b - - 0 1");
    e.send("go");
    e.expect_move(10 * SEC);
    e.send("force");
    e.send("draw");
    assert_eq!(e.sync(3), ["offer draw"]);
    e.send("new");
    e.send("force");
    e.send("bk");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "\tNo opening book is loaded (option BookFile)."
    );
    assert_eq!(e.next_line(5 * SEC).unwrap(), "");
    // Knight against bare king: nobody can win, the offer is accepted.
    e.send("setboard 7k/8/8/8/8/8/8/K6N w - - 0 1");
    e.send("draw");
    assert_eq!(e.next_line(5 * SEC).unwrap(), "offer draw");

    // Queen down with nothing for it and a resign threshold: resigns on its second move.
    e.send("option ResignThreshold=500");
    e.send("setboard 7k/8/8/8/8/8/1Q6/K7 b - - 0 1");
    e.send("sd 4");
    e.send("go");
    let first = e.expect_move(10 * SEC);
    let mut pos = Position::from_fen("7k/8/8/8/8/8/1Q6/K7 b - - 0 1").unwrap();
    pos = pos.after(pos.parse_move(&first).unwrap());
    // A king move: it cannot stalemate Black here.
    let king = pos.king(pos.side_to_move());
    let reply = *pos.legal_moves().iter().find(|m| m.from() == king).unwrap();
    e.send(&format!("usermove {}", pos.coordinate(reply)));
    let (line, _) = e.wait_for("resign", 10 * SEC, |l| {
        l == "resign" || l.starts_with("move ")
    });
    assert_eq!(line, "resign");
}

/// Found by the driver fuzzer: with every root move excluded, `go` made the driver search
/// nothing, find no move, and search again forever without reading input.
#[test]
fn exclude_all_then_go_still_moves() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("exclude all");
    e.send("st 0.2");
    e.send("go");
    let mv = e.expect_move(10 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
    assert_eq!(e.sync(1), Vec::<String>::new());
}

/// Found by the driver fuzzer: end of input (or `quit`) in edit mode looped forever, since
/// every line there was taken as a board edit.
#[test]
fn quit_and_end_of_input_work_in_edit_mode() {
    let mut e = Engine::started();
    e.send("edit");
    e.send("Ke1");
    e.send("quit");
    // No notice: `quit` ends the session at once.
    assert_eq!(e.next_line(10 * SEC), None);
    assert!(
        e.wait_exit(10 * SEC),
        "quit in edit mode did not end the engine"
    );
    let mut e = Engine::started();
    e.send("edit");
    e.send("Ke1");
    e.close_stdin();
    assert!(
        e.wait_exit(10 * SEC),
        "end of input in edit mode did not end the engine"
    );
}

/// An aspiration window that fails shows in the thinking output: the line's first move is
/// marked `!` (failed high: the score is a lower bound) or `?` (failed low), and the depth
/// then ends with an unmarked line.
#[test]
fn fail_highs_and_lows_are_marked_in_the_thinking_output() {
    let mut e = Engine::started();
    e.send("post");
    let (mut high, mut low) = (0, 0);
    for fen in [
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
        "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
        "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
        "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    ] {
        e.send("new");
        e.send("force");
        e.send(&format!("setboard {fen}"));
        // After `new`: it lifts the depth limit.
        e.send("sd 11");
        e.send("go");
        let mut lines = Vec::new();
        loop {
            let line = e.next_line(60 * SEC).expect("thinking or a move");
            if line.starts_with("move ") {
                break;
            }
            lines.push(line);
        }
        e.sync_auto();
        let raw: Vec<(u32, String)> = lines
            .iter()
            .filter_map(|l| {
                let t = thinking(l)?;
                // The word after the first move: `!` (fail high), `?` (fail low) or a move.
                let mark = l
                    .split_once('\t')?
                    .1
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("");
                Some((t.depth, mark.to_string()))
            })
            .collect();
        for (i, (depth, mark)) in raw.iter().enumerate() {
            match mark.as_str() {
                "!" => high += 1,
                "?" => low += 1,
                _ => continue,
            }
            assert!(
                raw[i + 1..]
                    .iter()
                    .any(|(d, m)| d == depth && !matches!(m.as_str(), "!" | "?")),
                "depth {depth} ends without an unmarked line: {lines:?}"
            );
        }
    }
    assert!(high > 0 && low > 0, "fail highs {high}, fail lows {low}");
}

/// The thinking lines of each finished depth, in the order they came (a depth is finished
/// once a deeper line follows it).
fn finished_depths(lines: &[String]) -> Vec<(u32, Vec<Thinking>)> {
    let mut depths: Vec<(u32, Vec<Thinking>)> = Vec::new();
    for t in lines.iter().filter_map(|l| thinking(l)) {
        match depths.last_mut() {
            Some((d, ts)) if *d == t.depth => ts.push(t),
            _ => depths.push((t.depth, vec![t])),
        }
    }
    depths.pop();
    depths
}

#[test]
fn multi_pv_analysis_shows_three_lines_and_never_an_excluded_move() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("option MultiPV=3");
    e.send("exclude e2e4");
    e.send("analyze");
    let (_, lines) = e.wait_for("depth 7", 30 * SEC, |l| {
        thinking(l).is_some_and(|t| t.depth >= 7)
    });
    // Excluded while analysing: the search starts again without it (the pong comes from
    // the new search, after the exclude is done).
    e.send("exclude d2d4");
    e.sync(1);
    let (_, more) = e.wait_for("depth 7 again", 30 * SEC, |l| {
        thinking(l).is_some_and(|t| t.depth >= 7)
    });
    e.send("exit");
    assert!(e.sync(2).iter().all(|l| is_thinking(l)));
    let pos = Position::startpos();
    for (batch, excluded) in [(&lines, &["e2e4"][..]), (&more, &["e2e4", "d2d4"][..])] {
        let mut depths = finished_depths(batch);
        if excluded.len() == 2 {
            // The new search may have begun its first depth before the pong.
            depths.remove(0);
        }
        assert!(depths.len() >= 4, "{batch:?}");
        for (depth, ts) in &depths {
            for t in ts {
                assert!(pv_is_legal(&pos, &t.pv), "{t:?}");
                assert!(!excluded.contains(&t.pv[0].as_str()), "{t:?}");
            }
            // Each depth ends with its three lines, best first.
            assert!(ts.len() >= 3, "depth {depth}: {ts:?}");
            let last = &ts[ts.len() - 3..];
            let firsts: Vec<&str> = last.iter().map(|t| t.pv[0].as_str()).collect();
            assert!(
                firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2],
                "depth {depth}: {last:?}"
            );
            assert!(
                last.windows(2).all(|w| w[0].score >= w[1].score),
                "depth {depth}: {last:?}"
            );
        }
    }

    // A bad value changes nothing: still three lines.
    e.allow_errors(true);
    e.send("option MultiPV=0");
    let reply = e.next_line(5 * SEC).unwrap();
    assert!(
        reply.starts_with("Error (MultiPV must be 1-256)"),
        "{reply}"
    );
    e.allow_errors(false);
    e.send("sd 4");
    e.send("post");
    e.send("go");
    let (_, lines) = e.wait_for("move", 30 * SEC, |l| l.starts_with("move "));
    let depths = finished_depths(&lines);
    let (_, ts) = depths.last().unwrap();
    let last = &ts[ts.len().saturating_sub(3)..];
    let firsts: std::collections::HashSet<&str> = last.iter().map(|t| t.pv[0].as_str()).collect();
    assert_eq!(firsts.len(), 3, "{lines:?}");
}

/// Analysis of a game that is over is not a blank window: one line that says so, mated (a
/// mate-in-0 score against the side to move) or stalemated (a draw score).
#[test]
fn analyze_says_when_the_position_is_mate_or_stalemate() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    for (fen, score, word) in [
        // Fool's mate: White is mated.
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            -100_000,
            "checkmate",
        ),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0, "stalemate"),
    ] {
        e.send(&format!("setboard {fen}"));
        e.send("analyze");
        let (line, _) = e.wait_for("analysis line", 10 * SEC, is_thinking);
        let t = thinking(&line).unwrap();
        assert_eq!(t.score, score, "{fen}: {line}");
        assert!(line.contains(word), "{fen}: {line}");
        e.send("exit");
        e.sync_auto();
    }
}

/// `go` in analysis mode leaves it and plays: a GUI (or a script) that lost track of the
/// mode and sends `new` ... `go` gets its move instead of waiting for ever.
#[test]
fn go_in_analysis_mode_leaves_it_and_plays() {
    let mut e = Engine::started();
    e.send("analyze");
    e.send("new");
    e.send("sd 3");
    e.send("go");
    let (line, _) = e.wait_for("a move", 20 * SEC, |l| l.starts_with("move "));
    assert!(Position::startpos()
        .parse_move(&line["move ".len()..])
        .is_ok());
    // Playing White now, not analysing: Black's reply brings the next move.
    e.send("usermove e7e5");
    e.expect_move(20 * SEC);
}

/// After a refused `setboard` the GUI shows a position the engine does not have: until a
/// board is set up again (or `new`), every move is illegal and nothing is played, rather
/// than a reply from the old position.
#[test]
fn after_a_refused_board_no_move_is_taken_or_played_until_a_board_is_set() {
    let mut e = Engine::started();
    e.send("new");
    e.send("st 1");
    e.allow_errors(true);
    let refuse = |e: &mut Engine| {
        e.send("setboard rnbqkbnr/pppppppp/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        e.expect_prefix("tellusererror Illegal position", 5 * SEC);
        for (input, reply) in [
            ("usermove e2e4", "Illegal move (no position"),
            ("e2e4", "Illegal move (no position"),
            ("go", "Error (no position"),
            ("playother", "Error (no position"),
            ("undo", "Error (no position"),
            ("analyze", "Error (no position"),
        ] {
            e.send(input);
            let got = e.next_line(5 * SEC).unwrap();
            assert!(got.starts_with(reply), "{input}: {got}");
        }
        // Nothing was played meanwhile.
        assert_eq!(e.sync(1), Vec::<String>::new());
        e.expect_silence(SEC / 2);
    };
    refuse(&mut e);
    e.send("new");
    e.send("usermove e2e4");
    assert!(e.expect_move(10 * SEC).len() >= 4);

    refuse(&mut e);
    e.send("force");
    e.send("setboard 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    e.send("usermove e2e4");
    assert_eq!(e.fen(), "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");

    // A board set up in edit mode ends it too.
    refuse(&mut e);
    e.send("edit");
    e.send("#");
    e.send("Ke1");
    e.send("Pe2");
    e.send("c");
    e.send("Ke8");
    e.send(".");
    e.send("usermove e8d8");
    assert!(e.fen().starts_with("3k4/8/8/8/8/8/4P3/4K3 w"));
}

/// A takeback starts afresh: after the engine mated and claimed the game, `undo` lets it
/// play again; moves excluded in analysis do not survive `remove` into the position before.
#[test]
fn a_takeback_clears_the_claimed_result_and_the_exclusions() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("setboard 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    e.send("sd 3");
    e.send("go");
    let (mv, after) = e.expect_move_and_after(10 * SEC);
    assert_eq!(
        (mv.as_str(), after.as_slice()),
        ("d1d8", &["1-0 {White mates}".to_string()][..])
    );
    e.send("force");
    e.send("undo");
    e.send("go");
    assert_eq!(e.expect_move_and_after(10 * SEC).0, "d1d8");

    // 20 moves at the start; one excluded after 1. e4 e5 is still excluded there, and not
    // once both moves are taken back.
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("analyze");
    e.send("e2e4");
    e.send("e7e5");
    e.send("exclude d2d4");
    let total = |e: &mut Engine| {
        std::thread::sleep(Duration::from_millis(200));
        e.send(".");
        let (stat, _) = e.wait_for("stat01", 5 * SEC, |l| l.starts_with("stat01:"));
        stat.split_whitespace()
            .nth(5)
            .unwrap()
            .parse::<u32>()
            .unwrap()
    };
    assert_eq!(total(&mut e), 28);
    e.send("remove");
    assert_eq!(total(&mut e), 20);
    e.send("exit");
}
