//! `kestrel convert`, `kestrel datagen` and `kestrel rescore` through the binary: text data
//! in, 32-byte training records out; a stopped datagen run resumed from its next game and a
//! rescore from its next line; a net chosen by file; bad ranges refused.

use crate::common::{self, *};

use common::ScratchDir;
use kestrel::tools::training_data::PackedPosition;
use std::path::PathBuf;
use std::process::Command;

fn kestrel(args: &[&str]) -> (bool, String) {
    let run = Command::new(KESTREL).args(args).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    (run.status.success(), text)
}

#[test]
fn convert_packs_every_good_line_in_order_and_names_the_bad_ones() {
    let scratch = ScratchDir::new("data-convert");
    let sample = include_str!("../data/selfplay-sample.txt");
    let input = scratch.path("convert-in.txt");
    let output = scratch.path("convert-out.bin");
    let mut text = String::from("# head-start sample with one damaged line\n");
    text.push_str(sample);
    text.push_str("8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5\n");
    std::fs::write(&input, &text).unwrap();
    let (ok, said) = kestrel(&["convert", input.to_str().unwrap(), output.to_str().unwrap()]);
    assert!(ok, "{said}");
    let lines = sample.lines().count();
    assert!(
        said.contains(&format!(":{}: skipped: bad FEN", lines + 2)),
        "{said}"
    );
    assert!(
        said.contains(&format!("{lines} records from {} lines", lines + 2)),
        "{said}"
    );
    let bytes = std::fs::read(&output).unwrap();
    assert_eq!(bytes.len(), 32 * lines);
    for (line, record) in sample.lines().zip(bytes.chunks_exact(32)) {
        assert_eq!(record, PackedPosition::parse_line(line).unwrap().as_bytes());
    }
    // A second run must not overwrite what the first wrote.
    let (ok, said) = kestrel(&["convert", input.to_str().unwrap(), output.to_str().unwrap()]);
    assert!(!ok && said.contains("exists"), "{said}");
    assert_eq!(std::fs::read(&output).unwrap(), bytes);

    // A file with no valid line is a failed conversion, and leaves no empty file behind.
    let junk = scratch.path("junk.txt");
    std::fs::write(&junk, "not data\n8/8/8/8/8/8/8/8 w - - 0 1 | 0 | 0.5\n").unwrap();
    let empty = scratch.path("junk.bin");
    let run = Command::new(KESTREL)
        .args(["convert", junk.to_str().unwrap(), empty.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(
        said.contains("no position converted") && said.contains("2 malformed"),
        "{said}"
    );
    assert!(!empty.exists());
}

/// A PGN cutechess-cli wrote (Kestrel against Ethereal, `tests/data/README.md` says how)
/// becomes the positions, scores and results an independent python-chess reading of it
/// gives; a game with a move that does not read and a game cut off are named by number and
/// line and skipped, the rest still converted; records hold the same positions as lines.
#[test]
fn convert_reads_cutechess_games_as_python_chess_does() {
    let scratch = ScratchDir::new("data-convert-pgn");
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/cutechess-kestrel-ethereal.pgn"
    );
    let text = scratch.path("kestrel.txt");
    let (ok, said) = kestrel(&[
        "convert",
        fixture,
        text.to_str().unwrap(),
        "--format",
        "text",
        "--player",
        "kestrel",
    ]);
    assert!(ok, "{said}");
    let lines = std::fs::read_to_string(&text).unwrap();
    assert!(lines.lines().count() >= 500, "{said}");
    assert!(said.contains("from 24 of 24 games"), "{said}");
    if let Some(reference) =
        common::run_python_chess("chess.pgn", "pgn_positions.py", &[fixture, "Kestrel"])
    {
        let (positions, summary) = reference.trim_end().rsplit_once('\n').unwrap();
        assert!(summary.starts_with("# games 24 positions"), "{summary}");
        let theirs: Vec<&str> = positions.lines().collect();
        let ours: Vec<&str> = lines.lines().collect();
        assert_eq!(ours.len(), theirs.len(), "{said}");
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "position {}", i + 1);
        }
    }

    // The fixture, then a game with an illegal move and a game cut off mid-movetext.
    let damaged = scratch.path("damaged.pgn");
    let mut pgn = std::fs::read_to_string(fixture).unwrap();
    let fixture_lines = pgn.lines().count();
    pgn.push_str("\n[White \"Kestrel\"]\n[Black \"Other\"]\n[Result \"1-0\"]\n\n");
    pgn.push_str("1. e4 {+0.30/10 0.1s} e5 2. Ke3 {+0.10/9 0.1s} 1-0\n\n");
    pgn.push_str("[White \"Kestrel\"]\n[Black \"Other\"]\n[Result \"1-0\"]\n\n");
    pgn.push_str("1. d4 {+0.20/10 0.1s} d5 2. c4 {+0.25/10\n");
    std::fs::write(&damaged, pgn).unwrap();
    let from_damaged = scratch.path("damaged.txt");
    let (ok, said) = kestrel(&[
        "convert",
        damaged.to_str().unwrap(),
        from_damaged.to_str().unwrap(),
        "--format",
        "text",
        "--player",
        "Kestrel",
    ]);
    assert!(ok, "{said}");
    let illegal = format!(":{}: game 25 skipped: move 2 'Ke3'", fixture_lines + 6);
    let cut = format!(":{}: game 26 skipped: cut off", fixture_lines + 8);
    assert!(said.contains(&illegal) && said.contains(&cut), "{said}");
    assert!(said.contains("from 24 of 26 games"), "{said}");
    assert_eq!(std::fs::read_to_string(&from_damaged).unwrap(), lines);

    // Records (the default) of the same positions.
    let records = scratch.path("kestrel.bin");
    let (ok, said) = kestrel(&[
        "convert",
        fixture,
        records.to_str().unwrap(),
        "--player",
        "Kestrel",
    ]);
    assert!(ok, "{said}");
    let bytes = std::fs::read(&records).unwrap();
    assert_eq!(bytes.len(), 32 * lines.lines().count());
    for (line, record) in lines.lines().zip(bytes.chunks_exact(32)) {
        assert_eq!(record, PackedPosition::parse_line(line).unwrap().as_bytes());
    }
    // A player in none of the games: nothing to train on, a failure, no file.
    let none = scratch.path("none.txt");
    let (ok, said) = kestrel(&[
        "convert",
        fixture,
        none.to_str().unwrap(),
        "--player",
        "Stockfish",
    ]);
    assert!(!ok && said.contains("no scored position"), "{said}");
    assert!(!none.exists());
}

