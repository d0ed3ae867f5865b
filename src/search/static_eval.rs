//! The static evaluation a search thread uses: the net when one is in use, with its
//! accumulators kept by ply, else the classical evaluation with its pawn hash table.

use super::MAX_PLY;
use crate::chess::Position;
use crate::eval::Evaluator;
use crate::nnue::{AccumulatorStack, Network};
use std::sync::Arc;

pub(super) struct StaticEval {
    classical: Evaluator,
    net: Option<(Arc<Network>, AccumulatorStack)>,
    /// Evaluations of a position that was not the one entered at its ply (a search path
    /// that skipped `enter`): put right, and counted so that tests can see there are none.
    pub(super) unentered: u64,
    /// Centipawns of noise either way (`SearchParams::eval_noise`).
    pub(super) noise: i32,
}

impl StaticEval {
    pub(super) fn new(net: Option<Arc<Network>>) -> StaticEval {
        let mut eval = StaticEval {
            classical: Evaluator::new(),
            net: None,
            unentered: 0,
            noise: 0,
        };
        eval.set_network(net);
        eval
    }

    /// Evaluates with `net` from now on (`None`: the classical evaluation).
    pub(super) fn set_network(&mut self, net: Option<Arc<Network>>) {
        self.net = net.map(|net| {
            // Plies 0 to MAX_PLY inclusive: the quiescence search evaluates at MAX_PLY.
            let stack = AccumulatorStack::new(net.hidden(), MAX_PLY + 1);
            (net, stack)
        });
    }

    pub(super) fn network(&self) -> Option<&Arc<Network>> {
        self.net.as_ref().map(|(net, _)| net)
    }

    /// A new search: the accumulators are computed afresh from its root.
    pub(super) fn new_search(&mut self) {
        if let Some((_, stack)) = &mut self.net {
            stack.clear();
        }
    }

    /// `pos` is the node at `ply` of the line being searched: every node is entered before
    /// it or a node below it is evaluated.
    #[inline(always)]
    pub(super) fn enter(&mut self, ply: usize, pos: &Position) {
        if let Some((net, stack)) = &mut self.net {
            stack.set(ply, pos, net);
        }
    }

    /// The static evaluation of `pos`, entered at `ply`, for the side to move. Drawn
    /// material scores 0 whichever evaluation is used, and a bare king against a rook or
    /// queen is scored by how near the mate is (`eval::lone_king`), which neither
    /// evaluation knows.
    #[inline(always)]
    pub(super) fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        if let Some(score) = crate::eval::lone_king(pos) {
            return score;
        }
        let score = self.evaluate_exact(pos, ply);
        if self.noise == 0 || pos.is_insufficient_material() {
            score
        } else {
            score + noise(pos.key(), self.noise)
        }
    }

    /// The evaluation proper.
    #[inline(always)]
    fn evaluate_exact(&mut self, pos: &Position, ply: usize) -> i32 {
        match &mut self.net {
            None => self.classical.evaluate(pos),
            Some(_) if pos.is_insufficient_material() => 0,
            Some((net, stack)) => {
                if !stack.holds(ply, pos) {
                    self.unentered += 1;
                    stack.set(ply, pos, net);
                }
                stack.evaluate(net, ply, pos.side_to_move())
            }
        }
    }

    /// Forgets the cached pawn structures.
    pub(super) fn clear(&mut self) {
        self.classical.clear();
    }
}

/// A position's evaluation noise: from -`amplitude` to `amplitude`, most often near 0 (the
/// sum of two uniform draws), always the same for the same position.
fn noise(key: u64, amplitude: i32) -> i32 {
    let (_, hash) = crate::rng::splitmix(key ^ NOISE_SEED);
    let span = amplitude as u64 + 1;
    ((hash & 0xFFFF_FFFF) % span + (hash >> 32) % span) as i32 - amplitude
}

/// Mixed into the key so that the noise is no simple function of the key's bits.
const NOISE_SEED: u64 = 0x6E6F_6973_7920_6576;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nnue::format::Activation;
    use crate::nnue::network::tests::random_net;

    #[test]
    fn the_net_scores_drawn_material_0_as_the_classical_evaluation_does() {
        let net = Arc::new(Network::new(&random_net(32, Activation::SCReLU, 8)));
        let mut eval = StaticEval::new(Some(Arc::clone(&net)));
        eval.new_search();
        for (fen, drawn) in [
            ("8/8/8/4k3/8/8/8/4KN2 w - - 0 1", true),
            ("8/8/2b5/4k3/8/8/8/4K3 b - - 0 1", true),
            ("8/8/8/4k3/8/8/8/1n1RK3 w - - 0 1", false),
            ("8/8/8/4k3/8/8/3P4/4K3 b - - 0 1", false),
        ] {
            let pos = Position::from_fen(fen).unwrap();
            eval.enter(0, &pos);
            let expected = if drawn {
                0
            } else {
                crate::nnue::evaluate_from_scratch(&net, &pos)
            };
            assert_ne!(crate::nnue::evaluate_from_scratch(&net, &pos), 0, "{fen}");
            assert_eq!(eval.evaluate(&pos, 0), expected, "{fen}");
        }
        assert_eq!(eval.unentered, 0);
    }

    #[test]
    fn the_noise_is_bounded_repeatable_and_spares_known_endings() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
            "8/5pk1/6p1/8/3R4/6P1/5PK1/3r4 w - - 0 40",
            "4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1",
        ];
        let mut eval = StaticEval::new(None);
        let mut noisy = StaticEval::new(None);
        noisy.noise = 30;
        let mut differences = Vec::new();
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let exact = eval.evaluate(&pos, 0);
            let first = noisy.evaluate(&pos, 0);
            assert_eq!(noisy.evaluate(&pos, 0), first, "{fen}");
            assert!((first - exact).abs() <= 30, "{fen}: {first} {exact}");
            differences.push(first - exact);
        }
        assert!(differences.iter().any(|&d| d != 0), "{differences:?}");
        assert!(
            differences.windows(2).any(|w| w[0] != w[1]),
            "{differences:?}"
        );
        // Drawn material stays a draw, a bare king a known win.
        for fen in [
            "8/8/8/4k3/8/8/8/4KN2 w - - 0 1",
            "8/8/8/4k3/8/8/8/3RK3 b - - 0 1",
        ] {
            let pos = Position::from_fen(fen).unwrap();
            assert_eq!(noisy.evaluate(&pos, 0), eval.evaluate(&pos, 0), "{fen}");
        }
        // Over many positions it spreads over the whole range, centred on 0.
        let draws: Vec<i32> = (0..10_000u64).map(|k| noise(k * 7919, 30)).collect();
        assert!(draws.iter().all(|d| d.abs() <= 30));
        assert!(draws.contains(&30) && draws.contains(&-30));
        let mean = draws.iter().sum::<i32>() as f64 / draws.len() as f64;
        assert!(mean.abs() < 1.0, "{mean}");
    }

    #[test]
    fn a_bare_king_against_a_rook_is_scored_as_a_known_win_by_either_evaluation() {
        let net = Arc::new(Network::new(&random_net(32, Activation::SCReLU, 8)));
        let pos = Position::from_fen("8/8/8/4k3/8/8/8/3RK3 b - - 0 1").unwrap();
        let expected = crate::eval::lone_king(&pos).unwrap();
        for mut eval in [StaticEval::new(Some(net)), StaticEval::new(None)] {
            eval.new_search();
            eval.enter(0, &pos);
            assert_eq!(eval.evaluate(&pos, 0), expected);
        }
        assert!(expected < -1000);
    }
}
