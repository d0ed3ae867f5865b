//! FEN refusals and FEN cleanups: every malformed FEN gives the right `FenError` with a
//! message a person can act on, and the harmless oddities real test suites contain
//! (impossible castling rights, en-passant squares nobody can capture on, missing counters,
//! Shredder-FEN letters) are cleaned up instead of refused.

use crate::common::{self, *};

use kestrel::chess::{Color, FenError, Position, STARTPOS_FEN};
use std::collections::BTreeMap;

/// The variant's name, written as an exhaustive match so that a new variant without a case in
/// the table below fails to compile here first.
fn variant(e: &FenError) -> &'static str {
    match e {
        FenError::Empty => "Empty",
        FenError::MissingField(_) => "MissingField",
        FenError::TrailingJunk(_) => "TrailingJunk",
        FenError::WrongRankCount(_) => "WrongRankCount",
        FenError::BadPieceChar { .. } => "BadPieceChar",
        FenError::RankTooLong(_) => "RankTooLong",
        FenError::RankTooShort(_) => "RankTooShort",
        FenError::BadSide(_) => "BadSide",
        FenError::BadCastling(_) => "BadCastling",
        FenError::BadEnPassant(_) => "BadEnPassant",
        FenError::EnPassantWrongRank(_) => "EnPassantWrongRank",
        FenError::BadHalfmoveClock(_) => "BadHalfmoveClock",
        FenError::BadFullmoveNumber(_) => "BadFullmoveNumber",
        FenError::KingCount { .. } => "KingCount",
        FenError::PawnOnBackRank(_) => "PawnOnBackRank",
        FenError::TooManyPawns(_) => "TooManyPawns",
        FenError::TooManyPieces(_) => "TooManyPieces",
        FenError::SideNotToMoveInCheck(_) => "SideNotToMoveInCheck",
        FenError::TooManyCheckers => "TooManyCheckers",
    }
}

const ALL_VARIANTS: [&str; 19] = [
    "Empty",
    "MissingField",
    "TrailingJunk",
    "WrongRankCount",
    "BadPieceChar",
    "RankTooLong",
    "RankTooShort",
    "BadSide",
    "BadCastling",
    "BadEnPassant",
    "EnPassantWrongRank",
    "BadHalfmoveClock",
    "BadFullmoveNumber",
    "KingCount",
    "PawnOnBackRank",
    "TooManyPawns",
    "TooManyPieces",
    "SideNotToMoveInCheck",
    "TooManyCheckers",
];

const START_PLACEMENT: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

struct Case {
    fen: String,
    expected: FenError,
    /// Must appear in the error's `Display`.
    message: &'static str,
}

fn case(fen: impl Into<String>, expected: FenError, message: &'static str) -> Case {
    Case {
        fen: fen.into(),
        expected,
        message,
    }
}

/// The start position with one field replaced (0 = placement ... 5 = fullmove).
fn start_with(field: usize, value: &str) -> String {
    let mut fields: Vec<&str> = STARTPOS_FEN.split(' ').collect();
    fields[field] = value;
    fields.join(" ")
}

