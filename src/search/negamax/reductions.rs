//! Late-move reductions: the table of plies by depth and move number, and the reduction of
//! one move, adjusted by what the node and the move are.

use super::{Evals, Node, ThisMove};
use crate::chess::Position;
use crate::search::history::PieceTo;
use crate::search::movepick::{quiet_score, ORDER_COUNTER};
use crate::search::{params, Worker};

/// Late-move reductions, in plies, by depth and move number: grows with the log of both.
pub(in crate::search) struct Reductions([[u8; 64]; 64]);

impl Reductions {
    pub(in crate::search) fn new() -> Reductions {
        let mut table = [[0u8; 64]; 64];
        for (depth, row) in table.iter_mut().enumerate().skip(1) {
            for (number, r) in row.iter_mut().enumerate().skip(1) {
                let v = f64::from(params::lmr_base()) / 100.0
                    + (depth as f64).ln() * (number as f64).ln()
                        / (f64::from(params::lmr_divisor()) / 100.0);
                *r = v.clamp(0.0, 63.0) as u8;
            }
        }
        Reductions(table)
    }

    #[inline(always)]
    pub(super) fn get(&self, depth: i32, number: usize) -> i32 {
        self.0[(depth as usize).min(63)][number.min(63)] as i32
    }
}

impl Worker {
    /// Late-move reduction: late moves are searched shallower first, and again at full
    /// depth only if they look better than the best so far. The plies to take off: more
    /// for later moves at greater depth, fewer for quiet moves the history likes.
    #[inline(always)]
    pub(super) fn late_move_reduction(
        &self,
        pos: &Position,
        node: &Node,
        evals: &Evals,
        this: &ThisMove,
        new_depth: i32,
        earlier: [Option<PieceTo>; 2],
    ) -> i32 {
        let mut reduction = 0;
        let searched = this.searched_before;
        if node.depth >= params::lmr_min_depth()
            && !self.full_width
            && searched > node.is_pv as usize
            && (this.quiet || this.order < 0)
            && !this.gives_check
        {
            reduction = self.reductions.get(node.depth, searched + 1);
            if this.quiet {
                // Looked up here, not for every move: pruned moves never need it.
                let us = pos.side_to_move().index();
                let history_score = quiet_score(pos, &self.history, us, this.mv, earlier);
                reduction -= history_score / params::lmr_history_divisor();
                if this.order >= ORDER_COUNTER {
                    reduction -= 1;
                }
            }
            reduction += !evals.improving as i32 + node.cut_node as i32;
            reduction -= node.is_pv as i32;
            reduction = reduction.clamp(0, new_depth - 1);
        }
        reduction
    }
}
