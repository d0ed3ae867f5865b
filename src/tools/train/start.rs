//! A run's starting state, from the command line's choices: fresh weights, the checkpoint of
//! a stopped run, or a net file to fine-tune; each checked against the shape asked for.

use super::{Network, Options, Trainer};
use std::path::{Path, PathBuf};

/// Where a run starts from.
pub enum Start {
    /// Random weights.
    Fresh,
    /// OUT/checkpoint.bin.
    Resume,
    /// A net file's weights.
    Init(PathBuf),
}

/// Which parts of the net's shape the options were given explicitly (the others are
/// defaults, which a checkpoint or net file overrides).
pub struct Shape {
    pub hidden: bool,
    pub activation: bool,
    pub output_buckets: bool,
    pub king_buckets: bool,
}

/// The trainer a run in `out` starts with, and a line saying where it started when that is
/// not fresh weights. `options` takes the shape of a resumed or initial net. A refusal is
/// the reason, for a person.
pub fn start(
    options: &mut Options,
    given: &Shape,
    from: &Start,
    out: &Path,
) -> Result<(Trainer, Option<String>), String> {
    if !options.hidden.is_multiple_of(16) {
        return Err(format!(
            "--hidden must be a multiple of 16, not {}",
            options.hidden
        ));
    }
    let checkpoint = out.join("checkpoint.bin");
    if let Start::Resume = from {
        return resume(options, given, &checkpoint);
    }
    if checkpoint.exists() {
        return Err(format!(
            "{} exists: add --resume to continue it, or choose another --out",
            checkpoint.display()
        ));
    }
    match from {
        Start::Init(path) => init(options, given, path),
        _ => Ok((Trainer::new(options), None)),
    }
}

/// The trainer of a stopped run, whose shape the options must not contradict.
fn resume(
    options: &mut Options,
    given: &Shape,
    checkpoint: &Path,
) -> Result<(Trainer, Option<String>), String> {
    let bytes = std::fs::read(checkpoint)
        .map_err(|e| format!("--resume: cannot read {}: {e}", checkpoint.display()))?;
    let trainer = Trainer::from_checkpoint(&bytes)
        .map_err(|e| format!("--resume: {}: {e}", checkpoint.display()))?;
    let net = &trainer.net;
    if (given.hidden && options.hidden != net.hidden)
        || (given.activation && options.activation != net.activation)
        || (given.output_buckets && options.output_buckets != net.output_buckets)
        || (given.king_buckets && options.king_buckets != net.king_buckets)
    {
        return Err(format!(
            "--resume: the checkpoint's net has {} hidden neurons, {:?}, {} output \
             buckets and {} king buckets; --hidden, --activation, --output-buckets and \
             --king-buckets must match it or be left out",
            net.hidden,
            net.activation,
            net.output_buckets,
            king_count(net.king_buckets)
        ));
    }
    take_shape(options, net);
    let note = format!(
        "resuming from {} after epoch {} (step {})",
        checkpoint.display(),
        trainer.epochs_done,
        trainer.step
    );
    Ok((trainer, Some(note)))
}

/// A trainer whose weights are those of the net file at `path`; a one-bucket net may be
/// spread over the output buckets asked for, and any net widened to a larger `--hidden`.
fn init(
    options: &mut Options,
    given: &Shape,
    path: &Path,
) -> Result<(Trainer, Option<String>), String> {
    let mut net = Network::read(path).map_err(|e| format!("--init {}: {e}", path.display()))?;
    if (given.hidden && options.hidden < net.hidden)
        || (given.activation && options.activation != net.activation)
    {
        return Err(format!(
            "--init: the net has {} hidden neurons and {:?}; --hidden must be at least as \
             many (more widens it) and --activation match it, or both be left out",
            net.hidden, net.activation
        ));
    }
    if given.hidden && options.hidden > net.hidden {
        net = net.widen(options.hidden, options.seed);
    }
    if given.output_buckets && options.output_buckets != net.output_buckets {
        if net.output_buckets != 1 {
            return Err(format!(
                "--init: the net has {} output buckets; only a one-bucket net can be spread \
                 over --output-buckets {}",
                net.output_buckets, options.output_buckets
            ));
        }
        net = net.spread_over_buckets(options.output_buckets);
    }
    if given.king_buckets && options.king_buckets != net.king_buckets {
        match options.king_buckets {
            Some(kings) if net.king_buckets.is_none() => {
                net = net.spread_over_king_buckets(kings);
            }
            _ => {
                return Err(format!(
                    "--init: the net has {} king buckets; only a net without them can be \
                     spread over --king-buckets {}",
                    king_count(net.king_buckets),
                    king_count(options.king_buckets)
                ))
            }
        }
    }
    take_shape(options, &net);
    let note = format!("starting from the net {}", path.display());
    Ok((Trainer::from_net(net), Some(note)))
}

fn take_shape(options: &mut Options, net: &Network) {
    options.hidden = net.hidden;
    options.activation = net.activation;
    options.output_buckets = net.output_buckets;
    options.king_buckets = net.king_buckets;
}

/// King buckets as a person counts them: none is 0.
fn king_count(kings: Option<crate::nnue::format::KingBuckets>) -> usize {
    kings.map_or(0, |k| k.count)
}
