//! What each tool subcommand of the `kestrel` binary does once its arguments are parsed:
//! checks that need the command line's words in their messages, progress lines and the exit
//! status. Part of the binary, not of the library; the tools themselves are in `kestrel::tools`.

pub mod data;
pub mod search;
pub mod strength;
pub mod train;
