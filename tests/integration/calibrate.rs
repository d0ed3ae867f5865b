//! `kestrel calibrate`, through the binary: a short self-play match is counted, analysed and
//! reported with no faults, and its PGN analysed again gives the same losses; a PGN the
//! tool did not write and a reference that does not exist are clear errors; and stand-in
//! engines that play an illegal move or crash lose their games and have the fault counted,
//! against the exit status when the side is Kestrel's.

use crate::common::{self, *};

use common::ScratchDir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn calibrate(args: &[&str]) -> Output {
    Command::new(KESTREL)
        .arg("calibrate")
        .args(args)
        .output()
        .expect("run kestrel calibrate")
}

fn text(output: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The cells of the Markdown row of `setting`.
fn markdown_row(stdout: &str, setting: &str) -> Vec<String> {
    let row = stdout
        .lines()
        .find(|l| l.starts_with(&format!("| {setting} |")))
        .unwrap_or_else(|| panic!("no Markdown row for {setting} in:\n{stdout}"));
    row.trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

/// The console table's row of `setting` (after its header), as words.
fn table_row(stdout: &str, setting: &str) -> Vec<String> {
    let mut lines = stdout.lines().skip_while(|l| !l.starts_with("setting "));
    lines.next().expect("the table's header");
    let row = lines
        .find(|l| l.split_whitespace().next() == Some(setting))
        .unwrap_or_else(|| panic!("no table row for {setting} in:\n{stdout}"));
    row.split_whitespace().map(str::to_string).collect()
}

/// Wins, draws and losses of a `W-D-L` cell.
fn wdl(cell: &str) -> [usize; 3] {
    let parts: Vec<usize> = cell.split('-').map(|n| n.parse().unwrap()).collect();
    [parts[0], parts[1], parts[2]]
}

#[test]
fn a_short_self_play_match_is_counted_analysed_fault_free_and_reanalysed_alike() {
    let started = std::time::Instant::now();
    let scratch = ScratchDir::new("calibrate-pgn");
    let pgn = scratch.path("games.pgn");
    let pgn = pgn.to_str().expect("a UTF-8 temporary path");
    let output = calibrate(&[
        "--pgn",
        pgn,
        "--versus-self-elo",
        "1400",
        "--elo",
        "1300",
        "--games",
        "2",
        "--tc",
        "1+0.05",
        "--analyse-nodes",
        "2000",
        "--max-plies",
        "60",
        "--concurrency",
        "2",
    ]);
    let report = text(&output);
    assert!(output.status.success(), "{report}");
    let stdout = String::from_utf8_lossy(&output.stdout);

    let row = markdown_row(&stdout, "1300");
    // setting | measured | W-D-L | games | time control | ACPL | share | median ms
    assert_eq!(row.len(), 8, "{row:?}");
    assert_eq!(row[3], "2", "{report}");
    assert_eq!(wdl(&row[2]).iter().sum::<usize>(), 2, "{report}");
    assert_eq!(row[4], "1+0.05");
    let acpl: f64 = row[5]
        .parse()
        .unwrap_or_else(|_| panic!("ACPL {:?}", row[5]));
    assert!((0.0..1000.0).contains(&acpl), "{report}");
    assert!(row[6].ends_with('%'), "{report}");
    let median_ms: f64 = row[7].parse().expect("median ms");
    assert!(median_ms > 0.0, "{report}");

    // Kestrel's faults and the opponent's (also Kestrel), the last two columns.
    let table = table_row(&stdout, "1300");
    assert_eq!(&table[table.len() - 2..], ["0/0/0", "0/0/0"], "{report}");
    assert!(stdout.contains("Kestrel 1300 vs Kestrel 1400"), "{report}");
    // Self-play measures nothing to relabel LEVELS with.
    assert!(!stdout.contains("LEVELS relabelled"), "{report}");
    assert!(started.elapsed().as_secs() < 30, "{report}");

    // The same games analysed again from the PGN, at the same nodes: the same losses, so
    // the PGN keeps the moves and says which side played the setting.
    let again = calibrate(&["--reanalyse", pgn, "--analyse-nodes", "2000"]);
    let again_report = text(&again);
    assert!(again.status.success(), "{again_report}");
    let again_stdout = String::from_utf8_lossy(&again.stdout);
    let again_row = markdown_row(&again_stdout, "1300");
    // setting | games | moves | ACPL | share
    assert_eq!(again_row[1], "2", "{again_report}");
    assert_eq!(
        [&again_row[3], &again_row[4]],
        [&row[5], &row[6]],
        "{report}\n{again_report}"
    );
}

#[test]
fn reanalysing_a_file_that_is_not_a_calibration_pgn_is_a_clear_error() {
    let scratch = ScratchDir::new("calibrate-reanalyse");
    let foreign = scratch.path("foreign.pgn");
    std::fs::write(
        &foreign,
        "[Event \"club\"]\n[White \"a\"]\n[Black \"b\"]\n\n1. e4 *\n",
    )
    .unwrap();
    let output = calibrate(&["--reanalyse", foreign.to_str().unwrap()]);
    let report = text(&output);
    assert_eq!(output.status.code(), Some(2), "{report}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("game 1: its Event 'club'"), "{report}");
}

#[test]
fn a_reference_that_does_not_exist_is_a_clear_error() {
    for (reference, error) in [
        (
            "no-such-engine-kestrel",
            "reference engine 'no-such-engine-kestrel' not found in PATH or /usr/games",
        ),
        (
            "./no/such/engine",
            "reference engine './no/such/engine' not found",
        ),
    ] {
        let output = calibrate(&["--elo", "1400", "--games", "2", "--reference", reference]);
        let report = text(&output);
        assert_eq!(output.status.code(), Some(2), "{report}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(error), "{report}");
        assert!(output.stdout.is_empty(), "no game was played: {report}");
    }
}

/// A stand-in UCI engine in a shell script that answers the handshake and replies to `go`
/// with `on_go` (shell commands); `strength` adds Kestrel's strength options.
#[cfg(unix)]
fn stand_in(scratch: &ScratchDir, name: &str, on_go: &str, strength: bool) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let options = if strength {
        "echo 'option name UCI_LimitStrength type check default false'; \
         echo 'option name UCI_Elo type spin default 1500 min 1000 max 2600'; "
    } else {
        ""
    };
    let script = format!(
        "#!/bin/sh\n\
         while read -r line; do\n\
           case \"$line\" in\n\
             uci) echo 'id name {name}'; {options}echo uciok ;;\n\
             isready) echo readyok ;;\n\
             go*) {on_go} ;;\n\
             quit) exit 0 ;;\n\
           esac\n\
         done\n"
    );
    let path = scratch.path(name);
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[cfg(unix)]
fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[cfg(unix)]
#[test]
fn a_reference_that_plays_illegal_moves_or_crashes_loses_with_the_fault_counted() {
    let cases = [
        ("illegal", "echo 'bestmove a1a1'", "2/0/0"),
        ("crashing", "exit 1", "0/0/2"),
    ];
    let scratch = ScratchDir::new("calibrate-faulty-reference");
    for (name, on_go, faults) in cases {
        let reference = stand_in(&scratch, name, on_go, false);
        let output = calibrate(&[
            "--reference",
            arg(&reference),
            "--reference-elo",
            "1500",
            "--elo",
            "1400",
            "--games",
            "2",
            "--tc",
            "1+0.05",
            "--analyse-nodes",
            "0",
        ]);
        let report = text(&output);
        // The faults are the reference's: Kestrel's run still succeeds.
        assert!(output.status.success(), "{report}");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let row = markdown_row(&stdout, "1400");
        assert_eq!(wdl(&row[2]), [2, 0, 0], "{report}");
        assert_eq!(row[5], "-", "no analysis, no ACPL: {report}");
        let table = table_row(&stdout, "1400");
        assert_eq!(&table[table.len() - 2..], ["0/0/0", faults], "{report}");
    }
}

#[cfg(unix)]
#[test]
fn a_fault_of_kestrels_side_fails_the_run() {
    let scratch = ScratchDir::new("calibrate-faulty-kestrel");
    let engine = stand_in(&scratch, "illegal-kestrel", "echo 'bestmove e2e5'", true);
    let output = calibrate(&[
        "--engine",
        arg(&engine),
        "--versus-self-elo",
        "1400",
        "--elo",
        "1300",
        "--games",
        "2",
        "--analyse-nodes",
        "0",
    ]);
    let report = text(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // White moves first and faults in each game: Kestrel's side in one, the other's in the
    // other.
    let table = table_row(&stdout, "1300");
    assert_eq!(&table[table.len() - 2..], ["1/0/0", "1/0/0"], "{report}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("zero is the only acceptable count"),
        "{report}"
    );
}
