//! `kestrel perft`, `kestrel epd` and `kestrel spsa`: the move generator's and the search's
//! checks, and the search's tuning, from the command line.

use kestrel::chess::Position;
use std::process::ExitCode;

pub fn run_perft(depth: u32, fen: &str, divide: bool, hash_mb: usize, threads: usize) -> ExitCode {
    use kestrel::tools::perft::{run, PerftJob, PerftReportStyle};
    let pos = match Position::from_fen(fen) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: bad FEN: {e}");
            return ExitCode::from(2);
        }
    };
    let job = PerftJob {
        depth,
        divide,
        hash_mb,
        threads,
    };
    run(&pos, &job, PerftReportStyle::CommandLine, &mut |line| {
        println!("{line}")
    });
    ExitCode::SUCCESS
}

pub fn run_epd(
    file: &std::path::Path,
    time: Option<f64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    threads: u32,
    hash_mb: usize,
) -> ExitCode {
    use kestrel::tools::epd::{run_suite_file, EpdLimits};
    if let Some(t) = time.filter(|t| !t.is_finite() || *t <= 0.0 || *t > 1e6) {
        eprintln!("error: --time must be a positive number of seconds, not {t}");
        return ExitCode::from(2);
    }
    let time = match (time, depth, nodes) {
        (None, None, None) => Some(1.0),
        (t, _, _) => t,
    };
    let limits = EpdLimits {
        time: time.map(std::time::Duration::from_secs_f64),
        depth,
        nodes,
        hash_mb,
        threads: threads as usize,
    };
    let run = run_suite_file(
        file,
        &limits,
        &mut |line| eprintln!("{line}"),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    if let Err(e) = run {
        eprintln!("error: cannot read {}: {e}", file.display());
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// `kestrel spsa`.
pub fn run_spsa(config: &kestrel::tools::spsa::Config) -> ExitCode {
    use kestrel::tools::spsa;
    if !(config.r_end > 0.0 && config.r_end.is_finite()) {
        eprintln!("error: --r-end must be above 0, not {}", config.r_end);
        return ExitCode::from(2);
    }
    let mut out = std::io::stdout();
    match spsa::run(config, &mut out) {
        Ok(summary) => {
            let [w, d, l] = summary.wdl;
            println!(
                "spsa: {} pairs done; this run: + {w}-{d}-{l} -; faults (illegal/crash): {}/{}",
                summary.pairs, summary.faults.illegal, summary.faults.crashes
            );
            print!("{}", spsa::summary_table(&summary));
            if summary.faults.illegal + summary.faults.crashes > 0 {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
