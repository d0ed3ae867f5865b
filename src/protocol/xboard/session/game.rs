//! The game as xboard plays it: a new game or a set-up board, the moves of both sides
//! (the user's, the search's and the book's), takebacks, and the result claimed when the
//! rules end the game.

use super::{invalid_line, Session};
use crate::chess::{Move, Position};
use crate::engine::pv_text;
use crate::protocol::xboard::commands::Command;
use crate::search::SearchResult;

impl Session {
    pub(super) fn set_chess960(&mut self, on: bool) {
        self.engine.chess960 = on;
        let mut start = *self.engine.game.position();
        start.set_chess960(on);
        self.new_game(start);
    }

    pub(super) fn new_game(&mut self, start: Position) {
        self.engine.new_game(start);
        self.game_over = false;
        self.position_changed();
        self.hint = None;
        self.last_score = None;
        self.losing_moves = 0;
        self.dead_even_moves = 0;
    }

    /// A GUI said `xboard` or `protover`: the protocol's defaults, no thinking until `post`.
    pub(super) fn leave_person_mode(&mut self) {
        if self.person {
            self.person = false;
            self.post = false;
        }
    }

    /// `undo`: takes back one move. XBoard sends it in force mode only; a person typing it
    /// right after Kestrel's reply means their own move, and taking back Kestrel's alone
    /// would have Kestrel play it again at once: then Kestrel's move and theirs go (as
    /// `remove`), and the note says so.
    pub(super) fn undo(&mut self) {
        let moves = self.engine.game.moves().len();
        let kestrel_moved_last = !self.analyzing
            && self.engine_color == Some(!self.engine.game.position().side_to_move());
        if self.person && kestrel_moved_last && moves >= 2 {
            self.engine.game.undo();
            self.engine.game.undo();
            self.position_changed();
            self.send("# undo: took back Kestrel's move and yours (as remove); your move");
        } else if self.person && kestrel_moved_last && moves == 1 {
            self.engine.game.undo();
            self.position_changed();
            self.engine_color = None;
            self.send("# undo: took back Kestrel's move; it plays neither side now (go: it moves)");
        } else if self.engine.game.undo() {
            self.position_changed();
        } else {
            self.send("Error (no move to undo): undo");
        }
    }

    pub(super) fn position_changed(&mut self) {
        self.excluded.clear();
        self.game_over = false;
        self.ponder_due = false;
    }

    pub(super) fn set_board(&mut self, fen: &str) {
        match Position::from_fen(fen) {
            Ok(pos) => {
                self.board_refused = false;
                self.new_game(pos);
            }
            Err(e) => {
                self.board_refused = true;
                self.send(&format!("tellusererror Illegal position: {e}"));
            }
        }
    }

    /// The opponent's (or a user's) move.
    pub(super) fn user_move(&mut self, text: &str) {
        let pos = *self.engine.game.position();
        match pos.parse_move(text) {
            Ok(mv) => {
                self.engine.game.play(mv);
                self.excluded.clear();
                if self.engine_color.is_some() && !self.analyzing {
                    self.check_game_over();
                }
            }
            Err(e) => self.send(&format!("Illegal move ({e}): {text}")),
        }
    }

    /// Claims the result if the game has ended by the rules.
    pub(super) fn check_game_over(&mut self) {
        if let Some(outcome) = self.engine.game.outcome() {
            self.send(&outcome.to_string());
            self.game_over = true;
        }
    }

