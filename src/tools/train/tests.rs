//! The trainer's unit tests: gradients against finite differences, learning, checkpoints,
//! quantisation and the data set's split.

use super::gradient::loss_sum;
use super::model::{split, uniform};
use super::*;
use crate::chess::{Color, Position};
use crate::game::GameResult;
use crate::nnue::format::{output_bucket, KingBuckets, NetFile, INPUTS};
use crate::rng::Rng;
use std::sync::OnceLock;

fn sample_records() -> Vec<PackedPosition> {
    include_str!("../../../tests/data/selfplay-sample.txt")
        .lines()
        .map(|line| PackedPosition::parse_line(line).unwrap())
        .collect()
}

/// Material by the usual values, White's view.
fn white_material(pos: &Position) -> i32 {
    const VALUES: [i32; 6] = [100, 300, 300, 500, 900, 0];
    pos.occupied()
        .map(|sq| {
            let piece = pos.piece_on(sq).unwrap();
            let value = VALUES[piece.role().index()];
            if piece.color() == Color::White {
                value
            } else {
                -value
            }
        })
        .sum()
}

/// Random positions of the perft suite and their children, scored by material: a target
/// a net of this shape can learn exactly.
fn material_data() -> Vec<PackedPosition> {
    let mut records = Vec::new();
    for line in include_str!("../../../tests/data/perft-random.epd").lines() {
        let pos = Position::from_fen(line.split(';').next().unwrap()).unwrap();
        for child in std::iter::once(pos).chain(pos.legal_moves().iter().map(|&m| pos.after(m))) {
            records.push(PackedPosition::new(
                &child,
                white_material(&child),
                GameResult::Draw,
            ));
        }
    }
    records
}

fn material_options() -> Options {
    Options {
        hidden: 32,
        // Buckets, so that learning and quantising them are checked too.
        output_buckets: 4,
        king_buckets: None,
        activation: Activation::SCReLU,
        epochs: 12,
        batch: 1024,
        lr: 0.005,
        lambda: 0.0,
        seed: 3,
        threads: 2,
        // Material does not change in the mirror, so the test learns it either way and
        // the mirrored path is trained and resumed too.
        mirror: true,
    }
}

/// The net trained on material, its data, and the validation loss before training.
fn material_net() -> &'static (Trainer, Dataset, f64) {
    static NET: OnceLock<(Trainer, Dataset, f64)> = OnceLock::new();
    NET.get_or_init(|| {
        let options = material_options();
        let mut data = Dataset::default();
        data.add(material_data(), 0.05);
        let mut trainer = Trainer::new(&options);
        let before = mean_loss(&trainer.net, &data.validation, 0.0, 2);
        while trainer.epochs_done < options.epochs {
            trainer.train_epoch(&data.train, &options);
        }
        (trainer, data, before)
    })
}

fn variance(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let n = values.clone().count() as f64;
    let mean = values.clone().sum::<f64>() / n;
    values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
}

#[test]
fn the_analytic_gradient_is_the_numerical_one() {
    let records: Vec<PackedPosition> = sample_records().into_iter().take(6).collect();
    for (activation, buckets, kings) in [
        (Activation::SCReLU, 1, None),
        (Activation::CReLU, 1, None),
        (Activation::SCReLU, 3, None),
        (Activation::SCReLU, 3, KingBuckets::preset(4)),
    ] {
        let mut net = Network::new(16, buckets, kings, activation, 11);
        // Larger weights than a fresh net's, so that accumulators spread over the
        // activation's clipped and open ranges and every gradient is far from zero.
        let mut rng = Rng::new(5);
        for p in &mut net.params {
            *p = uniform(&mut rng, 0.4);
        }
        let (_, analytic) = loss_and_gradient(&net, &records, 0.3);
        let loss = |net: &Network| loss_sum(net, &records, 0.3) / records.len() as f64;
        let features = net.features(&records[0], false);
        let n = net.hidden;
        let mut checked = Vec::new();
        // Every weight of two features of the first position, biases, outputs.
        for f in [features.ours[0], features.theirs[3]] {
            checked.extend(f as usize * n..(f as usize + 1) * n);
        }
        checked.extend(net.inputs() * n..net.params.len());
        let scale = checked
            .iter()
            .map(|&j| analytic[j].abs())
            .fold(0.0f32, f32::max);
        assert!(scale > 1e-3, "{scale}");
        let eps = 1e-3;
        let mut worst = 0.0f64;
        for &j in &checked {
            let mut plus = net.clone();
            plus.params[j] += eps;
            let mut minus = net.clone();
            minus.params[j] -= eps;
            let numerical = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(eps));
            let error = (numerical - f64::from(analytic[j])).abs();
            worst = worst.max(error);
            assert!(
                error <= 0.01 * f64::from(scale),
                "{activation:?} parameter {j}: analytic {} numerical {numerical}",
                analytic[j]
            );
        }
        assert!(worst > 0.0);
    }
}

