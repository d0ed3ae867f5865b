//! Move generator benchmarks (`cargo bench`): legal move generation and counting on a busy
//! middlegame, and perft from two positions. Each prints the median time of its samples;
//! compare builds by running both side by side in one sitting, as ratios.

use kestrel::chess::Position;
use kestrel::tools::perft::perft;
use std::hint::black_box;
use std::time::{Duration, Instant};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Runs `f` in batches for about `budget`, `samples` times, and prints the median time per
/// call.
fn bench(name: &str, samples: usize, budget: Duration, mut f: impl FnMut()) {
    // One call to size the batches, and to warm the caches.
    let start = Instant::now();
    f();
    let once = start.elapsed().max(Duration::from_nanos(1));
    let per_sample = budget / samples as u32;
    let batch = (per_sample.as_nanos() / once.as_nanos()).clamp(1, 1_000_000) as u32;
    let mut times: Vec<Duration> = (0..samples)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..batch {
                f();
            }
            start.elapsed() / batch
        })
        .collect();
    times.sort();
    let median = times[samples / 2];
    println!(
        "{name:<28} {:>12.3} µs  (median of {samples} samples of {batch})",
        median.as_secs_f64() * 1e6
    );
}

fn main() {
    let kiwipete = Position::from_fen(KIWIPETE).unwrap();
    let start = Position::startpos();
    let second = Duration::from_secs(1);
    bench("legal_moves kiwipete", 20, second, || {
        black_box(black_box(&kiwipete).legal_moves());
    });
    bench("count_legal_moves kiwipete", 20, second, || {
        black_box(black_box(&kiwipete).count_legal_moves());
    });
    bench("perft startpos 5", 10, 3 * second, || {
        black_box(perft(black_box(&start), 5));
    });
    bench("perft kiwipete 4", 10, 3 * second, || {
        black_box(perft(black_box(&kiwipete), 4));
    });
}
