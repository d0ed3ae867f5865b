//! The evaluation on many positions: colour symmetry, the pawn hash against no hash, the
//! trace against the evaluation, and the `eval` command's table against the evaluation.

use crate::common;

use common::Engine;
use kestrel::chess::Position;
use kestrel::eval::{evaluate, params::WEIGHTS, taper, trace, Evaluator, Score};
use std::path::Path;
use std::time::Duration;

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

/// A net of random weights: whatever it learnt, its evaluation is the same for a position
/// and its mirror, each side seeing its own pieces as its own, up the board.
#[test]
fn the_net_evaluation_is_colour_symmetric() {
    use kestrel::nnue::format::Activation;
    use kestrel::nnue::{evaluate_from_scratch, Network};
    let net = Network::new(&common::random_net(32, Activation::SCReLU, 99));
    let mut scores = std::collections::HashSet::new();
    for (fen, pos) in positions() {
        let m = mirror(&fen);
        let mirrored = Position::from_fen(&m).unwrap();
        let score = evaluate_from_scratch(&net, &pos);
        assert_eq!(
            score,
            evaluate_from_scratch(&net, &mirrored),
            "{fen} and {m}"
        );
        scores.insert(score);
    }
    // The net tells positions apart: the equality is not that of a constant.
    assert!(scores.len() > 1000, "{}", scores.len());
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

/// One row of the `eval` table: White's, Black's and the difference, each (mg, eg), and the
/// count column (White/Black) on term rows.
#[derive(Debug)]
struct Row {
    label: String,
    sides: [Score; 3],
    count: Option<[i32; 2]>,
}

/// A group row with the term rows below it.
#[derive(Debug)]
struct GroupRows {
    group: Row,
    terms: Vec<Row>,
}

/// The `eval` table as printed: groups with their terms, the notes under terms, the sum, the
/// phase, the scale, the total (White's view) and the evaluation for the side to move.
#[derive(Debug)]
struct Table {
    groups: Vec<GroupRows>,
    notes: Vec<String>,
    sum: Score,
    phase: i32,
    scale: i32,
    total: i32,
    side_to_move: i32,
}

impl Table {
    fn term(&self, group: &str, label: &str) -> Option<&Row> {
        let g = self.groups.iter().find(|g| g.group.label == group)?;
        g.terms.iter().find(|t| t.label == label)
    }
}

fn number(token: &str, line: &str) -> i32 {
    token
        .parse()
        .unwrap_or_else(|_| panic!("{token:?} is not a number in {line:?}"))
}

/// A table row: a label of one or more words, six numbers, and on term rows `white/black`.
fn parse_row(line: &str) -> Row {
    let mut tokens: Vec<&str> = line.split_whitespace().collect();
    let count = tokens.last().filter(|t| t.contains('/')).map(|t| {
        let (w, b) = t.split_once('/').unwrap();
        [number(w, line), number(b, line)]
    });
    if count.is_some() {
        tokens.pop();
    }
    assert!(tokens.len() > 6, "a label and six numbers in {line:?}");
    let numbers: Vec<i32> = tokens[tokens.len() - 6..]
        .iter()
        .map(|t| number(t, line))
        .collect();
    let score = |i: usize| Score::new(numbers[2 * i], numbers[2 * i + 1]);
    Row {
        label: tokens[..tokens.len() - 6].join(" "),
        sides: [score(0), score(1), score(2)],
        count,
    }
}

/// The first number after `label` on the line starting with it.
fn value_after(lines: &[String], label: &str) -> i32 {
    let line = lines
        .iter()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} line in\n{}", lines.join("\n")));
    let token = line[label.len()..].split_whitespace().next().unwrap();
    number(token, line)
}

/// Sends `eval` for `fen` and parses the table: the rows between the column header (the
/// line whose first word is `term`) and `sum`; rows indented by two spaces are terms, by four notes.
fn eval_table(e: &mut Engine, fen: &str) -> Table {
    // In force mode the engine only records positions: it never moves for a side.
    e.send("force");
    e.send(&format!("setboard {fen}"));
    e.send("eval");
    let (last, mut lines) = e.wait_for("eval table", Duration::from_secs(10), |l| {
        l.starts_with("side to move")
    });
    lines.push(last);
    let header = lines
        .iter()
        .position(|l| l.split_whitespace().next() == Some("term"))
        .unwrap_or_else(|| panic!("no column header for {fen}:\n{}", lines.join("\n")));
    let mut groups: Vec<GroupRows> = Vec::new();
    let mut notes = Vec::new();
    let mut sum = None;
    for line in &lines[header + 1..] {
        if let Some(rest) = line.strip_prefix("sum") {
            let n: Vec<i32> = rest.split_whitespace().map(|t| number(t, line)).collect();
            assert_eq!(n.len(), 2, "{line}");
            sum = Some(Score::new(n[0], n[1]));
            break;
        }
        if line.starts_with("    ") {
            notes.push(line.trim().to_string());
        } else if line.starts_with("  ") {
            let group = groups
                .last_mut()
                .unwrap_or_else(|| panic!("{line:?} before a group"));
            group.terms.push(parse_row(line));
        } else {
            groups.push(GroupRows {
                group: parse_row(line),
                terms: Vec::new(),
            });
        }
    }
    Table {
        groups,
        notes,
        sum: sum.unwrap_or_else(|| panic!("no sum line for {fen}")),
        phase: value_after(&lines, "phase"),
        scale: value_after(&lines, "scale"),
        total: value_after(&lines, "total"),
        side_to_move: value_after(&lines, "side to move"),
    }
}

