//! What the search learns about moves while it runs, for move ordering and reductions:
//! quiet-move history by side and from/to square ("butterfly"), continuation history (a
//! quiet move's success after a given previous move of either side), capture history, and
//! the countermove that refuted a given move.
//!
//! Every counter moves towards its bound with "gravity": a bonus shrinks as the counter nears
//! the bound, so old knowledge fades and no counter ever overflows.

use crate::chess::{Move, Piece, Role, Square};

/// The bound every history counter stays within.
pub const HISTORY_MAX: i32 = 16_384;

/// A piece and the square it moved to: what continuation history and countermoves are
/// indexed by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceTo {
    pub piece: Piece,
    pub to: Square,
}

pub type PieceToTable<T> = [[T; 64]; 12];

pub struct History {
    butterfly: Box<[[[i16; 64]; 64]; 2]>,
    /// By the earlier move (piece, to), then by this move (piece, to).
    continuation: Box<PieceToTable<PieceToTable<i16>>>,
    /// By the capturing piece, the target square and the captured role.
    capture: Box<PieceToTable<[i16; 6]>>,
    countermove: Box<PieceToTable<Move>>,
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            continuation: boxed_zeroed(),
            capture: Box::new([[[0; 6]; 64]; 12]),
            countermove: Box::new([[Move::NONE; 64]; 12]),
        }
    }
}

/// A zeroed continuation table straight on the heap (it is 1.2 MB: too big for the stack).
fn boxed_zeroed() -> Box<PieceToTable<PieceToTable<i16>>> {
    let flat = vec![[[0i16; 64]; 12]; 12 * 64].into_boxed_slice();
    let raw = Box::into_raw(flat) as *mut PieceToTable<PieceToTable<i16>>;
    // SAFETY: 12 * 64 rows of `PieceToTable<i16>` laid out contiguously are exactly one
    // `[[PieceToTable<i16>; 64]; 12]`, allocated with the same alignment.
    unsafe { Box::from_raw(raw) }
}

/// How much a cutoff at `depth` teaches.
#[inline]
pub fn bonus(depth: i32) -> i32 {
    (super::params::history_bonus_per_depth() * depth - super::params::history_bonus_offset())
        .clamp(0, super::params::history_bonus_max())
}

#[inline(always)]
fn nudge(entry: &mut i16, delta: i32) {
    let e = *entry as i32;
    *entry = (e + delta - e * delta.abs() / HISTORY_MAX) as i16;
}

impl History {
    pub fn clear(&mut self) {
        *self = History::default();
    }

    /// Fade everything learned before a new search, keeping the broad picture.
    pub fn age(&mut self) {
        self.butterfly
            .iter_mut()
            .flatten()
            .flatten()
            .for_each(|h| *h /= 2);
        self.continuation
            .iter_mut()
            .flatten()
            .flatten()
            .flatten()
            .for_each(|h| *h /= 2);
        self.capture
            .iter_mut()
            .flatten()
            .flatten()
            .for_each(|h| *h /= 2);
    }

    #[inline(always)]
    pub fn quiet(&self, side: usize, mv: Move) -> i32 {
        self.butterfly[side][mv.from().index()][mv.to().index()] as i32
    }

    #[inline(always)]
    pub fn continuation(&self, earlier: Option<PieceTo>, now: PieceTo) -> i32 {
        Self::continuation_in(self.continuation_row(earlier), now)
    }

    /// The continuation table's row after `earlier`: read once for all the moves of a node
    /// (`continuation_in`) instead of indexed again for each.
    #[inline(always)]
    pub fn continuation_row(&self, earlier: Option<PieceTo>) -> Option<&PieceToTable<i16>> {
        earlier.map(|e| &self.continuation[e.piece.index()][e.to.index()])
    }

    #[inline(always)]
    pub fn continuation_in(row: Option<&PieceToTable<i16>>, now: PieceTo) -> i32 {
        row.map_or(0, |r| r[now.piece.index()][now.to.index()] as i32)
    }

    #[inline(always)]
    pub fn capture(&self, mover: Piece, to: Square, victim: Role) -> i32 {
        self.capture[mover.index()][to.index()][victim.index()] as i32
    }

    #[inline(always)]
    pub fn countermove(&self, previous: Option<PieceTo>) -> Move {
        previous.map_or(Move::NONE, |p| {
            self.countermove[p.piece.index()][p.to.index()]
        })
    }

    /// A quiet move cut (`delta` > 0) or was tried and did not (`delta` < 0), after the
    /// earlier moves `earlier` (one and two plies back).
    pub fn update_quiet(
        &mut self,
        side: usize,
        mv: Move,
        now: PieceTo,
        earlier: [Option<PieceTo>; 2],
        delta: i32,
    ) {
        nudge(
            &mut self.butterfly[side][mv.from().index()][mv.to().index()],
            delta,
        );
        for e in earlier {
            self.update_continuation(e, now, delta);
        }
    }

    /// The quiet move `now`, played after `earlier`, proved good (`delta` > 0) or bad: by a
    /// cutoff, or (for the move alone) by a fail-low of the opponent's reply.
    pub fn update_continuation(&mut self, earlier: Option<PieceTo>, now: PieceTo, delta: i32) {
        if let Some(e) = earlier {
            nudge(
                &mut self.continuation[e.piece.index()][e.to.index()][now.piece.index()]
                    [now.to.index()],
                delta,
            );
        }
    }

    pub fn update_capture(&mut self, mover: Piece, to: Square, victim: Role, delta: i32) {
        nudge(
            &mut self.capture[mover.index()][to.index()][victim.index()],
            delta,
        );
    }

    pub fn set_countermove(&mut self, previous: Option<PieceTo>, mv: Move) {
        if let Some(p) = previous {
            self.countermove[p.piece.index()][p.to.index()] = mv;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_stay_within_bounds() {
        let mut h = History::default();
        let mv = Move::normal(Square::E1, Square::E8);
        let now = PieceTo {
            piece: Piece::new(crate::chess::Color::White, Role::Rook),
            to: Square::E8,
        };
        for _ in 0..1000 {
            h.update_quiet(0, mv, now, [Some(now), None], bonus(20));
        }
        assert!(h.quiet(0, mv) <= HISTORY_MAX && h.quiet(0, mv) > HISTORY_MAX / 2);
        assert_eq!(h.quiet(0, mv), h.continuation(Some(now), now));
        for _ in 0..1000 {
            h.update_quiet(0, mv, now, [Some(now), None], -bonus(20));
        }
        assert!(h.quiet(0, mv) >= -HISTORY_MAX && h.quiet(0, mv) < -HISTORY_MAX / 2);
    }
}