#[test]
fn the_trainer_learns_material_to_within_a_percent_of_its_variance() {
    let (trainer, data, before) = material_net();
    let targets = data.validation.iter().map(|r| f64::from(target(r, 0.0)));
    let spread = variance(targets);
    let after = mean_loss(&trainer.net, &data.validation, 0.0, 2);
    assert!(data.validation.len() > 5000, "{}", data.validation.len());
    assert!(
        after <= 0.01 * spread,
        "validation MSE {after:.6} from {before:.6}; the target's variance is {spread:.6}"
    );
    assert!(after < 0.1 * before, "{before} -> {after}");
}

/// The quantised net's evaluation, in integers, as the net file's format describes it.
fn integer_eval(net: &NetFile, record: &PackedPosition) -> i64 {
    let n = net.hidden;
    let f = record.features();
    let mut ours: Vec<i64> = net.feature_bias.iter().map(|&b| i64::from(b)).collect();
    let mut theirs = ours.clone();
    for i in 0..f.len {
        for k in 0..n {
            ours[k] += i64::from(net.feature_weights[f.ours[i] as usize * n + k]);
            theirs[k] += i64::from(net.feature_weights[f.theirs[i] as usize * n + k]);
        }
    }
    let qa = i64::from(net.qa);
    let bucket = output_bucket(f.len as u32, net.output_buckets);
    let weights = &net.output_weights[bucket * 2 * n..];
    let mut sum = 0i64;
    for (k, acc) in ours.iter().chain(&theirs).enumerate() {
        let h = (*acc).clamp(0, qa);
        let h = match net.activation {
            Activation::SCReLU => h * h,
            Activation::CReLU => h,
        };
        sum += h * i64::from(weights[k]);
    }
    if net.activation == Activation::SCReLU {
        sum /= qa;
    }
    (sum + i64::from(net.output_bias[bucket])) * i64::from(net.scale) / (qa * i64::from(net.qb))
}

#[test]
fn the_quantised_net_evaluates_as_the_float_one_within_a_few_centipawns() {
    let (trainer, _, _) = material_net();
    let file = NetFile::parse(&trainer.net.quantise().to_bytes()).unwrap();
    let mut errors = Vec::new();
    let mut largest = 0.0f32;
    for line in include_str!("../../../tests/data/perft.epd").lines() {
        let pos = Position::from_fen(line.split(';').next().unwrap()).unwrap();
        let record = PackedPosition::new(&pos, 0, GameResult::Draw);
        let float = trainer.net.evaluate(&record) * EVAL_SCALE as f32;
        largest = largest.max(float.abs());
        errors.push((integer_eval(&file, &record) as f32 - float).abs());
    }
    errors.sort_by(f32::total_cmp);
    let (median, max) = (errors[errors.len() / 2], errors[errors.len() - 1]);
    // A net that says nothing would agree trivially.
    assert!(largest > 300.0, "{largest}");
    assert!(
        median <= 5.0 && max <= 20.0,
        "median {median} cp, max {max} cp"
    );
}

