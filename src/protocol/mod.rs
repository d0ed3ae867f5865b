//! The protocols: `input` (the reader thread), `transcript` (the session log), and two front
//! ends on the engine (`crate::engine`): `xboard` and `uci`, each parsing its language into
//! calls on the engine and formatting what comes back, nothing more. The first command
//! chooses: `uci` starts UCI, anything else (`xboard`, `protover`, a terminal command) xboard.

pub mod input;
pub mod uci;
pub mod xboard;

use crossbeam_channel::Receiver;
use std::io::Write;

/// Runs a protocol session on stdin/stdout until `quit` or end of input, writing a
/// transcript to `log` if given. `commands` (the command line's words, as OpenBench's
/// `./engine "genfens ..." quit` gives them) are read first, one command each, then stdin.
/// True if a command whose failure is the session's failed (`Io::failed`).
pub fn run_stdio(log: Option<&std::path::Path>, commands: &[String]) -> std::io::Result<bool> {
    use std::io::Read;
    ignore_sigint();
    let mut given = String::new();
    for command in commands {
        given.push_str(command);
        given.push('\n');
    }
    let input = std::io::Cursor::new(given.into_bytes()).chain(std::io::stdin());
    let rx = input::spawn_reader(std::io::BufReader::new(input));
    run_session(rx, Box::new(std::io::stdout()), log)
}

/// Whether `line` is a command of either protocol (its first word known to xboard's parser,
/// or `uci`): what the command line may give in place of a subcommand.
pub fn is_command(line: &str) -> bool {
    line.split_whitespace().next() == Some("uci")
        || !matches!(
            xboard::commands::Command::parse(line),
            Err(xboard::commands::CommandError::Unknown(_))
        )
}

/// Runs a session on lines from `rx`, in the protocol its first command chooses. True if a
/// command whose failure is the session's failed.
pub fn run_session(
    rx: Receiver<String>,
    out: Box<dyn Write + Send>,
    log: Option<&std::path::Path>,
) -> std::io::Result<bool> {
    let mut io = crate::engine::Io::new(rx, out);
    io.transcript.open(log)?;
    // Blank lines before the first command mean nothing in either protocol.
    let first = loop {
        let line = io.receive();
        if !line.trim().is_empty() {
            break line;
        }
    };
    let is_uci = first.trim() == "uci";
    io.pending.push_back(first);
    if is_uci {
        uci::UciSession::new(io).run();
        Ok(false)
    } else {
        let mut session = xboard::XboardSession::with_io(io, crate::search::tt::DEFAULT_HASH_MB);
        session.run();
        Ok(session.failed())
    }
}

/// XBoard may send SIGINT when the user acts while the engine thinks; we declare
/// `sigint=0`, and ignore the signal in case a GUI sends it anyway.
fn ignore_sigint() {
    #[cfg(unix)]
    {
        extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        const SIGINT: i32 = 2;
        const SIG_IGN: usize = 1;
        // SAFETY: installing SIG_IGN for SIGINT has no preconditions.
        unsafe {
            signal(SIGINT, SIG_IGN);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::options::{DefaultValue, EngineOption, Kind, Offer, Protocol, OPTIONS};
    use crate::engine::{Engine, Io};

    /// A row added to the table shows in both protocols' announcements, and both set it,
    /// with no other edit.
    #[test]
    fn a_new_row_is_announced_and_set_by_both_protocols() {
        let row = EngineOption {
            name: "TestLines",
            aliases: &["Test Lines"],
            kind: Kind::Spin {
                min: 2,
                max: 9,
                unit: "",
            },
            default: DefaultValue::Int(4),
            xboard_default: None,
            uci: Offer::Option,
            xboard: Offer::Option,
            apply: |engine, value| {
                engine.multi_pv = match value {
                    crate::engine::options::Value::Int(n) => n as usize,
                    _ => unreachable!(),
                };
                Ok(vec![format!("lines {}", engine.multi_pv)])
            },
        };
        let table: &'static [EngineOption] = Vec::leak([OPTIONS, &[row]].concat());
        let uci = super::uci::commands::option_lines(table);
        let xboard = super::xboard::commands::feature_options(table);
        assert_eq!(
            uci.len(),
            super::uci::commands::option_lines(OPTIONS).len() + 1
        );
        assert_eq!(
            uci.last().unwrap(),
            "option name TestLines type spin default 4 min 2 max 9"
        );
        assert_eq!(
            xboard.last().unwrap(),
            "feature option=\"TestLines -spin 4 2 9\""
        );
        let (_tx, rx) = crossbeam_channel::unbounded();
        let mut engine = Engine::new(Io::new(rx, Box::new(std::io::sink())), 1);
        for (protocol, name, value) in [
            (Protocol::Uci, "testlines", "7"),
            // An earlier name of the row.
            (Protocol::Xboard, "Test Lines", "3"),
        ] {
            let shown = engine.set_option_in(table, protocol, name, Some(value));
            assert_eq!(shown, Ok(vec![format!("lines {value}")]));
        }
        assert!(engine
            .set_option_in(table, Protocol::Uci, "Test Lines", Some("10"))
            .is_err());
        assert_eq!(engine.multi_pv, 3);
    }
}