    /// Plays the search's move (or resigns), then claims a result the move brings about.
    pub(super) fn play_engine_move(&mut self, result: &SearchResult) {
        let Some(mv) = result.best else {
            self.check_game_over();
            if !self.game_over {
                // No move and no result: never spin on searching again; wait for input.
                log::warn!(
                    "search gave no move in {}",
                    self.engine.game.position().to_fen()
                );
                self.engine_color = None;
            }
            return;
        };
        let pos = *self.engine.game.position();
        let score = result.score;
        if self.engine.resign_threshold > 0 && score <= -self.engine.resign_threshold {
            self.losing_moves += 1;
            if self.losing_moves >= 2 {
                self.send("resign");
                self.game_over = true;
                return;
            }
        } else {
            self.losing_moves = 0;
        }
        if score.abs() <= 5 && pos.fullmove_number() >= 60 && !crate::search::is_mate_score(score) {
            self.dead_even_moves += 1;
        } else {
            self.dead_even_moves = 0;
        }
        if self.engine.draw_offers && self.dead_even_moves == 10 {
            self.send("offer draw");
        }
        self.send_engine_move(mv);
        self.hint = result.ponder;
        self.last_score = Some(score);
    }

    /// Plays a move from the book at once, shown as such in the thinking output. There is
    /// no expected reply to ponder on; the last search score is kept for draw offers.
    pub(super) fn play_book_move(&mut self, mv: Move, weight: u16, total: u32) {
        log::debug!("book move {mv:?}, weight {weight} of {total}");
        if self.post {
            let pos = *self.engine.game.position();
            let text = self.move_text(&pos, mv);
            self.send(&format!("0 0 0 0\t{text} (book)"));
        }
        self.send_engine_move(mv);
        self.hint = None;
    }

    /// Makes our move in the game and tells the GUI, then claims a result it brings about.
    pub(super) fn send_engine_move(&mut self, mv: Move) {
        let pos = *self.engine.game.position();
        let text = self.move_text(&pos, mv);
        self.engine.game.play(mv);
        self.send(&format!("move {text}"));
        self.excluded.clear();
        self.ponder_due = true;
        self.check_game_over();
    }

    /// `bk`: the book moves of the position with their weights and shares, tab-indented
    /// and ended by an empty line as the protocol asks.
    pub(super) fn send_book_moves(&mut self) {
        let pos = *self.engine.game.position();
        let mut lines = Vec::new();
        if self.engine.book.is_none() {
            lines.push("\tNo opening book is loaded (option BookFile).".to_string());
        } else {
            match self.engine.book_moves() {
                Err(e) => lines.push(format!("\t{e}")),
                Ok(moves) if moves.is_empty() => {
                    lines.push("\tNo book moves in this position.".to_string())
                }
                Ok(moves) => {
                    let total: u32 = moves.iter().map(|b| u32::from(b.weight)).sum();
                    for b in moves {
                        let share = 100.0 * f64::from(b.weight) / f64::from(total.max(1));
                        let text = self.move_text(&pos, b.mv);
                        lines.push(format!("\t{text}\t{share:.1}%\tweight {}", b.weight));
                    }
                }
            }
            if !self.engine.use_book {
                lines.push("\t(the book is not used for play: option Book is off)".to_string());
            }
        }
        lines.push(String::new());
        self.send_lines(lines);
    }

    /// A move as xboard wants it: coordinates, castling as `O-O`/`O-O-O` in Chess960.
    pub(super) fn move_text(&self, pos: &Position, mv: Move) -> String {
        match pos.castling_side_of(mv) {
            Some(side) if self.engine.chess960 || pos.is_chess960() => side.notation().to_string(),
            _ => pos.coordinate(mv),
        }
    }

    pub(super) fn pv_text(&self, root: &Position, pv: &[Move]) -> String {
        pv_text(root, pv, |pos, m| self.move_text(pos, m))
    }

    /// Blocks until the opponent moves. Returns the expected move if that is what came;
    /// anything else is left for the driver.
    pub(super) fn wait_for_expected_move(&mut self, expected: Move) -> Option<Move> {
        loop {
            let line = self.engine.io.receive();
            match Command::parse(&line) {
                Ok(Command::Move(text))
                    if self.engine.game.position().parse_move(&text) == Ok(expected) =>
                {
                    return Some(expected);
                }
                Ok(cmd) if cmd.is_harmless_during_search() && invalid_line(&line).is_none() => {
                    self.handle_harmless(cmd)
                }
                _ => {
                    self.engine.io.pending.push_back(line);
                    return None;
                }
            }
        }
    }
}
