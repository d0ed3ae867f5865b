//! The xboard protocol: `input` (the reader thread), `xboard` (command parsing and reply
//! formatting), `driver` (the loop and its state).

pub mod core;
pub mod driver;
pub mod input;
pub mod terminal;
pub mod transcript;
pub mod xboard;

/// Runs a protocol session on stdin/stdout until `quit` or end of input, writing a
/// transcript to `log` if given.
pub fn run_stdio(log: Option<&std::path::Path>) -> std::io::Result<()> {
    ignore_sigint();
    let rx = input::spawn_reader(std::io::BufReader::new(std::io::stdin()));
    let mut driver = driver::Driver::new(rx, Box::new(std::io::stdout()));
    driver.set_transcript(log)?;
    driver.run();
    Ok(())
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
