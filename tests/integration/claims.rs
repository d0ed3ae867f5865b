//! Result claims through the real binary: every way a game ends by the rules, claimed after
//! the engine's own move and after the opponent's; `result` ends thinking until a new game;
//! draw offers and the `DrawOffers` option.
//!
//! The positions are built so that the rules, not the engine's judgement, decide: where the
//! engine's move leads to the end, it has exactly one legal move.

use crate::common::{self, *};

use common::Engine;
use kestrel::chess::Position;
use std::time::Duration;

fn is_claim(line: &str) -> bool {
    ["1-0 {", "0-1 {", "1/2-1/2 {"]
        .iter()
        .any(|p| line.starts_with(p))
}

/// A fresh engine in force mode on `fen`.
fn engine_on(fen: &str) -> Engine {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send(&format!("setboard {fen}"));
    e
}

/// The engine plays the side to move of `fen`, which has exactly one legal move, and then
/// claims `claim`: the move first, then the claim, then nothing more.
fn own_move_ends_the_game(fen: &str, claim: &str) {
    let pos = Position::from_fen(fen).unwrap();
    let only = pos.legal_moves();
    assert_eq!(only.len(), 1, "test position needs a single legal move");
    let mut e = engine_on(fen);
    e.send("sd 3");
    e.send("go");
    let (mv, before) = e.wait_for("the move", 10 * SEC, |l| {
        l.starts_with("move ") || is_claim(l)
    });
    assert!(before.is_empty(), "{before:?}");
    assert_eq!(mv, format!("move {}", pos.coordinate(only[0])));
    assert_eq!(e.next_line(5 * SEC).as_deref(), Some(claim));
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
}

#[test]
fn stalemate_by_the_engines_own_move_is_claimed() {
    // Black king in check takes the queen: White, with king a1 and the a2 pawn in front,
    // has no move.
    own_move_ends_the_game("8/8/8/8/8/kQ6/p7/K7 b - - 0 1", "1/2-1/2 {Stalemate}");
}

#[test]
fn insufficient_material_by_the_engines_own_move_is_claimed() {
    // The only move takes White's last pawn: bare kings.
    own_move_ends_the_game(
        "k1K5/P7/8/8/8/8/8/8 b - - 0 1",
        "1/2-1/2 {Insufficient material}",
    );
    // King and bishop against king: no mate possible either.
    own_move_ends_the_game(
        "8/8/8/8/8/8/kPK5/b7 b - - 0 1",
        "1/2-1/2 {Insufficient material}",
    );
}

#[test]
fn fifty_move_rule_by_the_engines_own_move_is_claimed() {
    // Rook each, no pawn, nothing to capture, clock at 99 half-moves: whatever the engine
    // plays is the 100th half-move without capture or pawn move.
    let fen = "4k3/6r1/8/8/8/8/1R6/4K3 w - - 99 80";
    let mut e = engine_on(fen);
    e.send("sd 3");
    e.send("go");
    let (mv, after_move) = e.expect_move_and_after(10 * SEC);
    let pos = Position::from_fen(fen).unwrap();
    let after = pos.after(pos.parse_move(&mv).unwrap());
    assert_eq!(after.halfmove_clock(), 100, "{mv}");
    // The claim, and nothing else, follows the move.
    assert_eq!(after_move, ["1/2-1/2 {50 move rule}"]);
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
}

#[test]
fn threefold_repetition_by_the_engines_own_move_is_claimed() {
    // White's king is boxed in by rook b4 and knight c4: its only moves are a2-a1 and back.
    // The engine plays White; Black (the test) shuffles its king, so White's a1-a2 brings
    // the start position back for the third time on the engine's fourth move.
    let fen = "7k/8/8/8/1rn5/8/K7/8 b - - 0 1";
    let mut e = engine_on(fen);
    e.send("sd 3");
    e.send("playother");
    let mut pos = Position::from_fen(fen).unwrap();
    for (i, black) in ["h8g8", "g8h8", "h8g8", "g8h8"].iter().enumerate() {
        e.send(&format!("usermove {black}"));
        pos = pos.after(pos.parse_move(black).unwrap());
        let (line, before) = e.wait_for("the move", 10 * SEC, |l| {
            l.starts_with("move ") || is_claim(l)
        });
        assert!(before.is_empty(), "{before:?}");
        let only = pos.legal_moves();
        assert_eq!(only.len(), 1);
        assert_eq!(
            line,
            format!("move {}", pos.coordinate(only[0])),
            "move {i}"
        );
        pos = pos.after(only[0]);
        if i < 3 {
            assert_eq!(no_move(&mut e, 10 + i as u32), Vec::<String>::new());
        }
    }
    assert_eq!(
        e.next_line(5 * SEC).as_deref(),
        Some("1/2-1/2 {3-fold repetition}")
    );
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
}

/// The engine plays the side not to move in `fen`; the test's move `mv` ends the game and
/// the engine must claim `claim` instead of moving.
fn opponent_move_ends_the_game(fen: &str, moves: &[&str], claim: &str) {
    let mut e = engine_on(fen);
    e.send("sd 3");
    let (last, first) = moves.split_last().unwrap();
    for m in first {
        e.send(m);
    }
    e.send("playother");
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new(), "before {last}");
    e.send(&format!("usermove {last}"));
    let lines = no_move(&mut e, 2);
    assert_eq!(lines, vec![claim.to_string()], "after {last}");
    e.expect_silence(Duration::from_millis(300));
}

