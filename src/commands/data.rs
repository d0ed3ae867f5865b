//! `kestrel datagen` and `kestrel convert`: training data from self-play, and between formats.

use kestrel::chess::Position;
use std::process::ExitCode;
use std::time::Instant;

/// The positions of an openings file: EPD or FEN lines, of which the first four fields
/// (placement, side, castling, en passant) are read. A bad line is an error.
pub fn read_openings(path: &std::path::Path) -> Result<Vec<Position>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().take(4).collect();
        if fields.is_empty() || fields[0].starts_with('#') {
            continue;
        }
        let fen = format!("{} 0 1", fields.join(" "));
        match Position::from_fen(&fen) {
            Ok(pos) => positions.push(pos),
            Err(e) => return Err(format!("{}:{}: {e}", path.display(), i + 1)),
        }
    }
    if positions.is_empty() {
        return Err(format!("{} holds no positions", path.display()));
    }
    Ok(positions)
}

pub fn run_datagen(config: &kestrel::tools::datagen::Config, out: &std::path::Path) -> ExitCode {
    let file = match std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
    {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: cannot open {}: {e}", out.display());
            return ExitCode::from(2);
        }
    };
    let mut writer = std::io::BufWriter::new(file);
    let every = std::time::Duration::from_secs(10);
    match kestrel::tools::datagen::run(config, &mut writer, &mut std::io::stderr(), every) {
        Ok(summary) => {
            eprintln!("{}", summary.line(config.games - config.first_game));
            eprintln!(
                "datagen: wrote {} positions to {} in {:.1} s",
                summary.positions,
                out.display(),
                summary.elapsed.as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: writing {}: {e}", out.display());
            ExitCode::from(1)
        }
    }
}

pub fn run_convert(input: &std::path::Path, output: &std::path::Path) -> ExitCode {
    use std::io::{BufReader, BufWriter};
    let start = Instant::now();
    let reader = match std::fs::File::open(input) {
        Ok(f) => BufReader::new(f),
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", input.display());
            return ExitCode::from(2);
        }
    };
    let file = match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(output)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            eprintln!(
                "error: {} exists; remove it or choose another name",
                output.display()
            );
            return ExitCode::from(2);
        }
        Err(e) => {
            eprintln!("error: cannot create {}: {e}", output.display());
            return ExitCode::from(2);
        }
    };
    let mut reader = reader;
    let mut writer = BufWriter::new(file);
    let report = match kestrel::tools::data::convert_text(&mut reader, &mut writer) {
        Ok(report) => report,
        Err(e) => {
            eprintln!(
                "error: converting {} to {}: {e}",
                input.display(),
                output.display()
            );
            return ExitCode::from(1);
        }
    };
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
    ExitCode::SUCCESS
}