#[test]
fn a_net_file_read_back_for_training_quantises_to_the_same_file() {
    for buckets in [1, 8] {
        let net = Network::new(32, buckets, None, Activation::SCReLU, 7);
        let file = net.quantise();
        let back = Network::from_net_file(&file).expect("the trainer's own scales");
        assert_eq!(
            (back.hidden, back.output_buckets, back.activation),
            (32, buckets, Activation::SCReLU)
        );
        assert_eq!(back.params.len(), net.params.len());
        assert_eq!(back.quantise(), file);
        // Each parameter is within half a quantisation step of the float it came from.
        let (weights, _, output, _) = split(&net.params, INPUTS, 32, buckets);
        let (read, _, read_output, _) = split(&back.params, INPUTS, 32, buckets);
        for (a, b) in weights.iter().zip(read) {
            assert!((a - b).abs() <= 0.5 / QA as f32 + 1e-6, "{a} {b}");
        }
        for (a, b) in output.iter().zip(read_output) {
            assert!((a - b).abs() <= 0.5 / QB as f32 + 1e-6, "{a} {b}");
        }
        // A fine-tuning trainer starts from exactly that net.
        assert_eq!(Trainer::from_net(back.clone()).net, back);
    }
    let kings = KingBuckets::preset(8);
    let net = Network::new(32, 2, kings, Activation::SCReLU, 7);
    let back = Network::from_net_file(&net.quantise()).unwrap();
    assert_eq!((back.king_buckets, back.inputs()), (kings, 8 * INPUTS));
    assert_eq!(back.quantise(), net.quantise());
    let file = Network::new(32, 1, None, Activation::SCReLU, 7).quantise();
    let mut other_scale = file.clone();
    other_scale.scale = 300;
    assert!(Network::from_net_file(&other_scale)
        .unwrap_err()
        .contains("scale is 300"));
}

#[test]
fn a_net_spread_over_buckets_evaluates_as_before_and_then_learns_each_bucket() {
    // Positions in the even buckets only, so the odd ones must not move.
    let mut records = sample_records();
    records.retain(|r| output_bucket(r.features().len as u32, 8).is_multiple_of(2));
    let one = Network::new(32, 1, None, Activation::SCReLU, 4);
    let spread = one.spread_over_buckets(8);
    assert_eq!(spread.params.len(), param_count(32, 8, 1));
    for record in &records {
        assert_eq!(spread.evaluate(record), one.evaluate(record));
    }
    // Training moves only the buckets the positions fall in.
    let pieces: std::collections::HashSet<usize> = records
        .iter()
        .map(|r| output_bucket(r.features().len as u32, 8))
        .collect();
    assert_eq!(pieces.len(), 4, "{pieces:?}");
    let (_, grad) = loss_and_gradient(&spread, &records, 0.3);
    let (_, _, g_output, g_bias) = split(&grad, INPUTS, 32, 8);
    for bucket in 0..8 {
        let moved =
            g_bias[bucket] != 0.0 || g_output[bucket * 64..][..64].iter().any(|&g| g != 0.0);
        assert_eq!(moved, pieces.contains(&bucket), "bucket {bucket}");
    }
}

#[test]
fn a_widened_net_evaluates_as_before_and_then_its_new_neurons_learn() {
    let records = sample_records();
    let narrow = Network::new(32, 2, None, Activation::SCReLU, 4);
    let wide = narrow.widen(48, 9);
    assert_eq!(wide.params.len(), param_count(48, 2, 1));
    for record in &records {
        let (a, b) = (narrow.evaluate(record), wide.evaluate(record));
        assert!((a - b).abs() <= 1e-6 * a.abs().max(1.0), "{a} {b}");
    }
    // The old neurons are copied where the wider layout puts them, the new ones random.
    let (w_narrow, b_narrow, o_narrow, ob_narrow) = narrow.parts();
    let (w_wide, b_wide, o_wide, ob_wide) = wide.parts();
    for feature in [0, 5, INPUTS - 1] {
        assert_eq!(
            &w_wide[feature * 48..][..32],
            &w_narrow[feature * 32..][..32]
        );
        assert!(w_wide[feature * 48 + 32..][..16].iter().any(|&w| w != 0.0));
    }
    assert_eq!(&b_wide[..32], b_narrow);
    assert_eq!(ob_wide, ob_narrow);
    for half in 0..4 {
        assert_eq!(&o_wide[half * 48..][..32], &o_narrow[half * 32..][..32]);
        assert!(o_wide[half * 48 + 32..][..16].iter().all(|&w| w == 0.0));
    }
    // Training reaches the new neurons' output weights first (their feature weights wait
    // for an output weight to pass the gradient through).
    let (_, grad) = loss_and_gradient(&wide, &records, 0.3);
    let (_, _, g_output, _) = split(&grad, INPUTS, 48, 2);
    assert!((0..4).any(|half| g_output[half * 48 + 32..][..16].iter().any(|&g| g != 0.0)));
    // A wider net cannot be made narrower.
    let narrower = std::panic::catch_unwind(|| wide.widen(32, 1));
    assert!(narrower.is_err());
}

