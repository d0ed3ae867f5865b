//! perft, in one place: counts the legal move tree of a position, plainly (`plain`) or
//! through the shared table with threads (`hashed`), and writes the report. One runner
//! serves `kestrel perft` and the session's `perft N` / `divide N`; each keeps its own
//! report text.

pub mod hashed;
mod plain;

pub use plain::{divide, perft};

use crate::chess::{Move, Position};
use hashed::{PerftTable, TableStats};
use std::time::{Duration, Instant};

/// What to count.
#[derive(Clone, Copy, Debug)]
pub struct PerftJob {
    pub depth: u32,
    /// Report the count under each root move.
    pub divide: bool,
    /// Table of subtree counts in MB (0 = none).
    pub hash_mb: usize,
    pub threads: usize,
}

impl PerftJob {
    /// One thread, no table: the plain recursive perft.
    pub fn plain(depth: u32, divide: bool) -> PerftJob {
        PerftJob {
            depth,
            divide,
            hash_mb: 0,
            threads: 1,
        }
    }

    /// A table or more than one thread takes the hashed, threaded counter.
    fn hashed(&self) -> bool {
        self.hash_mb > 0 || self.threads > 1
    }
}

/// How the report is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerftReportStyle {
    /// `kestrel perft`: the root moves and a blank line when dividing, then `nodes`, `time`
    /// and `speed` lines; the hashed counter adds its table and thread lines.
    CommandLine,
    /// A session's commands: `perft D: N nodes in T s (S Mnps)`, or when dividing the
    /// root moves and `total N`.
    Session,
}

/// The counts of one run.
struct Counted {
    nodes: u64,
    /// Per root move; filled when dividing (the hashed counter always fills it).
    divide: Vec<(Move, u64)>,
    elapsed: Duration,
    /// The hashed counter's table (if it had one) and its statistics.
    hashed: Option<(Option<PerftTable>, TableStats)>,
}

fn count(pos: &Position, job: &PerftJob) -> Counted {
    if job.hashed() {
        // The table is allocated before the clock starts; its pages are committed as it
        // fills.
        let table = (job.hash_mb > 0).then(|| PerftTable::new(job.hash_mb));
        let start = Instant::now();
        let report = hashed::perft(pos, job.depth, table.as_ref(), job.threads);
        return Counted {
            nodes: report.nodes,
            divide: report.divide,
            elapsed: start.elapsed(),
            hashed: Some((table, report.stats)),
        };
    }
    let start = Instant::now();
    let (nodes, divide) = if job.divide {
        let by_move = divide(pos, job.depth);
        (by_move.iter().map(|&(_, n)| n).sum(), by_move)
    } else {
        (perft(pos, job.depth), Vec::new())
    };
    Counted {
        nodes,
        divide,
        elapsed: start.elapsed(),
        hashed: None,
    }
}

/// Counts `job` below `pos` and writes the report a line at a time to `line`.
pub fn run(pos: &Position, job: &PerftJob, style: PerftReportStyle, line: &mut dyn FnMut(&str)) {
    let counted = count(pos, job);
    let secs = counted.elapsed.as_secs_f64();
    let mnps = counted.nodes as f64 / secs.max(1e-9) / 1e6;
    if job.divide {
        for &(mv, n) in &counted.divide {
            line(&format!("{}: {n}", pos.coordinate(mv)));
        }
    }
    match style {
        PerftReportStyle::Session if job.divide => line(&format!("total {}", counted.nodes)),
        PerftReportStyle::Session => line(&format!(
            "perft {}: {} nodes in {secs:.3} s ({mnps:.1} Mnps)",
            job.depth, counted.nodes
        )),
        PerftReportStyle::CommandLine => {
            if job.divide {
                line("");
            }
            line(&format!("nodes {}", counted.nodes));
            line(&format!("time {secs:.3} s"));
            line(&format!("speed {mnps:.1} Mnps"));
            if let Some((table, stats)) = &counted.hashed {
                match table {
                    Some(t) => {
                        line(&format!("hash {} MB", t.megabytes()));
                        line(&format!(
                            "hash hits {:.1}% of {} probes",
                            stats.hit_rate() * 100.0,
                            stats.probes
                        ));
                    }
                    None => line("hash none"),
                }
                line(&format!("threads {}", job.threads));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report's lines with every timing figure replaced by `T`.
    fn report(fen: &str, job: PerftJob, style: PerftReportStyle) -> Vec<String> {
        let pos = Position::from_fen(fen).unwrap();
        let mut lines = Vec::new();
        run(&pos, &job, style, &mut |l| lines.push(l.to_string()));
        // A figure with a decimal point is a timing (or a rate); its brackets and `%` stay.
        let mask = |w: &str| -> String {
            let figure = w.trim_start_matches('(').trim_end_matches('%');
            if figure.contains('.') && figure.parse::<f64>().is_ok() {
                w.replace(figure, "T")
            } else {
                w.to_string()
            }
        };
        lines
            .iter()
            .map(|l| l.split(' ').map(mask).collect::<Vec<_>>().join(" "))
            .collect()
    }

    // Two kings and a pawn: four king moves and two pawn pushes for White, five king moves
    // for Black after each.
    const FEN: &str = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";

    #[test]
    fn session_style_is_one_line_or_the_moves_and_a_total() {
        let perft = report(FEN, PerftJob::plain(2, false), PerftReportStyle::Session);
        assert_eq!(perft, ["perft 2: 30 nodes in T s (T Mnps)"]);
        let divide = report(FEN, PerftJob::plain(2, true), PerftReportStyle::Session);
        assert_eq!(divide.len(), 7, "{divide:?}");
        assert_eq!(divide[6], "total 30");
        assert!(divide.contains(&"e2e4: 5".to_string()), "{divide:?}");
    }

    #[test]
    fn command_line_style_adds_the_table_lines_only_when_hashed() {
        let plain = report(
            FEN,
            PerftJob::plain(2, false),
            PerftReportStyle::CommandLine,
        );
        assert_eq!(plain, ["nodes 30", "time T s", "speed T Mnps"]);
        let job = PerftJob {
            depth: 2,
            divide: true,
            hash_mb: 0,
            threads: 2,
        };
        let hashed = report(FEN, job, PerftReportStyle::CommandLine);
        let divided = report(FEN, PerftJob::plain(2, true), PerftReportStyle::CommandLine);
        // The same root moves, the blank line, the totals; then the hashed counter's lines.
        assert_eq!(hashed[..10], divided[..]);
        assert_eq!(divided[6..], ["", "nodes 30", "time T s", "speed T Mnps"]);
        assert_eq!(hashed[10..], ["hash none", "threads 2"]);
        let job = PerftJob {
            hash_mb: 1,
            threads: 1,
            ..job
        };
        let with_table = report(FEN, job, PerftReportStyle::CommandLine);
        assert_eq!(with_table[10], "hash 1 MB");
        assert!(
            with_table[11].starts_with("hash hits T% of "),
            "{with_table:?}"
        );
        assert_eq!(with_table[12..], ["threads 1"]);
    }
}
