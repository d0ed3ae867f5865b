//! `kestrel tune` through the binary: a small data file in, a weights file out; and the
//! search tuner `kestrel spsa`'s and `kestrel params`' refusals and table.

use crate::common::{self, *};

use common::ScratchDir;
use std::process::Command;

#[test]
fn tune_writes_a_weights_file_and_reports() {
    let scratch = ScratchDir::new("tune");
    let data = scratch.path("data.txt");
    let out = scratch.path("weights.rs");
    std::fs::write(
        &data,
        "# three positions and a bad line\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 20 | 0.5\n\
         \n\
         4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1.0\n\
         4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1.0 | extra\n\
         4k3/8/8/8/8/8/8/3qK3 w - - 0 1 | -900 | 0.0\n",
    )
    .unwrap();
    let run = Command::new(KESTREL)
        .args(["tune", "--epochs", "20", "--report", "10", "--threads", "2"])
        .args(["--only", "TEMPO", "--k", "1.0", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains(":5: skipped:"), "{stderr}");
    assert!(stderr.contains("3 positions from 6 lines"), "{stderr}");
    assert!(stderr.contains("epoch    20/20"), "{stderr}");
    assert!(stdout.contains("K 1.0000 (given)"), "{stdout}");
    assert!(stdout.contains("weights tuned: 1"), "{stdout}");
    assert!(
        stdout.contains("mse before:") && stdout.contains("mse after:"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("wrote {}", out.display())),
        "{stdout}"
    );
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("//! Evaluation weights"));
    // Only TEMPO may differ from the committed file.
    let committed = include_str!("../../src/eval/weights.rs");
    assert_eq!(written.lines().count(), committed.lines().count());
    for (a, b) in written.lines().zip(committed.lines()) {
        if a != b {
            assert!(a.starts_with("pub const TEMPO"), "{a}");
        }
    }
}

#[test]
fn tune_rejects_bad_options() {
    for args in [
        &["--lambda", "1.5"][..],
        &["--only", "NO_SUCH_SECTION"][..],
        &["--lr", "0"][..],
    ] {
        let run = Command::new(KESTREL)
            .args(["tune", "--data", "no-such-file"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
    }
    let run = Command::new(KESTREL)
        .args(["tune", "--data", "no-such-file-for-kestrel"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("cannot read"));
}

#[test]
fn params_prints_a_line_per_search_parameter_and_spsa_refuses_a_plain_build() {
    let run = Command::new(KESTREL).arg("params").output().unwrap();
    assert!(run.status.success());
    let text = String::from_utf8_lossy(&run.stdout);
    assert_eq!(text.lines().count(), kestrel::search::params::PARAMS.len());
    assert!(text.lines().all(|l| l.split(", ").count() == 7), "{text}");

    // The shipped build takes no search parameter: the tuner says which build it needs and
    // leaves no log behind.
    let scratch = ScratchDir::new("spsa");
    let log = scratch.path("spsa.log");
    let run = Command::new(KESTREL)
        .args(["spsa", "--pairs", "2", "--engine", KESTREL, "--out"])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("--features tune"), "{err}");
    assert!(!log.exists());

    let run = Command::new(KESTREL)
        .args(["spsa", "--r-end", "0", "--engine", KESTREL, "--out"])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("--r-end"));

    // Games on the clock or at fixed nodes, not both; a clock it cannot read is refused.
    for (args, says) in [
        (
            &["--tc", "1+0.01", "--nodes", "500"][..],
            "cannot be used with",
        ),
        (&["--tc", "fast"][..], "is not a time control"),
    ] {
        let run = Command::new(KESTREL)
            .args(["spsa", "--engine", KESTREL])
            .args(args)
            .arg("--out")
            .arg(&log)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!log.exists());
    }
}
