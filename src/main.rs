use clap::{Parser, Subcommand};
use kestrel::chess::{perft, Position, STARTPOS_FEN};
use std::process::ExitCode;
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "kestrel",
    version,
    about = "A chess engine for the WinBoard/xboard protocol"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree to DEPTH.
    Perft {
        depth: u32,
        /// Position to start from (default: the initial position).
        #[arg(long, default_value = STARTPOS_FEN)]
        fen: String,
        /// Print the count under each root move.
        #[arg(long)]
        divide: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Perft { depth, fen, divide }) => run_perft(depth, &fen, divide),
        None => {
            env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
                .format_timestamp_millis()
                .init();
            kestrel::protocol::run_stdio();
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
    println!("time {:.3} s", secs);
    println!("speed {:.1} Mnps", nodes as f64 / secs.max(1e-9) / 1e6);
    ExitCode::SUCCESS
}
