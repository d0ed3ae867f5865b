//! perft against published counts: the classic perft suite, Chess960 in Shredder-FEN and
//! X-FEN, and Marcel van Kervinck's random positions. Also FEN round trips on all of them.
//! Run with `cargo test --release`; the work is spread over the available cores. The hashed,
//! threaded perft (`kestrel::tools::perft::hashed`) is checked on the same counts with small
//! tables, so that entries are replaced all the time.

use kestrel::chess::Position;
use kestrel::tools::perft::hashed::{self, PerftTable};
use kestrel::tools::perft::perft;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Case {
    line: usize,
    fen: String,
    counts: Vec<(u32, u64)>,
}

/// Reads `FEN ;D1 n ;D2 n` (also with `; D1 n`).
fn load(name: &str) -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap().trim().to_string();
            let counts = parts
                .map(|p| {
                    let mut f = p.split_whitespace();
                    let depth = f.next().unwrap().trim_start_matches('D').parse().unwrap();
                    let nodes = f.next().unwrap().parse().unwrap();
                    (depth, nodes)
                })
                .collect();
            Case {
                line: i + 1,
                fen,
                counts,
            }
        })
        .collect()
}

/// Runs `check` on every case, over all cores; returns the failures.
fn run_parallel(cases: &[Case], check: impl Fn(&Case) -> Vec<String> + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut failures = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(case) = cases.get(i) else { break };
                        failures.extend(check(case));
                    }
                    failures
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    })
}

fn check_counts(
    file: &str,
    max_depth: u32,
    max_nodes: u64,
    every_nth_deeper: Option<(usize, u32)>,
) {
    check_counts_with(file, max_depth, max_nodes, every_nth_deeper, perft);
}

/// `check_counts` with another perft.
fn check_counts_with(
    file: &str,
    max_depth: u32,
    max_nodes: u64,
    every_nth_deeper: Option<(usize, u32)>,
    count: impl Fn(&Position, u32) -> u64 + Sync,
) {
    let cases = load(file);
    assert!(!cases.is_empty());
    let checked = AtomicUsize::new(0);
    let failures = run_parallel(&cases, |case| {
        let pos =
            Position::from_fen(&case.fen).unwrap_or_else(|e| panic!("{file}:{}: {e}", case.line));
        let depth_limit = match every_nth_deeper {
            Some((n, deeper)) if case.line % n == 0 => deeper,
            _ => max_depth,
        };
        let mut failures = Vec::new();
        for &(depth, expected) in &case.counts {
            if depth > depth_limit || expected > max_nodes {
                continue;
            }
            checked.fetch_add(1, Ordering::Relaxed);
            let got = count(&pos, depth);
            if got != expected {
                failures.push(format!(
                    "{file}:{} depth {depth}: got {got}, expected {expected} ({})",
                    case.line, case.fen
                ));
            }
        }
        failures
    });
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked.load(Ordering::Relaxed) >= cases.len());
}

#[test]
fn perft_suite_up_to_200_million_nodes() {
    check_counts("perft.epd", u32::MAX, 200_000_000, None);
}

#[test]
fn chess960_shredder_fen_depth_4_and_every_tenth_to_5() {
    check_counts("perft960.epd", 4, u64::MAX, Some((10, 5)));
}

#[test]
fn chess960_xfen_depth_4_and_every_tenth_to_5() {
    check_counts("perft960-xfen.epd", 4, u64::MAX, Some((10, 5)));
}

#[test]
fn random_positions_depth_4() {
    check_counts("perft-random.epd", 4, u64::MAX, None);
}

/// Hashed perft with two threads and an emptied table of `buckets` 64-byte buckets (one per
/// calling thread, kept: allocating and zeroing a table per count would cost more than the
/// counts).
fn hashed(buckets: usize) -> impl Fn(&Position, u32) -> u64 + Sync {
    thread_local! {
        static TABLE: std::cell::RefCell<Option<PerftTable>> = const { std::cell::RefCell::new(None) };
    }
    move |pos, depth| {
        TABLE.with_borrow_mut(|table| {
            let table = table.get_or_insert_with(|| PerftTable::with_buckets(buckets));
            assert_eq!(table.bytes(), buckets * 64);
            table.clear();
            hashed::perft(pos, depth, Some(table), 2).nodes
        })
    }
}

