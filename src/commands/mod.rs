//! What `kestrel` does once clap has read its arguments: the protocol session, or one tool
//! subcommand. Each command checks what clap cannot (values that depend on each other, files
//! to read), prints its progress and report, and returns a `CliError` when it cannot start or
//! fails; `main` prints that and picks the exit status. Part of the binary, not of the
//! library; the tools themselves are in `kestrel::tools`.

pub mod data;
pub mod search;
pub mod strength;
pub mod train;

use crate::cli::{Cli, Command};
use std::process::ExitCode;

/// Why a command did not succeed.
#[derive(Debug)]
pub enum CliError {
    /// It could not start: arguments that do not fit together, a file it cannot read, a
    /// program it cannot run. Exit status 2, as for arguments clap refuses.
    Usage(String),
    /// It ran and failed: a write that failed, a check that did not hold. Exit status 1.
    Failed(String),
}

impl CliError {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            CliError::Failed(_) => ExitCode::FAILURE,
        }
    }
}

impl std::fmt::Display for CliError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CliError::Usage(message) | CliError::Failed(message) => f.write_str(message),
        }
    }
}

/// A command's outcome.
pub type CliResult = Result<(), CliError>;

/// A usage error from anything printable (most checks build their message in place).
pub fn usage(message: impl std::fmt::Display) -> CliError {
    CliError::Usage(message.to_string())
}

/// The net of a tool's `--eval-file`, read now so a bad file is refused before any work;
/// None (no file) leaves the tool's searcher on the embedded net.
pub fn net_file(
    path: Option<&std::path::Path>,
) -> Result<Option<std::sync::Arc<kestrel::nnue::Network>>, CliError> {
    path.map(|path| {
        kestrel::nnue::load(path)
            .map(std::sync::Arc::new)
            .map_err(usage)
    })
    .transpose()
}

/// A protocol session on stdin, after `commands`.
fn session(log: Option<&std::path::Path>, commands: &[String]) -> CliResult {
    let failed = kestrel::protocol::run_stdio(log, commands)
        .map_err(|e| usage(format!("cannot open the log file: {e}")))?;
    if failed {
        return Err(CliError::Failed(
            "a command failed (see its Error line)".into(),
        ));
    }
    Ok(())
}

/// Runs what the command line asked for. One arm per subcommand.
pub fn run(cli: Cli) -> CliResult {
    let Some(command) = cli.command else {
        return session(cli.log.as_deref(), &[]);
    };
    match command {
        Command::Commands(commands) => {
            if cli.log.is_some() {
                // Clap hands `--log FILE perft 1` over as commands: a subcommand it is not.
                return Err(usage(
                    "--log is for a session on stdin: no subcommand or command-line command \
                     goes with it",
                ));
            }
            let first = &commands[0];
            if !kestrel::protocol::is_command(first) {
                return Err(usage(format!(
                    "'{first}' is neither a subcommand nor a protocol command (kestrel --help \
                     lists the subcommands, `help` in a session the commands)"
                )));
            }
            session(None, &commands)
        }
        Command::Perft(args) => search::perft(&args),
        Command::Params => {
            print!("{}", kestrel::search::params::spsa_input());
            Ok(())
        }
        Command::Spsa(args) => search::spsa(args),
        Command::Bench(args) => search::bench(args),
        Command::Epd(args) => search::epd(&args),
        Command::Datagen(args) => data::datagen(args),
        Command::Rescore(args) => data::rescore(&args),
        Command::Convert(args) => data::convert(&args),
        Command::WdlFit(args) => data::wdl_fit(&args),
        Command::Train(args) => train::train(args),
        Command::NetLoss(args) => train::net_loss(&args),
        Command::Tune(args) => train::tune(args),
        Command::StrengthMates(args) => strength::strength_mates(args),
        Command::Calibrate(args) => strength::calibrate(args),
    }
}