#[test]
fn every_game_end_made_by_the_opponent_is_claimed_instead_of_moving() {
    opponent_move_ends_the_game(
        "k7/8/1K6/8/8/8/8/7R w - - 0 1",
        &["h1h8"],
        "1-0 {White mates}",
    );
    opponent_move_ends_the_game(
        "8/8/8/8/8/1k6/7q/K7 b - - 0 1",
        &["h2h1"],
        "0-1 {Black mates}",
    );
    opponent_move_ends_the_game(
        "k7/8/8/1Q6/8/8/8/K7 w - - 0 1",
        &["b5b6"],
        "1/2-1/2 {Stalemate}",
    );
    opponent_move_ends_the_game(
        "4k3/8/8/8/8/8/3p4/2B1K3 w - - 0 1",
        &["c1d2"],
        "1/2-1/2 {Insufficient material}",
    );
    opponent_move_ends_the_game(
        "4k3/6r1/8/8/8/8/1R6/4K3 w - - 99 80",
        &["b2b3"],
        "1/2-1/2 {50 move rule}",
    );
    // Knights out and back twice from the start: the third time the start position stands.
    opponent_move_ends_the_game(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[
            "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
        ],
        "1/2-1/2 {3-fold repetition}",
    );
}

#[test]
fn go_on_a_finished_game_claims_and_does_not_move() {
    for (fen, claim) in [
        ("k7/8/1Q6/8/8/8/8/K7 b - - 0 1", "1/2-1/2 {Stalemate}"),
        ("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "1-0 {White mates}"),
        (
            "k7/8/8/8/8/8/8/K5N1 w - - 0 1",
            "1/2-1/2 {Insufficient material}",
        ),
        (
            "4k3/6r1/8/8/8/8/1R6/4K3 w - - 100 80",
            "1/2-1/2 {50 move rule}",
        ),
    ] {
        let mut e = engine_on(fen);
        e.send("sd 3");
        e.send("go");
        assert_eq!(no_move(&mut e, 1), vec![claim.to_string()], "{fen}");
    }
}

#[test]
fn result_ends_thinking_until_a_new_game() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("e2e4");
    e.send("result 0-1 {White resigns}");
    e.send("sd 3");
    e.send("go");
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
    e.expect_silence(Duration::from_millis(500));
    // Nor does a move of the opponent's wake it up.
    e.send("usermove e7e5");
    assert_eq!(no_move(&mut e, 2), Vec::<String>::new());
    // A new game: the engine plays again.
    e.send("new");
    e.send("sd 3");
    e.send("go");
    let mv = e.expect_move(10 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok(), "{mv}");
    // And a set-up position after a result: also a fresh game.
    e.send("result 1-0 {Black resigns}");
    e.send("force");
    e.send("setboard 4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1");
    e.send("go");
    let mv = e.expect_move(10 * SEC);
    let pos = Position::from_fen("4k3/8/8/8/8/8/3Q4/4K3 w - - 0 1").unwrap();
    assert!(pos.parse_move(&mv).is_ok(), "{mv}");
}

#[test]
fn draw_offers_follow_the_position_and_the_draw_offers_option() {
    // Bare kings plus a knight: nobody can win, so a draw offer is accepted ...
    let mut e = engine_on("7k/8/8/8/8/8/8/K6N w - - 0 1");
    e.send("draw");
    assert_eq!(no_move(&mut e, 1), vec!["offer draw".to_string()]);
    // ... unless draw offers are switched off, and again when switched back on.
    e.send("option DrawOffers=0");
    e.send("draw");
    assert_eq!(no_move(&mut e, 2), Vec::<String>::new());
    e.send("option DrawOffers=1");
    e.send("draw");
    assert_eq!(no_move(&mut e, 3), vec!["offer draw".to_string()]);
    e.send("option DrawOffers=maybe");
    let error = e.next_line(5 * SEC).unwrap_or_default();
    assert!(error.starts_with("Error (DrawOffers"), "{error}");
    // A bad value leaves the option as it was (on).
    e.send("draw");
    assert_eq!(no_move(&mut e, 4), vec!["offer draw".to_string()]);

    // A queen down after its own search: the offer is accepted.
    let mut e = engine_on("7k/8/8/8/8/8/2Q5/K7 b - - 0 1");
    e.send("sd 4");
    e.send("go");
    e.expect_move(10 * SEC);
    e.send("draw");
    assert_eq!(no_move(&mut e, 1), vec!["offer draw".to_string()]);
    e.send("option DrawOffers=0");
    e.send("draw");
    assert_eq!(no_move(&mut e, 2), Vec::<String>::new());

    // A queen up: declined, which the protocol says is done by ignoring the offer.
    let mut e = engine_on("7k/8/8/8/8/8/2Q5/K7 w - - 0 1");
    e.send("sd 4");
    e.send("go");
    e.expect_move(10 * SEC);
    e.send("draw");
    assert_eq!(no_move(&mut e, 1), Vec::<String>::new());
}
