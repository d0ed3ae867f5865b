//! Legacy `edit` mode: the board a GUI sets up piece by piece (`edit`, `#`, `c`, `Pa4`,
//! `.`), and how a command that is no edit command ends it.

use super::Session;
use crate::chess::{Color, Piece, Position, Square, STARTPOS_FEN};
use crate::protocol::xboard::commands::EditCommand;

impl Session {
    /// A command of legacy `edit` mode.
    pub(super) fn edit_command(&mut self, command: EditCommand) {
        let Some(edit) = self.edit.as_mut() else {
            return;
        };
        match command {
            EditCommand::Done => {
                let edit = self.edit.take().unwrap();
                let fen = edit.to_fen(self.engine.game.position().side_to_move());
                self.set_board(&fen);
            }
            EditCommand::Clear => edit.pieces = [None; 64],
            EditCommand::SwitchColor => edit.color = !edit.color,
            EditCommand::Place(sq, role) => {
                edit.pieces[sq.index()] = role.map(|role| Piece::new(edit.color, role))
            }
        }
    }

    /// Leaves edit mode because `word` came, a command that is no edit command: says so
    /// in a comment line (XBoard ignores `#` lines from an engine that declared `debug=1`,
    /// cutechess-cli ignores lines it does not know), then applies the board as `.` would.
    /// An untouched board is not applied: that would only drop the game's moves.
    pub(super) fn end_edit_mode_for(&mut self, word: &str) {
        let Some(edit) = self.edit.take() else {
            return;
        };
        let pos = *self.engine.game.position();
        let untouched = Square::all().all(|sq| edit.pieces[sq.index()] == pos.piece_on(sq));
        let fen = edit.to_fen(pos.side_to_move());
        let outcome = if untouched {
            "the board was not edited, the game goes on"
        } else if Position::from_fen(&fen).is_ok() {
            "the board set up so far is applied as with '.'"
        } else {
            "the board set up so far is no legal position, the old one stays"
        };
        self.send(&format!(
            "# edit mode ended by '{word}', which is not an edit command; {outcome}"
        ));
        if untouched {
            // The board the GUI set up is the engine's: the two agree again.
            self.board_refused = false;
        } else {
            // Reports an illegal set-up and keeps the old position, as `.` does.
            self.set_board(&fen);
        }
    }
}

/// The board being set up in legacy `edit` mode.
pub(super) struct EditBoard {
    pieces: [Option<Piece>; 64],
    color: Color,
}

impl EditBoard {
    pub(super) fn from_position(pos: &Position) -> EditBoard {
        let mut pieces = [None; 64];
        for sq in Square::all() {
            pieces[sq.index()] = pos.piece_on(sq);
        }
        EditBoard {
            pieces,
            color: Color::White,
        }
    }

    /// FEN with every castling right the placement allows (the parser drops the rest).
    fn to_fen(&self, side: Color) -> String {
        let fen = crate::chess::fen::placement(|sq| self.pieces[sq.index()]);
        let start = Position::from_fen(STARTPOS_FEN).unwrap();
        let home = |sq: Square| self.pieces[sq.index()] == start.piece_on(sq);
        let mut castling = String::new();
        for (king, rook, letter) in [
            (Square::E1, Square::H1, 'K'),
            (Square::E1, Square::A1, 'Q'),
            (Square::E8, Square::H8, 'k'),
            (Square::E8, Square::A8, 'q'),
        ] {
            if home(king) && home(rook) {
                castling.push(letter);
            }
        }
        if castling.is_empty() {
            castling.push('-');
        }
        format!("{fen} {} {castling} - 0 1", side.fen_char())
    }
}
