//! Commands the README lists that no other test sends, each with its effect checked through
//! the binary: `white`, `black`, `rejected`, `ics`, `egtpath`, `playother`, `setscore`.

use crate::common::{self, *};

use common::Engine;
use kestrel::chess::STARTPOS_FEN;
use std::time::Duration;

#[test]
fn white_and_black_choose_the_side_the_engine_plays() {
    // `white`: White on move, the engine plays Black. It waits for White's move.
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("sd 3");
    e.send("white");
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
    e.send("usermove e2e4");
    let mv = e.expect_move(10 * SEC);
    let pos = position_after(STARTPOS_FEN, &["e2e4", &mv]);
    assert_eq!(no_move(&mut e, 2), Vec::<String>::new());
    assert_eq!(read_fen(&mut e), pos.to_fen());

    // `black`: Black on move, the engine plays White. It waits for Black's move.
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("sd 3");
    e.send("e2e4");
    e.send("black");
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
    e.send("usermove c7c5");
    let mv = e.expect_move(10 * SEC);
    let pos = position_after(STARTPOS_FEN, &["e2e4", "c7c5", &mv]);
    assert_eq!(no_move(&mut e, 2), Vec::<String>::new());
    assert_eq!(read_fen(&mut e), pos.to_fen());
}

#[test]
fn rejected_ics_and_egtpath_are_taken_silently_and_change_nothing() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("e2e4");
    let before = read_fen(&mut e);
    for cmd in [
        "accepted ping",
        "rejected usermove",
        "rejected san",
        "rejected option LogFile -string off",
        "ics freechess.org",
        "ics -",
        // Kinds of tables Kestrel does not use are noted (syzygy: see tests/syzygy.rs).
        "egtpath nalimov /some/where",
        "egtpath nalimov",
    ] {
        e.send(cmd);
        assert_eq!(no_move(&mut e, 1), Vec::<String>::new(), "{cmd}");
    }
    assert_eq!(read_fen(&mut e), before);
    // With `usermove` rejected the GUI sends bare moves: still taken.
    e.send("e7e5");
    e.send("sd 3");
    e.send("go");
    let mv = e.expect_move(10 * SEC);
    position_after(STARTPOS_FEN, &["e2e4", "e7e5", &mv]);
}

#[test]
fn playother_plays_the_side_not_on_move_and_ponders() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("sd 3");
    e.send("e2e4");
    e.send("e7e5");
    // White on move: the engine now plays Black and waits.
    e.send("playother");
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
    e.expect_silence(Duration::from_millis(300));
    e.send("usermove g1f3");
    let mv = e.expect_move(10 * SEC);
    position_after(STARTPOS_FEN, &["e2e4", "e7e5", "g1f3", &mv]);

    // With pondering on, playother starts pondering at once (thinking output, no move).
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("hard");
    e.send("post");
    e.send("st 0.3");
    e.send("e2e4");
    e.send("playother");
    let (line, before) = e.wait_for("a ponder line", 10 * SEC, |l| l.contains('\t'));
    assert!(
        !before.iter().chain([&line]).any(|l| l.starts_with("move ")),
        "{before:?}"
    );
    let lines = no_move(&mut e, 2);
    assert!(!lines.iter().any(|l| l.starts_with("move ")));
    e.send("usermove c7c5");
    let mv = e.expect_move(10 * SEC);
    position_after(STARTPOS_FEN, &["e2e4", "c7c5", &mv]);
}

/// Plays `fen` with `sd 4` after the `setup` commands; returns the move and the thinking
/// lines before it.
fn search_with(setup: &[&str], fen: &str) -> (String, Vec<String>) {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("sd 4");
    e.send(&format!("setboard {fen}"));
    for cmd in setup {
        e.send(cmd);
    }
    assert_eq!(e.next_line(Duration::from_millis(200)), None, "{setup:?}");
    e.send("go");
    let (line, before) = e.wait_for("the move", 20 * SEC, |l| l.starts_with("move "));
    (line["move ".len()..].to_string(), before)
}

/// The first PV move of the thinking line at `depth`.
fn pv_move_at(lines: &[String], depth: u32) -> Option<String> {
    lines
        .iter()
        .filter(|l| l.split_whitespace().next() == Some(&depth.to_string()))
        .filter_map(|l| l.split_once('\t'))
        .map(|(_, pv)| pv.split_whitespace().next().unwrap_or("").to_string())
        .next_back()
}

#[test]
fn setscore_makes_the_search_believe_the_given_score() {
    // White mates in two only by 1. Kd6 (a quiet move, not the best move of a shallow search:
    // checked below). The position after Kd6 has Black to move.
    let fen = "4k3/8/8/4K3/8/8/8/5R2 w - - 0 1";
    let key = "e5d6";

    let (mv, lines) = search_with(&[], fen);
    assert_eq!(mv, key, "{lines:?}");
    assert!(
        lines.last().unwrap().starts_with("4 100002 "),
        "mate in 2 expected: {lines:?}"
    );
    // The test needs Kd6 not to be the first move searched at depth 2, where a null-window
    // search is what sees the stored score.
    assert_ne!(
        pv_move_at(&lines, 1).as_deref(),
        Some(key),
        "precondition: {lines:?}"
    );

    // The GUI says the position after Kd6 is 30 pawns in favour of the side to move there
    // (Black), to any depth up to 20: the engine must not go there any more.
    let setup = [
        &format!("usermove {key}") as &str,
        "setscore 3000 20",
        "undo",
    ];
    let (mv, lines) = search_with(&setup, fen);
    assert_ne!(mv, key, "{lines:?}");
    position_after(fen, &[&mv]);

    // The score counts from the side to move: -3000 there means Black is lost, which does
    // not keep White from Kd6.
    let setup = [
        &format!("usermove {key}") as &str,
        "setscore -3000 20",
        "undo",
    ];
    let (mv, lines) = search_with(&setup, fen);
    assert_eq!(mv, key, "{lines:?}");

    // `new` forgets it: the same search finds Kd6 again.
    let setup = [
        &format!("usermove {key}") as &str,
        "setscore 3000 20",
        "new",
        "force",
        "post",
        "sd 4",
        &format!("setboard {fen}"),
    ];
    let (mv, lines) = search_with(&setup, fen);
    assert_eq!(mv, key, "{lines:?}");
}
