//! `kestrel datagen`, `kestrel rescore` and `kestrel convert`: training data from self-play,
//! searched again deeper, and between formats.

use super::{usage, CliError, CliResult};
use crate::cli::{ConvertArgs, DatagenArgs, RescoreArgs, WdlFitArgs};
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

/// A writer appending to `out` (a run resumed adds to its file), created if need be.
fn append_to(out: &std::path::Path) -> Result<std::io::BufWriter<std::fs::File>, CliError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map(std::io::BufWriter::new)
        .map_err(|e| usage(format!("cannot open {}: {e}", out.display())))
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
    let net = super::net_file(args.eval_file.as_deref())?;
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
        net,
    };
    let out = &args.out;
    let mut writer = append_to(out)?;
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

pub fn rescore(args: &RescoreArgs) -> CliResult {
    if args.end_line.is_some_and(|end| end <= args.first_line) {
        return Err(usage(format!(
            "--end-line must be above --first-line {}",
            args.first_line
        )));
    }
    let config = kestrel::tools::rescore::Config {
        nodes: args.nodes,
        threads: args.threads as usize,
        hash_mb: args.hash as usize,
        first_line: args.first_line,
        end_line: args.end_line,
        net: super::net_file(args.eval_file.as_deref())?,
    };
    let (data, out) = (&args.data, &args.out);
    let same = std::fs::canonicalize(data)
        .ok()
        .is_some_and(|data| std::fs::canonicalize(out).is_ok_and(|out| out == data));
    if same {
        return Err(usage("--out must not be the --data file"));
    }
    let mut input = std::fs::File::open(data)
        .map(std::io::BufReader::new)
        .map_err(|e| usage(format!("cannot read {}: {e}", data.display())))?;
    let mut writer = append_to(out)?;
    let every = std::time::Duration::from_secs(10);
    let summary = kestrel::tools::rescore::run(
        &config,
        &mut input,
        &mut writer,
        &mut std::io::stderr(),
        every,
    )
    .map_err(|e| {
        CliError::Failed(format!(
            "rescoring {} to {}: {e}",
            data.display(),
            out.display()
        ))
    })?;
    for (line, why) in &summary.errors {
        eprintln!("{}:{line}: left out: {why}", data.display());
    }
    eprintln!("{}", summary.line());
    if summary.lines == 0 {
        return Err(CliError::Failed(format!(
            "no line of {} from line {} on",
            data.display(),
            args.first_line
        )));
    }
    Ok(())
}

pub fn convert(args: &ConvertArgs) -> CliResult {
    use kestrel::tools::training_data::DataFormat;
    use std::io::BufReader;
    let (input, output) = (&args.input, &args.output);
    let is_pgn = input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    if !is_pgn && args.format == DataFormat::Text {
        return Err(usage(format!(
            "{} is text data already: --format text converts a PGN (a name ending in .pgn)",
            input.display()
        )));
    }
    if !is_pgn && args.player.is_some() {
        return Err(usage(
            "--player chooses among a PGN's players (a name ending in .pgn)",
        ));
    }
    let start = Instant::now();
    let mut reader = std::fs::File::open(input)
        .map(BufReader::new)
        .map_err(|e| usage(format!("cannot read {}: {e}", input.display())))?;
    let mut writer = create_new(output)?;
    let (written, nothing) = if is_pgn {
        convert_games(args, &mut reader, &mut writer, start)?
    } else {
        convert_lines(args, &mut reader, &mut writer, start)?
    };
    // Nothing to train on is a failed conversion, not an empty file to find later.
    if written == 0 {
        drop(writer);
        let _ = std::fs::remove_file(output);
        return Err(CliError::Failed(format!(
            "no position converted: {nothing}; {} not written",
            output.display()
        )));
    }
    Ok(())
}

/// A writer on `output`, which must not exist yet (a conversion never overwrites).
fn create_new(output: &std::path::Path) -> Result<std::io::BufWriter<std::fs::File>, CliError> {
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
    Ok(std::io::BufWriter::new(file))
}

/// The error of a conversion that failed while reading or writing.
fn conversion_failed(args: &ConvertArgs) -> impl Fn(std::io::Error) -> CliError + '_ {
    move |e| {
        CliError::Failed(format!(
            "converting {} to {}: {e}",
            args.input.display(),
            args.output.display()
        ))
    }
}

/// A PGN's scored moves into training records: how many, and why none if none.
fn convert_games(
    args: &ConvertArgs,
    reader: &mut dyn std::io::BufRead,
    writer: &mut dyn std::io::Write,
    start: Instant,
) -> Result<(u64, String), CliError> {
    let input = &args.input;
    let report =
        kestrel::tools::pgn_data::convert_pgn(reader, args.player.as_deref(), args.format, writer)
            .map_err(conversion_failed(args))?;
    let named: Vec<String> = report
        .skipped
        .iter()
        .map(|(game, line, why)| format!("{}:{line}: game {game} skipped: {why}", input.display()))
        .collect();
    print_named(&named, report.skipped_count, "games skipped");
    eprintln!(
        "convert: {} positions from {} of {} games ({} adjudicated, {} lost on time, {} \
         skipped) to {} in {:.1} s; moves not kept: {} book, {} unscored, {} mate \
         scores, {} in check or captures, {} repeats",
        report.positions,
        report.converted,
        report.games,
        report.adjudicated,
        report.time_losses,
        report.skipped_count,
        args.output.display(),
        start.elapsed().as_secs_f64(),
        report.book_moves,
        report.unscored_moves,
        report.mate_scores,
        report.in_check_or_tactical,
        report.repeats,
    );
    let why = format!(
        "{} holds no scored position to train on ({} of {} games skipped{})",
        input.display(),
        report.skipped_count,
        report.games,
        match &args.player {
            Some(p) => format!(", players matching '{p}'"),
            None => String::new(),
        }
    );
    Ok((report.positions, why))
}

