//! Moves as text (coordinate notation and SAN, both ways), the staged move generator
//! (noisy + quiet = legal), and the incremental state kept by `play` (bitboards, Zobrist key,
//! clocks) over random games.

use crate::common::*;

use kestrel::chess::{Color, Move, MoveError, Position, Role, Square};
use std::collections::HashSet;
use std::path::Path;

// ----- helpers -----

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("'{fen}' refused: {e}"))
}

fn normal(from: &str, to: &str) -> Move {
    Move::normal(sq(from), sq(to))
}

fn castle(king: &str, rook: &str) -> Move {
    Move::castle(sq(king), sq(rook))
}

fn promo(from: &str, to: &str, role: Role) -> Move {
    Move::promotion(sq(from), sq(to), role)
}

/// The FENs of a `FEN ;D1 n ...` file, at most `limit` of them.
fn load_fens(name: &str, limit: usize) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .take(limit)
        .map(|l| l.split(';').next().unwrap().trim().to_string())
        .collect()
}

fn positions(name: &str, limit: usize) -> Vec<Position> {
    load_fens(name, limit).iter().map(|f| pos(f)).collect()
}

/// The positions and all their children.
fn with_children(roots: &[Position]) -> Vec<Position> {
    let mut all = Vec::new();
    for root in roots {
        all.push(*root);
        for &m in root.legal_moves().iter() {
            all.push(root.after(m));
        }
    }
    all
}

/// The SAN of the move written in coordinates (which must be legal).
fn san_of(p: &Position, coord: &str) -> String {
    let m = p
        .parse_coordinate(coord)
        .unwrap_or_else(|e| panic!("{coord} in {}: {e}", p.to_fen()));
    p.san(m)
}

const CASTLING: &str = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1";
/// Chess960: king b1, rooks a1 and g1; both castlings are possible.
const C960: &str = "rk4r1/pppppppp/8/8/8/8/PPPPPPPP/RK4R1 w GAga - 0 1";
/// Chess960: king b1, rook h1; castling short puts the king on g1, a square the king cannot
/// otherwise reach in one move.
const C960_FAR: &str = "1k5r/pppppppp/8/8/8/8/PPPPPPPP/1K5R w Hh - 0 1";
const PROMOTION: &str = "k7/4P3/8/8/8/8/8/4K3 w - - 0 1";
const FOOLS_MATE: &str = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3 0 2";
const EN_PASSANT: &str = "4k3/8/8/3pP3/8/8/P7/4K3 w - d6 0 2";
/// White knights b1 and f3 can both go to d2.
const TWO_KNIGHTS: &str = "rnbqkbnr/ppp1pppp/8/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R w KQkq - 0 3";
/// Black knights b8 and f6 can both go to d7.
const TWO_BLACK_KNIGHTS: &str = "rnbqkb1r/ppp1pppp/5n2/3p4/3P4/5N2/PPP1PPPP/RNBQKB1R b KQkq - 1 3";
/// Rooks a1 and a5 can both take on a3.
const TWO_ROOKS: &str = "4k3/8/8/R7/8/n7/8/R3K3 w - - 0 1";
/// Queens h4, e4 and h1 can all go to e1.
const THREE_QUEENS: &str = "2k5/8/8/8/4Q2Q/8/8/K6Q w - - 0 1";
/// The knight on e2 is pinned by the rook on e7.
const PINNED_KNIGHT: &str = "4k3/4r3/8/1N6/8/8/4N3/4K3 w - - 0 1";

// ----- coordinate notation out -----

