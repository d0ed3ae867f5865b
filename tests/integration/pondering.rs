//! Pondering through the real binary: every command that can arrive while the engine thinks
//! on the opponent's time leaves exactly the right position and no stray move; a ponder hit
//! after the ponder search has ended still moves; `force`/`undo` during the engine's own
//! search let no move out.
//!
//! Pondering is made visible with `post`: the ponder search prints thinking lines after the
//! engine's move, and a search that starts afresh prints a depth-1 line, which a search that
//! goes on from the ponder search never does.

use crate::common::{self, *};

use common::Engine;
use kestrel::chess::STARTPOS_FEN;
use std::time::{Duration, Instant};

/// The depth of a thinking line (`ply score time nodes ...<TAB>pv`), `None` for other lines.
fn thinking_depth(line: &str) -> Option<u32> {
    if !line.contains('\t') {
        return None;
    }
    line.split_whitespace().next()?.parse().ok()
}

fn is_move(line: &str) -> bool {
    line.starts_with("move ")
}

/// The engine plays Black with pondering and `post` on; after 1. e4 it replies and starts
/// pondering. Returns its reply and the move it ponders on, once the ponder search has
/// printed a thinking line of at least `depth`, and the deepest ponder line seen.
fn pondering_after_e4(e: &mut Engine, depth: u32) -> (String, String, u32) {
    e.send("new");
    e.send("hard");
    e.send("post");
    e.send("st 0.5");
    e.send("usermove e2e4");
    let reply = e.expect_move(10 * SEC);
    let (line, _) = e.wait_for("a ponder line", 20 * SEC, |l| {
        thinking_depth(l).is_some_and(|d| d >= depth)
    });
    let mut deepest = thinking_depth(&line).unwrap();
    e.send("hint");
    let (hint, before) = e.wait_for("the hint", 5 * SEC, |l| l.starts_with("Hint: "));
    deepest = before
        .iter()
        .filter_map(|l| thinking_depth(l))
        .fold(deepest, u32::max);
    let hint = hint["Hint: ".len()..].to_string();
    // The hint is the ponder move: a legal reply for White.
    position_after(STARTPOS_FEN, &["e2e4", &reply, &hint]);
    (reply, hint, deepest)
}

/// Lines up to the `pong`; none may be a move.
fn sync_no_move(e: &mut Engine, n: u32, what: &str) -> Vec<String> {
    let lines = e.sync(n);
    assert!(
        !lines.iter().any(|l| is_move(l)),
        "{what}: a move came out: {lines:?}"
    );
    lines
}

#[test]
fn remove_while_pondering_takes_back_a_full_move_and_stops_pondering() {
    let mut e = Engine::started();
    pondering_after_e4(&mut e, 2);
    e.send("remove");
    sync_no_move(&mut e, 1, "remove");
    assert_eq!(read_fen(&mut e), STARTPOS_FEN);
    // Nothing to ponder on now (no move of ours to follow): no thinking output, no move.
    e.expect_silence(Duration::from_millis(400));
    // The game goes on from the start: the engine answers 1. d4 with a legal move.
    e.send("usermove d2d4");
    let mv = e.expect_move(10 * SEC);
    position_after(STARTPOS_FEN, &["d2d4", &mv]);
}

#[test]
fn force_then_undo_while_pondering_takes_back_the_engine_move() {
    let mut e = Engine::started();
    let (reply, hint, _) = pondering_after_e4(&mut e, 2);
    // How XBoard takes a move back: force mode first, then undo.
    e.send("force");
    e.send("undo");
    sync_no_move(&mut e, 1, "force + undo");
    let after_e4 = position_after(STARTPOS_FEN, &["e2e4"]);
    assert_eq!(read_fen(&mut e), after_e4.to_fen());
    // Force mode: moves are only recorded, even the reply pondered on before.
    e.send(&format!("usermove {reply}"));
    e.send(&format!("usermove {hint}"));
    sync_no_move(&mut e, 2, "moves in force mode");
    e.expect_silence(Duration::from_millis(300));
    assert_eq!(
        read_fen(&mut e),
        position_after(STARTPOS_FEN, &["e2e4", &reply, &hint]).to_fen()
    );
}