/// Counts that must be positive say so, without the type's maximum; a strength setting
/// outside the engine's range is refused, not clamped and reported as asked.
#[test]
fn counts_and_settings_out_of_range_are_refused_plainly() {
    let (ok, said) = kestrel(&["datagen", "--games", "0", "--out", "unused.txt"]);
    assert!(!ok && said.contains("must be at least 1"), "{said}");
    assert!(!said.contains("18446744073709551615"), "{said}");
    for elo in ["50", "9999"] {
        let (ok, said) = kestrel(&["strength-mates", "--elo", elo, "--positions", "1"]);
        assert!(!ok && said.contains(&format!("{elo} is not in")), "{said}");
    }
}

#[test]
fn datagen_writes_bullet_records_of_the_positions_it_writes_as_text() {
    let scratch = ScratchDir::new("data-bullet");
    let text = scratch.path("datagen.txt");
    let bullet = scratch.path("datagen.bin");
    let args = [
        "datagen",
        "--games",
        "2",
        "--nodes",
        "300",
        "--threads",
        "2",
    ];
    let (ok, said) = kestrel(&[&args[..], &["--out", text.to_str().unwrap()]].concat());
    assert!(ok, "{said}");
    let format = ["--format", "bullet", "--out", bullet.to_str().unwrap()];
    let (ok, said) = kestrel(&[&args[..], &format[..]].concat());
    assert!(ok, "{said}");
    let text_path = text;
    let text = std::fs::read_to_string(&text_path).unwrap();
    let records = std::fs::read(&bullet).unwrap();
    assert!(text.lines().count() > 10, "{text}");
    assert_eq!(records.len(), 32 * text.lines().count());
    for (line, record) in text.lines().zip(records.chunks_exact(32)) {
        let expected = PackedPosition::parse_line(line).unwrap();
        assert_eq!(record, expected.as_bytes(), "{line}");
        expected.validate().unwrap();
    }
}