#[test]
fn coordinate_output() {
    let start = Position::startpos();
    assert_eq!(start.coordinate(normal("e2", "e4")), "e2e4");
    assert_eq!(start.coordinate(normal("g1", "f3")), "g1f3");

    let p = pos(PROMOTION);
    assert_eq!(p.coordinate(promo("e7", "e8", Role::Queen)), "e7e8q");
    assert_eq!(p.coordinate(promo("e7", "e8", Role::Knight)), "e7e8n");
    assert_eq!(p.coordinate(promo("e7", "e8", Role::Rook)), "e7e8r");
    assert_eq!(p.coordinate(promo("e7", "e8", Role::Bishop)), "e7e8b");

    let p = pos(EN_PASSANT);
    assert_eq!(p.coordinate(Move::en_passant(sq("e5"), sq("d6"))), "e5d6");

    // Standard chess: king to its destination.
    let p = pos(CASTLING);
    assert!(!p.is_chess960());
    assert!(p.legal_moves().contains(castle("e1", "h1")));
    assert_eq!(p.coordinate(castle("e1", "h1")), "e1g1");
    assert_eq!(p.coordinate(castle("e1", "a1")), "e1c1");
    let black = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1");
    assert_eq!(black.coordinate(castle("e8", "h8")), "e8g8");
    assert_eq!(black.coordinate(castle("e8", "a8")), "e8c8");

    // Chess960: king takes rook.
    let p = pos(C960);
    assert!(p.is_chess960());
    let castles: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.is_castle())
        .map(|&m| p.coordinate(m))
        .collect();
    assert_eq!(castles.len(), 2, "{castles:?}");
    assert!(castles.contains(&"b1g1".to_string()), "{castles:?}");
    assert!(castles.contains(&"b1a1".to_string()), "{castles:?}");
    let p = pos(C960_FAR);
    assert_eq!(p.coordinate(castle("b1", "h1")), "b1h1");

    // The Chess960 perft position: Shredder-FEN makes it Chess960, and after clearing the
    // way both castlings print king-takes-rook.
    let p = pos("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9");
    assert!(p.is_chess960());
    assert_eq!(p.legal_moves().len(), 21);
    assert!(!p.legal_moves().iter().any(|m| m.is_castle()));
    let p = pos("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ3RKR w HFhf - 2 9");
    let castles: Vec<String> = p
        .legal_moves()
        .iter()
        .filter(|m| m.is_castle())
        .map(|&m| p.coordinate(m))
        .collect();
    assert_eq!(castles, ["g1f1"]);
    assert_eq!(p.san(castle("g1", "f1")), "O-O-O");
}

// ----- coordinate notation in -----

#[test]
fn coordinate_input() {
    let start = Position::startpos();
    assert_eq!(start.parse_coordinate("e2e4"), Ok(normal("e2", "e4")));
    assert_eq!(start.parse_coordinate("g1f3"), Ok(normal("g1", "f3")));

    // Standard castling, every way of writing it.
    let p = pos(CASTLING);
    for text in ["e1g1", "e1h1", "O-O", "0-0", "o-o"] {
        assert_eq!(p.parse_coordinate(text), Ok(castle("e1", "h1")), "{text}");
    }
    for text in ["e1c1", "e1a1", "O-O-O", "0-0-0", "o-o-o"] {
        assert_eq!(p.parse_coordinate(text), Ok(castle("e1", "a1")), "{text}");
    }
    let black = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R b KQkq - 0 1");
    assert_eq!(black.parse_coordinate("e8g8"), Ok(castle("e8", "h8")));
    assert_eq!(black.parse_coordinate("O-O-O"), Ok(castle("e8", "a8")));
    // No castling right, no castling.
    let p = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - - 0 1");
    assert_eq!(p.parse_coordinate("O-O"), Err(MoveError::NoSuchMove));
    assert_eq!(p.parse_coordinate("e1g1"), Err(MoveError::NoSuchMove));

    // Chess960.
    let p = pos(C960);
    assert_eq!(p.parse_coordinate("O-O"), Ok(castle("b1", "g1")));
    assert_eq!(p.parse_coordinate("b1g1"), Ok(castle("b1", "g1")));
    assert_eq!(p.parse_coordinate("O-O-O"), Ok(castle("b1", "a1")));
    assert_eq!(p.parse_coordinate("b1a1"), Ok(castle("b1", "a1")));
    // b1c1 is the king's own step, not long castling.
    assert_eq!(p.parse_coordinate("b1c1"), Ok(normal("b1", "c1")));
    let p = pos(C960_FAR);
    assert_eq!(p.parse_coordinate("b1h1"), Ok(castle("b1", "h1")));
    assert_eq!(p.parse_coordinate("0-0"), Ok(castle("b1", "h1")));
    assert_eq!(p.parse_coordinate("b1g1"), Ok(castle("b1", "h1")));

    // Promotion.
    let p = pos(PROMOTION);
    assert_eq!(
        p.parse_coordinate("e7e8q"),
        Ok(promo("e7", "e8", Role::Queen))
    );
    assert_eq!(
        p.parse_coordinate("e7e8n"),
        Ok(promo("e7", "e8", Role::Knight))
    );
    assert_eq!(
        p.parse_coordinate("e7e8r"),
        Ok(promo("e7", "e8", Role::Rook))
    );
    assert_eq!(
        p.parse_coordinate("e7e8b"),
        Ok(promo("e7", "e8", Role::Bishop))
    );
    assert_eq!(p.parse_coordinate("e7e8"), Err(MoveError::MissingPromotion));
    assert!(matches!(
        p.parse_coordinate("e7e8k"),
        Err(MoveError::Syntax(_))
    ));

    // En passant.
    let p = pos(EN_PASSANT);
    assert_eq!(
        p.parse_coordinate("e5d6"),
        Ok(Move::en_passant(sq("e5"), sq("d6")))
    );
}

