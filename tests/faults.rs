//! Faults and hostile input: signals, absurd settings, floods of pings, idle CPU use.

mod common;

use common::Engine;
use kestrel::chess::Position;
use std::time::{Duration, Instant};

const SEC: Duration = Duration::from_secs(1);

/// CPU time (user + system) the process has used, from /proc (Linux only).
fn cpu_time(pid: u32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which is in parentheses): utime is 14th, stime 15th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().ok()? + fields[12].parse::<u64>().ok()?;
    // Clock ticks are 100 per second on Linux.
    Some(Duration::from_millis(ticks * 10))
}

#[test]
fn sigint_while_thinking_is_ignored_and_the_move_still_comes() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("st 1");
    e.send("go");
    std::thread::sleep(Duration::from_millis(200));
    let status = std::process::Command::new("kill")
        .args(["-INT", &e.pid().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let mv = e.expect_move(5 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
    assert_eq!(e.sync(1), Vec::<String>::new());
}

#[test]
fn absurd_settings_are_clamped_or_refused_never_fatal() {
    let mut e = Engine::started();
    for (i, cmd) in [
        "memory 100000",
        "memory 0",
        "cores 0",
        "cores 4096",
        "sd 0",
        "sd 4294967295",
        "st -1",
        "st 0",
        "st 1e300",
        "level garbage",
        "level 40 5",
        "level -3 5 0",
        "level 40 5:99:99 0",
        "level 40 5 -1",
        "time 99999999999999999999",
        "time -100",
        "otim -99999999",
        "nps 0",
        "nps 18446744073709551615",
        "setscore 99999999 9999",
        "memory 18446744073709551616",
    ]
    .iter()
    .enumerate()
    {
        e.send(cmd);
        let lines = e.sync(i as u32);
        assert!(
            lines.iter().all(|l| l.starts_with("Error (")),
            "{cmd}: unexpected {lines:?}"
        );
    }
    // Still plays: sane limits again, and a legal move comes in time.
    e.send("new");
    e.send("force");
    e.send("nps 0");
    e.send("level 40 0:10 0");
    e.send("time 1000");
    e.send("go");
    let mv = e.expect_move(5 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
}

#[test]
fn thousands_of_pings_during_a_search_are_answered_in_order() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("analyze");
    e.expect_prefix("1 ", 5 * SEC);
    let mut batch = String::new();
    for n in 0..3000 {
        batch.push_str(&format!("ping {n}\n"));
    }
    e.send_bytes(batch.as_bytes());
    let mut expected = 0;
    let deadline = Instant::now() + 20 * SEC;
    while expected < 3000 {
        let line = e
            .next_line(deadline.saturating_duration_since(Instant::now()))
            .unwrap_or_else(|| panic!("stuck after pong {}", expected as i64 - 1));
        if let Some(n) = line.strip_prefix("pong ") {
            assert_eq!(n, expected.to_string(), "out of order");
            expected += 1;
        }
    }
    e.send("exit");
    // And while thinking on its own move they wait for the move, still in order.
    e.send("st 1");
    e.send("go");
    let mut batch = String::new();
    for n in 5000..6000 {
        batch.push_str(&format!("ping {n}\n"));
    }
    e.send_bytes(batch.as_bytes());
    let (mv, _) = e.wait_for("move", 10 * SEC, |l| {
        l.starts_with("move ") || l.starts_with("pong")
    });
    assert!(mv.starts_with("move "), "pong before the move: {mv}");
    for n in 5000..6000 {
        let want = format!("pong {n}");
        e.wait_for(&want, 10 * SEC, |l| l == want);
    }
}

#[test]
fn waiting_for_input_uses_no_cpu_and_no_pondering_when_easy() {
    let mut e = Engine::started();
    e.sync(1);
    let Some(before) = cpu_time(e.pid()) else {
        eprintln!("skipped: no /proc");
        return;
    };
    std::thread::sleep(Duration::from_millis(1500));
    let idle = cpu_time(e.pid()).unwrap() - before;
    assert!(
        idle < Duration::from_millis(100),
        "idle engine used {idle:?} CPU"
    );

    // After its move with pondering off, the engine must not think on the opponent's time.
    e.send("new");
    e.send("easy");
    e.send("st 0.5");
    e.send("e2e4");
    e.expect_move(5 * SEC);
    e.sync(2);
    let before = cpu_time(e.pid()).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let used = cpu_time(e.pid()).unwrap() - before;
    assert!(
        used < Duration::from_millis(100),
        "used {used:?} CPU on the opponent's time"
    );

    // With pondering on it does think (so the measurement above can see thinking).
    e.send("hard");
    e.send("d2d4");
    e.expect_move(5 * SEC);
    let before = cpu_time(e.pid()).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    let used = cpu_time(e.pid()).unwrap() - before;
    assert!(
        used > Duration::from_millis(500),
        "pondering used only {used:?}"
    );
}
