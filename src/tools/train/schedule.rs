//! The schedule: the order of the records in each epoch and the learning rate at each step.

use crate::rng::Rng;

/// The learning rate at the end of the planned epochs, as a fraction of the starting one.
const FINAL_LR_FRACTION: f32 = 0.01;

/// The shuffled order of the training records in epoch `epoch` (from 0).
pub(super) fn epoch_order(len: usize, seed: u64, epoch: usize) -> Vec<u32> {
    let mut rng = Rng::new(seed ^ (epoch as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut order: Vec<u32> = (0..len as u32).collect();
    for i in (1..len).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    order
}

/// The learning rate at `step` of `total`: a cosine from `lr` down to `lr × FINAL_LR_FRACTION`.
pub fn learning_rate(lr: f32, step: u64, total: u64) -> f32 {
    let done = (step as f64 / total.max(1) as f64).min(1.0);
    let end = f64::from(lr * FINAL_LR_FRACTION);
    (end + 0.5 * (f64::from(lr) - end) * (1.0 + (std::f64::consts::PI * done).cos())) as f32
}
