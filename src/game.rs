//! A game in progress: the start position, the moves played, every position along the way
//! (for undo and repetition), and how the game ended, if it has.

use crate::chess::{Color, Move, Position};

/// Who won a game, or that it was drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    WhiteWins,
    BlackWins,
    Draw,
}

impl GameResult {
    /// As PGN and xboard write it: `1-0`, `0-1` or `1/2-1/2`.
    pub fn as_pgn(&self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_pgn())
    }
}

/// A finished game's result and the reason, as xboard wants them claimed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub result: GameResult,
    pub reason: &'static str,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {{{}}}", self.result, self.reason)
    }
}

#[derive(Clone, Debug)]
pub struct Game {
    /// `positions[0]` is the start; `positions[i]` follows `moves[i - 1]`.
    positions: Vec<Position>,
    moves: Vec<Move>,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game {
            positions: vec![start],
            moves: Vec::new(),
        }
    }

    /// The position now.
    pub fn position(&self) -> &Position {
        self.positions
            .last()
            .expect("a game always has its start position")
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The position before the last move, if a move was played.
    pub fn position_before_last(&self) -> Option<&Position> {
        self.positions
            .len()
            .checked_sub(2)
            .map(|i| &self.positions[i])
    }

    pub fn last_move(&self) -> Option<Move> {
        self.moves.last().copied()
    }

    /// Plays a legal move (the caller has checked it).
    pub fn play(&mut self, mv: Move) {
        let next = self.position().after(mv);
        self.positions.push(next);
        self.moves.push(mv);
    }

    /// Takes back the last move; false if there is none.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_some() {
            self.positions.pop();
            true
        } else {
            false
        }
    }

    /// Keys of the positions before the current one since the last capture or pawn move,
    /// oldest first (what the search needs to see repetitions).
    pub fn history_keys(&self) -> Vec<u64> {
        let reach = self.position().halfmove_clock() as usize;
        let n = self.positions.len() - 1;
        self.positions[n.saturating_sub(reach)..n]
            .iter()
            .map(|p| p.key())
            .collect()
    }

    /// How often the current position has occurred (same side to move, rights, ep).
    pub fn repetitions(&self) -> usize {
        let now = self.position();
        let reach = now.halfmove_clock() as usize;
        self.positions
            .iter()
            .rev()
            .take(reach + 1)
            .filter(|p| p.key() == now.key())
            .count()
    }

    /// The result, if the game is over by the rules (mate, stalemate, 50 moves, threefold
    /// repetition, insufficient material).
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        if !pos.has_legal_moves() {
            return Some(if pos.in_check() {
                match pos.side_to_move() {
                    Color::White => Outcome {
                        result: GameResult::BlackWins,
                        reason: "Black mates",
                    },
                    Color::Black => Outcome {
                        result: GameResult::WhiteWins,
                        reason: "White mates",
                    },
                }
            } else {
                Outcome {
                    result: GameResult::Draw,
                    reason: "Stalemate",
                }
            });
        }
        if pos.is_insufficient_material() {
            return Some(Outcome {
                result: GameResult::Draw,
                reason: "Insufficient material",
            });
        }
        if pos.halfmove_clock() >= 100 {
            return Some(Outcome {
                result: GameResult::Draw,
                reason: "50 move rule",
            });
        }
        if self.repetitions() >= 3 {
            return Some(Outcome {
                result: GameResult::Draw,
                reason: "3-fold repetition",
            });
        }
        None
    }
}

impl Default for Game {
    fn default() -> Self {
        Game::new(Position::startpos())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(game: &mut Game, moves: &str) {
        for m in moves.split_whitespace() {
            let mv = game.position().parse_move(m).unwrap();
            game.play(mv);
        }
    }

    #[test]
    fn fools_mate_is_black_mates() {
        let mut g = Game::default();
        play(&mut g, "f2f3 e7e5 g2g4 d8h4");
        assert_eq!(g.outcome().unwrap().to_string(), "0-1 {Black mates}");
    }

    #[test]
    fn each_result_prints_as_pgn_in_the_claim() {
        let mut g = Game::default();
        play(&mut g, "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7");
        let mate = g.outcome().unwrap();
        assert_eq!(mate.result, GameResult::WhiteWins);
        assert_eq!(mate.to_string(), "1-0 {White mates}");
        let g = Game::new(Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap());
        let stalemate = g.outcome().unwrap();
        assert_eq!(stalemate.result, GameResult::Draw);
        assert_eq!(stalemate.to_string(), "1/2-1/2 {Stalemate}");
        assert_eq!(GameResult::BlackWins.as_pgn(), "0-1");
        assert_eq!(GameResult::BlackWins.to_string(), "0-1");
    }

    #[test]
    fn threefold_repetition_by_knight_shuffle() {
        let mut g = Game::default();
        play(&mut g, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
        assert_eq!(g.repetitions(), 3);
        assert_eq!(g.outcome().unwrap().reason, "3-fold repetition");
        assert!(g.undo());
        assert_eq!(g.outcome(), None);
        assert_eq!(g.history_keys().len(), 7);
    }

    #[test]
    fn stalemate_fifty_moves_and_bare_kings() {
        let g = Game::new(Position::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap());
        assert_eq!(g.outcome().unwrap().reason, "Stalemate");
        let g = Game::new(Position::from_fen("7k/8/6K1/8/8/8/8/R7 b - - 100 80").unwrap());
        assert_eq!(g.outcome().unwrap().reason, "50 move rule");
        let g = Game::new(Position::from_fen("7k/8/6K1/8/8/8/8/N7 b - - 0 80").unwrap());
        assert_eq!(g.outcome().unwrap().reason, "Insufficient material");
    }
}
