//! Polyglot opening books: a small book made by the book writer (`kestrel::book::write_book`)
//! and committed as `tests/data/test-book.bin`, read back and drawn from; then the engine
//! playing from it through xboard and UCI.
//!
//! A real book can be checked too: set `KESTREL_TEST_BOOK` to its path (the test says it
//! skipped otherwise).
//!
//! To write the test book anew after changing `test_book_moves`, run this file's tests with
//! `KESTREL_WRITE_TEST_BOOK=1`.

use crate::common::{self, *};

use common::{is_thinking, thinking, Engine, ScratchDir};
use kestrel::book::{
    decode_move, polyglot_key, write_book, Book, BookError, BookMove, BookRng, Entry, ENTRY_SIZE,
};
use kestrel::chess::{Move, Position};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// After 1.e4 e5 2.Nf3 Nc6 3.Bc4 Bc5: White may castle short.
const ITALIAN: &str = "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
/// Black may castle long (and short).
const BLACK_CASTLES: &str = "r3k2r/ppp2ppp/2nq1n2/3pp3/3PP3/2NQ1N2/PPP2PPP/R3K2R b KQkq - 0 8";

fn book_path() -> PathBuf {
    data_file("test-book.bin")
}

fn mv(pos: &Position, text: &str) -> Move {
    pos.parse_coordinate(text).unwrap()
}

/// The test book: (position, move, weight). An illegal entry (e2e5 in the start position)
/// shows that such entries are left out, b1a3 with weight 0 that it is never played.
fn test_book_moves() -> Vec<(Position, Move, u16)> {
    let start = Position::startpos();
    let e4 = position_after(kestrel::chess::STARTPOS_FEN, &["e2e4"]);
    let italian = Position::from_fen(ITALIAN).unwrap();
    let black = Position::from_fen(BLACK_CASTLES).unwrap();
    let mut moves = vec![
        (start, mv(&start, "e2e4"), 60),
        (start, mv(&start, "d2d4"), 30),
        (start, mv(&start, "g1f3"), 10),
        (start, mv(&start, "b1a3"), 0),
        (e4, mv(&e4, "c7c5"), 5),
        (e4, mv(&e4, "e7e5"), 5),
        (italian, mv(&italian, "e1g1"), 7),
        (italian, mv(&italian, "c2c3"), 3),
        (black, mv(&black, "e8c8"), 2),
        (black, mv(&black, "e8g8"), 1),
    ];
    // e2e5 is no legal move: written by hand (from e2 = 12, to e5 = 36).
    let illegal = Move::normal(
        kestrel::chess::Square::new(12),
        kestrel::chess::Square::new(36),
    );
    moves.push((start, illegal, 50));
    moves
}

#[test]
fn the_committed_test_book_is_what_the_writer_makes() {
    let bytes = write_book(&test_book_moves());
    if std::env::var_os("KESTREL_WRITE_TEST_BOOK").is_some() {
        std::fs::write(book_path(), &bytes).unwrap();
    }
    let committed = std::fs::read(book_path()).expect("tests/data/test-book.bin");
    assert_eq!(
        committed, bytes,
        "run with KESTREL_WRITE_TEST_BOOK=1 to rewrite it"
    );
}

#[test]
fn written_entries_are_sorted_and_encode_castling_as_king_takes_rook() {
    let bytes = write_book(&test_book_moves());
    assert_eq!(bytes.len(), test_book_moves().len() * ENTRY_SIZE);
    let entries: Vec<Entry> = bytes
        .chunks(ENTRY_SIZE)
        .map(|c| Entry::from_bytes(c.try_into().unwrap()))
        .collect();
    assert!(entries.windows(2).all(|w| w[0].key <= w[1].key));
    // The start position's entries are together under the published key.
    let start: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.key == 0x463b96181691fc9c)
        .collect();
    assert_eq!(start.len(), 5);
    // O-O is e1h1 and O-O-O e8a8 in the book (to square in bits 0-5, from in 6-11).
    let square = |s: &str| kestrel::chess::Square::parse(s).unwrap().index() as u16;
    let raw = |from: &str, to: &str| square(to) | square(from) << 6;
    let italian = polyglot_key(&Position::from_fen(ITALIAN).unwrap());
    assert!(entries
        .iter()
        .any(|e| e.key == italian && e.mv == raw("e1", "h1") && e.weight == 7));
    let black = polyglot_key(&Position::from_fen(BLACK_CASTLES).unwrap());
    assert!(entries
        .iter()
        .any(|e| e.key == black && e.mv == raw("e8", "a8") && e.weight == 2));
}