#[test]
fn coordinate_input_errors() {
    let start = Position::startpos();
    assert_eq!(
        start.parse_coordinate("e3e4"),
        Err(MoveError::NoPiece(sq("e3")))
    );
    assert_eq!(
        start.parse_coordinate("e7e5"),
        Err(MoveError::NotYourPiece(sq("e7")))
    );
    assert_eq!(
        start.parse_coordinate("g8f6"),
        Err(MoveError::NotYourPiece(sq("g8")))
    );
    assert_eq!(start.parse_coordinate("e2e5"), Err(MoveError::NoSuchMove));
    assert_eq!(start.parse_coordinate("g1g3"), Err(MoveError::NoSuchMove));
    assert_eq!(start.parse_coordinate("a1a3"), Err(MoveError::NoSuchMove));
    // Castling through pieces.
    assert_eq!(start.parse_coordinate("O-O"), Err(MoveError::NoSuchMove));
    for text in [
        "hello", "e2", "e2e4qq", "", "e2e9", "i2i4", "e2-e4", "e2e4x", "e7e8k",
    ] {
        assert_eq!(
            start.parse_coordinate(text),
            Err(MoveError::Syntax(text.to_string())),
            "'{text}'"
        );
    }

    // Pinned pieces moving off their pin line.
    let p = pos(PINNED_KNIGHT);
    assert_eq!(
        p.parse_coordinate("e2c3"),
        Err(MoveError::LeavesKingInCheck)
    );
    assert_eq!(
        p.parse_coordinate("e2g3"),
        Err(MoveError::LeavesKingInCheck)
    );
    assert_eq!(p.parse_coordinate("e2e4"), Err(MoveError::NoSuchMove));
    let p = pos("4k3/8/8/b7/8/8/3B4/4K3 w - - 0 1");
    assert_eq!(
        p.parse_coordinate("d2e3"),
        Err(MoveError::LeavesKingInCheck)
    );
    assert_eq!(p.parse_coordinate("d2c3"), Ok(normal("d2", "c3")));
    assert_eq!(p.parse_coordinate("d2a5"), Ok(normal("d2", "a5")));
    // The king stepping into check.
    let p = pos("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1");
    assert_eq!(
        p.parse_coordinate("e1e2"),
        Err(MoveError::LeavesKingInCheck)
    );
    assert_eq!(p.parse_coordinate("e1d2"), Ok(normal("e1", "d2")));
    // Error messages name the problem.
    assert_eq!(
        start.parse_coordinate("e3e4").unwrap_err().to_string(),
        "no piece on e3"
    );
    assert!(start
        .parse_coordinate("e7e5")
        .unwrap_err()
        .to_string()
        .contains("e7"));
}

#[test]
fn coordinate_refusals_of_impossible_moves_do_not_blame_king_safety() {
    // A promotion letter on a move that is no promotion: the move does not exist, whether or
    // not the piece could otherwise go there.
    let start = Position::startpos();
    assert_eq!(start.parse_coordinate("e2e4q"), Err(MoveError::NoSuchMove));
    assert_eq!(start.parse_coordinate("g1f3n"), Err(MoveError::NoSuchMove));
    // A pawn nowhere near the en-passant square cannot take there.
    let p = pos(EN_PASSANT);
    assert_eq!(p.parse_coordinate("a2d6"), Err(MoveError::NoSuchMove));
    assert_eq!(p.parse_coordinate("a2a4"), Ok(normal("a2", "a4")));
    // But a promotion that exists except for the pin is refused for the king's sake: the
    // pawn on e7 is pinned along the seventh rank by the rook on a7.
    let p = pos("k7/r3P2K/8/8/8/8/8/8 w - - 0 1");
    assert_eq!(
        p.parse_coordinate("e7e8q"),
        Err(MoveError::LeavesKingInCheck)
    );
}

