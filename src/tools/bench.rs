//! `bench`: a fixed set of positions searched to a fixed depth with one thread. The total
//! node count is the search's signature: identical on every run and machine, so any change
//! to the search that changes it is visible. Nodes per second is the speed figure.

use crate::chess::Position;
use crate::nnue::Network;
use crate::search::{FixedLimits, SearchParams, Searcher};
use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub const DEFAULT_DEPTH: u32 = 9;
const HASH_MB: usize = 16;

/// Middlegames from Bratko-Kopec, WAC and ECM, and endgames and oddities from the perft
/// suite: 50 positions.
pub const POSITIONS: [&str; 50] = [
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - -",
    "2q1rr1k/3bbnnp/p2p1pp1/2pPp3/PpP1P1P1/1P2BNNP/2BQ1PRK/7R b - -",
    "r1b2rk1/2q1b1pp/p2ppn2/1p6/3QP3/1BN1B3/PPP3PP/R4RK1 w - -",
    "1nk1r1r1/pp2n1pp/4p3/q2pPp1N/b1pP1P2/B1P2R2/2P1B1PP/R2Q2K1 w - -",
    "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - -",
    "2r1nrk1/p2q1ppp/bp1p4/n1pPp3/P1P1P3/2PBB1N1/4QPPP/R4RK1 w - -",
    "r2q1rk1/4bppp/p2p4/2pP4/3pP3/3Q4/PP1B1PPP/R3R1K1 w - -",
    "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - -",
    "r2q1rk1/1ppnbppp/p2p1nb1/3Pp3/2P1P1P1/2N2N1P/PPB1QP2/R1B2RK1 b - -",
    "3rr3/2pq2pk/p2p1pnp/8/2QBPP2/1P6/P5PP/4RRK1 b - -",
    "3rn2k/ppb2rpp/2ppqp2/5N2/2P1P3/1P5Q/PB3PPP/3RR1K1 w - -",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq -",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - -",
    "6k1/1b1nqpbp/pp4p1/5P2/1PN5/4Q3/P5PP/1B2B1K1 b - -",
    "3rb1k1/pq3pbp/4n1p1/3p4/2N5/2P2QB1/PP3PPP/1B1R2K1 b - -",
    "8/6pp/3q1p2/3n1k2/1P6/3NQ2P/5PP1/6K1 w - -",
    "r2q1r1k/2p1b1pp/p1n5/1p1Q1bN1/4n3/1BP1B3/PP3PPP/R4RK1 w - -",
    "b4r1k/pq2rp2/1p1bpn1p/3PN2n/2P2P2/P2B3K/1B2Q2N/3R2R1 w - -",
    "6k1/3r4/2R5/P5P1/1P4p1/8/4rB2/6K1 b - -",
    "r2q1rk1/pp3ppp/2p2b2/8/B2pPPb1/7P/PPP1N1P1/R2Q1RK1 b - -",
    "8/6pp/4p3/1p1n4/1NbkN1P1/P4P1P/1PR3K1/r7 w - -",
    "4kn2/r4p1r/p3bQ2/q1nNP1Np/1p5P/8/PPP3P1/2KR3R w - -",
    "r1b1qrk1/1p3ppp/p1p5/3Nb3/5N2/P7/1P4PQ/K1R1R3 w - -",
    "5rk1/p1q3pp/1p1r4/2p1pp1Q/1PPn1P2/3B3P/P2R2P1/3R2K1 b - -",
    "r6r/pp3ppp/3k1b2/2pb4/B4Pq1/2P1Q3/P5PP/1RBR2K1 w - -",
    "r2r2k1/1R2qp2/p5pp/2P5/b1PN1b2/P7/1Q3PPP/1B1R2K1 b - -",
    "r1b1r1k1/p1p3pp/2p2n2/2bp4/5P2/3BBQPq/PPPK3P/R4N1R b - -",
    "r1b2rk1/1p2bppp/p3pn2/4B3/1qBR4/2N5/P3QPPP/R5K1 w - -",
    "rn2qbr1/2p4k/p2p1nb1/1p1Pp2p/2P4P/2NBBPN1/PP1Q4/2KR2R1 w - -",
    "r3k2r/pb1n1pbp/4p1p1/q1n1P3/Bp1N1N2/4B3/PP3PPP/R2Q1RK1 w kq -",
    "r2q1rk1/1b1nbpp1/p1p1p2p/1pPpN3/3P1N2/P2BP3/1PQ2PPP/R4RK1 w - -",
    "r1bq1k2/5pb1/p2p1n2/2pPrP2/2p4B/3B2R1/PP1Q2PP/R5K1 w - -",
    "3nr1k1/p6p/2n1pRpB/3pP3/2pP2P1/q1P4P/6BK/5Q2 w - -",
    "1kqr3r/p1p4p/RpQP4/2P1p3/4B3/4Bp2/P4P1P/6K1 b - -",
    "2kr2r1/2pqbp1p/p1n1b3/1P1pP3/4n3/1BP1BN2/1P4PP/RN1Q1RK1 b - -",
    "5r1k/1q2R3/8/6Q1/8/8/6P1/7K b - -",
    "6r1/1p3k2/pPp4R/K1P1p1p1/1P2Pp1p/5P1P/6P1/8 w - -",
    "b3r1k1/2rN1ppp/2n1p3/p7/P3BP2/1R6/q1P2QPP/3R2K1 w - -",
    "rq1r1bk1/1b3pp1/3pn2p/1n2BN1P/1P2P3/3R1NP1/3Q1PB1/2R3K1 w - -",
    "5rk1/Qp5p/3pp1p1/4n3/2P1P2q/5r1P/P3NPP1/3R1RK1 b - -",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
    "r3k2r/8/8/8/8/8/8/2R1K2R w Kkq -",
    "4k2r/6K1/8/8/8/8/8/8 b k -",
    "k7/8/2N5/1N6/8/8/8/K6n w - -",
    "K7/b7/1b6/1b6/8/8/8/k6B b - -",
    "K7/p7/k7/8/8/8/8/8 w - -",
    "8/3k4/3p4/8/3P4/3K4/8/8 w - -",
    "k7/8/8/6p1/7P/8/8/K7 w - -",
    "7k/8/p7/8/8/1P6/8/7K w - -",
    "8/Pk6/8/8/8/8/6Kp/8 w - -",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    /// Depth of every search.
    pub depth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// The summary line `kestrel bench` and the session's `bench` print (OpenBench reads it).
impl std::fmt::Display for BenchResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "bench depth {}: {} nodes {} nps ({:.2} s)",
            self.depth,
            self.nodes,
            self.nps(),
            self.elapsed.as_secs_f64()
        )
    }
}

