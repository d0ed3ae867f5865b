//! `genfens` as OpenBench's client runs it: `kestrel "genfens N seed S book B" quit`, each
//! command-line word one command, the positions read from `info string genfens` lines.

use crate::common::*;
use kestrel::chess::Position;
use std::collections::HashSet;
use std::process::{Command, Output};

fn genfens(request: &str) -> Output {
    Command::new(KESTREL)
        .arg(format!("genfens {request}"))
        .arg("quit")
        .output()
        .unwrap()
}

/// The FENs of the `info string genfens` lines.
fn fens(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("info string genfens "))
        .map(str::to_string)
        .collect()
}

#[test]
fn genfens_prints_the_count_asked_for_the_same_for_a_seed() {
    let out = genfens("64 seed 7 book None");
    assert!(out.status.success(), "{out:?}");
    let first = fens(&out);
    assert_eq!(first.len(), 64);
    for fen in &first {
        let pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(!pos.legal_moves().is_empty(), "{fen}: the game is over");
    }
    assert_eq!(first.iter().collect::<HashSet<_>>().len(), 64, "duplicates");
    assert_eq!(fens(&genfens("64 seed 7 book None")), first);
    assert_ne!(fens(&genfens("64 seed 8 book None")), first);
}

/// The keys of every position exactly `plies` legal moves after `start`.
fn reachable(start: &Position, plies: u32, into: &mut HashSet<u64>) {
    if plies == 0 {
        into.insert(start.key());
        return;
    }
    for &mv in start.legal_moves().iter() {
        reachable(&start.after(mv), plies - 1, into);
    }
}

/// The positions of an EPD file's lines (their first four fields).
fn book_lines(path: &std::path::Path) -> Vec<Position> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let fen: Vec<&str> = l.split_whitespace().take(4).collect();
            Position::from_fen(&fen.join(" ")).unwrap()
        })
        .collect()
}

#[test]
fn genfens_from_a_book_plays_the_documented_plies_from_its_lines() {
    let book = data_file("openings-sample.epd");
    let plies = kestrel::tools::genfens::RANDOM_PLIES_WITH_BOOK;
    let out = genfens(&format!("40 seed 3 book {}", book.display()));
    assert!(out.status.success(), "{out:?}");
    let found = fens(&out);
    assert_eq!(found.len(), 40);
    let lines = book_lines(&book);
    let mut keys = HashSet::new();
    for line in &lines {
        reachable(line, plies, &mut keys);
    }
    for fen in &found {
        let key = Position::from_fen(fen).unwrap().key();
        assert!(
            keys.contains(&key),
            "{fen} is not {plies} plies from a book line"
        );
    }
    // `plies K` in the extra words.
    let out = genfens(&format!("10 seed 3 book {} plies 0", book.display()));
    let lines: HashSet<u64> = lines.iter().map(Position::key).collect();
    for fen in fens(&out) {
        assert!(
            lines.contains(&Position::from_fen(&fen).unwrap().key()),
            "{fen}"
        );
    }
}

#[test]
fn genfens_gives_chess960_starts_when_asked() {
    let out = genfens("8 seed 1 book None plies 0 dfrc");
    assert!(out.status.success(), "{out:?}");
    let found = fens(&out);
    assert_eq!(found.len(), 8);
    for fen in &found {
        let pos = Position::from_fen(fen).unwrap();
        let placement = fen.split('/').collect::<Vec<_>>();
        assert_eq!(placement[1], "pppppppp", "{fen}");
        assert!(pos.legal_moves().len() >= 18, "{fen}");
    }
    assert!(
        found.iter().any(|f| !f.starts_with("rnbqkbnr/")),
        "{found:?}"
    );
}

#[test]
fn genfens_errors_fail_the_process_with_a_message() {
    let scratch = ScratchDir::new("genfens");
    let bad_book = scratch.path("bad.epd");
    std::fs::write(
        &bad_book,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnot a fen\n",
    )
    .unwrap();
    for (request, says) in [
        ("seed 1 book None".to_string(), "N must be"),
        ("5 book None".to_string(), "needs 'seed'"),
        ("5 seed 1 book no-such-book.epd".to_string(), "cannot read"),
        (format!("5 seed 1 book {}", bad_book.display()), "bad.epd:2"),
    ] {
        let out = genfens(&request);
        assert!(!out.status.success(), "{request}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Error") && text.contains(says),
            "{request}: {text}"
        );
        assert!(fens(&out).is_empty(), "{request}: {text}");
    }
    // A word that is neither a subcommand nor a command is the command line's error.
    let out = Command::new(KESTREL).arg("genfenz 5").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither a subcommand"));
}
