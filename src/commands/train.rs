//! `kestrel train` and `kestrel tune`: a net and the classical weights from data.

use super::{usage, CliError, CliResult};
use crate::cli::{ActivationArg, NetLossArgs, TrainArgs, TuneArgs};
use kestrel::nnue::format::KingBuckets;
use kestrel::tools::train;
use std::path::PathBuf;
use std::time::Instant;

/// `kestrel train`'s options, with what the command line left to the checkpoint or net.
fn train_options(args: &TrainArgs) -> (train::Options, train::Shape, train::Start) {
    let defaults = train::Options::default();
    let options = train::Options {
        hidden: args.hidden.map_or(defaults.hidden, |h| h as usize),
        output_buckets: args
            .output_buckets
            .map_or(defaults.output_buckets, |b| b as usize),
        // The parser admits only the counts that have a layout.
        king_buckets: args
            .king_buckets
            .as_deref()
            .map_or(defaults.king_buckets, |k| {
                KingBuckets::preset(k.parse().unwrap_or(0))
            }),
        activation: args
            .activation
            .map_or(defaults.activation, ActivationArg::activation),
        epochs: args.epochs as usize,
        batch: args.batch as usize,
        lr: args.lr,
        lambda: args.lambda,
        seed: args.seed,
        threads: args.threads as usize,
        mirror: args.mirror,
    };
    let given = train::Shape {
        hidden: args.hidden.is_some(),
        activation: args.activation.is_some(),
        output_buckets: args.output_buckets.is_some(),
        king_buckets: args.king_buckets.is_some(),
    };
    let start = match (args.resume, &args.init) {
        (true, _) => train::Start::Resume,
        (false, Some(net)) => train::Start::Init(net.clone()),
        (false, None) => train::Start::Fresh,
    };
    (options, given, start)
}

/// The training data of every `--data` file, `validation` of it held out.
fn load_training_data(files: &[PathBuf], validation: f64) -> Result<train::Dataset, CliError> {
    let start = Instant::now();
    let mut data = train::Dataset::default();
    for file in files {
        let records = train::load(file).map_err(usage)?;
        eprintln!("{}: {} positions", file.display(), records.len());
        data.add(records, validation);
    }
    if data.train.is_empty() {
        return Err(usage("no positions to train on"));
    }
    eprintln!(
        "{} positions ({} training, {} validation, {} MB) loaded in {:.1} s",
        data.len(),
        data.train.len(),
        data.validation.len(),
        (data.len() * kestrel::tools::training_data::RECORD_BYTES) >> 20,
        start.elapsed().as_secs_f64()
    );
    Ok(data)
}

pub fn train(args: TrainArgs) -> CliResult {
    let (mut options, given, from) = train_options(&args);
    let (out, validation) = (&args.out, args.validation);
    check_lambda_and_lr(options.lambda, options.lr).map_err(usage)?;
    if !(0.0..1.0).contains(&validation) {
        return Err(usage(format!(
            "--validation must be a fraction from 0 to below 1, not {validation}"
        )));
    }
    let (mut trainer, note) = train::start(&mut options, &given, &from, out).map_err(usage)?;
    if let Some(note) = note {
        eprintln!("{note}");
    }
    let start = Instant::now();
    let data = load_training_data(&args.data, validation)?;
    eprintln!(
        "net 768{} -> {} x2 -> 1 ({} output buckets), {:?}; {} epochs of batches of {}, lr {}, \
         lambda {}, {} threads, seed {}{}",
        options
            .king_buckets
            .map_or(String::new(), |k| format!(" x {} king buckets", k.count)),
        options.hidden,
        options.output_buckets,
        options.activation,
        options.epochs,
        options.batch,
        options.lr,
        options.lambda,
        options.threads,
        options.seed,
        if options.mirror {
            ", mirrored at random"
        } else {
            ""
        }
    );
    let run = train::run(&mut trainer, &data, &options, out, &mut |e| {
        println!(
            "epoch {:>3}/{}  train {:.6}  validation {:.6}  lr {:.6}  {:.0} pos/s  {:.1} s",
            e.epoch,
            options.epochs,
            e.train_loss,
            e.validation_loss,
            e.lr,
            e.positions_per_second(),
            start.elapsed().as_secs_f64()
        );
    });
    run.map_err(|e| CliError::Failed(format!("writing to {}: {e}", out.display())))?;
    println!(
        "wrote {}",
        out.join(format!("epoch-{}.nnue", trainer.epochs_done))
            .display()
    );
    Ok(())
}

/// `kestrel tune`'s options, checked.
fn tune_options(args: &TuneArgs) -> Result<kestrel::tools::tune::Options, CliError> {
    use kestrel::tools::tune;
    check_lambda_and_lr(args.lambda, args.lr).map_err(usage)?;
    if !(args.l2.is_finite() && args.l2 >= 0.0) {
        return Err(usage(format!(
            "--l2 must be zero or a positive number, not {}",
            args.l2
        )));
    }
    if let Some(k) = args.k.filter(|k| !(k.is_finite() && *k > 0.0)) {
        return Err(usage(format!("--k must be a positive number, not {k}")));
    }
    let only = match args.only.as_deref() {
        Some(names) => {
            Some(tune::select_sections(names).map_err(|e| usage(format!("--only: {e}")))?)
        }
        None => None,
    };
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    Ok(tune::Options {
        epochs: args.epochs,
        lr: args.lr,
        lambda: args.lambda,
        threads,
        only,
        k: args.k,
        report_every: args.report,
        l2: args.l2,
    })
}