/// Text position lines into binary records: how many, and why none if none.
fn convert_lines(
    args: &ConvertArgs,
    reader: &mut dyn std::io::BufRead,
    writer: &mut dyn std::io::Write,
    start: Instant,
) -> Result<(u64, String), CliError> {
    let input = &args.input;
    let report = kestrel::tools::training_data::convert_text(reader, writer)
        .map_err(conversion_failed(args))?;
    let named: Vec<String> = report
        .errors
        .iter()
        .map(|(line, error)| format!("{}:{line}: skipped: {error}", input.display()))
        .collect();
    print_named(&named, report.malformed, "malformed lines");
    eprintln!(
        "convert: {} records from {} lines ({} comments or blank, {} malformed) to {} in {:.1} s",
        report.records,
        report.lines,
        report.skipped_comments,
        report.malformed,
        args.output.display(),
        start.elapsed().as_secs_f64()
    );
    let why = format!(
        "{} holds no valid position line ({} malformed)",
        input.display(),
        report.malformed
    );
    Ok((report.records, why))
}

/// The first problems of a conversion, one a line, and how many more of `total` there were.
fn print_named(named: &[String], total: u64, more: &str) {
    for line in named {
        eprintln!("{line}");
    }
    if total > named.len() as u64 {
        eprintln!("... and {} more {more}", total - named.len() as u64);
    }
}

pub fn wdl_fit(args: &WdlFitArgs) -> CliResult {
    use kestrel::search::wdl;
    use kestrel::tools::wdl_fit::{self, Cells};
    if !(0.0..1.0).contains(&args.holdout) {
        return Err(usage(format!(
            "--holdout must be in [0, 1), not {}",
            args.holdout
        )));
    }
    let (mut fit_cells, mut check) = (Cells::default(), Cells::default());
    for input in &args.input {
        let file = std::fs::File::open(input)
            .map_err(|e| usage(format!("cannot read {}: {e}", input.display())))?;
        let bad = wdl_fit::read_split(
            std::io::BufReader::new(file),
            args.holdout,
            &mut fit_cells,
            &mut check,
        )
        .map_err(|e| CliError::Failed(format!("reading {}: {e}", input.display())))?;
        if bad > 0 {
            eprintln!("{}: {bad} lines that are no data skipped", input.display());
        }
    }
    if fit_cells.positions == 0 {
        return Err(CliError::Failed("no data line to fit".into()));
    }
    let start = Instant::now();
    let fit = wdl_fit::fit(&fit_cells, args.iterations);
    println!(
        "wdl-fit: {} positions fitted, {} held out, loss {:.5} per position, {:.1} s",
        fit_cells.positions,
        check.positions,
        fit.loss,
        start.elapsed().as_secs_f64()
    );
    println!(
        "pub const A: [f64; 4] = {:?};",
        fit.a.map(|c| (c * 1000.0).round() / 1000.0)
    );
    println!(
        "pub const B: [f64; 4] = {:?};",
        fit.b.map(|c| (c * 1000.0).round() / 1000.0)
    );
    for material in [20, 30, 40, 50, 58, 70, 78] {
        let (a, b) = wdl::params_at(material, &fit.a, &fit.b);
        println!("material {material:>2}: a {a:>6.1} b {b:>5.1}");
    }
    let table = if check.positions > 0 {
        &check
    } else {
        &fit_cells
    };
    println!(
        "shown cp        positions  observed win  predicted win  ({})",
        if check.positions > 0 {
            "held out"
        } else {
            "fitted data"
        }
    );
    for bucket in table.calibration(&fit.a, &fit.b, 50, 0) {
        println!(
            "{:>5} to {:>4}  {:>10.0}  {:>11.1}%  {:>12.1}%",
            bucket.from,
            bucket.to,
            bucket.positions,
            100.0 * bucket.observed_win,
            100.0 * bucket.predicted_win
        );
    }
    // What +1.00 means: a 50% chance to win, by the model; and by the model the engine has
    // now, on the same positions, so that a refit is taken only where it does better.
    for (model, a, b) in [("this fit", &fit.a, &fit.b), ("in place", &wdl::A, &wdl::B)] {
        if let Some(pawn) = table
            .calibration(a, b, 20, 10)
            .into_iter()
            .find(|bucket| bucket.from == 90)
        {
            println!(
                "shown +0.90 to +1.10 ({model}): {:.0} positions, observed win {:.1}%, predicted {:.1}%",
                pawn.positions,
                100.0 * pawn.observed_win,
                100.0 * pawn.predicted_win
            );
        }
    }
    Ok(())
}
