//! Black-box protocol sessions with the real binary: handshake, games the way cutechess-cli
//! drives them, force/undo/remove/setboard, analysis, pondering, `?`, `ping` ordering, time
//! limits and every kind of bad input. Timing bounds are generous; the rest is exact.

mod common;

use common::Engine;
use kestrel::chess::Position;
use kestrel::game::Game;
use std::time::{Duration, Instant};

const SEC: Duration = Duration::from_secs(1);

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
        "option=\"Resign Threshold",
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
        e.send("level 0 0:10 0.1");
        e.send("post");
        e.send("easy");
    }
    let mut clocks = [Duration::from_secs(10); 2];
    let mut started = [false; 2];
    let mut last_move: Option<String> = None;
    let mut plies = 0;
    while plies < max_plies && game.outcome().is_none() {
        let side = plies % 2;
        let e = &mut engines[side];
        *ping += 1;
        e.sync(*ping);
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
        clocks[side] = clocks[side] - used + Duration::from_millis(100);
        last_move = Some(text);
        plies += 1;
    }
    // Game end as cutechess does it: force, the last move, result, ping.
    let result = game
        .outcome()
        .map(|o| o.to_string())
        .unwrap_or_else(|| "1/2-1/2 {Adjudication}".into());
    for e in engines.iter_mut() {
        e.send("force");
        e.send(&format!("result {result}"));
        *ping += 1;
        let between = e.sync(*ping);
        assert!(
            !between.iter().any(|l| l.starts_with("move ")),
            "{between:?}"
        );
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
    let mv = e.expect_move(20 * SEC);
    assert_eq!(mv, "h5f7");
    let (claim, _) = e.wait_for("result claim", 5 * SEC, |l| l.contains("{"));
    assert_eq!(claim, "1-0 {White mates}");
}

#[test]
fn analysis_posts_answers_stat_and_honours_exclude() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("analyze");
    e.expect_prefix("1 ", 5 * SEC);
    e.send(".");
    let stat = e.expect_prefix("stat01:", 5 * SEC);
    let fields: Vec<&str> = stat.split_whitespace().collect();
    assert!(fields.len() >= 6, "{stat}");
    // ping during analysis: answered at once, and the analysis goes on.
    let t = Instant::now();
    e.send("ping 7");
    e.expect_prefix("pong 7", 2 * SEC);
    assert!(t.elapsed() < 2 * SEC);
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

/// The engine plays Black with pondering on; returns its first move and its hint.
fn ponder_setup(e: &mut Engine) -> (String, String) {
    e.send("new");
    e.send("hard");
    e.send("level 0 0:20 0");
    e.send("time 2000");
    e.send("otim 2000");
    e.send("usermove e2e4");
    let reply = e.expect_move(10 * SEC);
    // The hint is the move the engine now ponders on; asking does not stop pondering.
    e.send("hint");
    let hint = e.expect_prefix("Hint: ", 5 * SEC)["Hint: ".len()..].to_string();
    (reply, hint)
}

#[test]
fn ponder_hit_moves_quickly_and_ping_is_answered_while_pondering() {
    let mut e = Engine::started();
    let (reply, hint) = ponder_setup(&mut e);
    let mut game = Game::default();
    game.play(game.position().parse_move("e2e4").unwrap());
    game.play(game.position().parse_move(&reply).unwrap());
    assert!(
        game.position().parse_move(&hint).is_ok(),
        "hint {hint} not legal"
    );
    std::thread::sleep(Duration::from_millis(1500));
    let t = Instant::now();
    e.send("ping 3");
    e.expect_prefix("pong 3", SEC);
    assert!(t.elapsed() < SEC);
    e.send("time 1900");
    e.send("otim 1800");
    let t = Instant::now();
    e.send(&format!("usermove {hint}"));
    let mv = e.expect_move(10 * SEC);
    // 19 s left for ~30 moves: about 0.6 s a move; after 1.5 s of pondering the soft
    // limits have passed already.
    assert!(t.elapsed() < 2 * SEC, "took {:?}", t.elapsed());
    game.play(game.position().parse_move(&hint).unwrap());
    assert!(
        game.position().parse_move(&mv).is_ok(),
        "illegal reply {mv}"
    );
}

