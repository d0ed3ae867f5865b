//! Correction history: how far the static evaluation has been from what the search found,
//! by side to move and pawn structure. The evaluation misjudges some pawn structures the
//! same way again and again (a blocked centre, a weak king shelter it does not see); the
//! search notices, and the static evaluation used for pruning is corrected by the running
//! average of those errors.

use crate::chess::Position;
use crate::eval::pawn_hash;

const ENTRIES: usize = 1 << 14;
/// Entries hold centipawns times `GRAIN`, so small errors still move the average.
const GRAIN: i32 = 256;
/// The largest correction, in centipawns.
const MAX_CORRECTION: i32 = 64;
/// An update's weight out of `WEIGHT_SCALE` grows with the depth of the search behind it.
const WEIGHT_SCALE: i32 = 256;

pub struct Correction {
    /// By side to move, then by the pawn hash's high bits.
    table: Box<[[i32; ENTRIES]; 2]>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction {
            table: vec![[0; ENTRIES]; 2]
                .into_boxed_slice()
                .try_into()
                .expect("two rows"),
        }
    }
}

#[inline(always)]
fn index(pos: &Position) -> (usize, usize) {
    (
        pos.side_to_move().index(),
        (pawn_hash(pos) >> (64 - ENTRIES.trailing_zeros())) as usize,
    )
}

impl Correction {
    pub fn clear(&mut self) {
        self.table.iter_mut().for_each(|row| row.fill(0));
    }

    /// The correction to add to the static evaluation of `pos`, in centipawns.
    #[inline(always)]
    pub fn get(&self, pos: &Position) -> i32 {
        let (side, i) = index(pos);
        self.table[side][i] / GRAIN
    }

    /// The search of `pos` to `depth` found `score` where the static evaluation said
    /// `static_eval` (both from the side to move, neither a mate score).
    pub fn update(&mut self, pos: &Position, depth: i32, static_eval: i32, score: i32) {
        let (side, i) = index(pos);
        let error = (score - static_eval).clamp(-MAX_CORRECTION, MAX_CORRECTION) * GRAIN;
        let weight = (depth + 1).min(16);
        let entry = &mut self.table[side][i];
        *entry = (*entry * (WEIGHT_SCALE - weight) + error * weight) / WEIGHT_SCALE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_follow_the_errors_and_stay_bounded() {
        let pos = Position::startpos();
        let mut c = Correction::default();
        assert_eq!(c.get(&pos), 0);
        for _ in 0..200 {
            c.update(&pos, 10, 0, 40);
        }
        assert!((35..=40).contains(&c.get(&pos)), "{}", c.get(&pos));
        for _ in 0..500 {
            c.update(&pos, 10, 0, -1000);
        }
        // Clamped: near the bound (integer steps stop a little short of it), never past it.
        let clamped = c.get(&pos);
        assert!(
            (-MAX_CORRECTION..=-MAX_CORRECTION + 1).contains(&clamped),
            "{clamped}"
        );
        // The other side to move has its own entry.
        let black_to_move =
            Position::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1").unwrap();
        assert_eq!(c.get(&black_to_move), 0);
        c.clear();
        assert_eq!(c.get(&pos), 0);
    }
}