#[test]
fn undo_while_pondering_takes_back_the_engine_move_which_is_then_searched_again() {
    let mut e = Engine::started();
    let (reply, _, _) = pondering_after_e4(&mut e, 2);
    // Without force the engine still plays Black, and Black is to move again after the
    // undo: exactly one new move comes, searched on the position after 1. e4.
    e.send("undo");
    let (line, _) = e.wait_for("the new move", 10 * SEC, |l| {
        is_move(l) || l.starts_with("Error") || l.starts_with("Illegal")
    });
    assert!(is_move(&line), "{line}");
    let again = line["move ".len()..].to_string();
    let pos = position_after(STARTPOS_FEN, &["e2e4", &again]);
    let lines = e.sync(1);
    assert!(
        !lines.iter().any(|l| is_move(l)),
        "a second move: {lines:?}"
    );
    assert_eq!(read_fen(&mut e), pos.to_fen(), "first reply was {reply}");
}

#[test]
fn new_while_pondering_starts_a_fresh_game_without_a_move() {
    let mut e = Engine::started();
    pondering_after_e4(&mut e, 2);
    e.send("new");
    sync_no_move(&mut e, 1, "new");
    assert_eq!(read_fen(&mut e), STARTPOS_FEN);
    e.expect_silence(Duration::from_millis(400));
    // After `new` the engine plays Black again.
    e.send("usermove g1f3");
    let mv = e.expect_move(10 * SEC);
    position_after(STARTPOS_FEN, &["g1f3", &mv]);
}

#[test]
fn force_while_pondering_stops_it_and_the_pondered_move_brings_no_reply() {
    let mut e = Engine::started();
    let (reply, hint, _) = pondering_after_e4(&mut e, 2);
    e.send("force");
    sync_no_move(&mut e, 1, "force");
    // The move the engine pondered on arrives: in force mode it is only recorded.
    e.send(&format!("usermove {hint}"));
    sync_no_move(&mut e, 2, "the pondered move in force mode");
    e.expect_silence(Duration::from_millis(400));
    assert_eq!(
        read_fen(&mut e),
        position_after(STARTPOS_FEN, &["e2e4", &reply, &hint]).to_fen()
    );
}

#[test]
fn setboard_while_pondering_replaces_the_game() {
    let mut e = Engine::started();
    pondering_after_e4(&mut e, 2);
    // White to move: the engine (Black) waits.
    let white_to_move = "r3k2r/ppp2ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPP2PPP/R3K2R w KQkq - 4 8";
    e.send(&format!("setboard {white_to_move}"));
    sync_no_move(&mut e, 1, "setboard");
    assert_eq!(read_fen(&mut e), white_to_move);
    e.expect_silence(Duration::from_millis(300));
    e.send("usermove e1g1");
    let mv = e.expect_move(10 * SEC);
    position_after(white_to_move, &["e1g1", &mv]);

    // Pondering again, then a set-up with Black to move: the engine (Black) moves there.
    e.expect_prefix("1 ", 10 * SEC);
    let black_to_move = "4k3/8/8/3q4/8/8/3Q4/4K3 b - - 0 40";
    e.send(&format!("setboard {black_to_move}"));
    let (line, _) = e.wait_for("a move", 10 * SEC, |l| {
        is_move(l) || l.starts_with("Error") || l.starts_with("tellusererror")
    });
    assert!(is_move(&line), "{line}");
    let mv = line["move ".len()..].to_string();
    let pos = position_after(black_to_move, &[&mv]);
    let lines = e.sync(2);
    assert!(!lines.iter().any(|l| is_move(l)), "{lines:?}");
    assert_eq!(read_fen(&mut e), pos.to_fen());
}

#[test]
fn question_mark_while_pondering_is_ignored_and_the_hit_keeps_the_search() {
    let mut e = Engine::started();
    let (reply, hint, mut deepest) = pondering_after_e4(&mut e, 4);
    e.send("?");
    let lines = sync_no_move(&mut e, 1, "?");
    deepest = lines
        .iter()
        .filter_map(|l| thinking_depth(l))
        .fold(deepest, u32::max);
    assert_eq!(
        read_fen(&mut e),
        position_after(STARTPOS_FEN, &["e2e4", &reply]).to_fen()
    );
    // The hit: the ponder search goes on as the engine's own search, so no thinking line
    // below the depth it had reached (the same depth again is fine: a new best move in that
    // iteration); a search started afresh prints depth 1 first.
    e.send(&format!("usermove {hint}"));
    let (line, before) = e.wait_for("the move", 10 * SEC, is_move);
    for l in &before {
        if let Some(d) = thinking_depth(l) {
            assert!(
                d >= deepest,
                "depth {d} after the hit, ponder search had reached {deepest}: {before:?}"
            );
        }
    }
    let mv = line["move ".len()..].to_string();
    position_after(STARTPOS_FEN, &["e2e4", &reply, &hint, &mv]);
}

