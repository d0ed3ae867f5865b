//! The network evaluation (NNUE): a perspective net, 768 inputs → N hidden (×2) → 1.
//!
//! Owns the net file format (`format`), shared by the trainer that writes nets and the engine
//! that reads them; the net ready to evaluate (`network`); the accumulators a search thread
//! keeps by ply and updates incrementally (`accumulator`); the SIMD loops under both, chosen
//! at run time (`simd`); and the embedded net. It knows the board only through `chess`;
//! nothing of search or protocols.

pub mod accumulator;
pub mod format;
pub mod network;
pub mod simd;

pub use accumulator::{evaluate_from_scratch, AccumulatorStack};
pub use format::{NetError, NetFile};
pub use network::Network;
use std::sync::{Arc, OnceLock};

/// The net built into the binary: `DEFAULT_NET` in build.rs (its manifest beside it), or
/// the file `KESTREL_EVALFILE` names at build time (build.rs). `None` would make the
/// classical evaluation the default again.
pub const EMBEDDED: Option<&'static [u8]> = Some(include_bytes!(env!("KESTREL_NET")));
/// The embedded net's name: its file's name without the extension (e.g. `kestrel-7`).
pub const EMBEDDED_NAME: &str = env!("KESTREL_NET_NAME");

/// The embedded net, read once; `None` without one. A damaged embedded net is a build
/// error in all but name: it panics with the reason.
pub fn embedded() -> Option<Arc<Network>> {
    static NET: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    NET.get_or_init(|| {
        EMBEDDED.map(|bytes| {
            let file = NetFile::parse(bytes)
                .unwrap_or_else(|e| panic!("the embedded net cannot be read: {e}"));
            Arc::new(Network::new(&file))
        })
    })
    .clone()
}

/// Reads the net file at `path`. Its header is checked, and its length against the
/// header's, before the rest is read: a wrong file (a device, a FIFO, a huge file that is
/// no net) is refused at once, without reading it whole or waiting on it.
pub fn load(path: &std::path::Path) -> Result<Network, String> {
    use std::io::Read;
    let shown = path.display();
    let cannot = |e: std::io::Error| format!("cannot read net file {shown}: {e}");
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if !meta.is_file() {
        return Err(format!("net file {shown}: not a regular file"));
    }
    let damaged = |e: format::NetError| format!("net file {shown}: {e}");
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    (&mut file)
        .take(format::Header::MAX_BYTES as u64)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    let header = format::Header::parse(&bytes).map_err(damaged)?;
    let len = usize::try_from(meta.len()).unwrap_or(usize::MAX);
    header.check_len(len).map_err(damaged)?;
    // The length the header gives, and no more, whatever the file grew to meanwhile.
    (&mut file)
        .take((header.file_len() - bytes.len()) as u64)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    let net = NetFile::parse(&bytes).map_err(damaged)?;
    Ok(Network::new(&net))
}