#[test]
fn ponder_miss_searches_the_real_move() {
    let mut e = Engine::started();
    let (reply, hint) = ponder_setup(&mut e);
    let mut game = Game::default();
    game.play(game.position().parse_move("e2e4").unwrap());
    game.play(game.position().parse_move(&reply).unwrap());
    let other = game
        .position()
        .legal_moves()
        .iter()
        .map(|&m| game.position().coordinate(m))
        .find(|m| *m != hint)
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    e.send("time 1900");
    e.send("otim 1800");
    e.send(&format!("usermove {other}"));
    let mv = e.expect_move(10 * SEC);
    game.play(game.position().parse_move(&other).unwrap());
    assert!(
        game.position().parse_move(&mv).is_ok(),
        "illegal reply {mv} to {other}"
    );
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
    assert!(t.elapsed() < 2 * SEC);
    e.expect_prefix("pong 5", 2 * SEC);
}

#[test]
fn st_1_returns_well_inside_the_limit() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("st 1");
    let t = Instant::now();
    e.send("go");
    e.expect_move(5 * SEC);
    let used = t.elapsed();
    assert!(used < Duration::from_millis(1300), "took {used:?}");
    assert!(
        used > Duration::from_millis(200),
        "suspiciously fast: {used:?}"
    );
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
        ("option Resign Threshold=abc", "Error (Resign Threshold"),
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

    // The game is exactly as before: Black to move after 1. e4, so e7e5 is legal, and the
    // engine then plays a legal White move.
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
        e.wait_exit(3 * SEC),
        "engine still running after stdin closed"
    );
}

#[test]
fn chess960_castling_in_and_out() {
    let mut e = Engine::started();
    e.send("new");
    e.send("variant fischerandom");
    e.send("force");
    // King b1, rooks a1 and h1: O-O-O puts the king on c1 and the rook on d1.
    e.send("setboard r1k4r/8/8/8/8/8/8/RK5R w KQkq - 0 1");
    e.send("O-O-O");
    e.send("undo");
    // The same castling written king-takes-rook.
    e.send("b1a1");
    e.send("a8b8");
    assert_eq!(e.sync(1), Vec::<String>::new());
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

#[test]
fn pause_stops_thinking_until_resume() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("st 1");
    e.send("go");
    std::thread::sleep(Duration::from_millis(200));
    e.send("pause");
    assert_eq!(e.sync(1), Vec::<String>::new());
    e.expect_silence(Duration::from_millis(1500));
    e.send("resume");
    let mv = e.expect_move(5 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
}

#[test]
fn draws_book_and_resignation() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    // No score yet, nothing dead: a draw offer is declined by silence.
    e.send("draw");
    assert_eq!(e.sync(1), Vec::<String>::new());
    e.send("bk");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "\tKestrel has no opening book."
    );
    assert_eq!(e.next_line(5 * SEC).unwrap(), "");
    // Knight against bare king: nobody can win, the offer is accepted.
    e.send("setboard 7k/8/8/8/8/8/8/K6N w - - 0 1");
    e.send("draw");
    assert_eq!(e.next_line(5 * SEC).unwrap(), "offer draw");

    // Queen down with nothing for it and a resign threshold: resigns on its second move.
    e.send("option Resign Threshold=500");
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
    let mv = e.expect_move(5 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
    assert_eq!(e.sync(1), Vec::<String>::new());
}

/// Found by the driver fuzzer: end of input (or `quit`) in edit mode looped forever, since
/// every line there was taken as a board edit.
#[test]
fn quit_and_end_of_input_work_in_edit_mode() {
    let mut e = Engine::started();
    e.send("edit");
    e.send("quit");
    assert!(
        e.wait_exit(3 * SEC),
        "quit in edit mode did not end the engine"
    );
    let mut e = Engine::started();
    e.send("edit");
    e.send("Ke1");
    e.close_stdin();
    assert!(
        e.wait_exit(3 * SEC),
        "end of input in edit mode did not end the engine"
    );
}
