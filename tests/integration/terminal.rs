//! A person at the terminal: help, d, moves, SAN input, eval, perft, errors; the command
//! line; bench determinism; and the session transcript.

use crate::common::{self, *};

use common::Engine;
use std::process::Command;
use std::time::Duration;

/// The positions and counts of tests/data/perft.epd: `FEN ;D1 n ;D2 n ...` (published),
/// as (FEN, [(depth, count)]).
fn published_perft() -> Vec<(String, Vec<(u32, u64)>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.epd");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut parts = l.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .map(|p| {
                    let mut f = p.split_whitespace();
                    let depth = f.next().unwrap().trim_start_matches('D').parse().unwrap();
                    (depth, f.next().unwrap().parse().unwrap())
                })
                .collect();
            (fen, counts)
        })
        .collect()
}

/// The published count at `depth`.
fn at(counts: &[(u32, u64)], depth: u32) -> u64 {
    counts
        .iter()
        .find(|c| c.0 == depth)
        .expect("published depth")
        .1
}

/// `kestrel perft` on the command line and `perft` in a session give the published counts
/// for every position of the suite, as deep as 200,000 nodes.
#[test]
fn perft_through_the_binary_matches_published_counts() {
    let cases = published_perft();
    assert!(cases.len() > 100);
    // The command line: the start position by default, and `--fen` with `--divide`.
    let out = Command::new(KESTREL).args(["perft", "4"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l == format!("nodes {}", at(&cases[0].1, 4))),
        "{text}"
    );
    let (fen, counts) = &cases[1];
    let out = Command::new(KESTREL)
        .args(["perft", "2", "--divide", "--fen", fen])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l == format!("nodes {}", at(counts, 2))),
        "{text}"
    );
    let per_move: Vec<u64> = text
        .lines()
        .filter_map(|l| l.split_once(": ")?.1.parse().ok())
        .collect();
    assert_eq!(per_move.len() as u64, at(counts, 1), "{text}");
    assert_eq!(per_move.iter().sum::<u64>(), at(counts, 2));

    // A session: every position, at the deepest depth of at most 200,000 nodes.
    let mut e = Engine::start();
    e.send("force");
    let mut checked = 0;
    for (fen, counts) in &cases {
        let Some(&(depth, count)) = counts.iter().rfind(|c| c.1 <= 200_000) else {
            continue;
        };
        e.send(&format!("setboard {fen}"));
        e.send(&format!("perft {depth}"));
        let (line, before) = e.wait_for("perft", 20 * SEC, |l| l.starts_with("perft "));
        assert!(before.is_empty(), "{before:?}");
        let want = format!("perft {depth}: {count} nodes");
        assert!(line.starts_with(&want), "{fen}: {line}, published {want}");
        checked += 1;
    }
    // All but the one line with only a deep count.
    assert!(checked + 1 >= cases.len(), "{checked} of {}", cases.len());
}

