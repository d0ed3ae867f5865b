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
}

impl StaticEval {
    pub(super) fn new(net: Option<Arc<Network>>) -> StaticEval {
        let mut eval = StaticEval {
            classical: Evaluator::new(),
            net: None,
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
    /// material scores 0 whichever evaluation is used.
    #[inline(always)]
    pub(super) fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        match &mut self.net {
            None => self.classical.evaluate(pos),
            Some(_) if pos.is_insufficient_material() => 0,
            Some((net, stack)) => stack.evaluate(net, ply, pos.side_to_move()),
        }
    }

    /// Forgets the cached pawn structures.
    pub(super) fn clear(&mut self) {
        self.classical.clear();
    }
}
