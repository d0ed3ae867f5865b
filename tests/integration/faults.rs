//! Faults and hostile input: signals, absurd settings, floods of pings, idle CPU use.

use crate::common::{self, *};

use common::{cpu_time, thinking, Engine, Thinking};
use kestrel::chess::Position;
use std::time::{Duration, Instant};

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
    let mv = e.expect_move(10 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
    assert_eq!(e.sync(1), Vec::<String>::new());
}

/// Every absurd setting gets exactly this reply: an error that names the problem, or
/// nothing, and then it is clamped (the tests below check to what, in a search).
#[test]
fn absurd_settings_are_refused_with_an_error_or_accepted_silently() {
    let mut e = Engine::started();
    e.allow_errors(true);
    let cases: &[(&str, Option<&str>)] = &[
        // Beyond the range (1 TB) and beyond what any machine here has free: refused.
        (
            "memory 100000000",
            Some("tellusererror Hash 1048576 MB is more than this machine's free memory"),
        ),
        ("memory 0", None),
        (
            "memory 18446744073709551616",
            Some("Error (memory in MB must be a number"),
        ),
        ("cores 0", None),
        ("cores 4096", None),
        ("sd 0", Some("Error (sd must be at least 1)")),
        ("sd -1", Some("Error (depth must be a number")),
        ("sd -100", Some("Error (depth must be a number")),
        ("sd 2.5", Some("Error (depth must be a number")),
        ("sd abc", Some("Error (depth must be a number")),
        ("sd 4294967295", None),
        ("sd 4294967296", Some("Error (depth must be a number")),
        ("st -1", Some("Error (seconds per move out of range: '-1')")),
        ("st 0", Some("Error (st must be more than 0 seconds)")),
        (
            "st 1e300",
            Some("Error (seconds per move out of range: '1e300')"),
        ),
        ("level garbage", Some("Error (level needs three values")),
        ("level 40 5", Some("Error (level needs three values")),
        (
            "level -3 5 0",
            Some("Error (moves per session must be a number"),
        ),
        (
            "level 40 5:99:99 0",
            Some("Error (base seconds must be seconds"),
        ),
        ("level 40 1e300 0", Some("Error (base minutes out of range")),
        (
            "level 40 5 -1",
            Some("Error (increment out of range: '-1')"),
        ),
        ("time 99999999999999999999", None),
        ("time 1e300", None),
        ("time -100", None),
        ("time nan", Some("Error (time must be finite")),
        ("otim -99999999", None),
        ("nps 0", None),
        ("nps 18446744073709551615", None),
        ("nps -5", Some("Error (nodes per second must be a number")),
        ("setscore 99999999 9999", None),
    ];
    for (i, (cmd, reply)) in cases.iter().enumerate() {
        e.send(cmd);
        let lines = e.sync(i as u32);
        match reply {
            None => assert_eq!(lines, Vec::<String>::new(), "{cmd}"),
            Some(prefix) => {
                assert_eq!(lines.len(), 1, "{cmd}: {lines:?}");
                assert!(lines[0].starts_with(prefix), "{cmd}: {lines:?}");
            }
        }
    }
    // Still plays after all that: sane limits again, and a legal move comes in time.
    e.allow_errors(false);
    e.send("new");
    e.send("force");
    e.send("memory 16");
    e.send("nps 0");
    e.send("level 40 0:10 0");
    e.send("time 1000");
    e.send("go");
    let mv = e.expect_move(20 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
}

/// The thinking lines that came with the engine's move.
fn search_output(e: &mut Engine, timeout: Duration) -> (String, Vec<Thinking>) {
    let (line, before) = e.wait_for("move", timeout, |l| l.starts_with("move "));
    let lines = before
        .iter()
        .map(|l| thinking(l).unwrap_or_else(|| panic!("unexpected {l}")))
        .collect();
    (line["move ".len()..].to_string(), lines)
}

/// A refused `st`/`sd` leaves the previous value in force (not an unlimited search).
#[test]
fn refused_limits_keep_the_previous_ones() {
    let mut e = Engine::started();
    e.allow_errors(true);
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("st 0.5");
    e.send("st 1e300");
    e.send("st 0");
    e.send("sd 3");
    e.send("sd 0");
    e.send("sd -1");
    let refused = e.sync(1);
    assert_eq!(refused.len(), 4, "{refused:?}");
    assert!(refused.iter().all(|l| l.starts_with("Error (")));
    e.allow_errors(false);
    let t = Instant::now();
    e.send("go");
    let (mv, lines) = search_output(&mut e, 20 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
    assert!(t.elapsed() < 10 * SEC, "took {:?} with st 0.5", t.elapsed());
    assert_eq!(lines.iter().map(|t| t.depth).max(), Some(3), "{lines:?}");
}

/// `sd 4294967295` is capped at the engine's maximum depth: in a position where nothing
/// can happen (locked pawns, bare kings) the search gets there in a moment and stops,
/// long before its 60 s.
#[test]
fn huge_sd_is_capped_at_the_maximum_depth() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    // The classical evaluation scores every king walk here alike, so the table cuts the
    // tree down and depth 100 comes in a moment; a net's scores differ by king square.
    e.send("option UseNNUE=0");
    e.sync_auto();
    e.send("setboard k7/8/8/p1p1p1p1/P1P1P1P1/8/8/K7 w - - 0 1");
    e.send("sd 4294967295");
    e.send("st 60");
    let t = Instant::now();
    e.send("go");
    let (_, lines) = search_output(&mut e, 50 * SEC);
    let max = kestrel::search::MAX_DEPTH;
    assert_eq!(
        lines.last().map(|t| t.depth),
        Some(max),
        "{:?}",
        lines.last()
    );
    assert!(lines.iter().all(|t| t.depth <= max));
    assert!(t.elapsed() < 40 * SEC, "took {:?}", t.elapsed());
}

/// `time` values out of range in a real search: a negative clock is an empty one (move at
/// once: one iteration), a huge one is a long think that `?` still ends.
#[test]
fn clock_values_out_of_range_in_a_search() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("level 40 5 0");
    e.send("time -100");
    e.send("otim -99999999");
    e.send("go");
    // An empty clock: the hard limit is at once, so not even the first iteration is
    // completed (no thinking line, or depth 1 only). Were -100 taken as a huge clock, the
    // search would print deeper lines and run into the timeout.
    let (mv, lines) = search_output(&mut e, 30 * SEC);
    assert!(Position::startpos().parse_move(&mv).is_ok());
    assert!(lines.iter().all(|t| t.depth == 1), "{lines:?}");
    e.sync_auto();

    for huge in ["99999999999999999999", "1e300"] {
        e.send("new");
        e.send("force");
        e.send("post");
        e.send(&format!("time {huge}"));
        e.send("go");
        // Still thinking after 1.5 s by its own clock: the clock was read as long, not as
        // zero or garbage.
        let (line, _) = e.wait_for("1.5 s of thinking", 60 * SEC, |l| {
            l.starts_with("move ") || thinking(l).is_some_and(|t| t.centis >= 150)
        });
        assert!(!line.starts_with("move "), "time {huge}: moved early");
        let t = Instant::now();
        e.send("?");
        e.expect_move(10 * SEC);
        assert!(t.elapsed() < 10 * SEC);
    }
}

