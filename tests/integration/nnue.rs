//! The network evaluation through the real binary: `EvalFile` loads a net in both protocols
//! (`eval` then shows the net's score, which is the library's for that net), a bad file is
//! refused with the reason and the net in use stays, `UseNNUE` switches back to the classical
//! evaluation, a search with a net plays a legal move, and `make EVALFILE=` embeds the very
//! net `EvalFile` loads.

use crate::common::{self, *};

use common::{random_net, uci_info, Engine};
use kestrel::chess::Position;
use kestrel::nnue::format::{Activation, NetFile};
use kestrel::nnue::{evaluate_from_scratch, Network};
use std::path::PathBuf;

/// A directory of this test's own, with two good nets and some bad files.
struct Nets {
    dir: PathBuf,
    first: (PathBuf, NetFile),
    second: (PathBuf, NetFile),
}

impl Nets {
    fn write(test: &str) -> Nets {
        let dir = std::env::temp_dir().join(format!("kestrel-nnue-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let write = |name: &str, net: NetFile| {
            let path = dir.join(name);
            std::fs::write(&path, net.to_bytes()).unwrap();
            (path, net)
        };
        let first = write("first.knue", random_net(32, Activation::SCReLU, 1));
        let second = write("second.knue", random_net(64, Activation::CReLU, 2));
        let mut damaged = second.1.to_bytes();
        damaged[5000] ^= 0x10;
        std::fs::write(dir.join("damaged.knue"), damaged).unwrap();
        std::fs::write(dir.join("text.knue"), "not a net\n").unwrap();
        // A good net's header on a 1 GiB (sparse) file: refused by its length, unread.
        let huge = std::fs::File::create(dir.join("huge.knue")).unwrap();
        std::io::Write::write_all(&mut &huge, &second.1.to_bytes()).unwrap();
        huge.set_len(1 << 30).unwrap();
        // A FIFO nobody writes to: reading it would wait for ever.
        let fifo = std::process::Command::new("mkfifo")
            .arg(dir.join("fifo.knue"))
            .status()
            .unwrap();
        assert!(fifo.success());
        Nets { dir, first, second }
    }

    fn bad_files(&self) -> Vec<(String, &'static str)> {
        vec![
            (
                self.dir.join("damaged.knue").display().to_string(),
                "checksum does not match",
            ),
            (
                self.dir.join("text.knue").display().to_string(),
                "too short for a net file",
            ),
            (
                self.dir.join("missing.knue").display().to_string(),
                "cannot read net file",
            ),
            (
                self.dir.join("huge.knue").display().to_string(),
                "the file is 1073741824 bytes; a net of this shape is",
            ),
            (
                self.dir.join("fifo.knue").display().to_string(),
                "not a regular file",
            ),
            (self.dir.display().to_string(), "not a regular file"),
        ]
    }
}

impl Drop for Nets {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// What the library's net makes of `fen`, side to move's view.
fn library_score(net: &NetFile, fen: &str) -> i32 {
    evaluate_from_scratch(&Network::new(net), &Position::from_fen(fen).unwrap())
}

/// The `net` and `NNUE` lines of `eval`'s reply (read up to the NNUE line, or up to the
/// classical table's last line when no net is loaded).
fn eval_net_lines(e: &mut Engine, expect_net: bool) -> (Option<String>, Option<i32>) {
    e.send("eval");
    let (last, before) = e.wait_for("eval", 10 * SEC, |l| {
        if expect_net {
            l.starts_with("NNUE ")
        } else {
            l.starts_with("side to move ")
        }
    });
    assert!(
        before.iter().any(|l| l.starts_with("material")),
        "{before:?}"
    );
    if !expect_net {
        return (None, None);
    }
    let net_line = before.iter().rev().find(|l| l.starts_with("net ")).cloned();
    let score = last.split_whitespace().nth(1).and_then(|s| s.parse().ok());
    (net_line, score)
}

const FEN: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";

#[test]
fn uci_eval_file_loads_a_net_and_a_bad_file_keeps_it() {
    let nets = Nets::write("uci");
    let mut e = Engine::started_uci();
    e.send(&format!("position fen {FEN}"));
    for (path, net) in [&nets.first, &nets.second] {
        e.send(&format!("setoption name EvalFile value {}", path.display()));
        let lines = e.ready();
        assert!(
            lines.len() == 1
                && lines[0].starts_with(&format!(
                    "info string NNUE evaluation with net {} ({} hidden neurons",
                    path.display(),
                    net.hidden
                )),
            "{lines:?}"
        );
        let (net_line, score) = eval_net_lines(&mut e, true);
        assert!(net_line.unwrap().contains(&path.display().to_string()));
        assert_eq!(score, Some(library_score(net, FEN)), "{}", path.display());
    }
    let second_score = library_score(&nets.second.1, FEN);
    assert_ne!(library_score(&nets.first.1, FEN), second_score);

    e.allow_errors(true);
    for (bad, why) in nets.bad_files() {
        e.send(&format!("setoption name EvalFile value {bad}"));
        let lines = e.ready();
        assert!(
            lines.len() == 1
                && lines[0].starts_with("info string error: ")
                && lines[0].contains(&bad)
                && lines[0].contains(why)
                && lines[0].ends_with(&format!("; the net {} stays", nets.second.0.display())),
            "{lines:?}"
        );
        let (net_line, score) = eval_net_lines(&mut e, true);
        assert!(net_line
            .unwrap()
            .contains(&nets.second.0.display().to_string()));
        assert_eq!(score, Some(second_score));
    }
}

#[test]
fn xboard_eval_file_loads_a_net_and_a_bad_file_keeps_it() {
    let nets = Nets::write("xboard");
    let mut e = Engine::started();
    e.send("force");
    e.send(&format!("setboard {FEN}"));
    let (path, net) = &nets.first;
    e.send(&format!("option EvalFile={}", path.display()));
    let lines = e.sync(1);
    assert!(
        lines.len() == 1
            && lines[0].starts_with(&format!("# NNUE evaluation with net {}", path.display())),
        "{lines:?}"
    );
    let first_score = library_score(net, FEN);
    assert_eq!(eval_net_lines(&mut e, true).1, Some(first_score));

    e.allow_errors(true);
    for (bad, why) in nets.bad_files() {
        e.send(&format!("option EvalFile={bad}"));
        let lines = e.sync(2);
        // As for a book file: the person who chose the file in the dialog sees why.
        assert!(
            lines.len() == 1
                && lines[0].starts_with("tellusererror ")
                && lines[0].contains(why)
                && lines[0].ends_with(&format!("; the net {} stays", path.display())),
            "{lines:?}"
        );
        assert_eq!(eval_net_lines(&mut e, true).1, Some(first_score));
    }
}

#[test]
fn use_nnue_off_plays_the_classical_evaluation_and_the_net_stays_loaded() {
    let nets = Nets::write("usennue");
    let mut e = Engine::started_uci();
    e.send(&format!("position fen {FEN}"));
    e.send(&format!(
        "setoption name EvalFile value {}",
        nets.first.0.display()
    ));
    e.ready();
    // Depth 1 searches every root move to the quiescence search: its score is the
    // evaluation the search uses, which a random net and the classical one do not share.
    let depth_one = |e: &mut Engine| {
        e.send("go depth 1");
        let (best, _, before) = e.expect_bestmove(20 * SEC);
        let score = before
            .iter()
            .rev()
            .find_map(|l| uci_info(l))
            .map(|i| i.score)
            .expect("a score");
        (best, score)
    };
    let (_, with_net) = depth_one(&mut e);
    e.send("setoption name UseNNUE value false");
    let lines = e.ready();
    assert!(
        lines.len() == 1 && lines[0].contains("UseNNUE is off: the classical evaluation plays"),
        "{lines:?}"
    );
    let (net_line, _) = eval_net_lines(&mut e, true);
    assert!(net_line.unwrap().ends_with("not in use (UseNNUE is off)"));
    let (_, classical) = depth_one(&mut e);
    e.send("setoption name UseNNUE value true");
    e.ready();
    let (_, again) = depth_one(&mut e);
    assert_ne!(with_net, classical);
    assert_eq!(with_net, again);

    // The classical score is the one of an engine that never used a net (whether or not the
    // build embeds one).
    let mut plain = Engine::started_uci();
    plain.send("setoption name UseNNUE value false");
    plain.send(&format!("position fen {FEN}"));
    assert_eq!(depth_one(&mut plain).1, classical);
}

#[test]
fn a_search_with_a_net_reaches_its_depth_and_plays_a_legal_move() {
    let nets = Nets::write("search");
    let mut e = Engine::started_uci();
    e.send(&format!(
        "setoption name EvalFile value {}",
        nets.second.0.display()
    ));
    e.send("setoption name Threads value 2");
    e.ready();
    e.send(&format!("position fen {FEN}"));
    e.send("go depth 7");
    let (best, _, before) = e.expect_bestmove(60 * SEC);
    let deepest = before
        .iter()
        .filter_map(|l| uci_info(l))
        .map(|i| i.depth)
        .max();
    assert_eq!(deepest, Some(7));
    let pos = Position::from_fen(FEN).unwrap();
    assert!(pos.parse_move(&best).is_ok(), "{best}");
}

#[test]
fn both_protocols_announce_eval_file_and_use_nnue() {
    let mut u = Engine::start();
    let lines = u.uci_handshake();
    assert!(
        lines
            .iter()
            .any(|l| l == "option name EvalFile type string default <embedded>"),
        "{lines:?}"
    );
    assert!(lines
        .iter()
        .any(|l| l == "option name UseNNUE type check default true"));
    let mut x = Engine::start();
    let features = x.handshake();
    assert!(
        features
            .iter()
            .any(|l| l.contains("option=\"EvalFile -file <embedded>\"")),
        "{features:?}"
    );
    assert!(features
        .iter()
        .any(|l| l.contains("option=\"UseNNUE -check 1\"")));
}

/// The `NNUE` score `eval` gives for each of `fens` (and the `net` line of the first).
fn net_scores(e: &mut Engine, fens: &[&str]) -> (String, Vec<i32>) {
    e.send("force");
    let mut net_line = String::new();
    let mut scores = Vec::new();
    for fen in fens {
        e.send(&format!("setboard {fen}"));
        let (line, score) = eval_net_lines(e, true);
        net_line = line.expect("a net line");
        scores.push(score.expect("an NNUE score"));
    }
    (net_line, scores)
}

#[test]
fn make_evalfile_embeds_the_net_the_eval_file_option_loads() {
    // OpenBench builds an engine with `make EXE=<name> EVALFILE=<net>`. Built so, the binary
    // must evaluate as the usual one does after `option EvalFile=<net>`.
    let nets = Nets::write("make");
    let (path, net) = &nets.first;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let exe = nets.dir.join("kestrel-evalfile");
    // A target directory of its own (kept between runs, so a second run is quick): the
    // embedded net differs, so the build must not replace the binary the other tests run.
    let target = root.join("target").join("make-evalfile");
    let output = std::process::Command::new("make")
        .current_dir(&root)
        .arg(format!("EXE={}", exe.display()))
        .arg(format!("EVALFILE={}", path.display()))
        .env("CARGO_TARGET_DIR", &target)
        // What is tested is which net the build embeds, not its speed: a quick build (no
        // LTO, parallel codegen, no optimisation) instead of the shipped profile's minute.
        .env("CARGO_PROFILE_RELEASE_LTO", "false")
        .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "16")
        .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
        .env(
            "CARGO",
            std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
        )
        .output()
        .expect("make is installed");
    assert!(
        output.status.success(),
        "make failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let fens = [
        FEN,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "8/3k4/4p3/R4p2/2P2K2/4P3/P7/8 b - - 4 58",
    ];
    let mut built = Engine::start_binary(&exe, &[]);
    built.handshake();
    let (built_net, built_scores) = net_scores(&mut built, &fens);
    assert!(
        built_net.contains("<embedded>") && built_net.contains(&format!("{} hidden", net.hidden)),
        "{built_net}"
    );

    let mut usual = Engine::started();
    usual.send(&format!("option EvalFile={}", path.display()));
    usual.sync(1);
    let (usual_net, usual_scores) = net_scores(&mut usual, &fens);
    assert!(
        usual_net.contains(&path.display().to_string()),
        "{usual_net}"
    );
    assert_eq!(built_scores, usual_scores);
    let library: Vec<i32> = fens.iter().map(|f| library_score(net, f)).collect();
    assert_eq!(built_scores, library);
    // Not the committed net's scores: the build really took the file.
    let mut committed = Engine::started();
    assert_ne!(net_scores(&mut committed, &fens).1, built_scores);
}
