//! The `kestrel` command: a protocol session by default, or a tool subcommand.

use clap::{Parser, Subcommand};
use kestrel::chess::{perft, Position, STARTPOS_FEN};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "kestrel",
    version,
    about = "A chess engine for the WinBoard/xboard protocol (CECP v2) and UCI",
    long_about = "A chess engine for the WinBoard/xboard protocol (CECP v2) and UCI.\n\n\
        Without a subcommand Kestrel reads protocol commands on stdin; the first one \
        chooses: 'uci' starts UCI (any UCI GUI, cutechess-cli proto=uci), anything else \
        xboard (xboard -fcp kestrel, cutechess-cli proto=xboard), or type commands \
        yourself (try 'help'). Set RUST_LOG=debug for a debug log on stderr."
)]
struct Cli {
    /// Write a transcript of the protocol session (every line in and out, with times).
    #[arg(long, value_name = "FILE", global = true)]
    log: Option<PathBuf>,

    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree to DEPTH (move generator check and speed).
    Perft {
        /// Plies to count, 1 or more.
        #[arg(value_parser = clap::value_parser!(u32).range(1..=20))]
        depth: u32,
        /// Position to start from.
        #[arg(long, default_value = STARTPOS_FEN)]
        fen: String,
        /// Print the count under each root move.
        #[arg(long)]
        divide: bool,
    },
    /// Search the fixed bench positions; prints total nodes (the search's signature) and nps.
    Bench {
        /// Depth of every search.
        #[arg(default_value_t = kestrel::bench::DEFAULT_DEPTH,
              value_parser = clap::value_parser!(u32).range(1..=30))]
        depth: u32,
        /// Print a line per position.
        #[arg(long, short)]
        verbose: bool,
        /// Search threads (1 keeps the node count deterministic: the bench signature).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
        threads: u32,
    },
    /// Run an EPD test suite (positions with bm/am): per position the move found, whether it
    /// is solved and when it was found; the total at the end. Progress goes to stderr.
    Epd {
        /// The EPD file (e.g. wac.epd).
        file: PathBuf,
        /// Seconds per position (the default when no limit is given is 1).
        #[arg(long, value_name = "SECONDS")]
        time: Option<f64>,
        /// Depth limit per position.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
        depth: Option<u32>,
        /// Node limit per position.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        nodes: Option<u64>,
        /// Search threads.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
        threads: u32,
        /// Hash table size in MB.
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=4096))]
        hash: u64,
    },
    /// Play self-play games at a fixed node count and write their quiet positions, with the
    /// search score and the game result, as training data for `tune` (`FEN | score |
    /// result`, White's view). The same seed writes the same file for any thread count.
    Datagen {
        /// Games to play.
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
        games: u64,
        /// Nodes per move.
        #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(100..))]
        nodes: u64,
        /// Games played at once (one search thread each).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: u32,
        /// Seed of the random opening choices and plies.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Uniformly random plies played after the opening.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=40))]
        random_plies: u32,
        /// Openings (EPD or FEN, one per line) to start from; without it, the start position.
        #[arg(long, value_name = "FILE")]
        openings: Option<PathBuf>,
        /// Hash table per game thread, MB.
        #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=4096))]
        hash: u64,
        /// Where to write the positions (appended to if it exists).
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format_timestamp_millis()
        .init();
    match cli.command {
        None => match kestrel::protocol::run_stdio(cli.log.as_deref()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: cannot open the log file: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Perft { depth, fen, divide }) => run_perft(depth, &fen, divide),
        Some(Command::Epd {
            file,
            time,
            depth,
            nodes,
            threads,
            hash,
        }) => run_epd(&file, time, depth, nodes, threads, hash as usize),
        Some(Command::Datagen {
            games,
            nodes,
            threads,
            seed,
            random_plies,
            openings,
            hash,
            out,
        }) => {
            let openings = match openings.as_deref().map(read_openings).transpose() {
                Ok(openings) => openings.unwrap_or_default(),
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            let config = kestrel::datagen::Config {
                games,
                nodes,
                threads: threads as usize,
                seed,
                random_plies,
                hash_mb: hash as usize,
                openings,
            };
            run_datagen(&config, &out)
        }
        Some(Command::Bench {
            depth,
            verbose,
            threads,
        }) => {
            let r = kestrel::bench::run(depth, threads as usize, &mut std::io::stdout(), verbose);
            println!(
                "bench depth {depth}: {} nodes {} nps ({:.2} s)",
                r.nodes,
                r.nps(),
                r.elapsed.as_secs_f64()
            );
            ExitCode::SUCCESS
        }
    }
}

fn run_perft(depth: u32, fen: &str, divide: bool) -> ExitCode {
    let pos = match Position::from_fen(fen) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: bad FEN: {e}");
            return ExitCode::from(2);
        }
    };
    let start = Instant::now();
    let nodes = if divide {
        let mut total = 0;
        for (mv, n) in perft::divide(&pos, depth) {
            println!("{}: {n}", pos.coordinate(mv));
            total += n;
        }
        println!();
        total
    } else {
        perft::perft(&pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("nodes {nodes}");
    println!("time {secs:.3} s");
    println!("speed {:.1} Mnps", nodes as f64 / secs.max(1e-9) / 1e6);
    ExitCode::SUCCESS
}

fn run_epd(
    file: &std::path::Path,
    time: Option<f64>,
    depth: Option<u32>,
    nodes: Option<u64>,
    threads: u32,
    hash_mb: usize,
) -> ExitCode {
    use kestrel::epd::{read_epd_file, run_suite, EpdLimits};
    if let Some(t) = time.filter(|t| !t.is_finite() || *t <= 0.0 || *t > 1e6) {
        eprintln!("error: --time must be a positive number of seconds, not {t}");
        return ExitCode::from(2);
    }
    let lines = match read_epd_file(file) {
        Ok(lines) => lines,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let mut entries = Vec::new();
    for (line, parsed) in lines {
        match parsed {
            Ok(entry) => entries.push(entry),
            Err(e) => eprintln!("{}:{line}: skipped: {e}", file.display()),
        }
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
    run_suite(
        &entries,
        &limits,
        &mut std::io::stdout(),
        &mut std::io::stderr(),
    );
    ExitCode::SUCCESS
}

/// The positions of an openings file: EPD or FEN lines, of which the first four fields
/// (placement, side, castling, en passant) are read. A bad line is an error.
fn read_openings(path: &std::path::Path) -> Result<Vec<Position>, String> {
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

fn run_datagen(config: &kestrel::datagen::Config, out: &std::path::Path) -> ExitCode {
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
    match kestrel::datagen::run(config, &mut writer, &mut std::io::stderr(), every) {
        Ok(summary) => {
            eprintln!("{}", summary.line(config.games));
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