#[test]
fn a_net_spread_over_king_buckets_evaluates_as_before_and_then_learns_each_bucket() {
    let kings = KingBuckets::preset(4).unwrap();
    let one = Network::new(32, 2, None, Activation::SCReLU, 4);
    let spread = one.spread_over_king_buckets(kings);
    assert_eq!(spread.params.len(), param_count(32, 2, 4));
    // Where both kings stand on files a-d no view is turned: the same evaluation.
    let records = sample_records();
    let mut same = 0;
    for record in &records {
        let f = spread.features(record, false);
        let unturned = (0..f.len).all(|i| {
            (f.ours[i] as usize % INPUTS == one.features(record, false).ours[i] as usize)
                && (f.theirs[i] as usize % INPUTS == one.features(record, false).theirs[i] as usize)
        });
        if unturned {
            assert_eq!(spread.evaluate(record), one.evaluate(record));
            same += 1;
        }
    }
    // Both kinds occur in the sample.
    assert!(
        same >= 5 && same < records.len(),
        "{same} of {}",
        records.len()
    );
    // The gradient reaches only the input sets the positions' kings choose.
    let (_, grad) = loss_and_gradient(&spread, &records, 0.3);
    let (g_weights, ..) = split(&grad, 4 * INPUTS, 32, 2);
    let used: std::collections::HashSet<usize> = records
        .iter()
        .flat_map(|r| {
            let f = spread.features(r, false);
            (0..f.len)
                .flat_map(move |i| [f.ours[i] as usize / INPUTS, f.theirs[i] as usize / INPUTS])
        })
        .collect();
    for bucket in 0..4 {
        let moved = g_weights[bucket * INPUTS * 32..][..INPUTS * 32]
            .iter()
            .any(|&g| g != 0.0);
        assert_eq!(moved, used.contains(&bucket), "bucket {bucket}");
    }
}

#[test]
fn quantisation_clips_scales_and_rounds() {
    let mut net = Network::new(16, 1, None, Activation::CReLU, 1);
    net.params.fill(0.0);
    let bias = INPUTS * 16;
    let output = bias + 16;
    let last = net.params.len() - 1;
    for (j, v) in [
        (0, 1.0),
        (1, -0.5),
        (2, 2.5 / 255.0),
        (3, -2.5 / 255.0),
        (4, 7.0),
        (5, -7.0),
        (bias, 0.1),
        (output, 1.0),
        (output + 1, 0.3),
        (output + 17, -5.0),
        (last, 0.5),
    ] {
        net.params[j] = v;
    }
    let q = net.quantise();
    assert_eq!(q.feature_weights[..6], [255, -128, 3, -3, 505, -505]);
    assert_eq!(q.feature_bias[0], 26);
    assert_eq!(q.output_weights[..2], [64, 19]);
    assert_eq!(q.output_weights[17], -127);
    assert_eq!(q.output_bias, [255 * 64 / 2]);
    assert_eq!((q.qa, q.qb, q.scale), (QA, QB, EVAL_SCALE));
}

#[test]
fn training_keeps_every_weight_within_the_limit() {
    let options = Options {
        hidden: 16,
        epochs: 3,
        batch: 16,
        lr: 0.5,
        ..Options::default()
    };
    let mut trainer = Trainer::new(&options);
    let data = sample_records();
    for _ in 0..3 {
        trainer.train_epoch(&data, &options);
    }
    let largest = trainer
        .net
        .params
        .iter()
        .fold(0.0f32, |m, p| m.max(p.abs()));
    assert!(largest <= WEIGHT_LIMIT, "{largest}");
    // The huge rate must have pushed some weight to the limit, or this shows nothing.
    assert_eq!(largest, WEIGHT_LIMIT);
}