#[test]
fn datagen_resumes_from_the_next_game_and_refuses_a_bad_range() {
    let scratch = ScratchDir::new("data-resume");
    let out = scratch.path("resumed.txt");
    let whole = scratch.path("whole.txt");
    let run = |games: &str, first: &str, out: &PathBuf| {
        let (ok, said) = kestrel(&[
            "datagen",
            "--games",
            games,
            "--first-game",
            first,
            "--nodes",
            "300",
            "--soft-nodes",
            "200",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(ok, "{said}");
        said
    };
    // The summary names the game a stopped run would resume from.
    let said = run("2", "0", &out);
    assert!(said.contains("2/2 games (next 2)"), "{said}");
    let said = run("3", "2", &out);
    assert!(said.contains("1/1 games (next 3)"), "{said}");
    run("3", "0", &whole);
    let resumed = std::fs::read_to_string(&out).unwrap();
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    assert!(whole_text.lines().count() > 10, "{whole_text}");
    // Repeats across the parts are left out of the whole run only.
    assert!(whole_text.lines().all(|l| resumed.contains(l)));
    assert!(resumed.lines().count() >= whole_text.lines().count());

    for (args, why) in [
        (
            ["--games", "3", "--first-game", "3", "--nodes", "300"],
            "--first-game 3 is not below --games 3",
        ),
        (
            ["--games", "3", "--soft-nodes", "400", "--nodes", "300"],
            "--soft-nodes must not exceed --nodes",
        ),
    ] {
        let bad = scratch.path("refused.txt");
        let (ok, said) =
            kestrel(&[&["datagen"], &args[..], &["--out", bad.to_str().unwrap()]].concat());
        assert!(!ok && said.contains(why), "{said}");
        assert!(!bad.exists(), "nothing is written");
    }
}

/// `kestrel rescore` keeps each line's position and result, gives it its own search's score,
/// writes the same lines when stopped at a block's end and resumed from the "next line" it
/// names, and refuses to write over its input.
#[test]
fn rescore_resumes_from_the_next_line_and_refuses_its_own_input() {
    let scratch = ScratchDir::new("data-rescore");
    let sample = include_str!("../data/selfplay-sample.txt");
    let input = scratch.path("rescore-in.txt");
    // Two copies: more than one block of 256 lines.
    std::fs::write(&input, format!("{sample}{sample}")).unwrap();
    let lines = 2 * sample.lines().count();
    let (whole, parts) = (scratch.path("whole.txt"), scratch.path("parts.txt"));
    let run = |range: &[&str], out: &PathBuf| {
        let (ok, said) = kestrel(
            &[
                &["rescore", "--data", input.to_str().unwrap()],
                range,
                &[
                    "--nodes",
                    "300",
                    "--threads",
                    "2",
                    "--out",
                    out.to_str().unwrap(),
                ],
            ]
            .concat(),
        );
        assert!(ok, "{said}");
        said
    };
    let said = run(&[], &whole);
    assert!(
        said.contains(&format!("{lines} lines (next line {lines})")),
        "{said}"
    );
    let said = run(&["--end-line", "256"], &parts);
    assert!(said.contains("256 lines (next line 256)"), "{said}");
    let said = run(&["--first-line", "256"], &parts);
    assert!(said.contains(&format!("(next line {lines})")), "{said}");
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(std::fs::read_to_string(&parts).unwrap(), whole_text);
    let input_lines: Vec<&str> = sample.lines().chain(sample.lines()).collect();
    let mut changed = 0;
    let mut inputs = input_lines.iter();
    for line in whole_text.lines() {
        let (fen, rest) = line.split_once(" | ").unwrap();
        // Lines whose new score is a mate are left out; the rest keep their order.
        let old = inputs.find(|old| old.starts_with(fen)).expect(line);
        let (old_score, old_result) = old[fen.len() + 3..].split_once(" | ").unwrap();
        let (score, result) = rest.split_once(" | ").unwrap();
        assert_eq!(result, old_result, "{line}");
        changed += usize::from(score != old_score);
    }
    assert!(whole_text.lines().count() + 4 >= lines, "{whole_text}");
    assert!(changed * 2 > lines, "{changed} of {lines} scores changed");

    let (ok, said) = kestrel(&[
        "rescore",
        "--data",
        input.to_str().unwrap(),
        "--out",
        input.to_str().unwrap(),
    ]);
    assert!(
        !ok && said.contains("--out must not be the --data file"),
        "{said}"
    );
    let bad = scratch.path("refused.txt");
    let (ok, said) = kestrel(&[
        "rescore",
        "--data",
        input.to_str().unwrap(),
        "--first-line",
        "9",
        "--end-line",
        "9",
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert!(!ok && said.contains("--end-line must be above"), "{said}");
    assert!(!bad.exists(), "nothing is written");
}

/// `--eval-file` plays with the named net: the embedded net's own bytes make the default
/// run's data, another net makes other data, and a missing file is refused before anything
/// is written.
#[test]
fn datagen_plays_with_the_net_it_is_given() {
    let scratch = ScratchDir::new("data-net");
    let embedded = scratch.path("embedded.nnue");
    std::fs::write(
        &embedded,
        kestrel::nnue::EMBEDDED.expect("a net is embedded"),
    )
    .unwrap();
    let other = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/nnue/nets/kestrel-1.nnue");
    let generate = |name: &str, net: Option<&PathBuf>| {
        let out = scratch.path(name);
        let mut args = vec!["datagen", "--games", "2", "--nodes", "300"];
        args.extend(["--out", out.to_str().unwrap()]);
        if let Some(net) = net {
            args.extend(["--eval-file", net.to_str().unwrap()]);
        }
        let (ok, said) = kestrel(&args);
        assert!(ok, "{said}");
        std::fs::read_to_string(out).unwrap()
    };
    let default = generate("default.txt", None);
    assert!(default.lines().count() > 10, "{default}");
    assert_eq!(generate("embedded.txt", Some(&embedded)), default);
    assert_ne!(generate("other.txt", Some(&other)), default);

    let bad = scratch.path("refused.txt");
    let missing = scratch.path("missing.nnue");
    let (ok, said) = kestrel(&[
        "datagen",
        "--eval-file",
        missing.to_str().unwrap(),
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert!(!ok && said.contains("cannot read net file"), "{said}");
    assert!(!bad.exists(), "nothing is written");
}

/// `wdl-fit` fits the model to a data file and prints its coefficients and the check on
/// the held-out part, its +1.00 beside the model in place; a file with no data fails.
#[test]
fn wdl_fit_prints_a_model_and_its_check() {
    let sample = common::data_file("selfplay-sample.txt");
    let (ok, said) = kestrel(&["wdl-fit", sample.to_str().unwrap(), "--iterations", "200"]);
    assert!(ok, "{said}");
    for part in [
        "positions fitted",
        "pub const A: [f64; 4] = [",
        "pub const B: [f64; 4] = [",
        "observed win",
        "shown +0.90 to +1.10 (this fit)",
        // The model in place, on the same held-out positions: what decides a refit.
        "shown +0.90 to +1.10 (in place)",
    ] {
        assert!(said.contains(part), "{part}: {said}");
    }
    let scratch = ScratchDir::new("wdl-fit");
    let junk = scratch.path("junk.txt");
    std::fs::write(&junk, "no data here\n").unwrap();
    let (ok, said) = kestrel(&["wdl-fit", junk.to_str().unwrap()]);
    assert!(!ok && said.contains("no data line"), "{said}");
}
