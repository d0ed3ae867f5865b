//! The plain recursive perft: counts the leaf nodes of the legal move tree, the standard
//! check of a move generator. The last ply is bulk-counted (moves are counted, not played).

use crate::chess::{Move, MoveList, Position};

/// Leaf nodes at `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => {
            let mut moves = MoveList::new();
            pos.generate::<_, true, true>(&mut moves);
            let mut nodes = 0;
            for &mv in moves.iter() {
                nodes += perft(&pos.after(mv), depth - 1);
            }
            nodes
        }
    }
}

/// perft split by root move, in the order the generator gives them.
pub fn divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .iter()
        .map(|&mv| {
            let nodes = if depth <= 1 {
                1
            } else {
                perft(&pos.after(mv), depth - 1)
            };
            (mv, nodes)
        })
        .collect()
}
