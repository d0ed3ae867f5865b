//! Move generation and perft speed. Compare figures side by side in one run.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kestrel::chess::{perft::perft, Position, STARTPOS_FEN};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn bench_movegen(c: &mut Criterion) {
    let start = Position::from_fen(STARTPOS_FEN).unwrap();
    let kiwipete = Position::from_fen(KIWIPETE).unwrap();
    c.bench_function("legal_moves kiwipete", |b| {
        b.iter(|| black_box(&kiwipete).legal_moves())
    });
    c.bench_function("count_legal_moves kiwipete", |b| {
        b.iter(|| black_box(&kiwipete).count_legal_moves())
    });
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("startpos 5", |b| b.iter(|| perft(black_box(&start), 5)));
    group.bench_function("kiwipete 4", |b| b.iter(|| perft(black_box(&kiwipete), 4)));
    group.finish();
}

criterion_group!(benches, bench_movegen);
criterion_main!(benches);
