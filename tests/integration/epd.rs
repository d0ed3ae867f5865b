//! EPD test suites end to end: the shipped suites parse without errors, and the engine
//! solves the easy Win At Chess positions at a fixed depth, deterministically.

use kestrel::tools::epd::{read_epd_file, run_suite, EpdEntry, EpdLimits, SuiteSummary};
use std::path::Path;
use std::time::Duration;

fn load(name: &str) -> Vec<EpdEntry> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    read_epd_file(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_iter()
        .map(|(line, entry)| entry.unwrap_or_else(|e| panic!("{name}:{line}: {e}")))
        .collect()
}

fn run(entries: &[EpdEntry], depth: u32) -> (SuiteSummary, String) {
    let limits = EpdLimits {
        time: None,
        depth: Some(depth),
        nodes: None,
        hash_mb: 16,
        threads: 1,
    };
    let mut out = Vec::new();
    let summary = run_suite(entries, &limits, &mut out, &mut std::io::sink());
    (summary, String::from_utf8(out).unwrap())
}

#[test]
fn shipped_suites_parse() {
    let wac = load("wac.epd");
    assert_eq!(wac.len(), 300);
    assert_eq!(wac[0].id.as_deref(), Some("WAC.001"));
    assert_eq!(wac[299].id.as_deref(), Some("WAC.300"));
    assert!(wac.iter().all(|e| !e.best_moves.is_empty()));
    let bk = load("bratko-kopec.epd");
    assert_eq!(bk.len(), 24);
    assert_eq!(bk[23].id.as_deref(), Some("BK.24"));
    // BK.05 has two best moves: Nd5 and a4.
    let bk05 = &bk[4];
    let san: Vec<String> = bk05
        .best_moves
        .iter()
        .map(|&m| bk05.position.san(m))
        .collect();
    assert_eq!(san, ["Nd5", "a4"]);
}

#[test]
fn first_ten_wac_positions_at_depth_9() {
    let wac = load("wac.epd");
    let first = &wac[..10];
    let (summary, out) = run(first, 9);
    print!("{out}");
    assert_eq!(summary.total, 10);
    assert_eq!(summary.results.len(), 10);
    assert_eq!(out.lines().count(), 11, "{out}");
    // Measured with the pruning search: 8 of 10 at depth 9 with kestrel-6, 9 with kestrel-7
    // (all but WAC.002 Rxb2, a deep pawn ending). A lower bound with margin, so that ordinary
    // search and net changes do not break this test but a broken search or runner does.
    assert!(summary.solved >= 7, "solved only {}\n{out}", summary.solved);
    // Short tactics that any working search finds by depth 3.
    for id in EASY {
        let r = summary
            .results
            .iter()
            .find(|r| r.id.as_deref() == Some(id))
            .unwrap();
        assert!(r.solved, "{id} not solved\n{out}");
        assert!(r.solution_depth.unwrap() <= 3, "{id}\n{out}");
    }

    // With a depth limit and a fresh hash table per position, a rerun is identical.
    let (again, _) = run(first, 9);
    assert_eq!(again.total_nodes, summary.total_nodes);
    let solved = |s: &SuiteSummary| -> Vec<bool> { s.results.iter().map(|r| r.solved).collect() };
    assert_eq!(solved(&again), solved(&summary));
    let nodes = |s: &SuiteSummary| -> Vec<u64> { s.results.iter().map(|r| r.nodes).collect() };
    assert_eq!(nodes(&again), nodes(&summary));
}

/// Solved by depth 2 when measured (mates and short combinations), so "by depth 3" has room.
/// (WAC.010's Rxh7 is not among them: when the rook sacrifice shows depends on how the net
/// judges the attack after it, depth 3 with kestrel-6, 6 with kestrel-7; it counts in the total.)
const EASY: [&str; 4] = ["WAC.003", "WAC.004", "WAC.005", "WAC.009"];

/// A 100 ms limit per position: each search that does not end early on a proven mate uses
/// its 100 ms and stops soon after. The search polls the clock every 1024 nodes (well
/// under a millisecond), so the margin of 0.4 s is for a thread kept off a busy CPU, not
/// for the engine; it would still catch a limit that is off by a factor of five.
#[test]
fn time_limit_stops_each_search() {
    let bk = load("bratko-kopec.epd");
    let limit = Duration::from_millis(100);
    let limits = EpdLimits {
        time: Some(limit),
        depth: None,
        nodes: None,
        hash_mb: 16,
        threads: 1,
    };
    let mut out = Vec::new();
    let mut progress = Vec::new();
    let summary = run_suite(&bk[..4], &limits, &mut out, &mut progress);
    let out = String::from_utf8(out).unwrap();
    let progress = String::from_utf8(progress).unwrap();
    assert_eq!(
        progress,
        "searching 1/4 BK.01 ...\nsearching 2/4 BK.02 ...\nsearching 3/4 BK.03 ...\nsearching 4/4 BK.04 ...\n"
    );
    let mut full = 0;
    for r in &summary.results {
        assert!(r.found.is_some(), "{out}");
        assert!(r.depth >= 1, "{out}");
        assert!(
            r.time < limit + Duration::from_millis(400),
            "{:?}: {:?} for a 100 ms limit\n{out}",
            r.id,
            r.time
        );
        if !kestrel::search::is_mate_score(r.score) {
            assert!(
                r.time >= limit,
                "{:?} stopped after {:?}\n{out}",
                r.id,
                r.time
            );
            full += 1;
        }
    }
    assert!(full >= 2, "only {full} searches ran to the limit\n{out}");
    assert!(out.lines().last().unwrap().starts_with("solved "), "{out}");
}
