//! Runs the independent python-chess clients (`tests/python/xboard_client.py` over xboard,
//! `tests/python/uci_client.py` over UCI) against the real binary. Needs `python3` with
//! `pip install chess`. Under CI (`CI` set to anything but empty, `0` or `false`) a missing
//! python-chess fails the tests; elsewhere they are skipped and say so on the terminal
//! (written past the test harness's output capture, so it shows in a normal `cargo test`
//! run).

use crate::common::*;

use std::io::Write;
use std::process::Command;

#[test]
fn python_chess_client_plays_and_analyses_without_complaint() {
    let has_chess = Command::new("python3")
        .args(["-c", "import chess.engine"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_chess {
        assert!(
            !in_ci(),
            "python3 with python-chess is required in CI (pip install chess)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "python_chess_client: SKIPPED, python3 with python-chess not found (pip install chess)"
        );
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/xboard_client.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(KESTREL)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("ok: 7 games"), "{stdout}");
    // The Chess960 game whose only first move is castling was played (and python-chess
    // took the engine's `O-O`).
    assert!(stdout.contains("(960, castles first)"), "{stdout}");
}

#[test]
fn python_chess_uci_client_plays_and_analyses_without_complaint() {
    let has_chess = Command::new("python3")
        .args(["-c", "import chess.engine"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_chess {
        assert!(
            !in_ci(),
            "python3 with python-chess is required in CI (pip install chess)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "python_chess_uci_client: SKIPPED, python3 with python-chess not found (pip install chess)"
        );
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/python/uci_client.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(KESTREL)
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("ok: 4 games"), "{stdout}");
    assert!(stdout.contains("(960, castles first)"), "{stdout}");
}