#[test]
fn reading_the_book_gives_the_legal_moves_with_their_weights() {
    let book = Book::open(&book_path()).unwrap();
    assert_eq!(book.len(), test_book_moves().len() as u64);
    let start = Position::startpos();
    let moves = book.moves(&start).unwrap();
    let want = [("e2e4", 60), ("d2d4", 30), ("g1f3", 10), ("b1a3", 0)];
    let got: Vec<(String, u16)> = moves
        .iter()
        .map(|b| (start.coordinate(b.mv), b.weight))
        .collect();
    let want: Vec<(String, u16)> = want.iter().map(|(m, w)| (m.to_string(), *w)).collect();
    assert_eq!(got, want, "heaviest first, e2e5 left out");

    // Castling comes back as Kestrel's castling move.
    let italian = Position::from_fen(ITALIAN).unwrap();
    let moves = book.moves(&italian).unwrap();
    assert_eq!(moves[0].mv, mv(&italian, "e1g1"));
    assert!(moves[0].mv.is_castle());
    let black = Position::from_fen(BLACK_CASTLES).unwrap();
    let moves = book.moves(&black).unwrap();
    assert_eq!(moves[0].mv, mv(&black, "e8c8"));
    assert!(moves[0].mv.is_castle());
    assert_eq!(
        decode_move(&black, 0),
        None,
        "a1a1 is no move, whatever the position"
    );

    // A position not in the book has no moves.
    let nothing = position_after(kestrel::chess::STARTPOS_FEN, &["a2a3"]);
    assert!(book.moves(&nothing).unwrap().is_empty());
    let mut rng = BookRng::new(1);
    assert_eq!(book.pick(&nothing, &mut rng).unwrap(), None);
}

#[test]
fn the_choice_follows_the_weights_and_the_seed() {
    let book = Book::open(&book_path()).unwrap();
    let start = Position::startpos();
    let draws = 20_000;
    let mut rng = BookRng::new(12345);
    let mut counts = std::collections::HashMap::new();
    for _ in 0..draws {
        let b = book.pick(&start, &mut rng).unwrap().unwrap();
        *counts.entry(start.coordinate(b.mv)).or_insert(0) += 1;
    }
    for (m, share) in [("e2e4", 0.6), ("d2d4", 0.3), ("g1f3", 0.1)] {
        let got = f64::from(counts[m]) / f64::from(draws);
        assert!(
            (got - share).abs() < 0.02,
            "{m}: {got:.3} instead of {share} ({counts:?})"
        );
    }
    assert!(!counts.contains_key("b1a3"), "weight 0 is never played");
    assert_eq!(counts.len(), 3);

    // The same seed gives the same moves; another seed other moves.
    let sequence = |seed| {
        let mut rng = BookRng::new(seed);
        (0..50)
            .map(|_| book.pick(&start, &mut rng).unwrap().unwrap().mv)
            .collect::<Vec<_>>()
    };
    assert_eq!(sequence(7), sequence(7));
    assert_ne!(sequence(7), sequence(8));

    // Only zero weights: nothing to play.
    let zero = [BookMove {
        mv: mv(&start, "b1a3"),
        weight: 0,
    }];
    assert_eq!(kestrel::book::choose(&zero, &mut rng), None);
}

#[test]
fn broken_and_missing_books_are_refused() {
    let scratch = ScratchDir::new("book-broken");
    let dir = &scratch.0;
    let odd = dir.join("odd.bin");
    std::fs::write(&odd, [0u8; 24]).unwrap();
    assert!(matches!(Book::open(&odd), Err(BookError::BadSize(24))));
    assert!(matches!(
        Book::open(&dir.join("missing.bin")),
        Err(BookError::Io(_))
    ));
    assert!(Book::open(dir).is_err(), "a directory is no book");
}

