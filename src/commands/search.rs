//! `kestrel perft`, `bench`, `epd` and `spsa`: the move generator's and the search's checks,
//! and the search's tuning, from the command line.

use super::{usage, CliError, CliResult};
use crate::cli::{BenchArgs, EpdArgs, PerftArgs, SpsaArgs};
use kestrel::chess::Position;

pub fn perft(args: &PerftArgs) -> CliResult {
    use kestrel::tools::perft::{run, PerftJob, PerftReportStyle};
    let pos = Position::from_fen(&args.fen).map_err(|e| usage(format!("bad FEN: {e}")))?;
    let job = PerftJob {
        depth: args.depth,
        divide: args.divide,
        hash_mb: args.hash as usize,
        threads: args.threads as usize,
    };
    run(&pos, &job, PerftReportStyle::CommandLine, &mut |line| {
        println!("{line}")
    });
    Ok(())
}

pub fn bench(args: BenchArgs) -> CliResult {
    let net = match (args.eval_file, args.classical) {
        (_, true) => None,
        (None, false) => kestrel::nnue::embedded(),
        (Some(path), false) => super::net_file(Some(&path))?,
    };
    let report = kestrel::tools::bench::run_with(
        args.depth,
        args.threads as usize,
        net,
        &mut std::io::stdout(),
        args.verbose,
    );
    println!("{report}");
    Ok(())
}

pub fn epd(args: &EpdArgs) -> CliResult {
    use kestrel::tools::epd::{run_suite_file, EpdLimits};
    if let Some(t) = args
        .time
        .filter(|t| !t.is_finite() || *t <= 0.0 || *t > 1e6)
    {
        return Err(usage(format!(
            "--time must be a positive number of seconds, not {t}"
        )));
    }
    let time = match (args.time, args.depth, args.nodes) {
        (None, None, None) => Some(1.0),
        (t, _, _) => t,
    };
    let limits = EpdLimits {
        time: time.map(std::time::Duration::from_secs_f64),
        depth: args.depth,
        nodes: args.nodes,
        hash_mb: args.hash as usize,
        threads: args.threads as usize,
    };
    run_suite_file(
        &args.file,
        &limits,
        &mut |line| eprintln!("{line}"),
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    )
    .map_err(|e| usage(format!("cannot read {}: {e}", args.file.display())))?;
    Ok(())
}

pub fn spsa(args: SpsaArgs) -> CliResult {
    use kestrel::tools::spsa;
    if !(args.r_end > 0.0 && args.r_end.is_finite()) {
        return Err(usage(format!(
            "--r-end must be above 0, not {}",
            args.r_end
        )));
    }
    let openings = match args.openings.as_deref() {
        Some(path) => super::data::read_openings(path).map_err(usage)?,
        None => vec![Position::startpos()],
    };
    let config = spsa::Config {
        engine: args.engine,
        pairs: args.pairs,
        nodes: args.nodes,
        clock: args.tc,
        concurrency: args.concurrency as usize,
        r_end: args.r_end,
        seed: args.seed,
        openings,
        max_plies: 400,
        log: args.out,
    };
    let summary = spsa::run(&config, &mut std::io::stdout()).map_err(usage)?;
    let [w, d, l] = summary.wdl;
    let faults = summary.faults;
    println!(
        "spsa: {} pairs done; this run: + {w}-{d}-{l} -; faults (illegal/forfeit/crash): {}/{}/{}",
        summary.pairs, faults.illegal, faults.forfeits, faults.crashes
    );
    print!("{}", spsa::summary_table(&summary));
    let total = faults.illegal + faults.forfeits + faults.crashes;
    if total > 0 {
        return Err(CliError::Failed(format!(
            "{total} fault(s) in the games; zero is the only acceptable count"
        )));
    }
    Ok(())
}