fn cases() -> Vec<Case> {
    use FenError::*;
    let s = START_PLACEMENT;
    vec![
        // ----- missing and extra fields -----
        case("", Empty, "empty FEN"),
        case("   \t ", Empty, "empty FEN"),
        case(
            s,
            MissingField("side to move"),
            "missing side to move field",
        ),
        case(
            format!("{s} w"),
            MissingField("castling"),
            "missing castling field",
        ),
        case(
            format!("{s} w KQkq"),
            MissingField("en-passant"),
            "missing en-passant field",
        ),
        case(
            format!("{STARTPOS_FEN} extra"),
            TrailingJunk("extra".into()),
            "unexpected text after the FEN: 'extra'",
        ),
        case(
            format!("{STARTPOS_FEN} extra junk"),
            TrailingJunk("extra junk".into()),
            "'extra junk'",
        ),
        // ----- piece placement -----
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8/4x3/8/PPPPPPPP/RNBQKBNR"),
            BadPieceChar { ch: 'x', rank: '4' },
            "bad piece letter 'x' on rank 4",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR"),
            BadPieceChar { ch: '9', rank: '6' },
            "bad piece letter '9' on rank 6",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8/08/8/PPPPPPPP/RNBQKBNR"),
            BadPieceChar { ch: '0', rank: '4' },
            "bad piece letter '0' on rank 4",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR"),
            RankTooLong('1'),
            "rank 1 has more than 8 squares",
        ),
        case(
            start_with(0, "rnbqkbnr/ppp6/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            RankTooLong('7'),
            "rank 7 has more than 8 squares",
        ),
        case(
            start_with(0, "rnbqkbn/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            RankTooShort('8'),
            "rank 8 has fewer than 8 squares",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8/8/7/PPPPPPPP/RNBQKBNR"),
            RankTooShort('3'),
            "rank 3 has fewer than 8 squares",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8//8/PPPPPPPP/RNBQKBNR"),
            RankTooShort('4'),
            "rank 4 has fewer than 8 squares",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR"),
            WrongRankCount(7),
            "piece placement has 7 ranks, expected 8",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR"),
            WrongRankCount(9),
            "piece placement has 9 ranks, expected 8",
        ),
        case(
            start_with(0, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/"),
            WrongRankCount(9),
            "has 9 ranks",
        ),
        // ----- material -----
        case(
            "4k3/8/8/8/8/8/8/3KK3 w - - 0 1",
            KingCount {
                color: Color::White,
                count: 2,
            },
            "White has 2 kings, must have exactly one",
        ),
        case(
            "8/8/8/8/8/8/8/4K3 w - - 0 1",
            KingCount {
                color: Color::Black,
                count: 0,
            },
            "Black has 0 kings",
        ),
        case(
            "8/8/8/8/8/8/8/8 w - - 0 1",
            KingCount {
                color: Color::White,
                count: 0,
            },
            "White has 0 kings",
        ),
        case(
            "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
            PawnOnBackRank(sq("a1")),
            "pawn on the back rank at a1",
        ),
        case(
            "4k2P/8/8/8/8/8/8/4K3 w - - 0 1",
            PawnOnBackRank(sq("h8")),
            "pawn on the back rank at h8",
        ),
        case(
            "p3k3/8/8/8/8/8/8/4K3 b - - 0 1",
            PawnOnBackRank(sq("a8")),
            "at a8",
        ),
        case(
            "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1",
            TooManyPawns(Color::White),
            "White has more than 8 pawns",
        ),
        case(
            "4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1",
            TooManyPawns(Color::Black),
            "Black has more than 8 pawns",
        ),
        case(
            "rnbqkbnr/pppppppp/n7/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            TooManyPieces(Color::Black),
            "Black has more than 16 pieces",
        ),
        // ----- checks -----
        case(
            // White to move, but the rook on e1 already attacks the black king.
            "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",
            SideNotToMoveInCheck(Color::Black),
            "Black is in check but it is not Black's turn",
        ),
        case(
            "4k3/8/8/8/8/8/8/r3K3 b - - 0 1",
            SideNotToMoveInCheck(Color::White),
            "White is in check but it is not White's turn",
        ),
        case(
            // Knights d6 and f6 and the rook on e1 all attack the king on e4.
            "4k3/8/3n1n2/8/4K3/8/8/4r3 w - - 0 1",
            TooManyCheckers,
            "more than two pieces",
        ),
        // ----- side to move -----
        case(
            start_with(1, "x"),
            BadSide("x".into()),
            "side to move must be 'w' or 'b', not 'x'",
        ),
        case(
            start_with(1, "white"),
            BadSide("white".into()),
            "not 'white'",
        ),
        // ----- castling -----
        case(
            start_with(2, "KQkqK"),
            BadCastling("KQkqK".into()),
            "bad castling field 'KQkqK'",
        ),
        case(
            start_with(2, "X"),
            BadCastling("X".into()),
            "bad castling field 'X'",
        ),
        case(
            start_with(2, "KK"),
            BadCastling("KK".into()),
            "bad castling field 'KK'",
        ),
        case(
            start_with(2, "Kx"),
            BadCastling("Kx".into()),
            "bad castling field 'Kx'",
        ),
        case(
            start_with(2, "--"),
            BadCastling("--".into()),
            "bad castling field '--'",
        ),
        // ----- en passant -----
        case(
            start_with(3, "e9"),
            BadEnPassant("e9".into()),
            "bad en-passant field 'e9'",
        ),
        case(
            start_with(3, "z3"),
            BadEnPassant("z3".into()),
            "bad en-passant field 'z3'",
        ),
        case(
            start_with(3, "e33"),
            BadEnPassant("e33".into()),
            "bad en-passant field 'e33'",
        ),
        case(
            start_with(3, "e4"),
            EnPassantWrongRank(sq("e4")),
            "en-passant square e4 is on the wrong rank",
        ),
        case(
            // Rank 3 is Black's en-passant rank; with White to move it must be rank 6.
            start_with(3, "e3"),
            EnPassantWrongRank(sq("e3")),
            "en-passant square e3 is on the wrong rank",
        ),
        case(
            "rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR b KQkq e6 0 1",
            EnPassantWrongRank(sq("e6")),
            "en-passant square e6 is on the wrong rank",
        ),
        // ----- counters -----
        case(
            start_with(4, "-1"),
            BadHalfmoveClock("-1".into()),
            "bad halfmove clock '-1'",
        ),
        case(
            start_with(4, "abc"),
            BadHalfmoveClock("abc".into()),
            "bad halfmove clock 'abc'",
        ),
        case(
            start_with(4, "99999"),
            BadHalfmoveClock("99999".into()),
            "bad halfmove clock '99999'",
        ),
        case(
            start_with(4, "10000"),
            BadHalfmoveClock("10000".into()),
            "bad halfmove clock '10000'",
        ),
        case(
            start_with(5, "x"),
            BadFullmoveNumber("x".into()),
            "bad fullmove number 'x'",
        ),
        case(
            start_with(5, "-3"),
            BadFullmoveNumber("-3".into()),
            "bad fullmove number '-3'",
        ),
    ]
}

#[test]
fn malformed_fens_give_the_right_error_and_message() {
    let cases = cases();
    // Exactly the table: 49 different malformed FENs, every one checked below.
    assert_eq!(cases.len(), 49);
    let distinct: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.fen.as_str()).collect();
    assert_eq!(
        distinct.len(),
        cases.len(),
        "a FEN appears twice in the table"
    );
    let mut failures = Vec::new();
    for c in &cases {
        match Position::from_fen(&c.fen) {
            Ok(pos) => failures.push(format!(
                "'{}': accepted as {}, expected {:?}",
                c.fen,
                pos.to_fen(),
                c.expected
            )),
            Err(e) => {
                if e != c.expected {
                    failures.push(format!("'{}': got {e:?}, expected {:?}", c.fen, c.expected));
                }
                let text = e.to_string();
                if !text.contains(c.message) {
                    failures.push(format!(
                        "'{}': message '{text}' does not contain '{}'",
                        c.fen, c.message
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same table through the binary: `setboard` with each malformed FEN gets exactly one
/// reply, `tellusererror Illegal position: ` and the message (a blank FEN is a missing
/// argument), and the engine's position stays what it was.
#[test]
fn every_malformed_fen_is_refused_through_setboard() {
    let mut e = common::Engine::started();
    e.allow_errors(true);
    e.send("new");
    e.send("force");
    for (i, c) in cases().iter().enumerate() {
        e.send(&format!("setboard {}", c.fen));
        let replies = e.sync(i as u32);
        assert_eq!(replies.len(), 1, "'{}': {replies:?}", c.fen);
        let reply = &replies[0];
        if c.fen.trim().is_empty() {
            assert_eq!(reply, "Error (missing FEN)", "'{}'", c.fen);
        } else {
            assert!(
                reply.starts_with("tellusererror Illegal position: ") && reply.contains(c.message),
                "'{}': {reply}, expected '{}'",
                c.fen,
                c.message
            );
        }
    }
    assert_eq!(e.fen(), STARTPOS_FEN);
}

#[test]
fn the_table_covers_every_variant() {
    let seen: Vec<&str> = cases().iter().map(|c| variant(&c.expected)).collect();
    let missing: Vec<&&str> = ALL_VARIANTS.iter().filter(|v| !seen.contains(v)).collect();
    assert!(missing.is_empty(), "no case for {missing:?}");
}

#[test]
fn messages_are_non_empty_and_distinct_per_variant() {
    // One message per variant, from the FENs themselves.
    let mut by_variant: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for c in cases() {
        let e = Position::from_fen(&c.fen).expect_err(&c.fen);
        let text = e.to_string();
        assert!(!text.trim().is_empty(), "{e:?} has an empty message");
        by_variant.entry(variant(&e)).or_default().push(text);
    }
    let all: Vec<(&str, &String)> = by_variant
        .iter()
        .flat_map(|(v, msgs)| msgs.iter().map(move |m| (*v, m)))
        .collect();
    for (i, (va, ma)) in all.iter().enumerate() {
        for (vb, mb) in &all[i + 1..] {
            if va != vb {
                assert_ne!(ma, mb, "{va} and {vb} share the message '{ma}'");
            }
        }
    }
    // Messages that quote the input do so: two different bad values give two messages.
    let a = Position::from_fen(&start_with(4, "abc")).unwrap_err();
    let b = Position::from_fen(&start_with(4, "xyz")).unwrap_err();
    assert_ne!(a.to_string(), b.to_string());
    // And a FenError is a std::error::Error with the same text.
    let boxed: Box<dyn std::error::Error> = Box::new(a.clone());
    assert_eq!(boxed.to_string(), a.to_string());
}

#[test]
fn the_earliest_bad_field_is_reported() {
    // Trailing junk is noticed before anything is parsed; the placement before the side.
    assert_eq!(
        Position::from_fen("8/8 x y z 0 1 junk"),
        Err(FenError::TrailingJunk("junk".into()))
    );
    assert_eq!(
        Position::from_fen("8/8/8/8/8/8/8/9 x - - 0 1"),
        Err(FenError::BadPieceChar { ch: '9', rank: '1' })
    );
    assert!(matches!(
        Position::from_fen(&start_with(1, "x")),
        Err(FenError::BadSide(_))
    ));
}

// ----- cleanups instead of errors -----

fn parse(fen: &str) -> Position {
    Position::from_fen(fen).unwrap_or_else(|e| panic!("'{fen}' refused: {e}"))
}

fn castling_field(pos: &Position) -> String {
    pos.to_fen().split(' ').nth(2).unwrap().to_string()
}

fn ep_field(pos: &Position) -> String {
    pos.to_fen().split(' ').nth(3).unwrap().to_string()
}

#[test]
fn castling_rights_without_a_rook_are_dropped() {
    let pos = parse("4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1");
    assert_eq!(castling_field(&pos), "-");
    assert!(pos.castling().is_empty());
    assert_eq!(pos, parse("4k3/8/8/8/8/8/8/4K3 w - - 0 1"));
    assert_eq!(pos.key(), parse("4k3/8/8/8/8/8/8/4K3 w - - 0 1").key());

    // Only the rights whose rook is home survive.
    let pos = parse("r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1");
    assert_eq!(castling_field(&pos), "Kq");
    assert_eq!(pos.key(), parse("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1").key());

    // A king off its back rank keeps no rights either.
    let pos = parse("r6r/8/4k3/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(castling_field(&pos), "KQ");
}

#[test]
fn an_en_passant_square_nobody_can_capture_on_is_dropped() {
    // Black has just played ...e5, but no white pawn stands on d5 or f5 to take it.
    let pos = parse("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 2");
    assert_eq!(pos.ep_square(), None);
    assert_eq!(ep_field(&pos), "-");
    let without = parse("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 2");
    assert_eq!(pos.key(), without.key());
    assert_eq!(pos, without);

    // A capturer exists but the capture would expose its king along the fifth rank.
    let pinned = parse("8/8/8/KPp4r/8/8/8/4k3 w - c6 0 1");
    assert_eq!(pinned.ep_square(), None);
    assert!(!pinned.legal_moves().iter().any(|m| m.is_en_passant()));

    // The square the pawn came from is occupied: it cannot just have double-pushed.
    let blocked = parse("4k3/3p4/8/3pP3/8/8/8/4K3 w - d6 0 1");
    assert_eq!(blocked.ep_square(), None);
}

#[test]
fn an_en_passant_square_with_a_possible_capture_is_kept() {
    let fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    let pos = parse(fen);
    assert_eq!(pos.ep_square(), Some(sq("f6")));
    assert_eq!(pos.to_fen(), fen);
    let without = parse("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3");
    assert_ne!(pos.key(), without.key(), "the ep square must be in the key");
    let ep_moves: Vec<String> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.is_en_passant())
        .map(|&m| pos.coordinate(m))
        .collect();
    assert_eq!(ep_moves, ["e5f6"]);

    // Black to move: ep squares are on rank 3.
    let pos = parse("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    assert_eq!(pos.ep_square(), Some(sq("e3")));
}

#[test]
fn epd_style_fen_without_counters_defaults_them() {
    let pos = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(pos.halfmove_clock(), 0);
    assert_eq!(pos.fullmove_number(), 1);
    assert_eq!(pos, Position::startpos());
    assert_eq!(pos.to_fen(), STARTPOS_FEN);

    // With only the halfmove clock, the fullmove number still defaults to 1.
    let pos = parse("4k3/8/8/8/8/8/8/4K3 b - - 7");
    assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (7, 1));
    assert!(pos.to_fen().ends_with(" b - - 7 1"));

    // Given counters are kept, and fullmove 0 is read as 1.
    let pos = parse("4k3/8/8/8/8/8/8/4K3 w - - 12 34");
    assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (12, 34));
    let pos = parse("4k3/8/8/8/8/8/8/4K3 w - - 0 0");
    assert_eq!(pos.fullmove_number(), 1);
}

#[test]
fn shredder_castling_letters_equal_xfen_ones() {
    let shredder = parse("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1");
    let start = Position::startpos();
    assert_eq!(shredder, start);
    assert_eq!(shredder.key(), start.key());
    assert_eq!(shredder.to_fen(), STARTPOS_FEN);
    assert_eq!(shredder.legal_moves().len(), 20);

    // Partial rights too.
    let a = parse("r3k2r/8/8/8/8/8/8/R3K2R w Hq - 0 1");
    let b = parse("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1");
    assert_eq!(a, b);
    assert_eq!(a.key(), b.key());
    assert_eq!(castling_field(&a), "Kq");

    // An inner rook needs its letter: X-FEN `K` means the outermost one.
    let inner = parse("4k3/8/8/8/8/8/8/4KR1R w F - 0 1");
    let outer = parse("4k3/8/8/8/8/8/8/4KR1R w K - 0 1");
    assert_ne!(inner, outer);
    assert_eq!(castling_field(&inner), "F");
    assert_eq!(castling_field(&outer), "K");
    assert_eq!(Position::from_fen(&inner.to_fen()).unwrap(), inner);
}
