//! The evaluation on many positions: colour symmetry, the pawn hash against no hash, and the
//! trace against the evaluation.

use kestrel::chess::Position;
use kestrel::eval::{evaluate, params::WEIGHTS, trace, Evaluator};
use std::path::Path;

/// The FENs of an EPD file (the first four fields of each line, plus clocks if there).
fn fens(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .map(|l| l.split(';').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split_whitespace().take(4).collect::<Vec<_>>().join(" "))
        .collect()
}

/// The position with the board turned upside down and the colours swapped.
fn mirror(fen: &str) -> String {
    let f: Vec<&str> = fen.split_whitespace().collect();
    let swap = |s: &str| -> String {
        s.chars()
            .map(|c| {
                if c.is_ascii_uppercase() {
                    c.to_ascii_lowercase()
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect()
    };
    let board = f[0]
        .split('/')
        .rev()
        .map(swap)
        .collect::<Vec<_>>()
        .join("/");
    let side = if f[1] == "w" { "b" } else { "w" };
    let castling = if f[2] == "-" {
        "-".to_string()
    } else {
        let s = swap(f[2]);
        let upper: String = s.chars().filter(|c| c.is_ascii_uppercase()).collect();
        let lower: String = s.chars().filter(|c| c.is_ascii_lowercase()).collect();
        upper + &lower
    };
    let ep = if f[3] == "-" {
        "-".to_string()
    } else {
        let b = f[3].as_bytes();
        format!("{}{}", b[0] as char, if b[1] == b'3' { '6' } else { '3' })
    };
    format!("{board} {side} {castling} {ep}")
}

fn positions() -> Vec<(String, Position)> {
    let mut out = Vec::new();
    for file in [
        "perft.epd",
        "openings-sample.epd",
        "wac.epd",
        "perft-random.epd",
    ] {
        for fen in fens(file) {
            let pos = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e:?}"));
            out.push((fen, pos));
        }
    }
    out
}

#[test]
fn evaluation_is_colour_symmetric() {
    let mut checked = 0;
    for (fen, pos) in positions() {
        let m = mirror(&fen);
        let mirrored = Position::from_fen(&m).unwrap_or_else(|e| panic!("{m}: {e:?}"));
        assert_eq!(
            evaluate(&pos),
            evaluate(&mirrored),
            "{fen} and its mirror {m}"
        );
        checked += 1;
    }
    assert!(checked > 7000);
}

#[test]
fn pawn_hash_gives_the_same_score_as_no_hash() {
    let mut ev = Evaluator::new();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    for (fen, start) in positions() {
        // Each position and a short random walk from it: pieces move, pawns often stay.
        let mut pos = start;
        for _ in 0..6 {
            assert_eq!(ev.evaluate(&pos), evaluate(&pos), "{}", pos.to_fen());
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            pos = pos.after(moves[(rng % moves.len() as u64) as usize]);
        }
        assert_eq!(ev.evaluate(&start), evaluate(&start), "{fen}");
    }
}

#[test]
fn trace_reproduces_the_evaluation() {
    for (fen, pos) in positions() {
        if pos.is_insufficient_material() {
            continue;
        }
        let white = trace(&pos).evaluate(&WEIGHTS);
        let stm = if pos.side_to_move() == kestrel::chess::Color::White {
            white
        } else {
            -white
        };
        assert_eq!(stm, evaluate(&pos), "{fen}");
    }
}