/// `nps 18446744073709551615`: the node clock hardly moves, so `st 1` would last for
/// ages; `?` still ends the search. `nps 0` turns the node clock off again.
#[test]
fn huge_and_zero_nps() {
    let mut e = Engine::started();
    e.send("new");
    e.send("force");
    e.send("post");
    e.send("nps 18446744073709551615");
    e.send("st 1");
    e.send("go");
    let (line, _) = e.wait_for("1.5 s of thinking", 60 * SEC, |l| {
        l.starts_with("move ")
            || l.split_whitespace()
                .nth(3)
                .is_some_and(|n| n.parse::<u64>().is_ok_and(|n| n > 100_000))
    });
    assert!(
        !line.starts_with("move "),
        "moved at once under a node clock"
    );
    e.send("?");
    e.expect_move(10 * SEC);
    // Off again: `st 0.5` in wall time, several iterations (were 0 a rate of 0 or 1 nodes a
    // second, the first node would use the whole limit).
    e.send("nps 0");
    e.send("st 0.5");
    e.send("go");
    let (_, lines) = search_output(&mut e, 20 * SEC);
    assert!(lines.iter().any(|t| t.depth >= 2), "{lines:?}");
}

/// The hash size keeps to its range and to the machine: `memory 0` gets the smallest table
/// rather than none, and more memory than the machine has free is refused with the old
/// table kept. Measured as the
/// process's virtual size: the table is allocated zeroed and untouched, so it costs no RAM.
#[test]
fn hash_size_is_clamped_to_its_range() {
    let mut e = Engine::started();
    let mb = |e: &mut Engine| -> Option<i64> {
        e.sync_auto();
        Some(common::proc_status(e.pid(), "VmSize")? as i64 / 1024)
    };
    let Some(default) = mb(&mut e) else {
        eprintln!("skipped: no /proc");
        return;
    };
    e.send("memory 1");
    let one = mb(&mut e).unwrap();
    assert!(default - one >= 56, "64 MB -> 1 MB: {default} -> {one} MB");
    e.send("memory 0");
    let zero = mb(&mut e).unwrap();
    assert!(
        (zero - one).abs() <= 16,
        "memory 0: {zero} MB, memory 1: {one} MB"
    );
    // A search with the smallest table works (an empty one could not hold an entry).
    e.send("new");
    e.send("force");
    e.send("sd 5");
    e.send("go");
    e.expect_move(20 * SEC);
    // More than the machine has free is refused with a word to the person who chose it,
    // and the table stays as it was; sizes above the range are brought down to it first
    // (1 TB, more than this machine has too).
    e.send("memory 256");
    let before = mb(&mut e).unwrap();
    let free_mb = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemAvailable:"))?;
        line.split_whitespace()
            .nth(1)?
            .parse::<i64>()
            .ok()
            .map(|kb| kb / 1024)
    });
    let too_much = free_mb.map_or(1 << 20, |free| (free * 2).min(1 << 20));
    e.allow_errors(true);
    for asked in [too_much, 100_000_000] {
        e.send(&format!("memory {asked}"));
        let lines = e.sync_auto();
        assert!(
            lines.iter().any(|l| l.starts_with("tellusererror")
                && l.contains("free memory")
                && l.contains("stays at 256 MB")),
            "memory {asked}: {lines:?}"
        );
        let after = mb(&mut e).unwrap();
        // A lost table would take 255 MB away, a new one add gigabytes. Growth by an
        // allocator arena or two (64 MB of address space each, which a thread reserves when
        // another holds the first: +128 MB seen on a busy CI machine) is neither.
        let grown = after - before;
        assert!(
            (-100..=200).contains(&grown),
            "memory {asked}: {before} -> {after} MB"
        );
    }
    e.allow_errors(false);
    // And the engine plays on with the table it kept.
    e.send("new");
    e.send("force");
    e.send("sd 5");
    e.send("go");
    e.expect_move(20 * SEC);
    e.send("memory 16");
    e.sync_auto();
}

