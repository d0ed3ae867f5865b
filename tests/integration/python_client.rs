//! Runs the independent python-chess clients (`tests/python/xboard_client.py` over xboard,
//! `tests/python/uci_client.py` over UCI) against the real binary. Needs `python3` with
//! `pip install chess`. Under CI (`CI` set to anything but empty, `0` or `false`) a missing
//! python-chess fails the tests; elsewhere they are skipped and say so on the terminal
//! (written past the test harness's output capture, so it shows in a normal `cargo test`
//! run).

use crate::common::*;

#[test]
fn python_chess_client_plays_and_analyses_without_complaint() {
    let Some(stdout) = run_python_chess("chess.engine", "xboard_client.py", &[KESTREL]) else {
        return;
    };
    assert!(stdout.contains("ok: 7 games"), "{stdout}");
    // The Chess960 game whose only first move is castling was played (and python-chess
    // took the engine's `O-O`).
    assert!(stdout.contains("(960, castles first)"), "{stdout}");
    // python-chess set LimitStrength and Elo, and the engine played limited.
    assert!(stdout.contains("limited: "), "{stdout}");
}

#[test]
fn python_chess_uci_client_plays_and_analyses_without_complaint() {
    let Some(stdout) = run_python_chess("chess.engine", "uci_client.py", &[KESTREL]) else {
        return;
    };
    assert!(stdout.contains("ok: 4 games"), "{stdout}");
    assert!(stdout.contains("(960, castles first)"), "{stdout}");
}
