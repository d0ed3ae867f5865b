//! `kestrel strength-mates` and `kestrel calibrate`: the strength settings measured.

use super::{usage, CliError, CliResult};
use crate::cli::{CalibrateArgs, StrengthMatesArgs};
use kestrel::chess::Position;
use std::time::Instant;

pub fn strength_mates(args: StrengthMatesArgs) -> CliResult {
    use kestrel::search::strength::{FULL_STRENGTH_ELO, MIN_ELO};
    use kestrel::tools::mates::{self, Ending};
    let mut starts = Vec::new();
    for fen in &args.fen {
        match Position::from_fen(fen) {
            Ok(pos) if Ending::of(&pos).is_some() => starts.push(pos),
            Ok(_) => return Err(usage(format!("{fen}: not a KRvK or KQvK position"))),
            Err(e) => return Err(usage(format!("bad FEN ({e}): {fen}"))),
        }
    }
    let elos = if args.elo.is_empty() {
        // The lowest setting to the highest in steps of 200, the highest always included.
        let mut elos: Vec<i64> = (MIN_ELO..FULL_STRENGTH_ELO).step_by(200).collect();
        elos.push(FULL_STRENGTH_ELO);
        elos
    } else {
        args.elo
    };
    let config = mates::Config {
        elos,
        positions: args.positions as usize,
        fens: starts,
        seed: args.seed,
        full_nodes: args.full_nodes,
        threads: args.threads as usize,
    };
    let started = Instant::now();
    let tallies = mates::run(&config, &mut std::io::stdout()).map_err(usage)?;
    let games: usize = tallies.iter().map(|t| t.games.len()).sum();
    let mates: usize = tallies.iter().map(|t| t.mates()).sum();
    println!(
        "total: {mates}/{games} mated ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    if mates < games {
        return Err(CliError::Failed(format!(
            "{} of {games} games did not end in mate",
            games - mates
        )));
    }
    Ok(())
}

/// `kestrel calibrate`: the games and their report, or with `--reanalyse` the analysis
/// again of games already played.
pub fn calibrate(args: CalibrateArgs) -> CliResult {
    use kestrel::tools::calibrate::{self, Config, Opponent};
    if !args.reanalyse.is_empty() {
        return reanalyse(&args);
    }
    if !(args.margin.is_finite() && args.margin >= 0.0) {
        return Err(usage(
            "--margin must be zero or a positive number of seconds",
        ));
    }
    let engine = match args.engine.clone() {
        Some(engine) => engine,
        None => std::env::current_exe().map_err(|e| {
            usage(format!(
                "cannot find this program to play it ({e}); give --engine"
            ))
        })?,
    };
    let opponent = match args.versus_self_elo {
        Some(setting) => Opponent::Kestrel(setting),
        None => Opponent::Reference {
            program: calibrate::find_reference(&args.reference).map_err(usage)?,
            options: reference_options(&args.reference_opt)?,
            elo: args.reference_elo,
        },
    };
    let config = Config {
        engine,
        opponent,
        settings: if args.anchors {
            calibrate::anchor_settings()
        } else {
            args.elo.clone()
        },
        games: args.games as usize,
        time_control: args.tc,
        margin: args.margin,
        openings: super::data::openings_of(args.openings.as_deref())?,
        seed: args.seed,
        max_plies: args.max_plies as usize,
        analyse_nodes: args.analyse_nodes,
        concurrency: args.concurrency as usize,
        hash_mb: args.hash,
    };
    play_calibration(&config, args.pgn.as_deref())
}

/// The `--reference-opt NAME=VALUE` pairs.
fn reference_options(given: &[String]) -> Result<Vec<(String, String)>, CliError> {
    given
        .iter()
        .map(|opt| match opt.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                Ok((name.trim().to_string(), value.trim().to_string()))
            }
            _ => Err(usage(format!("--reference-opt '{opt}' is not NAME=VALUE"))),
        })
        .collect()
}

/// `kestrel calibrate --reanalyse`.
fn reanalyse(args: &CalibrateArgs) -> CliResult {
    use kestrel::tools::calibrate;
    let nodes = args.analyse_nodes;
    if nodes == 0 {
        return Err(usage("--analyse-nodes must be above 0 to reanalyse"));
    }
    let mut games = Vec::new();
    for file in &args.reanalyse {
        let text = std::fs::read_to_string(file)
            .map_err(|e| usage(format!("cannot read {}: {e}", file.display())))?;
        let read =
            calibrate::read_pgn(&text).map_err(|e| usage(format!("{}: {e}", file.display())))?;
        games.extend(read);
    }
    let results = calibrate::reanalyse(
        &games,
        args.games as usize,
        args.both_sides,
        nodes,
        args.concurrency as usize,
        args.hash as usize,
        &mut std::io::stdout(),
    )
    .map_err(usage)?;
    print!("{}", calibrate::losses_table(&results, nodes));
    Ok(())
}

/// Plays the calibration games, writes the PGN and fails on any fault of Kestrel's.
fn play_calibration(
    config: &kestrel::tools::calibrate::Config,
    pgn: Option<&std::path::Path>,
) -> CliResult {
    use kestrel::tools::calibrate::{self, Opponent};
    let mut pgn_file = match pgn {
        Some(path) => Some(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| usage(format!("cannot create {}: {e}", path.display())))?,
        )),
        None => None,
    };
    let mut out = std::io::stdout();
    let pgn_out = pgn_file.as_mut().map(|w| w as &mut dyn std::io::Write);
    let report = calibrate::run(config, &mut out, pgn_out).map_err(usage)?;
    if let Some(Err(e)) = pgn_file.as_mut().map(std::io::Write::flush) {
        return Err(usage(format!("writing the PGN: {e}")));
    }
    let versus_self = matches!(config.opponent, Opponent::Kestrel(_));
    let faults = report.kestrel_faults(versus_self);
    if faults > 0 {
        return Err(CliError::Failed(format!(
            "Kestrel had {faults} fault(s) (illegal moves, losses on time, crashes or \
             silences; see the faults columns); zero is the only acceptable count"
        )));
    }
    Ok(())
}