// ----- SAN out -----

#[test]
fn san_output() {
    let start = Position::startpos();
    assert_eq!(san_of(&start, "g1f3"), "Nf3");
    assert_eq!(san_of(&start, "e2e4"), "e4");
    assert_eq!(san_of(&start, "b1c3"), "Nc3");

    let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert_eq!(san_of(&p, "e4d5"), "exd5");
    assert_eq!(san_of(&p, "f1b5"), "Bb5+");

    let p = pos(PROMOTION);
    assert_eq!(san_of(&p, "e7e8q"), "e8=Q+");
    assert_eq!(san_of(&p, "e7e8r"), "e8=R+");
    assert_eq!(san_of(&p, "e7e8b"), "e8=B");
    assert_eq!(san_of(&p, "e7e8n"), "e8=N");
    let p = pos("3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(san_of(&p, "e7d8q"), "exd8=Q+");

    let p = pos(CASTLING);
    assert_eq!(san_of(&p, "e1g1"), "O-O");
    assert_eq!(san_of(&p, "e1c1"), "O-O-O");
    let p = pos("3k4/8/8/8/8/8/8/R3K3 w Q - 0 1");
    assert_eq!(san_of(&p, "O-O-O"), "O-O-O+");
    let p = pos(C960);
    assert_eq!(san_of(&p, "b1g1"), "O-O");
    assert_eq!(san_of(&p, "b1a1"), "O-O-O");

    assert_eq!(san_of(&pos(FOOLS_MATE), "d8h4"), "Qh4#");
    // Back-rank mate by a rook.
    let p = pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1");
    assert_eq!(san_of(&p, "a1a8"), "Ra8#");
    let p = pos("8/8/8/6k1/8/8/8/4K1N1 w - - 0 1");
    assert_eq!(san_of(&p, "g1f3"), "Nf3+");

    assert_eq!(san_of(&pos(EN_PASSANT), "e5d6"), "exd6");

    // Disambiguation: file, rank, both; a pinned rival does not count.
    let p = pos(TWO_KNIGHTS);
    assert_eq!(san_of(&p, "b1d2"), "Nbd2");
    assert_eq!(san_of(&p, "f3d2"), "Nfd2");
    assert_eq!(san_of(&p, "c1d2"), "Bd2");
    let p = pos(TWO_ROOKS);
    assert_eq!(san_of(&p, "a1a3"), "R1xa3");
    assert_eq!(san_of(&p, "a5a3"), "R5xa3");
    assert_eq!(san_of(&p, "a1a2"), "Ra2");
    let p = pos(THREE_QUEENS);
    assert_eq!(san_of(&p, "h4e1"), "Qh4e1");
    assert_eq!(san_of(&p, "e4e1"), "Qee1");
    assert_eq!(san_of(&p, "h1e1"), "Q1e1");
    assert_eq!(san_of(&p, "h4h2"), "Q4h2");
    let p = pos(PINNED_KNIGHT);
    assert_eq!(san_of(&p, "b5c3"), "Nc3");
    assert_eq!(san_of(&p, "e1d2"), "Kd2");
}

// ----- SAN in -----

#[test]
fn san_input() {
    let start = Position::startpos();
    assert_eq!(start.parse_san("e4"), Ok(normal("e2", "e4")));
    assert_eq!(start.parse_san("Nf3"), Ok(normal("g1", "f3")));
    assert_eq!(start.parse_san("Nf3!?"), Ok(normal("g1", "f3")));
    assert_eq!(start.parse_san(" d3 "), Ok(normal("d2", "d3")));

    let p = pos("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    assert_eq!(p.parse_san("exd5"), Ok(normal("e4", "d5")));
    assert_eq!(p.parse_san("Bb5+"), Ok(normal("f1", "b5")));

    let p = pos(PROMOTION);
    assert_eq!(p.parse_san("e8=Q"), Ok(promo("e7", "e8", Role::Queen)));
    assert_eq!(p.parse_san("e8Q"), Ok(promo("e7", "e8", Role::Queen)));
    assert_eq!(p.parse_san("e8=Q+"), Ok(promo("e7", "e8", Role::Queen)));
    assert_eq!(p.parse_san("e8=N"), Ok(promo("e7", "e8", Role::Knight)));
    assert_eq!(p.parse_san("e8"), Err(MoveError::MissingPromotion));
    assert!(matches!(p.parse_san("e8=K"), Err(MoveError::Syntax(_))));

    let p = pos(TWO_BLACK_KNIGHTS);
    assert_eq!(p.parse_san("Nbd7"), Ok(normal("b8", "d7")));
    assert_eq!(p.parse_san("Nfd7"), Ok(normal("f6", "d7")));
    assert_eq!(p.parse_san("N8d7"), Ok(normal("b8", "d7")));
    assert_eq!(p.parse_san("Nb8d7"), Ok(normal("b8", "d7")));
    assert!(matches!(p.parse_san("Nd7"), Err(MoveError::Ambiguous(_))));

    let p = pos(CASTLING);
    assert_eq!(p.parse_san("O-O"), Ok(castle("e1", "h1")));
    assert_eq!(p.parse_san("0-0"), Ok(castle("e1", "h1")));
    assert_eq!(p.parse_san("0-0-0"), Ok(castle("e1", "a1")));
    assert_eq!(p.parse_san("O-O-O"), Ok(castle("e1", "a1")));
    let p = pos(C960);
    assert_eq!(p.parse_san("O-O"), Ok(castle("b1", "g1")));
    assert_eq!(p.parse_san("O-O-O"), Ok(castle("b1", "a1")));
    assert_eq!(p.parse_san("Kc1"), Ok(normal("b1", "c1")));

    assert_eq!(pos(FOOLS_MATE).parse_san("Qh4#"), Ok(normal("d8", "h4")));
    let p = pos("8/8/8/6k1/8/8/8/4K1N1 w - - 0 1");
    assert_eq!(p.parse_san("Nf3+"), Ok(normal("g1", "f3")));

    let p = pos(EN_PASSANT);
    let ep = Move::en_passant(sq("e5"), sq("d6"));
    assert_eq!(p.parse_san("exd6e.p."), Ok(ep));
    assert_eq!(p.parse_san("exd6"), Ok(ep));

    let p = pos(THREE_QUEENS);
    assert_eq!(p.parse_san("Qh4e1"), Ok(normal("h4", "e1")));
    assert_eq!(p.parse_san("Qee1"), Ok(normal("e4", "e1")));
    assert_eq!(p.parse_san("Q1e1"), Ok(normal("h1", "e1")));
    assert!(matches!(p.parse_san("Qe1"), Err(MoveError::Ambiguous(_))));
    assert!(matches!(p.parse_san("Qhe1"), Err(MoveError::Ambiguous(_))));
    assert!(matches!(p.parse_san("Q4e1"), Err(MoveError::Ambiguous(_))));

    // A pinned rival does not make a move ambiguous.
    assert_eq!(pos(PINNED_KNIGHT).parse_san("Nc3"), Ok(normal("b5", "c3")));
}

#[test]
fn san_input_errors() {
    let p = pos(TWO_KNIGHTS);
    match p.parse_san("Nd2") {
        Err(MoveError::Ambiguous(which)) => {
            assert!(which.contains("b1d2") && which.contains("f3d2"), "{which}");
        }
        other => panic!("Nd2 should be ambiguous, got {other:?}"),
    }
    let start = Position::startpos();
    assert_eq!(start.parse_san("e5"), Err(MoveError::NoSuchMove));
    assert_eq!(start.parse_san("Ke2"), Err(MoveError::NoSuchMove));
    assert_eq!(start.parse_san("O-O"), Err(MoveError::NoSuchMove));
    for text in ["", "x", "Zf3", "Nz9", "hello"] {
        assert!(
            matches!(start.parse_san(text), Err(MoveError::Syntax(_))),
            "'{text}': {:?}",
            start.parse_san(text)
        );
    }
    // parse_move takes either notation.
    assert_eq!(start.parse_move("g1f3"), Ok(normal("g1", "f3")));
    assert_eq!(start.parse_move("Nf3"), Ok(normal("g1", "f3")));
    assert_eq!(
        start.parse_move("e7e5"),
        Err(MoveError::NotYourPiece(sq("e7")))
    );
}

// ----- round trips over the perft suites -----

/// Checks that every legal move of `p` survives SAN and coordinate notation both ways.
fn round_trip(p: &Position, failures: &mut Vec<String>) {
    let legal = p.legal_moves();
    let mut sans = HashSet::new();
    let mut coords = HashSet::new();
    for &m in legal.iter() {
        let san = p.san(m);
        let coord = p.coordinate(m);
        if p.parse_san(&san) != Ok(m) {
            failures.push(format!(
                "{}: {m:?} -> SAN '{san}' -> {:?}",
                p.to_fen(),
                p.parse_san(&san)
            ));
        }
        if p.parse_coordinate(&coord) != Ok(m) {
            failures.push(format!(
                "{}: {m:?} -> '{coord}' -> {:?}",
                p.to_fen(),
                p.parse_coordinate(&coord)
            ));
        }
        if p.parse_move(&san) != Ok(m) || p.parse_move(&coord) != Ok(m) {
            failures.push(format!(
                "{}: parse_move fails on '{san}' or '{coord}'",
                p.to_fen()
            ));
        }
        // The check suffix matches the position after the move.
        let next = p.after(m);
        let suffix = match (next.in_check(), next.has_legal_moves()) {
            (true, true) => "+",
            (true, false) => "#",
            _ => "",
        };
        let bare = san.trim_end_matches(['+', '#']);
        if format!("{bare}{suffix}") != san {
            failures.push(format!("{}: '{san}' has the wrong suffix", p.to_fen()));
        }
        sans.insert(san);
        coords.insert(coord);
    }
    if sans.len() != legal.len() || coords.len() != legal.len() {
        failures.push(format!(
            "{}: {} moves but {} SANs and {} coordinates",
            p.to_fen(),
            legal.len(),
            sans.len(),
            coords.len()
        ));
    }
}

fn check_round_trips(roots: &[Position]) {
    let all = with_children(roots);
    let mut failures = Vec::new();
    let mut moves = 0;
    for p in &all {
        moves += p.legal_moves().len();
        round_trip(p, &mut failures);
    }
    assert!(moves > 1000, "only {moves} moves checked");
    failures.truncate(20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn san_and_coordinate_round_trip_on_perft_positions() {
    let roots = positions("perft.epd", usize::MAX);
    assert!(roots.len() >= 100);
    check_round_trips(&roots);
}

#[test]
fn san_and_coordinate_round_trip_on_chess960_positions() {
    let roots = positions("perft960.epd", 200);
    assert_eq!(roots.len(), 200);
    // Shredder-FEN castling letters make a position Chess960 (one line has no rights).
    let c960 = roots.iter().filter(|p| p.is_chess960()).count();
    assert!(c960 >= 190, "only {c960} positions read as Chess960");
    check_round_trips(&roots);
}

// ----- move generation stages -----

/// noisy + quiet = legal, disjointly; noisy moves are exactly the captures, en passant and
/// promotions; counting agrees with listing; in check, evasions are the legal moves.
fn check_stages(p: &Position) -> Result<(), String> {
    let fen = p.to_fen();
    let legal = p.legal_moves();
    let noisy = p.noisy_moves();
    let quiet = p.quiet_moves();
    let set = |l: &[Move]| l.iter().map(|m| m.bits()).collect::<HashSet<u16>>();
    let (all, n, q) = (set(&legal), set(&noisy), set(&quiet));
    if all.len() != legal.len() || n.len() != noisy.len() || q.len() != quiet.len() {
        return Err(format!("{fen}: a move list has duplicates"));
    }
    if !n.is_disjoint(&q) {
        return Err(format!("{fen}: noisy and quiet overlap"));
    }
    let union: HashSet<u16> = n.union(&q).copied().collect();
    if union != all {
        return Err(format!(
            "{fen}: noisy {noisy:?} + quiet {quiet:?} != legal {legal:?}"
        ));
    }
    let us = p.side_to_move();
    for &m in noisy.iter() {
        let captures = p.piece_on(m.to()).is_some_and(|pc| pc.color() != us);
        if !(captures || m.is_en_passant() || m.is_promotion()) || m.is_castle() {
            return Err(format!("{fen}: {m:?} is not noisy"));
        }
    }
    for &m in quiet.iter() {
        let lands_on_empty = p.piece_on(m.to()).is_none();
        if m.is_promotion() || m.is_en_passant() || !(lands_on_empty || m.is_castle()) {
            return Err(format!("{fen}: {m:?} is not quiet"));
        }
    }
    if p.count_legal_moves() != legal.len() as u64 {
        return Err(format!(
            "{fen}: count_legal_moves {} != {}",
            p.count_legal_moves(),
            legal.len()
        ));
    }
    if p.has_legal_moves() == legal.is_empty() {
        return Err(format!("{fen}: has_legal_moves is wrong"));
    }
    if p.in_check() {
        if p.evasions().as_slice() != legal.as_slice() {
            return Err(format!("{fen}: evasions differ from legal moves"));
        }
        if legal.iter().any(|m| m.is_castle()) {
            return Err(format!("{fen}: castling out of check"));
        }
    }
    if let Some(&m) = legal.iter().find(|&&m| !p.is_legal(m)) {
        return Err(format!("{fen}: is_legal({m:?}) is false"));
    }
    Ok(())
}

#[test]
fn noisy_and_quiet_stages_partition_the_legal_moves() {
    let all = with_children(&positions("perft.epd", usize::MAX));
    let in_check = all.iter().filter(|p| p.in_check()).count();
    let with_noisy = all.iter().filter(|p| !p.noisy_moves().is_empty()).count();
    assert!(in_check > 50, "only {in_check} positions in check");
    assert!(
        with_noisy > 500,
        "only {with_noisy} positions with noisy moves"
    );
    let failures: Vec<String> = all.iter().filter_map(|p| check_stages(p).err()).collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // Some hand-checked stage contents.
    let p = pos(PROMOTION);
    assert_eq!(p.noisy_moves().len(), 4);
    assert!(p.quiet_moves().iter().all(|m| !m.is_promotion()));
    let p = pos(CASTLING);
    assert!(p.quiet_moves().contains(castle("e1", "h1")));
    assert!(!p.noisy_moves().contains(castle("e1", "h1")));
    let p = pos(EN_PASSANT);
    assert_eq!(
        p.noisy_moves().as_slice(),
        [Move::en_passant(sq("e5"), sq("d6"))]
    );
}

// ----- make-move invariants over random games -----

/// xorshift64*: small, deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn check_state(p: &Position, what: &str) {
    if let Err(e) = p.validate() {
        panic!("{what}: {} invalid: {e}", p.to_fen());
    }
    let fen = p.to_fen();
    let again = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{what}: {fen} refused: {e}"));
    assert_eq!(
        again.key(),
        p.key(),
        "{what}: key changes through FEN {fen}"
    );
    assert_eq!(again, *p, "{what}: position changes through FEN {fen}");
    assert_eq!(again.to_fen(), fen, "{what}");
    assert_eq!(
        p.ep_square().is_some(),
        p.legal_moves().iter().any(|m| m.is_en_passant()),
        "{what}: en-passant square without a capture (or the reverse) in {fen}"
    );
}

#[test]
fn random_games_keep_the_incremental_state_right() {
    let fens = load_fens("perft.epd", usize::MAX);
    let mut starts: Vec<&str> = (0..50)
        .map(|i| fens[i * fens.len() / 50].as_str())
        .collect();
    // And a few where en passant and castling come up all the time.
    starts.extend([
        "4k3/pppppppp/8/P1P1P1P1/8/8/8/4K3 b - - 0 1",
        "4k3/8/8/8/p1p1p1p1/8/PPPPPPPP/4K3 w - - 0 1",
        CASTLING,
        C960,
    ]);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut plies = 0;
    let mut nulls = 0;
    let mut ep_positions = 0;
    let mut special = [0usize; 3]; // castles, en passant, promotions
    for fen in starts {
        let mut p = pos(fen);
        check_state(&p, "start");
        for ply in 0..200 {
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            // Uniform random play almost never meets castling or en passant: prefer those
            // when there are some, and now and then a pawn double push, best one that allows
            // an en-passant reply.
            let pick = |rng: &mut Rng, f: &dyn Fn(&Move) -> bool| -> Option<Move> {
                let some: Vec<Move> = moves.iter().copied().filter(|m| f(m)).collect();
                (!some.is_empty()).then(|| some[rng.below(some.len())])
            };
            let double_push = |m: &Move| {
                p.role_on(m.from()) == Some(Role::Pawn)
                    && m.from().index().abs_diff(m.to().index()) == 16
            };
            let m = match rng.below(8) {
                0 | 1 => None,
                2 => pick(&mut rng, &double_push),
                3 | 4 => pick(&mut rng, &|m: &Move| {
                    double_push(m) && p.after(*m).ep_square().is_some()
                }),
                _ => pick(&mut rng, &|m: &Move| m.is_castle() || m.is_en_passant()),
            }
            .unwrap_or_else(|| moves[rng.below(moves.len())]);
            let what = format!("{fen}, ply {ply}, {m:?}");
            let before = p;
            let capture = before.piece_on(m.to()).is_some() && !m.is_castle();
            let pawn = before.role_on(m.from()) == Some(Role::Pawn);
            special[0] += m.is_castle() as usize;
            special[1] += m.is_en_passant() as usize;
            special[2] += m.is_promotion() as usize;
            p.play(m);
            plies += 1;
            check_state(&p, &what);
            ep_positions += p.ep_square().is_some() as usize;
            assert_eq!(p.side_to_move(), !before.side_to_move(), "{what}");
            let halfmove = if capture || pawn || m.is_en_passant() {
                0
            } else {
                before.halfmove_clock() + 1
            };
            assert_eq!(p.halfmove_clock(), halfmove, "{what}");
            let fullmove =
                before.fullmove_number() + (before.side_to_move() == Color::Black) as u16;
            assert_eq!(p.fullmove_number(), fullmove, "{what}");
            if let Err(e) = check_stages(&p) {
                panic!("{what}: {e}");
            }

            if !p.in_check() {
                let mut passed = p;
                passed.play_null();
                nulls += 1;
                check_state(&passed, &format!("{what}, then a null move"));
                assert_eq!(passed.side_to_move(), !p.side_to_move());
                assert_ne!(passed.key(), p.key(), "{what}: null move kept the key");
                // Passing twice gives back the position (without an en-passant square).
                let mut twice = passed;
                twice.play_null();
                twice.validate().unwrap();
                if p.ep_square().is_none() {
                    assert_eq!(twice.key(), p.key(), "{what}: two null moves");
                }
            }
        }
    }
    assert!(plies > 3000, "only {plies} plies played");
    assert!(nulls > 1000, "only {nulls} null moves");
    assert!(ep_positions >= 10, "only {ep_positions} en-passant squares");
    assert!(
        special.iter().all(|&n| n >= 5),
        "castles, en passant, promotions played: {special:?}"
    );
}

#[test]
fn gives_check_agrees_with_playing_the_move() {
    let mut roots = positions("perft.epd", usize::MAX);
    roots.extend(positions("perft960.epd", 200));
    roots.extend(positions("perft-random.epd", 2000));
    let mut checks = 0;
    for p in with_children(&roots) {
        let squares = p.check_squares();
        for &m in p.legal_moves().iter() {
            let expected = p.after(m).in_check();
            assert_eq!(
                p.gives_check(m),
                expected,
                "{} {m:?}: gives_check disagrees with play",
                p.to_fen()
            );
            assert_eq!(
                p.gives_check_with(&squares, m),
                expected,
                "{} {m:?}: gives_check_with disagrees with play",
                p.to_fen()
            );
            checks += expected as usize;
        }
    }
    // The suites are rich in checks of every kind (direct, discovered, castling, en passant).
    assert!(checks > 10_000, "only {checks} checking moves seen");
}

/// `is_legal` generates only the moves of the piece on the move's from-square; it must agree
/// with the full legal move list on every move a hash table or a sibling could offer: every
/// from/to pair of the side to move's pieces, as a plain move, a promotion, castling and en
/// passant, and the legal moves of the parent position.
#[test]
fn is_legal_agrees_with_the_legal_move_list() {
    let mut roots = positions("perft.epd", usize::MAX);
    roots.extend(positions("perft960.epd", 200));
    let mut checked = 0u64;
    for root in &roots {
        let parent_moves = root.legal_moves();
        for &m in parent_moves.iter() {
            let p = root.after(m);
            let legal = p.legal_moves();
            let ours = p.color_bb(p.side_to_move());
            let mut candidates: Vec<Move> = parent_moves.iter().copied().collect();
            for from in ours {
                for to in (0..64u8).map(Square::new) {
                    candidates.push(Move::normal(from, to));
                    candidates.push(Move::castle(from, to));
                    candidates.push(Move::en_passant(from, to));
                    for role in [Role::Queen, Role::Knight, Role::Rook, Role::Bishop] {
                        candidates.push(Move::promotion(from, to, role));
                    }
                }
            }
            for c in candidates {
                assert_eq!(
                    p.is_legal(c),
                    legal.contains(c),
                    "{}: is_legal({c:?})",
                    p.to_fen()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1_000_000, "only {checked} moves checked");
}