/// 1 MB: 65536 entries.
const ONE_MB: usize = 1 << 14;

#[test]
fn hashed_perft_suite_up_to_100_million_nodes() {
    check_counts_with("perft.epd", u32::MAX, 100_000_000, None, hashed(ONE_MB));
}

#[test]
fn hashed_perft_suite_with_a_table_of_four_entries() {
    check_counts_with("perft.epd", u32::MAX, 5_000_000, None, hashed(1));
}

#[test]
fn hashed_chess960_shredder_fen_depth_3_and_every_twentieth_to_5() {
    check_counts_with("perft960.epd", 3, u64::MAX, Some((20, 5)), hashed(ONE_MB));
}

#[test]
fn hashed_chess960_xfen_depth_3_and_every_twentieth_to_5() {
    check_counts_with(
        "perft960-xfen.epd",
        3,
        u64::MAX,
        Some((20, 5)),
        hashed(ONE_MB),
    );
}

#[test]
fn hashed_random_positions_depth_3_and_every_200th_to_5() {
    check_counts_with(
        "perft-random.epd",
        3,
        u64::MAX,
        Some((200, 5)),
        hashed(ONE_MB),
    );
}

/// Parsing, printing and parsing again gives the same position and the same text; where the
/// file's own text is already canonical (X-FEN castling, capturable ep), printing gives it
/// back exactly.
#[test]
fn fen_round_trips_on_every_position() {
    for file in [
        "perft.epd",
        "perft960.epd",
        "perft960-xfen.epd",
        "perft-random.epd",
    ] {
        let mut exact = 0;
        let cases = load(file);
        for case in &cases {
            let pos = Position::from_fen(&case.fen).unwrap();
            let printed = pos.to_fen();
            let again = Position::from_fen(&printed)
                .unwrap_or_else(|e| panic!("{file}:{}: reparse of {printed}: {e}", case.line));
            assert_eq!(again, pos, "{file}:{}: {printed}", case.line);
            assert_eq!(again.to_fen(), printed);
            pos.validate().unwrap();
            let given: Vec<&str> = case.fen.split_whitespace().collect();
            let ours: Vec<&str> = printed.split_whitespace().collect();
            // Placement and side to move are never rewritten.
            assert_eq!(given[..2], ours[..2], "{file}:{}", case.line);
            if given.len() == 6 && given == ours {
                exact += 1;
            }
        }
        if file != "perft960.epd" {
            // Only Shredder-FEN castling letters and dead ep squares are rewritten.
            assert!(
                exact * 10 >= cases.len() * 9,
                "{file}: only {exact} of {} exact",
                cases.len()
            );
        }
    }
}

/// Every position three plies deep from the classic suite's and Chess960's positions (castles
/// both ways, en passant, promotions, rights lost by captures on rook squares): the key a move
/// is predicted to give, for prefetching the hash table, is the key of the position it makes,
/// except where the move leaves an en passant capture (that square's key is left out).
#[test]
fn the_predicted_key_after_a_move_is_the_key_it_makes() {
    fn walk(pos: &Position, depth: u32, seen: &mut [u64; 5], failures: &mut Vec<String>) {
        for &mv in pos.legal_moves().iter() {
            let child = pos.after(mv);
            if child.ep_square().is_none() && pos.key_after(mv) != child.key() {
                failures.push(format!("{} {mv:?}", pos.to_fen()));
            }
            seen[0] += 1;
            seen[1] += mv.is_castle() as u64;
            seen[2] += mv.is_en_passant() as u64;
            seen[3] += mv.is_promotion() as u64;
            seen[4] += (child.castling() != pos.castling()) as u64;
            if depth > 1 {
                walk(&child, depth - 1, seen, failures);
            }
        }
    }
    let mut seen = [0u64; 5];
    let mut failures = Vec::new();
    for case in load("perft.epd").iter().chain(&load("perft960.epd")[..60]) {
        let pos = Position::from_fen(&case.fen).unwrap();
        walk(&pos, 3, &mut seen, &mut failures);
    }
    let first = &failures[..3.min(failures.len())];
    assert!(
        failures.is_empty(),
        "{} wrong, e.g. {first:?}",
        failures.len()
    );
    // Each kind of move that changes the key in its own way was checked many times.
    assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
}
