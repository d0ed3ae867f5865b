//! A bare king against king and rook or queen (and any other pieces, no pawns): a known win
//! whose mate can lie 16 moves away, beyond what a fast or node-limited search sees. The
//! score says how near the mate is in the pattern every mate of a bare king follows: the
//! lone king driven to the edge and into a corner, the strong king close to it. With that
//! a shallow search (a low strength setting's) mates on its own.

use crate::chess::{Color, Position, Role, Square};

/// Above any ordinary advantage, far below the mate and tablebase scores.
const KNOWN_WIN: i32 = 1000;
/// Per step of the lone king from the centre (Manhattan, 0 to 6).
const EDGE_STEP: i32 = 24;
/// Per step the kings are closer (Manhattan distance, 2 to 14).
const KINGS_STEP: i32 = 10;

/// Piece values for the material of the strong side (so that keeping a piece scores).
fn value(role: Role) -> i32 {
    match role {
        Role::Queen => 900,
        Role::Rook => 500,
        Role::Bishop => 330,
        Role::Knight => 320,
        Role::Pawn | Role::King => 0,
    }
}

/// Steps from the four centre squares, 0 to 6.
fn from_centre(sq: Square) -> i32 {
    let (file, rank) = (i32::from(sq.file().0), i32::from(sq.rank().0));
    (3 - file).max(file - 4) + (3 - rank).max(rank - 4)
}

fn manhattan(a: Square, b: Square) -> i32 {
    (i32::from(a.file().0) - i32::from(b.file().0)).abs()
        + (i32::from(a.rank().0) - i32::from(b.rank().0)).abs()
}

/// The score of `pos` for the side to move if it is a bare king against a rook or queen
/// with no pawns on the board; `None` for any other position.
#[inline]
pub fn lone_king(pos: &Position) -> Option<i32> {
    // Most positions leave at the first test.
    if pos.occupied().count() > 6 || pos.role_bb(Role::Pawn).non_empty() {
        return None;
    }
    let strong = [Color::White, Color::Black]
        .into_iter()
        .find(|&c| pos.color_bb(!c).count() == 1)?;
    let heavy = pos.pieces(strong, Role::Rook) | pos.pieces(strong, Role::Queen);
    if heavy.is_empty() {
        return None;
    }
    let material: i32 = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
        .into_iter()
        .map(|r| value(r) * pos.pieces(strong, r).count() as i32)
        .sum();
    let (king, lone) = (pos.king(strong), pos.king(!strong));
    let score = KNOWN_WIN
        + material
        + EDGE_STEP * from_centre(lone)
        + KINGS_STEP * (14 - manhattan(king, lone));
    Some(if pos.side_to_move() == strong {
        score
    } else {
        -score
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(fen: &str) -> Option<i32> {
        lone_king(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn the_lone_king_on_the_edge_and_the_kings_close_score_more() {
        let centre = score("8/8/8/3k4/8/8/8/1R2K3 w - - 0 1").unwrap();
        let edge = score("3k4/8/8/8/8/8/8/1R2K3 w - - 0 1").unwrap();
        let corner = score("k7/8/8/8/8/8/8/1R2K3 w - - 0 1").unwrap();
        assert!(KNOWN_WIN < centre && centre < edge && edge < corner);
        let far = score("k7/8/8/8/8/8/8/1R5K w - - 0 1").unwrap();
        let near = score("k7/8/2K5/8/8/8/8/1R6 w - - 0 1").unwrap();
        assert!(far < near);
        // A queen scores above a rook.
        assert!(score("3k4/8/8/8/8/8/8/1Q2K3 w - - 0 1").unwrap() > edge);
    }

    #[test]
    fn it_is_from_the_side_to_move_and_only_for_a_bare_king_without_pawns() {
        assert_eq!(
            score("3k4/8/8/8/8/8/8/R3K3 b - - 0 1"),
            score("3k4/8/8/8/8/8/8/R3K3 w - - 0 1").map(|s| -s)
        );
        assert_eq!(
            score("3K4/8/8/8/8/8/8/r3k3 w - - 0 1"),
            score("3k4/8/8/8/8/8/8/R3K3 b - - 0 1")
        );
        for other in [
            "3k4/8/8/8/8/8/P7/R3K3 w - - 0 1",
            "3k4/8/8/8/8/8/8/B3K1N1 w - - 0 1",
            "3kn3/8/8/8/8/8/8/R3K3 w - - 0 1",
            "8/8/8/3k4/8/8/8/4K3 w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ] {
            assert_eq!(score(other), None, "{other}");
        }
    }
}
