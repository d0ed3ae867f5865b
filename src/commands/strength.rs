//! `kestrel strength-mates` and `kestrel calibrate`: the strength settings measured.

use kestrel::chess::Position;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `kestrel strength-mates`.
pub fn run_strength_mates(
    elos: Vec<i64>,
    positions: u64,
    fens: &[String],
    seed: u64,
    full_nodes: u64,
    threads: u32,
) -> ExitCode {
    use kestrel::search::strength::{FULL_STRENGTH_ELO, MIN_ELO};
    use kestrel::tools::mates::{self, Ending};
    let mut starts = Vec::new();
    for fen in fens {
        match Position::from_fen(fen) {
            Ok(pos) if Ending::of(&pos).is_some() => starts.push(pos),
            Ok(_) => {
                eprintln!("error: {fen}: not a KRvK or KQvK position");
                return ExitCode::from(2);
            }
            Err(e) => {
                eprintln!("error: bad FEN ({e}): {fen}");
                return ExitCode::from(2);
            }
        }
    }
    let elos = if elos.is_empty() {
        // The lowest setting to the highest in steps of 200, the highest always included.
        let mut elos: Vec<i64> = (MIN_ELO..FULL_STRENGTH_ELO).step_by(200).collect();
        elos.push(FULL_STRENGTH_ELO);
        elos
    } else {
        elos
    };
    let config = mates::Config {
        elos,
        positions: positions as usize,
        fens: starts,
        seed,
        full_nodes,
        threads: threads as usize,
    };
    let started = Instant::now();
    let mut out = std::io::stdout();
    match mates::run(&config, &mut out) {
        Ok(tallies) => {
            let games: usize = tallies.iter().map(|t| t.games.len()).sum();
            let mates: usize = tallies.iter().map(|t| t.mates()).sum();
            println!(
                "total: {mates}/{games} mated ({:.1} s)",
                started.elapsed().as_secs_f64()
            );
            if mates == games {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `kestrel calibrate --reanalyse`.
pub fn run_reanalyse(
    files: &[PathBuf],
    per_setting: usize,
    both_sides: bool,
    nodes: u64,
    threads: usize,
    hash_mb: usize,
) -> ExitCode {
    use kestrel::tools::calibrate;
    if nodes == 0 {
        eprintln!("error: --analyse-nodes must be above 0 to reanalyse");
        return ExitCode::from(2);
    }
    let mut games = Vec::new();
    for file in files {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
        match calibrate::read_pgn(&text) {
            Ok(read) => games.extend(read),
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                return ExitCode::from(2);
            }
        }
    }
    let mut out = std::io::stdout();
    match calibrate::reanalyse(
        &games,
        per_setting,
        both_sides,
        nodes,
        threads,
        hash_mb,
        &mut out,
    ) {
        Ok(results) => {
            print!("{}", calibrate::losses_table(&results, nodes));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `kestrel calibrate`.
pub fn run_calibrate(
    config: &kestrel::tools::calibrate::Config,
    pgn: Option<&std::path::Path>,
) -> ExitCode {
    use kestrel::tools::calibrate::{self, Opponent};
    let mut pgn_file = match pgn.map(std::fs::File::create).transpose() {
        Ok(file) => file.map(std::io::BufWriter::new),
        Err(e) => {
            eprintln!(
                "error: cannot create {}: {e}",
                pgn.map_or_else(String::new, |p| p.display().to_string())
            );
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout();
    let pgn_out = pgn_file.as_mut().map(|w| w as &mut dyn std::io::Write);
    let report = match calibrate::run(config, &mut out, pgn_out) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Some(Err(e)) = pgn_file.as_mut().map(std::io::Write::flush) {
        eprintln!("error: writing the PGN: {e}");
        return ExitCode::from(2);
    }
    let versus_self = matches!(config.opponent, Opponent::Kestrel(_));
    let faults = report.kestrel_faults(versus_self);
    if faults > 0 {
        eprintln!(
            "error: Kestrel had {faults} fault(s) (illegal moves, losses on time, crashes or \
             silences; see the faults columns); zero is the only acceptable count"
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