/// `kestrel perft --hash MB --threads T`: the same counts and divide as plain perft, with the
/// table size, its hit rate and the threads printed; without either, plain perft's output.
#[test]
fn hashed_perft_on_the_command_line() {
    let cases = published_perft();
    let run = |args: &[&str]| {
        let out = Command::new(KESTREL)
            .arg("perft")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(&["5", "--hash", "2", "--threads", "2"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&format!("nodes {}", at(&cases[0].1, 5)).as_str()),
        "{text}"
    );
    assert!(lines.contains(&"hash 2 MB"), "{text}");
    assert!(lines.contains(&"threads 2"), "{text}");
    let hits = lines
        .iter()
        .find_map(|l| l.strip_prefix("hash hits "))
        .expect(&text);
    let (rate, probes) = hits.split_once("% of ").expect(hits);
    let rate: f64 = rate.parse().unwrap();
    assert!(rate > 0.0 && rate < 100.0, "{text}");
    assert!(probes.ends_with(" probes"), "{text}");

    // Divide: the same lines under each root move as plain perft.
    let (fen, counts) = &cases[1];
    let per_move = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.contains(": "))
            .map(String::from)
            .collect()
    };
    let plain = run(&["3", "--divide", "--fen", fen]);
    let hashed = run(&[
        "3",
        "--divide",
        "--fen",
        fen,
        "--hash",
        "1",
        "--threads",
        "2",
    ]);
    assert_eq!(per_move(&plain).len() as u64, at(counts, 1));
    assert_eq!(per_move(&plain), per_move(&hashed));
    assert!(
        hashed.contains(&format!("nodes {}", at(counts, 3))),
        "{hashed}"
    );

    // Threads without a table, and the defaults spelled out: no table line for plain perft.
    let text = run(&["4", "--threads", "2"]);
    assert!(
        text.contains(&format!("nodes {}", at(&cases[0].1, 4))),
        "{text}"
    );
    assert!(text.lines().any(|l| l == "hash none"), "{text}");
    let text = run(&["4", "--hash", "0", "--threads", "1"]);
    assert!(
        !text.contains("hash") && !text.contains("threads"),
        "{text}"
    );
    let out = Command::new(KESTREL)
        .args(["perft", "4", "--threads", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

#[test]
fn terminal_session_answers_readably() {
    let mut e = Engine::start();
    e.send("help");
    let (_, help) = e.wait_for("end of help", 5 * SEC, |l| l.starts_with("quit "));
    assert!(help.len() > 30, "help too short: {help:?}");
    assert!(help.iter().any(|l| l.starts_with("perft N")));

    e.send("new");
    e.send("force");
    e.send("e4");
    e.send("Nf6");
    e.send("d");
    let (_, board) = e.wait_for("last move line", 5 * SEC, |l| l.starts_with("Last move:"));
    let text = board.join("\n");
    assert!(text.contains("8 | r n b q k b . r |"), "{text}");
    assert!(text.contains("4 | . . . . P . . . |"), "{text}");
    assert!(text.contains("FEN: rnbqkb1r/pppppppp/5n2/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 1 2"));
    assert!(text.contains("Side to move: White"));
    assert!(text.contains("Castling: KQkq"));
    assert!(text.contains("Key: "));
    assert_eq!(e.transcript.last().unwrap(), "Last move: Nf6 (g8f6)");

    e.send("moves");
    let first = e.next_line(5 * SEC).unwrap();
    assert_eq!(first, "30 legal moves:");
    let (_, _) = e.wait_for("move list", 5 * SEC, |l| l.contains("h4 (h2h4)"));

    // SAN from a person: a capture, castling, a promotion with check, an underpromotion,
    // and shapes that are refused. Expected FENs written out by hand.
    for m in ["d4", "e6", "Bd3", "d5", "exd5", "exd5", "Nf3", "Be7", "O-O"] {
        e.send(m);
    }
    // No black piece can take on e5, and Black's queenside is not clear to castle.
    for refused in ["Nxe5", "O-O-O"] {
        e.send(refused);
        e.expect_prefix("Illegal move", 5 * SEC);
    }
    assert_eq!(
        e.fen(),
        "rnbqk2r/ppp1bppp/5n2/3p4/3P4/3B1N2/PPP2PPP/RNBQ1RK1 b kq - 3 6"
    );

    e.send("eval");
    let (_, eval) = e.wait_for("eval total", 5 * SEC, |l| l.starts_with("side to move"));
    assert!(eval.iter().any(|l| l.starts_with("material")));
    assert!(eval.iter().any(|l| l.starts_with("total")));

    e.send("setboard 4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1");
    e.send("b8=Q+");
    // In check from the new queen: promoting is not an answer.
    e.send("g1=N");
    e.expect_prefix("Illegal move", 5 * SEC);
    e.send("Ke7");
    e.send("Kd2");
    e.send("g1=N");
    assert_eq!(e.fen(), "1Q6/4k3/8/8/8/8/3K4/6n1 w - - 0 3");

    // perft and divide against the published counts (tests/data/perft.epd).
    let (fen, counts) = &published_perft()[1];
    e.send(&format!("setboard {fen}"));
    e.send("perft 3");
    let perft = e.expect_prefix("perft 3:", 20 * SEC);
    assert!(
        perft.starts_with(&format!("perft 3: {} nodes", at(counts, 3))),
        "{perft}, published {}",
        at(counts, 3)
    );
    e.send("divide 2");
    let (total, lines) = e.wait_for("divide total", 10 * SEC, |l| l.starts_with("total "));
    assert_eq!(total, format!("total {}", at(counts, 2)));
    // One line per root move (the depth 1 count), adding up to the total.
    assert_eq!(lines.len() as u64, at(counts, 1), "{lines:?}");
    let sum: u64 = lines
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, at(counts, 2));

    e.send("frobnicate now");
    assert_eq!(
        e.next_line(5 * SEC).unwrap(),
        "Error (unknown command): frobnicate now"
    );
    e.send("perft 0");
    assert!(e
        .next_line(5 * SEC)
        .unwrap()
        .starts_with("Error (depth must be 1-20"));
}

#[test]
fn gui_session_sees_no_extra_chatter() {
    let mut e = Engine::start();
    let features = e.handshake();
    assert!(features.iter().all(|l| l.starts_with("feature ")));
    for cmd in [
        "accepted ping",
        "accepted setboard",
        "new",
        "random",
        "level 0 0:10 0",
        "post",
        "hard",
        "easy",
        "nopost",
        "force",
        "computer",
        "name Opponent",
        "rating 2000 1800",
        "e2e4",
        "e7e5",
        "memory 32",
        "cores 1",
    ] {
        e.send(cmd);
    }
    assert_eq!(e.sync(1), Vec::<String>::new(), "unexpected output");
    e.send("time 1000");
    e.send("otim 1000");
    e.send("go");
    let (mv, before) = e.wait_for("move", 10 * SEC, |l| l.starts_with("move "));
    assert!(before.is_empty(), "chatter before the move: {before:?}");
    assert!(mv.len() > 5);
    assert_eq!(e.sync(2), Vec::<String>::new());
}

#[test]
fn bench_node_count_is_the_same_every_run_and_follows_the_net() {
    let nodes_with = |extra: &[&str]| {
        let out = Command::new(KESTREL)
            .args(["bench", "6"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let nodes: u64 = text
            .split_whitespace()
            .skip_while(|w| *w != "6:")
            .nth(1)
            .unwrap_or_else(|| panic!("no node count in {text}"))
            .parse()
            .unwrap();
        nodes
    };
    let run = || nodes_with(&[]);
    let first = run();
    assert!(first > 100_000, "{first}");
    assert_eq!(first, run());
    // Another net searches other trees; a missing net file is refused plainly.
    let other = concat!(env!("CARGO_MANIFEST_DIR"), "/src/nnue/nets/kestrel-1.nnue");
    assert_ne!(nodes_with(&["--eval-file", other]), first);
    let missing = Command::new(KESTREL)
        .args(["bench", "6", "--eval-file", "no-such.nnue"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let said = String::from_utf8_lossy(&missing.stderr);
    assert!(said.contains("cannot read net file no-such.nnue"), "{said}");
    // The in-session command agrees with the command line.
    let mut e = Engine::start();
    e.send("bench 6");
    let line = e.expect_prefix("bench depth 6:", 60 * SEC);
    assert!(
        line.starts_with(&format!("bench depth 6: {first} nodes")),
        "{line}"
    );
}

/// What OpenBench's client reads from a bench run's output (stdout and stderr together): it
/// decodes the output as ASCII (anything else and it has no bench), walks the lines from the
/// last to the first with every character but a letter, a digit or a space made a space, and
/// keeps the first node count and the first speed it meets: `N nodes`, `nodes N` or
/// `nodes searched N`; `N nps`, `nps N` or `nodes second N`, in any case. The number is the
/// first run of digits in what matched. Returns (nodes, nps).
fn read_bench_as_openbench(output: &[u8]) -> (Option<u64>, Option<u64>) {
    if !output.is_ascii() {
        return (None, None);
    }
    let text = String::from_utf8_lossy(output);
    let (mut nodes, mut nps) = (None, None);
    for line in text.trim().split('\n').rev() {
        let line: String = line
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == ' ' {
                    c.to_ascii_lowercase()
                } else {
                    ' '
                }
            })
            .collect();
        nps = nps.or_else(|| leftmost_count(&line, "nps", "nodes second"));
        nodes = nodes.or_else(|| leftmost_count(&line, "nodes", "nodes searched"));
    }
    (nodes, nps)
}

/// The leftmost `<digits> <word>`, `<word> <digits>` or `<phrase> <digits>` in `line` (spaces:
/// one or more), tried in that order at each position as a regex alternation is; its number.
fn leftmost_count(line: &str, word: &str, phrase: &str) -> Option<u64> {
    let b = line.as_bytes();
    let run = |from: usize, f: fn(&u8) -> bool| b[from..].iter().take_while(|c| f(c)).count();
    let digits_after = |from: usize| -> Option<u64> {
        let spaces = run(from, |c| *c == b' ');
        let digits = run(from + spaces, u8::is_ascii_digit);
        if spaces == 0 || digits == 0 {
            return None;
        }
        line[from + spaces..from + spaces + digits].parse().ok()
    };
    (0..b.len()).find_map(|at| {
        let digits = run(at, u8::is_ascii_digit);
        let spaces = run(at + digits, |c| *c == b' ');
        if digits > 0 && spaces > 0 && line[at + digits + spaces..].starts_with(word) {
            return line[at..at + digits].parse().ok();
        }
        [word, phrase]
            .iter()
            .filter(|w| line[at..].starts_with(**w))
            .find_map(|w| digits_after(at + w.len()))
    })
}

#[test]
fn openbench_reads_the_same_bench_from_concurrent_runs() {
    // The parser itself, on lines in other engines' styles and on what it must not take.
    assert_eq!(
        read_bench_as_openbench(b"Nodes searched  : 1234\nNodes/second    : 567\n"),
        (Some(1234), Some(567))
    );
    assert_eq!(
        read_bench_as_openbench(b"9 nodes 9 nps\n8 nodes 8 nps\n"),
        (Some(8), Some(8)),
        "the last line wins"
    );
    assert_eq!(read_bench_as_openbench(b"1 nodes\n"), (Some(1), None));
    assert_eq!(
        read_bench_as_openbench("12 nodes 3 nps \u{b7}".as_bytes()),
        (None, None)
    );

    // `./<name> bench`, no arguments, stderr into the same pipe, two at once: what the client
    // does on a two-core worker.
    let start = || {
        let (reader, writer) = std::io::pipe().unwrap();
        let child = Command::new(KESTREL)
            .arg("bench")
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .spawn()
            .unwrap();
        (child, reader)
    };
    let runs = [start(), start()];
    let mut counts = Vec::new();
    for (mut child, mut reader) in runs {
        let mut output = Vec::new();
        std::io::Read::read_to_end(&mut reader, &mut output).unwrap();
        assert!(child.wait().unwrap().success());
        let text = String::from_utf8_lossy(&output).to_string();
        let (nodes, nps) = read_bench_as_openbench(&output);
        let (Some(nodes), Some(nps)) = (nodes, nps) else {
            panic!("OpenBench reads no bench ({nodes:?} nodes, {nps:?} nps) from:\n{text}");
        };
        assert!(nodes > 0 && nps > 0, "{text}");
        // The speed read is the engine's own: nodes over the seconds it reports, to their
        // rounding (a number taken from elsewhere on the line would not fit).
        let seconds: f64 = text
            .rsplit_once('(')
            .and_then(|(_, s)| s.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no (seconds) in {text}"));
        assert!(
            (nodes as f64 / nps as f64 - seconds).abs() <= 0.006,
            "{nodes} nodes at {nps} nps is not {seconds} s: {text}"
        );
        counts.push(nodes);
    }
    assert_eq!(counts[0], counts[1], "concurrent benches disagree");
}

#[test]
fn command_line_help_version_and_errors() {
    let out = Command::new(KESTREL).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for word in ["perft", "bench", "--log", "xboard"] {
        assert!(help.contains(word), "--help lacks {word}:\n{help}");
    }
    let out = Command::new(KESTREL).arg("--version").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("kestrel "));
    let out = Command::new(KESTREL)
        .args(["perft", "--help"])
        .output()
        .unwrap();
    let perft_help = String::from_utf8_lossy(&out.stdout);
    assert!(perft_help.contains("--divide"));
    // The transcript is the protocol session's: a tool neither offers nor takes it.
    assert!(!perft_help.contains("--log"), "{perft_help}");
    // Bad arguments: clap's error on stderr and a non-zero exit.
    for args in [
        &["perft"][..],
        &["perft", "x"],
        &["perft", "0"],
        &["frob"],
        &["bench", "-z"],
        &["perft", "1", "--log", "transcript.txt"],
        &["--log", "transcript.txt", "perft", "1"],
    ] {
        let out = Command::new(KESTREL).args(args).output().unwrap();
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("error"),
            "{args:?}"
        );
    }
    let out = Command::new(KESTREL)
        .args(["perft", "2", "--fen", "not a fen"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad FEN"));
}

#[test]
fn transcript_of_a_cutechess_style_game_is_complete() {
    let dir = std::env::temp_dir().join(format!("kestrel-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("session.log");
    let _ = std::fs::remove_file(&log);
    let mut e = Engine::start_with_args(&["--log", log.to_str().unwrap()]);
    e.handshake();
    for cmd in ["new", "force", "level 0 0:05 0.1", "post"] {
        e.send(cmd);
    }
    e.sync(1);
    e.send("time 500");
    e.send("otim 500");
    e.send("usermove e2e4");
    e.send("go");
    let reply = e.expect_move(10 * SEC);
    e.sync(2);
    e.send("usermove g1f3");
    e.expect_move(10 * SEC);
    e.send("force");
    e.send("result 1/2-1/2 {test}");
    e.sync(3);
    e.send("quit");
    assert!(e.wait_exit(5 * SEC));
    let sent = e.sent.clone();
    let received = e.transcript.clone();

    let text = std::fs::read_to_string(&log).unwrap();
    let mut ins = Vec::new();
    let mut outs = Vec::new();
    let mut last_time = 0.0;
    for line in text.lines() {
        // "   12.345 < usermove e2e4"
        let mut parts = line.trim_start().splitn(3, ' ');
        let time: f64 = parts.next().unwrap().parse().expect(line);
        assert!(time >= last_time, "times go backwards: {line}");
        last_time = time;
        let dir = parts.next().unwrap();
        let rest = parts.next().unwrap_or("").to_string();
        match dir {
            "<" => ins.push(rest),
            ">" => outs.push(rest),
            _ => panic!("bad transcript line: {line}"),
        }
    }
    assert_eq!(ins, sent, "every input line, in order");
    assert_eq!(outs, received, "every output line, in order");
    assert!(outs.contains(&format!("move {reply}")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn epd_command_line_shows_progress_results_and_total() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bratko-kopec.epd");
    let out = Command::new(KESTREL)
        .args(["epd", file, "--depth", "4"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let results: Vec<&str> = stdout.lines().filter(|l| l.contains("/24 BK.")).collect();
    assert_eq!(results.len(), 24, "{stdout}");
    assert!(results
        .iter()
        .all(|l| l.contains("solved") || l.contains("FAILED")));
    assert_eq!(stderr.matches("searching ").count(), 24, "{stderr}");
    let total = stdout.lines().last().unwrap();
    assert!(
        total.starts_with("solved ") && total.contains("/24"),
        "{total}"
    );
    // The total agrees with the per-position lines.
    let solved = results.iter().filter(|l| l.contains(" solved")).count();
    assert!(total.starts_with(&format!("solved {solved}/24")), "{total}");
    let out = Command::new(KESTREL)
        .args(["epd", "no-such-file.epd"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = Command::new(KESTREL)
        .args(["epd", file, "--time", "-1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let out = Command::new(KESTREL)
        .args(["epd", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for opt in ["--time", "--depth", "--nodes", "--threads", "--hash"] {
        assert!(help.contains(opt), "epd --help lacks {opt}");
    }
}

#[test]
fn test_command_in_a_session_runs_a_suite() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bratko-kopec.epd");
    let mut e = Engine::start();
    e.send(&format!("test {file} 0.05"));
    let (total, lines) = e.wait_for("suite total", 30 * SEC, |l| l.starts_with("solved "));
    assert_eq!(lines.iter().filter(|l| l.contains("/24 BK.")).count(), 24);
    assert!(total.contains("/24"), "{total}");
    e.send("test /no/such/file.epd");
    assert!(e
        .next_line(5 * SEC)
        .unwrap()
        .starts_with("Error (cannot read"));
}

/// A suite with lines that are no test position: `kestrel epd` (on stderr) and the session's
/// `test` (before the report) name each as `FILE:LINE: skipped: why` and run the rest.
#[test]
fn epd_lines_that_are_no_position_are_named_and_skipped_alike() {
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/bratko-kopec.epd");
    let good: Vec<String> = std::fs::read_to_string(suite)
        .unwrap()
        .lines()
        .take(2)
        .map(String::from)
        .collect();
    let path = std::env::temp_dir().join(format!("kestrel-skips-{}.epd", std::process::id()));
    let text = format!(
        "{}\nnot a position\n# a comment\n\n8/8/8/8/8/8/8/8 w - - bm e4;\n{}\n",
        good[0], good[1]
    );
    std::fs::write(&path, text).unwrap();
    let file = path.display().to_string();
    let skips = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .filter(|l| l.contains(": skipped: "))
            .cloned()
            .collect()
    };

    let out = Command::new(KESTREL)
        .args(["epd", &file, "--nodes", "2000"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr: Vec<String> = String::from_utf8_lossy(&out.stderr)
        .lines()
        .map(String::from)
        .collect();
    let cli = skips(&stderr);
    assert_eq!(cli.len(), 2, "{stderr:?}");
    assert!(
        cli[0].starts_with(&format!("{file}:2: skipped: ")),
        "{cli:?}"
    );
    assert!(
        cli[1].starts_with(&format!("{file}:5: skipped: ")),
        "{cli:?}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("solved ") && l.contains("/2 ")),
        "{stdout}"
    );

    let mut e = Engine::start();
    e.send(&format!("test {file} 0.05"));
    let (total, lines) = e.wait_for("suite total", 30 * SEC, |l| l.starts_with("solved "));
    let _ = std::fs::remove_file(&path);
    assert!(total.contains("/2 "), "{total}");
    // The same lines, before the report.
    assert_eq!(skips(&lines), cli);
    assert!(
        lines[..2].iter().all(|l| l.contains(": skipped: ")),
        "{lines:?}"
    );
}

#[test]
fn looking_at_the_board_while_the_engine_thinks_does_not_stop_it() {
    let mut e = Engine::start();
    e.send("new");
    e.send("force");
    e.send("st 0.5");
    // Timed from `go`: a delay on this side can only make the gap longer, never shorter.
    let t = std::time::Instant::now();
    e.send("go");
    std::thread::sleep(Duration::from_millis(100));
    e.send("d");
    e.send("fen");
    // The move comes first (the search was not cut short), then the board and FEN.
    let (first, _) = e.wait_for("move or board", 5 * SEC, |l| {
        l.starts_with("move ") || l.starts_with("  +--")
    });
    assert!(first.starts_with("move "), "{first}");
    assert!(
        t.elapsed() > Duration::from_millis(250),
        "search was cut short"
    );
    let (_, _) = e.wait_for("board", 5 * SEC, |l| l.starts_with("Last move:"));
    let fen = e.next_line(5 * SEC).unwrap();
    assert!(fen.contains(" b KQkq"), "{fen}");
}

/// The `eval` table reads in an 80-column terminal: no line is wider, every number ends
/// under its column heading (mg, eg for White, Black and the difference, and the count),
/// each group starts at the margin with its terms indented below it, in the groups' order.
#[test]
fn eval_table_keeps_terms_under_their_groups_and_columns() {
    let mut e = Engine::start();
    e.send("force");
    // White's queen and rook bear on Black's king: most groups have terms here.
    e.send("setboard r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1");
    e.send("eval");
    let (last, mut lines) = e.wait_for("eval table", 5 * SEC, |l| l.starts_with("side to move"));
    lines.push(last);
    for line in &lines {
        assert!(
            line.chars().count() <= 80,
            "wider than 80 columns: {line:?}"
        );
    }
    let header = lines
        .iter()
        .position(|l| l.split_whitespace().next() == Some("term"))
        .expect("a column header");
    // Where each heading ends: numbers are right-aligned to it.
    let ends: Vec<usize> = ["mg", "eg", "mg", "eg", "mg", "eg", "count"]
        .iter()
        .scan(0, |from, heading| {
            let at = lines[header][*from..].find(heading)? + *from + heading.len();
            *from = at;
            Some(at)
        })
        .collect();
    assert_eq!(ends.len(), 7, "{}", lines[header]);
    let sum = lines.iter().position(|l| l.starts_with("sum")).unwrap();
    let mut groups = Vec::new();
    let mut terms_under = Vec::new();
    for line in &lines[header + 1..sum] {
        if line.starts_with("    ") {
            // A note under the term above it (the king attack's parts).
            assert!(line.contains("White:") || line.contains("Black:"), "{line}");
            continue;
        }
        let is_term = line.starts_with("  ");
        let columns = if is_term { &ends[..] } else { &ends[..6] };
        let bytes = line.as_bytes();
        for &end in columns {
            assert!(
                bytes[end - 1].is_ascii_digit(),
                "not aligned at {end}: {line:?}"
            );
            assert!(bytes.get(end).is_none_or(|b| *b == b' '), "{line:?}");
        }
        if is_term {
            *terms_under.last_mut().expect("a term before any group") += 1;
        } else {
            assert!(line.len() <= ends[5], "a group row has no count: {line:?}");
            groups.push(line[..ends[0] - 6].trim().to_string());
            terms_under.push(0);
        }
    }
    let order = [
        "material",
        "placement",
        "mobility",
        "pawns",
        "passed pawns",
        "pieces",
        "threats",
        "king safety",
        "tempo",
    ];
    assert_eq!(groups, order);
    for (group, n) in order.iter().zip(&terms_under) {
        if *group != "passed pawns" {
            assert!(*n > 0, "no term under {group}:\n{}", lines.join("\n"));
        }
    }
}

/// A person at a terminal (no `xboard` or `protover` came): thinking shows from the start
/// under a header; `undo` right after Kestrel's reply takes back the person's move with it
/// (as `remove`, and says so) rather than Kestrel's alone, which it would play again at
/// once; `eval` names the net and says which score plays.
#[test]
fn a_person_sees_thinking_takes_back_their_move_and_reads_the_eval() {
    let mut e = Engine::start();
    e.send("new");
    e.send("sd 4");
    e.send("e4");
    let (reply, before) = e.wait_for("move", 10 * SEC, |l| l.starts_with("move "));
    assert!(before.len() >= 5, "{before:?}");
    assert!(before[0].starts_with("depth score"), "{before:?}");
    assert!(before[1..].iter().all(|l| is_thinking(l)), "{before:?}");
    e.send("undo");
    let note = e.next_line(5 * SEC).unwrap();
    assert!(
        note.contains("took back Kestrel's move and yours"),
        "{note}"
    );
    assert_eq!(e.fen(), kestrel::chess::STARTPOS_FEN, "after {reply}");
    e.expect_silence(SEC / 2);
    // In force mode `undo` is the protocol's: one move back, nothing said.
    e.send("force");
    e.send("e4");
    e.send("e5");
    e.send("undo");
    assert_eq!(e.sync(1), Vec::<String>::new());
    assert!(e
        .fen()
        .starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b"));

    let eval = |e: &mut Engine| e.wait_for("eval", 5 * SEC, |l| l.starts_with("NNUE ")).0;
    e.send("eval");
    let plays = eval(&mut e);
    assert!(plays.ends_with("the score the search plays"), "{plays}");
    let net = e.transcript.iter().rev().nth(1).unwrap().clone();
    assert!(
        net.starts_with("net")
            && net.contains(&format!("<embedded> {}", kestrel::nnue::EMBEDDED_NAME)),
        "{net}"
    );
    e.send("option UseNNUE=0");
    e.send("eval");
    let plays = eval(&mut e);
    assert!(
        plays.ends_with("the search plays the classical score"),
        "{plays}"
    );
}

/// A GUI's session (`xboard` first) keeps the protocol's defaults: no thinking before
/// `post`, and `undo` outside force mode takes back one move only.
#[test]
fn a_gui_gets_no_thinking_unasked_and_the_protocols_undo() {
    let mut e = Engine::start();
    e.send("xboard");
    e.send("new");
    e.send("sd 3");
    e.send("e4");
    let (_, before) = e.wait_for("move", 10 * SEC, |l| l.starts_with("move "));
    assert!(before.is_empty(), "{before:?}");
    e.send("force");
    e.send("undo");
    assert_eq!(e.sync(1), Vec::<String>::new());
    assert!(e
        .fen()
        .starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b"));
}