/// `cores N` runs N-1 helper search threads, and `cores 4096` is capped at 1,024 threads in
/// all.
#[test]
fn cores_starts_helper_threads_up_to_the_cap() {
    let mut e = Engine::started();
    let threads_while_analysing = |e: &mut Engine, cores: &str| -> Option<u64> {
        e.send(cores);
        e.send("post");
        e.send("analyze");
        e.wait_for("thinking", 10 * SEC, common::is_thinking);
        let n = common::proc_status(e.pid(), "Threads");
        e.send("exit");
        e.sync_auto();
        n
    };
    let Some(one) = threads_while_analysing(&mut e, "cores 1") else {
        eprintln!("skipped: no /proc");
        return;
    };
    let two = threads_while_analysing(&mut e, "cores 2").unwrap();
    assert_eq!(two, one + 1, "threads with cores 2 vs cores 1");
    let many = threads_while_analysing(&mut e, "cores 4096").unwrap();
    assert_eq!(many, one + 1023, "threads with cores 4096 vs cores 1");
    // And back: the helpers end with the search that needed them (a few may still be
    // leaving the process table when it is read).
    let again = threads_while_analysing(&mut e, "cores 1").unwrap();
    assert!(again < one + 32, "threads with cores 1 again: {again}");
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

/// CPU time of the engine process, not of the machine: an idle or non-pondering engine
/// uses next to none however busy the machine is (so those bounds are tight), while a
/// pondering one is given until it has used 0.3 s of CPU, however long a loaded machine
/// takes to give it that (the bound is on the time it may take, 30 s).
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
    e.expect_move(10 * SEC);
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
    e.expect_move(10 * SEC);
    let before = cpu_time(e.pid()).unwrap();
    let start = Instant::now();
    loop {
        let used = cpu_time(e.pid()).unwrap() - before;
        if used >= Duration::from_millis(300) {
            break;
        }
        assert!(
            start.elapsed() < 30 * SEC,
            "pondering used only {used:?} CPU in {:?}",
            start.elapsed()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