#[test]
fn a_resumed_run_is_the_uninterrupted_one() {
    let options = Options {
        hidden: 16,
        output_buckets: 2,
        epochs: 3,
        batch: 50,
        lr: 0.01,
        threads: 2,
        ..Options::default()
    };
    let data = sample_records();
    let mut straight = Trainer::new(&options);
    for _ in 0..3 {
        straight.train_epoch(&data, &options);
    }
    let mut first = Trainer::new(&options);
    first.train_epoch(&data, &options);
    let bytes = first.to_checkpoint();
    let mut resumed = Trainer::from_checkpoint(&bytes).unwrap();
    assert_eq!(resumed, first);
    resumed.train_epoch(&data, &options);
    let mut resumed = Trainer::from_checkpoint(&resumed.to_checkpoint()).unwrap();
    resumed.train_epoch(&data, &options);
    assert_eq!((resumed.epochs_done, resumed.step), (3, 3 * 5));
    assert_eq!(resumed, straight);
    // Another seed is another run.
    let mut other = Trainer::new(&Options {
        seed: 2,
        ..options.clone()
    });
    other.train_epoch(&data, &options);
    assert_ne!(other.net, first.net);
}

#[test]
fn a_king_bucketed_checkpoint_resumes_its_shape() {
    let trainer = Trainer::new(&Options {
        hidden: 16,
        king_buckets: KingBuckets::preset(8),
        ..Options::default()
    });
    let bytes = trainer.to_checkpoint();
    assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 2);
    assert_eq!(Trainer::from_checkpoint(&bytes), Ok(trainer));
    // A layout naming a bucket it does not have is refused.
    let mut bad = bytes.clone();
    bad[36] = 9;
    assert!(matches!(
        Trainer::from_checkpoint(&bad),
        Err(CheckpointError::BadShape(_))
    ));
    // Without king buckets the first version, as older trainers wrote it.
    let plain = Trainer::new(&Options {
        hidden: 16,
        ..Options::default()
    })
    .to_checkpoint();
    assert_eq!(u32::from_le_bytes(plain[4..8].try_into().unwrap()), 1);
}

#[test]
fn damaged_checkpoints_are_refused() {
    let bytes = Trainer::new(&Options {
        hidden: 16,
        ..Options::default()
    })
    .to_checkpoint();
    let mut flipped = bytes.clone();
    flipped[100] ^= 1;
    assert_eq!(
        Trainer::from_checkpoint(&flipped),
        Err(CheckpointError::BadChecksum)
    );
    assert!(matches!(
        Trainer::from_checkpoint(&bytes[..bytes.len() - 4]),
        Err(CheckpointError::WrongLength { .. })
    ));
    assert_eq!(
        Trainer::from_checkpoint(b"KNUE"),
        Err(CheckpointError::BadMagic)
    );
}

#[test]
fn each_epoch_visits_every_position_once_in_a_new_order() {
    let orders: Vec<Vec<u32>> = (0..3).map(|epoch| epoch_order(1000, 7, epoch)).collect();
    for order in &orders {
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().enumerate().all(|(i, &k)| i as u32 == k));
    }
    assert_ne!(orders[0], orders[1]);
    assert_ne!(orders[1], orders[2]);
    assert_eq!(orders[1], epoch_order(1000, 7, 1));
    assert_ne!(orders[1], epoch_order(1000, 8, 1));
}

#[test]
fn the_learning_rate_decays_from_the_given_one_to_a_hundredth() {
    assert_eq!(learning_rate(0.001, 0, 100), 0.001);
    assert!((learning_rate(0.001, 100, 100) - 0.00001).abs() < 1e-9);
    let half = learning_rate(0.001, 50, 100);
    assert!((half - 0.000505).abs() < 1e-7, "{half}");
    assert!((1..100).all(|s| learning_rate(0.001, s, 100) < learning_rate(0.001, s - 1, 100)));
}

#[test]
fn the_validation_set_is_about_the_fraction_asked_and_fixed_by_position() {
    let records = material_data();
    let held: Vec<bool> = records.iter().map(|r| is_validation(r, 0.05)).collect();
    let share = held.iter().filter(|&&h| h).count() as f64 / records.len() as f64;
    assert!((0.04..0.06).contains(&share), "{share}");
    assert!(records.iter().all(|r| !is_validation(r, 0.0)));
    let mut data = Dataset::default();
    data.add(records.iter().rev().copied().collect(), 0.05);
    assert_eq!(data.validation.len(), held.iter().filter(|&&h| h).count());
}