/// A real Polyglot book, if `KESTREL_TEST_BOOK` names one: it has moves for the start
/// position, all legal, and finds the same entries as a plain scan of the file.
#[test]
fn a_real_book_if_one_is_given() {
    let Some(path) = std::env::var_os("KESTREL_TEST_BOOK") else {
        println!("skipped: set KESTREL_TEST_BOOK to a Polyglot book to check a real one");
        return;
    };
    let book = Book::open(path.as_ref()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let entries: Vec<Entry> = bytes
        .chunks(ENTRY_SIZE)
        .map(|c| Entry::from_bytes(c.try_into().unwrap()))
        .collect();
    assert!(
        entries.windows(2).all(|w| w[0].key <= w[1].key),
        "sorted by key"
    );
    let start = Position::startpos();
    let moves = book.moves(&start).unwrap();
    assert!(!moves.is_empty(), "no moves for the start position");
    // Follow the heaviest move a few plies: every position on the way is found with as
    // many moves as a scan finds entries (no entry there is illegal in a sane book).
    let mut pos = start;
    for _ in 0..6 {
        let moves = book.moves(&pos).unwrap();
        let Some(best) = moves.first() else { break };
        let key = polyglot_key(&pos);
        let scanned = entries.iter().filter(|e| e.key == key).count();
        assert_eq!(book.entries_for(key).unwrap().len(), scanned);
        assert!(pos.is_legal(best.mv));
        pos.play(best.mv);
    }
}

// ----- the engine playing from the book -----

fn set_book_xboard(e: &mut Engine) {
    e.send(&format!("option BookFile={}", book_path().display()));
}

/// The start position's book moves, in coordinates.
const START_BOOK: [&str; 3] = ["e2e4", "d2d4", "g1f3"];

#[test]
fn xboard_plays_from_the_book_at_once_and_lists_it_with_bk() {
    let mut e = Engine::started();
    set_book_xboard(&mut e);
    e.send("new");
    e.send("post");
    // A slow clock: a search would take far longer than a book move.
    e.send("level 40 60 0");
    e.send("time 360000");
    e.send("otim 360000");
    assert!(e.sync(1).is_empty());
    e.send("bk");
    let mut listing = Vec::new();
    loop {
        let line = e.next_line(5 * SEC).expect("bk reply");
        if line.is_empty() {
            break;
        }
        listing.push(line);
    }
    assert_eq!(
        listing,
        [
            "\te2e4\t60.0%\tweight 60",
            "\td2d4\t30.0%\tweight 30",
            "\tg1f3\t10.0%\tweight 10",
            "\tb1a3\t0.0%\tweight 0",
        ]
    );

    let started = Instant::now();
    e.send("go");
    let (line, before) = e.wait_for("move", 10 * SEC, |l| l.starts_with("move "));
    let played = line["move ".len()..].to_string();
    assert!(START_BOOK.contains(&played.as_str()), "{played}");
    assert!(
        started.elapsed() < 2 * SEC,
        "a book move comes at once, not after {:?}",
        started.elapsed()
    );
    // Shown as a book move, not as a search.
    let shown: Vec<&String> = before.iter().filter(|l| is_thinking(l)).collect();
    assert_eq!(shown.len(), 1, "{before:?}");
    let t = thinking(shown[0]).unwrap();
    assert_eq!((t.depth, t.score, t.nodes), (0, 0, 0));
    assert_eq!(t.pv, [played.clone(), "(book)".to_string()]);

    // Out of the book (after 1.a3 there is nothing): a real search.
    e.send("new");
    e.send("force");
    e.send("a2a3");
    e.send("sd 2");
    e.send("go");
    let (_, before) = e.wait_for("move", 20 * SEC, |l| l.starts_with("move "));
    assert!(
        before
            .iter()
            .any(|l| thinking(l).is_some_and(|t| t.depth > 0)),
        "{before:?}"
    );
    e.send("bk");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "\tNo book moves in this position."
    );
    assert_eq!(e.next_line(5 * SEC).unwrap(), "");

    // As Black after 1.e4: one of the two replies.
    e.send("new");
    e.send("nopost");
    e.send("e2e4");
    let reply = e.expect_move(10 * SEC);
    assert!(["c7c5", "e7e5"].contains(&reply.as_str()), "{reply}");
}