#[test]
fn hit_after_the_ponder_search_has_finished_still_moves_at_once() {
    let mut e = Engine::started();
    e.send("new");
    e.send("hard");
    e.send("post");
    e.send("sd 4");
    e.send("usermove e2e4");
    let reply = e.expect_move(10 * SEC);
    // The ponder search stops at depth 4, then waits for the opponent. Several lines can
    // come at depth 4 (each new best move is posted): it has ended once a `ping` brings no
    // thinking line any more.
    e.wait_for("a depth-4 ponder line", 20 * SEC, |l| {
        thinking_depth(l) == Some(4)
    });
    e.send("hint");
    let hint = e.expect_prefix("Hint: ", 5 * SEC)["Hint: ".len()..].to_string();
    // The engine answers `ping` between root moves, so a pong can come before the last
    // depth-4 line: each sync is preceded by a pause in which a running search of a few
    // hundred nodes ends.
    let deadline = Instant::now() + 20 * SEC;
    for n in 1.. {
        std::thread::sleep(Duration::from_millis(100));
        let lines = sync_no_move(&mut e, n, "ponder search at sd 4");
        let depths: Vec<u32> = lines.iter().filter_map(|l| thinking_depth(l)).collect();
        assert!(depths.iter().all(|&d| d == 4), "past sd 4: {lines:?}");
        if depths.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "ponder search did not end");
    }
    e.send("time 1000");
    e.send("otim 1000");
    e.send(&format!("usermove {hint}"));
    let (line, before) = e.wait_for("the move", 10 * SEC, |l| {
        is_move(l) || l.starts_with("Error") || l.starts_with("Illegal")
    });
    assert!(is_move(&line), "{line}");
    // The finished ponder search is the answer: nothing is searched again.
    assert!(
        !before.iter().any(|l| thinking_depth(l).is_some()),
        "searched again after the hit: {before:?}"
    );
    let mv = line["move ".len()..].to_string();
    position_after(STARTPOS_FEN, &["e2e4", &reply, &hint, &mv]);
}

/// The engine (White) thinks on its own move after 1. e4 e5 for up to 30 s.
fn thinking_after_e4_e5(e: &mut Engine) {
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("e2e4");
    e.send("e7e5");
    e.send("st 30");
    e.send("go");
    e.expect_prefix("1 ", 10 * SEC);
}

#[test]
fn force_during_the_engines_own_search_lets_no_move_out() {
    let mut e = Engine::started();
    thinking_after_e4_e5(&mut e);
    e.send("force");
    sync_no_move(&mut e, 1, "force while thinking");
    e.expect_silence(Duration::from_millis(500));
    let after = position_after(STARTPOS_FEN, &["e2e4", "e7e5"]);
    assert_eq!(read_fen(&mut e), after.to_fen());
    // `go` makes it play White again.
    e.send("st 0.2");
    e.send("go");
    let mv = e.expect_move(10 * SEC);
    position_after(STARTPOS_FEN, &["e2e4", "e7e5", &mv]);
}

#[test]
fn undo_during_the_engines_own_search_lets_no_move_out() {
    let mut e = Engine::started();
    thinking_after_e4_e5(&mut e);
    // Bare undo: Black is to move again, the engine still plays White and waits.
    e.send("undo");
    sync_no_move(&mut e, 1, "undo while thinking");
    e.expect_silence(Duration::from_millis(500));
    let after_e4 = position_after(STARTPOS_FEN, &["e2e4"]);
    assert_eq!(read_fen(&mut e), after_e4.to_fen());
    e.send("st 0.2");
    e.send("usermove c7c5");
    let mv = e.expect_move(10 * SEC);
    position_after(STARTPOS_FEN, &["e2e4", "c7c5", &mv]);

    // The way XBoard does it: force, then undo, during the search.
    thinking_after_e4_e5(&mut e);
    e.send("force");
    e.send("undo");
    e.send("undo");
    sync_no_move(&mut e, 2, "force + undo while thinking");
    e.expect_silence(Duration::from_millis(500));
    assert_eq!(read_fen(&mut e), STARTPOS_FEN);
}
