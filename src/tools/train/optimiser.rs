//! Adam, with every parameter clipped to ±`WEIGHT_LIMIT` after each step.

use super::model::WEIGHT_LIMIT;
use super::Trainer;

const BETA1: f32 = 0.9;
const BETA2: f32 = 0.999;
const ADAM_EPSILON: f32 = 1e-8;

impl Trainer {
    /// Adam on the summed gradients, then the clip; the parameters are split among threads
    /// (each parameter's update is independent of the split).
    pub(super) fn adam_step(&mut self, grads: &[Vec<f32>], lr: f32, threads: usize) {
        let t = self.step as i32;
        let step_size = lr * (1.0 - BETA2.powi(t)).sqrt() / (1.0 - BETA1.powi(t));
        let share = self.net.params.len().div_ceil(threads).next_multiple_of(16);
        std::thread::scope(|scope| {
            let parts = self
                .net
                .params
                .chunks_mut(share)
                .zip(self.m.chunks_mut(share))
                .zip(self.v.chunks_mut(share))
                .enumerate();
            for (i, ((params, m), v)) in parts {
                let from = i * share;
                scope.spawn(move || {
                    for j in 0..params.len() {
                        let mut g = 0.0;
                        for grad in grads {
                            g += grad[from + j];
                        }
                        m[j] = BETA1 * m[j] + (1.0 - BETA1) * g;
                        v[j] = BETA2 * v[j] + (1.0 - BETA2) * g * g;
                        let p = params[j] - step_size * m[j] / (v[j].sqrt() + ADAM_EPSILON);
                        params[j] = p.clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT);
                    }
                });
            }
        });
    }
}