/// Over the WAC and perft positions, the `eval` table adds up: each group's term rows to the
/// group (White, Black and the difference, mg and eg), each difference to White minus Black,
/// the groups to the sum, the sum tapered by the phase and scale to the total, and the total
/// to the engine's evaluation. Every term shown applied to a side, and every group has terms.
#[test]
fn eval_table_terms_add_up_to_the_evaluation() {
    let mut e = Engine::start();
    let mut checked = 0;
    for file in ["wac.epd", "perft.epd"] {
        for fen in fens(file) {
            let pos = Position::from_fen(&fen).unwrap();
            let t = eval_table(&mut e, &fen);
            assert_eq!(t.groups.len(), 9, "{fen}");
            let mut groups = Score::ZERO;
            for g in &t.groups {
                let [white, black, diff] = g.group.sides;
                assert_eq!(diff, white - black, "{fen}: {}", g.group.label);
                groups += diff;
                let mut terms = [Score::ZERO; 3];
                for term in &g.terms {
                    let [w, b, d] = term.sides;
                    assert_eq!(d, w - b, "{fen}: {}", term.label);
                    let [cw, cb] = term.count.expect("a count on every term row");
                    assert!(cw > 0 || cb > 0, "{fen}: {} applies to no side", term.label);
                    for (sum, side) in terms.iter_mut().zip(term.sides) {
                        *sum += side;
                    }
                }
                assert_eq!(
                    terms, g.group.sides,
                    "{fen}: the terms of {}",
                    g.group.label
                );
                // Material, placement and tempo apply in every position.
                if ["material", "placement", "tempo"].contains(&g.group.label.as_str()) {
                    assert!(
                        !g.terms.is_empty(),
                        "{fen}: no term under {}",
                        g.group.label
                    );
                }
            }
            assert_eq!(groups, t.sum, "{fen}");
            assert_eq!(taper(t.sum, t.phase, t.scale), t.total, "{fen}");
            let stm = evaluate(&pos);
            assert_eq!(t.side_to_move, stm, "{fen}");
            if !pos.is_insufficient_material() {
                let white = if pos.side_to_move() == kestrel::chess::Color::White {
                    stm
                } else {
                    -stm
                };
                assert_eq!(t.total, white, "{fen}");
            }
            checked += 1;
        }
    }
    assert!(checked > 400, "{checked} positions");
}

/// The named terms show, non-zero, for the side that has them, and not for the other.
#[test]
fn eval_table_names_the_terms_a_position_has() {
    let mut e = Engine::start();
    // White: a2 and h6 isolated, f2 doubled behind f3, d3 backward (e4 is ahead of it and
    // Black's c5 guards d4), h6 passed on the sixth rank. Black: a7 and c5 are isolated.
    let pawns = eval_table(&mut e, "4k3/p7/7P/2p5/4P3/3P1P2/P4P2/6K1 w - - 0 1");
    for (group, label, white) in [
        ("pawns", "isolated", 2),
        ("pawns", "doubled", 1),
        ("pawns", "backward", 1),
        ("passed pawns", "rank 6", 1),
    ] {
        let row = pawns
            .term(group, label)
            .unwrap_or_else(|| panic!("no {label} row under {group}: {pawns:?}"));
        assert_eq!(row.count.unwrap()[0], white, "{label}");
        assert_ne!(row.sides[0], Score::ZERO, "{label}");
    }
    assert_eq!(pawns.term("pawns", "isolated").unwrap().count, Some([2, 2]));
    assert_eq!(pawns.term("pawns", "doubled").unwrap().count, Some([1, 0]));
    assert_eq!(pawns.term("pawns", "backward").unwrap().count, Some([1, 0]));

    // White: bishops d3 and b2, rook on the open c-file, knight on e5 held by d4 where no
    // black pawn can ever attack it, d4 attacking Black's knight; queen, bishop and knight
    // attack the squares around Black's king. Black has none of these.
    let pieces = eval_table(&mut e, "6k1/pp4pp/8/2n1N2Q/3P4/3B4/1B3PPP/2R3K1 w - - 0 1");
    for (group, label) in [
        ("pieces", "bishop pair"),
        ("pieces", "rook open file"),
        ("pieces", "knight outpost"),
        ("threats", "pawn attacks knight"),
        ("king safety", "attack on king"),
    ] {
        let row = pieces
            .term(group, label)
            .unwrap_or_else(|| panic!("no {label} row under {group}: {pieces:?}"));
        let [white, black] = row.count.unwrap();
        assert!(white > 0, "{label}: {row:?}");
        assert_eq!(black, 0, "{label}: {row:?}");
        assert_ne!(row.sides[0], Score::ZERO, "{label}");
        assert_eq!(row.sides[1], Score::ZERO, "{label}");
    }
    // The king attack's count is its units, and the note under it names the attackers.
    let units = pieces
        .term("king safety", "attack on king")
        .unwrap()
        .count
        .unwrap()[0];
    let white = pieces
        .notes
        .iter()
        .find(|n| n.starts_with("White:"))
        .expect("a note on White's king attack");
    assert!(
        white.starts_with("White: 3 attackers") && white.ends_with(&format!(": {units} units")),
        "{white}"
    );
    assert!(pieces
        .notes
        .iter()
        .any(|n| n == "Black: no piece attacks the king zone"));
}
