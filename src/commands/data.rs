//! `kestrel datagen` and `kestrel convert`: training data from self-play, and between formats.

use super::{usage, CliError, CliResult};
use crate::cli::{ConvertArgs, DatagenArgs};
use kestrel::chess::Position;
use std::time::Instant;

/// The positions of an openings file (`kestrel::tools::genfens::read_book`).
pub fn read_openings(path: &std::path::Path) -> Result<Vec<Position>, String> {
    kestrel::tools::genfens::read_book(path)
}

/// The openings of `--openings`, if given (none: the tool's own default).
pub fn openings_of(path: Option<&std::path::Path>) -> Result<Vec<Position>, CliError> {
    path.map_or(Ok(Vec::new()), |path| read_openings(path).map_err(usage))
}

pub fn datagen(args: DatagenArgs) -> CliResult {
    let openings = openings_of(args.openings.as_deref())?;
    if args.first_game >= args.games {
        return Err(usage(format!(
            "--first-game {} is not below --games {}",
            args.first_game, args.games
        )));
    }
    if args.soft_nodes.is_some_and(|soft| soft > args.nodes) {
        return Err(usage(
            "--soft-nodes must not exceed --nodes (the hard limit)",
        ));
    }
    let config = kestrel::tools::datagen::Config {
        games: args.games,
        first_game: args.first_game,
        nodes: args.nodes,
        soft_nodes: args.soft_nodes,
        threads: args.threads as usize,
        seed: args.seed,
        random_plies: args.random_plies,
        hash_mb: args.hash as usize,
        openings,
        format: args.format,
    };
    let out = &args.out;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| usage(format!("cannot open {}: {e}", out.display())))?;
    let mut writer = std::io::BufWriter::new(file);
    let every = std::time::Duration::from_secs(10);
    let summary = kestrel::tools::datagen::run(&config, &mut writer, &mut std::io::stderr(), every)
        .map_err(|e| CliError::Failed(format!("writing {}: {e}", out.display())))?;
    eprintln!("{}", summary.line(config.games - config.first_game));
    eprintln!(
        "datagen: wrote {} positions to {} in {:.1} s",
        summary.positions,
        out.display(),
        summary.elapsed.as_secs_f64()
    );
    Ok(())
}

pub fn convert(args: &ConvertArgs) -> CliResult {
    use std::io::{BufReader, BufWriter};
    let (input, output) = (&args.input, &args.output);
    let start = Instant::now();
    let mut reader = std::fs::File::open(input)
        .map(BufReader::new)
        .map_err(|e| usage(format!("cannot read {}: {e}", input.display())))?;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(output)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => usage(format!(
                "{} exists; remove it or choose another name",
                output.display()
            )),
            _ => usage(format!("cannot create {}: {e}", output.display())),
        })?;
    let mut writer = BufWriter::new(file);
    let report =
        kestrel::tools::training_data::convert_text(&mut reader, &mut writer).map_err(|e| {
            CliError::Failed(format!(
                "converting {} to {}: {e}",
                input.display(),
                output.display()
            ))
        })?;
    for (line, error) in &report.errors {
        eprintln!("{}:{line}: skipped: {error}", input.display());
    }
    if report.malformed > report.errors.len() as u64 {
        eprintln!(
            "... and {} more malformed lines",
            report.malformed - report.errors.len() as u64
        );
    }
    eprintln!(
        "convert: {} records from {} lines ({} comments or blank, {} malformed) to {} in {:.1} s",
        report.records,
        report.lines,
        report.skipped_comments,
        report.malformed,
        output.display(),
        start.elapsed().as_secs_f64()
    );
    // Nothing to train on is a failed conversion, not an empty file to find later.
    if report.records == 0 {
        drop(writer);
        let _ = std::fs::remove_file(output);
        return Err(CliError::Failed(format!(
            "no position converted: {} holds no valid position line ({} malformed); {} not written",
            input.display(),
            report.malformed,
            output.display()
        )));
    }
    Ok(())
}