/// The tuning positions of every `--data` file, with a report line per file.
fn load_tuning_data(
    files: &[PathBuf],
    threads: usize,
) -> Result<kestrel::tools::tune::Dataset, CliError> {
    use kestrel::tools::tune::Dataset;
    let mut data = Dataset::new();
    for file in files {
        let start = Instant::now();
        let (part, report) = Dataset::load(file, threads)
            .map_err(|e| usage(format!("cannot read {}: {e}", file.display())))?;
        for (line, error) in &report.errors {
            eprintln!("{}:{line}: skipped: {error}", file.display());
        }
        eprintln!(
            "{}: {} positions from {} lines ({} comments or blank, {} with insufficient \
             material, {} malformed) in {:.1} s",
            file.display(),
            report.positions,
            report.lines,
            report.skipped_comments,
            report.skipped_drawn,
            report.malformed,
            start.elapsed().as_secs_f64()
        );
        data.append(part);
    }
    if data.is_empty() {
        return Err(usage("no positions to tune on"));
    }
    eprintln!(
        "{} positions, {} coefficients ({} MB), {} threads",
        data.len(),
        data.num_coefficients(),
        (data.num_coefficients() * 4 + data.len() * 24) >> 20,
        threads
    );
    Ok(data)
}

/// `kestrel net-loss`: each net's mean loss over every position of the data files.
pub fn net_loss(args: &NetLossArgs) -> CliResult {
    check_lambda_and_lr(args.lambda, 0.001).map_err(usage)?;
    let mut records = Vec::new();
    for file in &args.data {
        records.extend(train::load(file).map_err(usage)?);
    }
    if records.is_empty() {
        return Err(usage("no positions in the data"));
    }
    println!("{} positions, lambda {}", records.len(), args.lambda);
    for path in &args.net {
        let net = train::Network::read(path)
            .map_err(|e| usage(format!("--net {}: {e}", path.display())))?;
        let loss = train::mean_loss(&net, &records, args.lambda, args.threads as usize);
        println!("{loss:.6}  {}", path.display());
    }
    Ok(())
}

pub fn tune(args: TuneArgs) -> CliResult {
    use kestrel::eval::params::{weight_name, WEIGHTS};
    use kestrel::tools::tune;
    let mut opts = tune_options(&args)?;
    let data = load_tuning_data(&args.data, opts.threads)?;
    let given_k = opts.k.is_some();
    let fit_start = Instant::now();
    let k = opts
        .k
        .unwrap_or_else(|| tune::fit_k(&data, &tune::to_f64(&WEIGHTS), opts.threads));
    if given_k {
        eprintln!("K {k:.4} (given)");
    } else {
        let secs = fit_start.elapsed().as_secs_f64();
        eprintln!("K {k:.4} (fitted to the results in {secs:.1} s)");
    }
    if k < 0.05 {
        eprintln!("warning: K is near 0: the evaluation hardly predicts these results");
    }
    opts.k = Some(k);
    let outcome = tune::tune(&data, &WEIGHTS, &opts, |p| {
        eprintln!(
            "epoch {:>5}/{}  mse {:.7}  {:.1} s",
            p.epoch,
            opts.epochs,
            p.mse,
            p.elapsed.as_secs_f64()
        );
    });
    println!(
        "K {:.4}{}",
        outcome.k,
        if given_k { " (given)" } else { " (fitted)" }
    );
    println!("weights tuned: {}", outcome.tuned);
    println!("mse before: {:.7}", outcome.mse_before);
    println!("mse after:  {:.7} (rounded weights)", outcome.mse_after);
    let changes = tune::largest_changes(&WEIGHTS, &outcome.weights, 10);
    if !changes.is_empty() {
        println!("largest changes:");
        for (i, old, new) in changes {
            println!(
                "  {:<32} s({}, {}) -> s({}, {})",
                weight_name(i),
                old.mg,
                old.eg,
                new.mg,
                new.eg
            );
        }
    }
    std::fs::write(&args.out, tune::weights_source(&outcome.weights))
        .map_err(|e| CliError::Failed(format!("cannot write {}: {e}", args.out.display())))?;
    println!("wrote {}", args.out.display());
    Ok(())
}

/// The blend of result and score (`--lambda`) and the learning rate (`--lr`) both tools take.
fn check_lambda_and_lr<T: Into<f64> + std::fmt::Display + Copy>(
    lambda: T,
    lr: T,
) -> Result<(), String> {
    let (lambda_value, lr_value): (f64, f64) = (lambda.into(), lr.into());
    if !(0.0..=1.0).contains(&lambda_value) {
        return Err(format!("--lambda must be between 0 and 1, not {lambda}"));
    }
    if !(lr_value.is_finite() && lr_value > 0.0) {
        return Err(format!("--lr must be a positive number, not {lr}"));
    }
    Ok(())
}
