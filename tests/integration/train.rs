//! `kestrel train` through the binary: data in, per-epoch net files and a checkpoint out,
//! `--resume` continuing, and errors a person can act on.

use crate::common::{self, *};

use common::ScratchDir;
use kestrel::nnue::format::NetFile;
use std::path::Path;
use std::process::Command;

fn train(data: &Path, out: &Path, extra: &[&str]) -> (bool, String, String) {
    let run = Command::new(KESTREL)
        .args([
            "train",
            "--hidden",
            "16",
            "--batch",
            "32",
            "--validation",
            "0.2",
        ])
        .arg("--data")
        .arg(data)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap();
    (
        run.status.success(),
        String::from_utf8_lossy(&run.stdout).into_owned(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

/// The losses of each epoch line: (train, validation).
fn losses(stdout: &str) -> Vec<(f64, f64)> {
    stdout
        .lines()
        .filter(|l| l.starts_with("epoch"))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let after = |w: &str| {
                let i = words.iter().position(|x| *x == w).unwrap();
                words[i + 1].parse::<f64>().unwrap()
            };
            (after("train"), after("validation"))
        })
        .collect()
}

#[test]
fn train_writes_a_net_per_epoch_and_resumes_where_it_stopped() {
    let scratch = ScratchDir::new("train-resume");
    let data = data_file("selfplay-sample.txt");
    let out = scratch.path("run");
    let (ok, stdout, stderr) = train(&data, &out, &["--epochs", "2"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stderr.contains("241 positions"), "{stderr}");
    let first = losses(&stdout);
    assert_eq!(first.len(), 2, "{stdout}");
    assert!(
        first.iter().all(|(t, v)| t.is_finite() && v.is_finite()),
        "{stdout}"
    );
    for k in 1..=2 {
        let bytes = std::fs::read(out.join(format!("epoch-{k}.nnue"))).unwrap();
        let net = NetFile::parse(&bytes).unwrap();
        assert_eq!((net.hidden, net.qa, net.qb, net.scale), (16, 255, 64, 400));
    }

    // Without --resume an existing run is not overwritten.
    let (ok, _, stderr) = train(&data, &out, &["--epochs", "3"]);
    assert!(!ok && stderr.contains("--resume"), "{stderr}");
    // A shape other than the checkpoint's is refused.
    let (ok, _, stderr) = Command::new(KESTREL)
        .args(["train", "--hidden", "32", "--resume", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .output()
        .map(|r| {
            (
                r.status.success(),
                (),
                String::from_utf8_lossy(&r.stderr).into_owned(),
            )
        })
        .unwrap();
    assert!(!ok && stderr.contains("16 hidden neurons"), "{stderr}");

    let (ok, stdout, stderr) = train(&data, &out, &["--epochs", "3", "--resume"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stderr.contains("after epoch 2"), "{stderr}");
    assert!(stdout.contains("epoch   3/3"), "{stdout}");
    assert!(!stdout.contains("epoch   1/"), "{stdout}");
    assert!(NetFile::parse(&std::fs::read(out.join("epoch-3.nnue")).unwrap()).is_ok());

    // The same seed trains the same net; bullet records of the same data train it too.
    let again = scratch.path("again");
    let (ok, stdout, _) = train(&data, &again, &["--epochs", "2"]);
    assert!(ok);
    assert_eq!(losses(&stdout), first);
    assert_eq!(
        std::fs::read(again.join("epoch-2.nnue")).unwrap(),
        std::fs::read(out.join("epoch-2.nnue")).unwrap()
    );
    let records = scratch.path("records.bin");
    let converted = Command::new(KESTREL)
        .arg("convert")
        .arg(&data)
        .arg(&records)
        .output()
        .unwrap();
    assert!(converted.status.success());
    let binary = scratch.path("binary");
    let (ok, stdout, stderr) = train(&records, &binary, &["--epochs", "2"]);
    assert!(ok, "{stderr}");
    assert_eq!(losses(&stdout), first);
}

#[test]
fn bad_data_is_refused_with_the_place_and_the_reason() {
    let scratch = ScratchDir::new("train-bad");
    let dir = &scratch.0;
    let text = dir.join("bad.txt");
    std::fs::write(
        &text,
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1.0\n4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 2\n",
    )
    .unwrap();
    let (ok, _, stderr) = train(&text, &dir.join("out"), &[]);
    assert!(!ok && stderr.contains("bad.txt:2: bad result"), "{stderr}");
    let binary = dir.join("bad.bin");
    std::fs::write(&binary, [0xFFu8; 33]).unwrap();
    let (ok, _, stderr) = train(&binary, &dir.join("out"), &[]);
    assert!(!ok && stderr.contains("neither text data"), "{stderr}");
    std::fs::write(&binary, [0xFFu8; 64]).unwrap();
    let (ok, _, stderr) = train(&binary, &dir.join("out"), &[]);
    assert!(
        !ok && stderr.contains("record 0 is not a position"),
        "{stderr}"
    );
}

#[test]
fn init_starts_from_a_net_file_and_refuses_a_bad_one() {
    let scratch = ScratchDir::new("train-init");
    let data = data_file("selfplay-sample.txt");
    let first = scratch.path("init-first");
    let (ok, _, stderr) = train(&data, &first, &["--epochs", "2"]);
    assert!(ok, "{stderr}");
    let start = first.join("epoch-2.nnue");

    // With a learning rate too small to move any weight by a quantisation step, the
    // fine-tuned net is the net it started from, byte for byte: the weights were loaded.
    let tuned = scratch.path("init-tuned");
    let init = start.to_str().unwrap();
    let (ok, stdout, stderr) = train(
        &data,
        &tuned,
        &["--epochs", "1", "--lr", "1e-12", "--init", init],
    );
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stderr.contains("starting from the net"), "{stderr}");
    assert_eq!(
        std::fs::read(tuned.join("epoch-1.nnue")).unwrap(),
        std::fs::read(&start).unwrap()
    );
    // A fresh start with the same settings is another net.
    let fresh = scratch.path("init-fresh");
    let (ok, _, _) = train(&data, &fresh, &["--epochs", "1", "--lr", "1e-12"]);
    assert!(ok);
    assert_ne!(
        std::fs::read(fresh.join("epoch-1.nnue")).unwrap(),
        std::fs::read(&start).unwrap()
    );

    // A wider --hidden widens the net: its neurons kept, the new ones' output weights 0,
    // so at a rate too small to move a weight it evaluates as before.
    let wide = scratch.path("init-wide");
    let run = Command::new(KESTREL)
        .args([
            "train",
            "--hidden",
            "32",
            "--batch",
            "32",
            "--validation",
            "0.2",
        ])
        .args(["--epochs", "1", "--lr", "1e-12", "--init", init, "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&wide)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let before = NetFile::parse(&std::fs::read(&start).unwrap()).unwrap();
    let widened = wide.join("epoch-1.nnue");
    let after = NetFile::parse(&std::fs::read(&widened).unwrap()).unwrap();
    assert_eq!((before.hidden, after.hidden), (16, 32));
    for (old, new) in before
        .feature_weights
        .chunks(16)
        .zip(after.feature_weights.chunks(32))
    {
        assert_eq!(old, &new[..16]);
    }
    assert!(after
        .feature_weights
        .chunks(32)
        .any(|new| new[16..].iter().any(|&w| w != 0)));
    for (old, new) in before
        .output_weights
        .chunks(16)
        .zip(after.output_weights.chunks(32))
    {
        assert_eq!(old, &new[..16]);
        assert!(new[16..].iter().all(|&w| w == 0));
    }
    let run = Command::new(KESTREL)
        .args(["net-loss", "--threads", "1", "--data"])
        .arg(&data)
        .arg("--net")
        .arg(&start)
        .arg("--net")
        .arg(&widened)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    let losses: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(".nnue"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(
        run.status.success() && losses.len() == 2 && losses[0] == losses[1],
        "{stdout}"
    );

    // A narrower shape than the net's, a file that is not a net, one that is missing, and
    // --init with --resume are refused, and nothing is written.
    let out = scratch.path("init-refused");
    let (ok, _, stderr) = train(&data, &out, &["--init", widened.to_str().unwrap()]);
    assert!(!ok && stderr.contains("32 hidden neurons"), "{stderr}");
    let garbage = scratch.path("garbage.nnue");
    std::fs::write(&garbage, b"not a net at all, just some bytes").unwrap();
    let (ok, _, stderr) = train(&data, &out, &["--init", garbage.to_str().unwrap()]);
    assert!(
        !ok && stderr.contains("--init") && stderr.contains("not a Kestrel net file"),
        "{stderr}"
    );
    let missing = scratch.path("missing.nnue");
    let (ok, _, stderr) = train(&data, &out, &["--init", missing.to_str().unwrap()]);
    assert!(!ok && stderr.contains("cannot read it"), "{stderr}");
    let (ok, _, stderr) = train(&data, &out, &["--init", init, "--resume"]);
    assert!(!ok && stderr.contains("cannot be used with"), "{stderr}");
    assert!(!out.join("epoch-1.nnue").exists());
}

#[test]
fn output_buckets_are_trained_spread_from_a_one_bucket_net_and_kept_on_resume() {
    let scratch = ScratchDir::new("train-buckets");
    let data = data_file("selfplay-sample.txt");
    let first = scratch.path("buckets-first");
    let (ok, stdout, stderr) = train(&data, &first, &["--epochs", "1", "--output-buckets", "4"]);
    assert!(ok, "{stdout}\n{stderr}");
    assert!(stderr.contains("(4 output buckets)"), "{stderr}");
    let net = NetFile::parse(&std::fs::read(first.join("epoch-1.nnue")).unwrap()).unwrap();
    assert_eq!((net.hidden, net.output_buckets), (16, 4));
    // Each bucket learned from its own positions, so no two are alike.
    let halves: Vec<&[i16]> = net.output_weights.chunks(32).collect();
    assert!((0..4).all(|a| (a + 1..4).all(|b| halves[a] != halves[b])));
    // The checkpoint keeps the buckets: resuming with another count is refused.
    let run = Command::new(KESTREL)
        .args(["train", "--output-buckets", "2", "--resume", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&first)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && stderr.contains("4 output buckets"),
        "{stderr}"
    );

    // A one-bucket net is copied into each bucket: at a rate too small to move a weight,
    // the result is that net four times over.
    let one = scratch.path("buckets-one");
    let (ok, _, stderr) = train(&data, &one, &["--epochs", "1"]);
    assert!(ok, "{stderr}");
    let start = one.join("epoch-1.nnue");
    let spread = scratch.path("buckets-spread");
    let init = start.to_str().unwrap();
    let extra = [
        "--epochs",
        "1",
        "--lr",
        "1e-12",
        "--output-buckets",
        "8",
        "--init",
        init,
    ];
    let (ok, _, stderr) = train(&data, &spread, &extra);
    assert!(ok, "{stderr}");
    let before = NetFile::parse(&std::fs::read(&start).unwrap()).unwrap();
    let after = NetFile::parse(&std::fs::read(spread.join("epoch-1.nnue")).unwrap()).unwrap();
    assert_eq!(before.output_buckets, 1);
    assert_eq!(after.output_buckets, 8);
    assert_eq!(after.feature_weights, before.feature_weights);
    assert_eq!(after.output_bias, vec![before.output_bias[0]; 8]);
    assert_eq!(after.output_weights, before.output_weights.repeat(8));
    // A bucketed net is not spread again.
    let refused = scratch.path("buckets-refused");
    let init = first.join("epoch-1.nnue");
    let extra = ["--output-buckets", "8", "--init", init.to_str().unwrap()];
    let (ok, _, stderr) = train(&data, &refused, &extra);
    assert!(!ok && stderr.contains("only a one-bucket net"), "{stderr}");
}

#[test]
fn king_buckets_are_spread_from_a_net_without_them_kept_on_resume_and_played() {
    let scratch = ScratchDir::new("train-kings");
    let data = data_file("selfplay-sample.txt");
    let plain = scratch.path("kings-plain");
    let (ok, _, stderr) = train(&data, &plain, &["--epochs", "1"]);
    assert!(ok, "{stderr}");
    let start = plain.join("epoch-1.nnue");
    // At a rate too small to move a weight, the spread net is the plain one twice over.
    let spread = scratch.path("kings-spread");
    let extra = [
        "--epochs",
        "2",
        "--lr",
        "1e-12",
        "--king-buckets",
        "2",
        "--init",
        start.to_str().unwrap(),
    ];
    let (ok, _, stderr) = train(&data, &spread, &extra);
    assert!(
        ok && stderr.contains("768 x 2 king buckets -> 16"),
        "{stderr}"
    );
    let before = NetFile::parse(&std::fs::read(&start).unwrap()).unwrap();
    let bytes = std::fs::read(spread.join("epoch-1.nnue")).unwrap();
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 3);
    let after = NetFile::parse(&bytes).unwrap();
    assert_eq!(after.king_buckets.map(|k| k.count), Some(2));
    assert_eq!(after.feature_weights, before.feature_weights.repeat(2));
    assert_eq!(after.output_weights, before.output_weights);
    // The checkpoint keeps them: resuming with another count is refused, and a net that has
    // them is not spread again.
    let run = Command::new(KESTREL)
        .args(["train", "--king-buckets", "4", "--resume", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&spread)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && stderr.contains("2 king buckets"),
        "{stderr}"
    );
    let again = scratch.path("kings-again");
    let net = spread.join("epoch-1.nnue");
    let extra = ["--king-buckets", "4", "--init", net.to_str().unwrap()];
    let (ok, _, stderr) = train(&data, &again, &extra);
    assert!(
        !ok && stderr.contains("only a net without them"),
        "{stderr}"
    );

    // The engine plays it: it says what it loaded, and `eval` is the library's evaluation.
    let mut e = Engine::started_uci();
    e.send(&format!("setoption name EvalFile value {}", net.display()));
    let lines = e.ready();
    assert!(
        lines.len() == 1 && lines[0].contains("(16 hidden neurons, 2 king buckets, SCReLU"),
        "{lines:?}"
    );
    // White's king on g1 (turned, first rank), Black's on e7 (second rank).
    let fen = "r1bq1b1r/ppppkppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 w - - 6 5";
    e.send(&format!("position fen {fen}"));
    e.send("eval");
    let (last, _) = e.wait_for("eval", 10 * SEC, |l| l.starts_with("NNUE"));
    let score: i32 = last.split_whitespace().nth(1).unwrap().parse().unwrap();
    let pos = kestrel::chess::Position::from_fen(fen).unwrap();
    let expected = kestrel::nnue::evaluate_from_scratch(&kestrel::nnue::Network::new(&after), &pos);
    assert_eq!(score, expected);
}

#[test]
fn net_loss_ranks_nets_on_data_by_the_trainers_loss() {
    let scratch = ScratchDir::new("net-loss");
    let data = data_file("selfplay-sample.txt");
    let out = scratch.path("net-loss-run");
    let (ok, _, stderr) = train(&data, &out, &["--epochs", "2", "--lambda", "0"]);
    assert!(ok, "{stderr}");
    let nets = [out.join("epoch-1.nnue"), out.join("epoch-2.nnue")];
    let run = Command::new(KESTREL)
        .args(["net-loss", "--threads", "1", "--data"])
        .arg(&data)
        .arg("--net")
        .arg(&nets[0])
        .arg("--net")
        .arg(&nets[1])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].ends_with("positions, lambda 0"), "{stdout}");
    let records = kestrel::tools::train::load(&data).unwrap();
    assert!(lines[0].starts_with(&records.len().to_string()), "{stdout}");
    // A line per net, in order: its loss over every position, as the trainer computes it.
    for (line, net) in lines[1..].iter().zip(&nets) {
        let file = NetFile::parse(&std::fs::read(net).unwrap()).unwrap();
        let float = kestrel::tools::train::Network::from_net_file(&file).unwrap();
        let expected = kestrel::tools::train::mean_loss(&float, &records, 0.0, 1);
        let (loss, name) = line.split_once("  ").unwrap();
        assert_eq!(name, net.display().to_string());
        assert_eq!(loss, format!("{expected:.6}"), "{line}");
    }
    assert_eq!(lines.len(), 3, "{stdout}");
    // A file that is no net is named with the reason.
    let run = Command::new(KESTREL)
        .args(["net-loss", "--data"])
        .arg(&data)
        .arg("--net")
        .arg(&data)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && stderr.contains("not a Kestrel net file"),
        "{stderr}"
    );
}

/// A fixed seed trains the same bytes as the trainer did before it was split into parts
/// (commit a3cc55b): two output buckets, mirroring, two threads, three epochs. The checksums
/// are that run's files; a change to the trainer's arithmetic or order changes them.
#[test]
fn a_fixed_seed_trains_the_same_bytes_as_the_trainer_before_its_split() {
    let scratch = ScratchDir::new("train-golden");
    let data = data_file("selfplay-sample.txt");
    let out = scratch.path("run");
    let run = Command::new(KESTREL)
        .args(["train", "--data"])
        .arg(&data)
        .arg("--out")
        .arg(&out)
        .args([
            "--hidden",
            "32",
            "--output-buckets",
            "2",
            "--epochs",
            "3",
            "--batch",
            "16",
            "--seed",
            "7",
            "--threads",
            "2",
            "--validation",
            "0.1",
            "--mirror",
        ])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let checksum =
        |name: &str| kestrel::nnue::format::checksum(&std::fs::read(out.join(name)).unwrap());
    assert_eq!(checksum("epoch-3.nnue"), 0xb2aa_3dc4_4d7f_3841);
    assert_eq!(checksum("checkpoint.bin"), 0x7c25_0dac_4bff_632b);
}