#[test]
fn xboard_castles_from_the_book() {
    let mut e = Engine::started();
    set_book_xboard(&mut e);
    e.send(&format!("setboard {ITALIAN}"));
    e.send("st 30");
    // e1g1 (weight 7) or c2c3 (weight 3); over a few games both come, and O-O as e1g1.
    let mut seen = std::collections::HashSet::new();
    for _ in 0..12 {
        e.send("force");
        e.send(&format!("setboard {ITALIAN}"));
        e.send("go");
        let m = e.expect_move(5 * SEC);
        assert!(["e1g1", "c2c3"].contains(&m.as_str()), "{m}");
        seen.insert(m);
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
}

#[test]
fn xboard_with_book_off_searches_and_a_missing_book_is_an_error() {
    let mut e = Engine::started();
    set_book_xboard(&mut e);
    e.send("option Book=0");
    e.send("new");
    e.send("post");
    e.send("sd 3");
    e.send("go");
    let (_, before) = e.wait_for("move", 20 * SEC, |l| l.starts_with("move "));
    assert!(
        before
            .iter()
            .any(|l| thinking(l).is_some_and(|t| t.depth > 0)),
        "searched: {before:?}"
    );
    e.send("force");
    e.send("bk");
    // bk still lists the book, and says it is not used.
    let mut listing = Vec::new();
    loop {
        let line = e.next_line(5 * SEC).expect("bk reply");
        if line.is_empty() {
            break;
        }
        listing.push(line);
    }
    assert!(
        listing.last().unwrap().contains("option Book is off"),
        "{listing:?}"
    );

    // No book: a missing file is told so, and the engine still plays.
    e.send("option Book=1");
    e.send("option BookFile=");
    e.send("option BookFile=/no/such/dir/book.bin");
    e.allow_errors(true);
    let lines = e.sync(2);
    assert_eq!(
        lines,
        ["tellusererror cannot open book file /no/such/dir/book.bin: No such file or directory (os error 2)"]
    );
    // A file that is not a whole number of entries: refused too.
    let scratch = ScratchDir::new("book-xboard");
    let odd = scratch.path("odd.bin");
    std::fs::write(&odd, [0u8; 20]).unwrap();
    e.send(&format!("option BookFile={}", odd.display()));
    let lines = e.sync(3);
    assert!(
        lines.len() == 1 && lines[0].contains("not a multiple of 16"),
        "{lines:?}"
    );
    drop(scratch);
    e.allow_errors(false);
    e.send("bk");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "\tNo opening book is loaded (option BookFile)."
    );
    assert_eq!(e.next_line(5 * SEC).unwrap(), "");
    e.send("new");
    e.send("sd 2");
    e.send("go");
    let (_, before) = e.wait_for("move", 20 * SEC, |l| l.starts_with("move "));
    assert!(before
        .iter()
        .any(|l| thinking(l).is_some_and(|t| t.depth > 0)));
}

#[test]
fn xboard_offers_the_book_options() {
    let mut e = Engine::start();
    let features = e.handshake();
    assert!(features.contains(&"feature option=\"BookFile -file \"".to_string()));
    assert!(features.contains(&"feature option=\"Book -check 1\"".to_string()));
}