/// Searches every position to `depth` from a cleared state, writing a line per position
/// to `out` when `verbose`; with the embedded net if the build has one.
pub fn run(depth: u32, threads: usize, out: &mut dyn Write, verbose: bool) -> BenchResult {
    run_with(depth, threads, crate::nnue::embedded(), out, verbose)
}

/// [`run`] evaluating with `net` (`None`: the classical evaluation).
pub fn run_with(
    depth: u32,
    threads: usize,
    net: Option<Arc<Network>>,
    out: &mut dyn Write,
    verbose: bool,
) -> BenchResult {
    let mut searcher = Searcher::new(HASH_MB);
    searcher.set_network(net);
    searcher.set_threads(threads);
    let mut nodes = 0;
    let start = Instant::now();
    for (i, fen) in POSITIONS.iter().enumerate() {
        let pos = Position::from_fen(fen).expect("bench positions are valid");
        searcher.clear();
        let params = SearchParams {
            max_depth: Some(depth),
            ..SearchParams::default()
        };
        let result = searcher.search(&pos, &params, &mut FixedLimits::new(None, None));
        nodes += result.nodes;
        if verbose {
            let best = result.best.map_or("-".to_string(), |m| pos.san(m));
            let _ = writeln!(
                out,
                "{:>2}/{} {:<8} {:>10} nodes  {fen}",
                i + 1,
                POSITIONS.len(),
                best,
                result.nodes
            );
        }
    }
    BenchResult {
        depth,
        nodes,
        elapsed: start.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_gives_depth_nodes_nps_and_seconds() {
        let r = BenchResult {
            depth: 9,
            nodes: 1_000_000,
            elapsed: Duration::from_millis(500),
        };
        assert_eq!(
            r.to_string(),
            "bench depth 9: 1000000 nodes 2000000 nps (0.50 s)"
        );
    }
}
