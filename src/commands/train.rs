//! `kestrel train` and `kestrel tune`: a net and the classical weights from data.

use kestrel::tools::train;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

pub fn run_train(
    files: &[PathBuf],
    out: &std::path::Path,
    mut options: kestrel::tools::train::Options,
    given: train::Shape,
    validation: f64,
    from: train::Start,
) -> ExitCode {
    use kestrel::tools::train::Dataset;
    if let Err(e) = check_lambda_and_lr(options.lambda, options.lr) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if !(0.0..1.0).contains(&validation) {
        eprintln!("error: --validation must be a fraction from 0 to below 1, not {validation}");
        return ExitCode::from(2);
    }
    let mut trainer = match train::start(&mut options, &given, &from, out) {
        Ok((trainer, note)) => {
            if let Some(note) = note {
                eprintln!("{note}");
            }
            trainer
        }
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };

    let start = Instant::now();
    let mut data = Dataset::default();
    for file in files {
        match train::load(file) {
            Ok(records) => {
                eprintln!("{}: {} positions", file.display(), records.len());
                data.add(records, validation);
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if data.train.is_empty() {
        eprintln!("error: no positions to train on");
        return ExitCode::from(2);
    }
    eprintln!(
        "{} positions ({} training, {} validation, {} MB) loaded in {:.1} s",
        data.len(),
        data.train.len(),
        data.validation.len(),
        (data.len() * kestrel::tools::data::RECORD_BYTES) >> 20,
        start.elapsed().as_secs_f64()
    );
    eprintln!(
        "net 768 -> {} x2 -> 1 ({} output buckets), {:?}; {} epochs of batches of {}, lr {}, \
         lambda {}, {} threads, seed {}{}",
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
    if let Err(e) = run {
        eprintln!("error: writing to {}: {e}", out.display());
        return ExitCode::from(1);
    }
    println!(
        "wrote {}",
        out.join(format!("epoch-{}.nnue", trainer.epochs_done))
            .display()
    );
    ExitCode::SUCCESS
}

pub fn run_tune(
    files: &[PathBuf],
    mut opts: kestrel::tools::tune::Options,
    only: Option<&str>,
    out: &std::path::Path,
) -> ExitCode {
    use kestrel::eval::params::{weight_name, WEIGHTS};
    use kestrel::tools::tune::{self, Dataset};
    if let Err(e) = check_lambda_and_lr(opts.lambda, opts.lr) {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    if !(opts.l2.is_finite() && opts.l2 >= 0.0) {
        eprintln!(
            "error: --l2 must be zero or a positive number, not {}",
            opts.l2
        );
        return ExitCode::from(2);
    }
    if let Some(k) = opts.k.filter(|k| !(k.is_finite() && *k > 0.0)) {
        eprintln!("error: --k must be a positive number, not {k}");
        return ExitCode::from(2);
    }
    if let Some(names) = only {
        match tune::select_sections(names) {
            Ok(mask) => opts.only = Some(mask),
            Err(e) => {
                eprintln!("error: --only: {e}");
                return ExitCode::from(2);
            }
        }
    }

    let mut data = Dataset::new();
    for file in files {
        let start = Instant::now();
        let (part, report) = match Dataset::load(file, opts.threads) {
            Ok(loaded) => loaded,
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", file.display());
                return ExitCode::from(2);
            }
        };
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
        eprintln!("error: no positions to tune on");
        return ExitCode::from(2);
    }
    eprintln!(
        "{} positions, {} coefficients ({} MB), {} threads",
        data.len(),
        data.num_coefficients(),
        (data.num_coefficients() * 4 + data.len() * 24) >> 20,
        opts.threads
    );

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
    if let Err(e) = std::fs::write(out, tune::weights_source(&outcome.weights)) {
        eprintln!("error: cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    println!("wrote {}", out.display());
    ExitCode::SUCCESS
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