#[test]
fn uci_plays_from_the_book_with_own_book_on() {
    let mut e = Engine::start();
    let options = e.uci_handshake();
    assert!(options.contains(&"option name OwnBook type check default false".to_string()));
    assert!(options.contains(&"option name BookFile type string default <empty>".to_string()));
    e.send(&format!(
        "setoption name BookFile value {}",
        book_path().display()
    ));
    assert!(e.ready().is_empty());

    // OwnBook is off by default: a search.
    e.send("position startpos");
    e.send("go depth 3");
    let (_, _, before) = e.expect_bestmove(20 * SEC);
    assert!(before.iter().all(|l| !l.contains("book")), "{before:?}");
    e.send("go movetime 500");
    let (_, _, before) = e.expect_bestmove(20 * SEC);
    assert!(before.iter().all(|l| !l.contains("book")), "{before:?}");

    // On: a clock or a move time play from the book, at once and without a ponder move.
    e.send("setoption name OwnBook value true");
    for go in ["go wtime 600000 btime 600000", "go movetime 60000", "go"] {
        e.send("position startpos");
        let started = Instant::now();
        e.send(go);
        let (best, ponder, before) = e.expect_bestmove(10 * SEC);
        assert!(START_BOOK.contains(&best.as_str()), "{go}: {best}");
        assert!(started.elapsed() < 2 * SEC, "{go}: {:?}", started.elapsed());
        assert_eq!(ponder, None);
        let weight = match best.as_str() {
            "e2e4" => 60,
            "d2d4" => 30,
            _ => 10,
        };
        assert_eq!(
            before,
            [format!(
                "info string book move {best} weight {weight} of 100"
            )]
        );
    }
    // Black's reply, and castling written as UCI writes it.
    e.send("position startpos moves e2e4");
    e.send("go wtime 600000 btime 600000");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert!(["c7c5", "e7e5"].contains(&best.as_str()), "{best}");
    e.send(&format!("position fen {BLACK_CASTLES}"));
    e.send("go movetime 60000");
    let (best, _, _) = e.expect_bestmove(10 * SEC);
    assert!(["e8c8", "e8g8"].contains(&best.as_str()), "{best}");

    // Searches the GUI shapes itself are searches: depth, nodes, searchmoves, infinite.
    for go in [
        "go depth 2",
        "go nodes 5000",
        "go movetime 300 searchmoves a2a3 b2b3",
    ] {
        e.send("position startpos");
        e.send(go);
        let (best, _, before) = e.expect_bestmove(20 * SEC);
        assert!(
            before.iter().all(|l| !l.contains("book")),
            "{go}: {before:?}"
        );
        if go.contains("searchmoves") {
            assert!(["a2a3", "b2b3"].contains(&best.as_str()), "{best}");
        }
    }
    e.send("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    let (_, _, before) = e.expect_bestmove(10 * SEC);
    assert!(before.iter().all(|l| !l.contains("book")), "{before:?}");

    // Unset the file: a search again.
    e.send("setoption name BookFile value <empty>");
    e.send("position startpos");
    e.send("go movetime 300");
    let (_, _, before) = e.expect_bestmove(20 * SEC);
    assert!(before.iter().all(|l| !l.contains("book")), "{before:?}");
}

#[test]
fn uci_missing_book_is_an_error_and_the_engine_plays_on() {
    let mut e = Engine::started_uci();
    e.send("setoption name OwnBook value true");
    e.send("setoption name BookFile value /no/such/dir/book.bin");
    e.allow_errors(true);
    let lines = e.ready();
    assert_eq!(
        lines,
        ["info string error: cannot open book file /no/such/dir/book.bin: No such file or directory (os error 2)"]
    );
    e.allow_errors(false);
    e.send("position startpos");
    e.send("go movetime 300");
    let (best, _, before) = e.expect_bestmove(20 * SEC);
    assert!(Position::startpos().parse_coordinate(&best).is_ok());
    assert!(before.iter().all(|l| !l.contains("book")), "{before:?}");
}

/// The book's moves listed by xboard `bk` (the lines up to the empty one).
fn bk_listing(e: &mut Engine) -> Vec<String> {
    e.send("bk");
    let mut listing = Vec::new();
    loop {
        let line = e.next_line(5 * SEC).expect("bk reply");
        if line.is_empty() {
            return listing;
        }
        listing.push(line);
    }
}

#[test]
fn a_bad_book_file_keeps_the_book_set_before() {
    let scratch = ScratchDir::new("book-bad");
    let dir = &scratch.0;
    let odd = dir.join("odd.bin");
    std::fs::write(&odd, [0u8; 20]).unwrap();
    let bad = [
        "/no/such/dir/book.bin".to_string(),
        odd.display().to_string(),
    ];

    // UCI: the book still plays after each bad file.
    let mut e = Engine::started_uci();
    e.send("setoption name OwnBook value true");
    e.send(&format!(
        "setoption name BookFile value {}",
        book_path().display()
    ));
    assert!(e.ready().is_empty());
    e.allow_errors(true);
    for path in &bad {
        e.send(&format!("setoption name BookFile value {path}"));
        let lines = e.ready();
        assert!(
            lines.len() == 1
                && lines[0]
                    .starts_with(&format!("info string error: cannot open book file {path}"))
                && lines[0].ends_with("; the book set before stays"),
            "{lines:?}"
        );
        e.send("position startpos");
        e.send("go wtime 600000 btime 600000");
        let (best, _, before) = e.expect_bestmove(10 * SEC);
        assert!(START_BOOK.contains(&best.as_str()), "{best}");
        assert!(
            before.len() == 1 && before[0].starts_with("info string book move "),
            "{before:?}"
        );
    }

    // xboard: the same setter, through `option BookFile=`.
    let mut x = Engine::started();
    set_book_xboard(&mut x);
    x.send("force");
    assert!(x.sync(1).is_empty());
    let listed = bk_listing(&mut x);
    assert!(
        START_BOOK
            .iter()
            .all(|m| listed.iter().any(|l| l.starts_with(&format!("\t{m}\t")))),
        "{listed:?}"
    );
    x.allow_errors(true);
    for (n, path) in bad.iter().enumerate() {
        x.send(&format!("option BookFile={path}"));
        let lines = x.sync(2 + n as u32);
        assert!(
            lines.len() == 1
                && lines[0].starts_with(&format!("tellusererror cannot open book file {path}"))
                && lines[0].ends_with("; the book set before stays"),
            "{lines:?}"
        );
        assert_eq!(bk_listing(&mut x), listed);
    }
}
