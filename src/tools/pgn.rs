//! Reading PGN: a file split into games, each game's tag pairs and the moves of its main
//! line with the comment that follows each move (where cutechess-cli writes the engine's
//! score, depth and time). Comments elsewhere, variations, NAGs and move numbers are left
//! out. Only the text is read here; the moves are checked when a game is replayed.

use crate::chess::{Move, Position};

/// One game as written: where it starts in the file, its tags and its main line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// The file's line (from 1) that the game starts on.
    pub line: usize,
    pub tags: Vec<(String, String)>,
    pub moves: Vec<PgnMove>,
    /// The game-termination marker that ends the movetext (`1-0`, `0-1`, `1/2-1/2`, `*`),
    /// if there is one: a truncated game has none.
    pub termination: Option<String>,
}

/// One move of a game's main line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnMove {
    pub san: String,
    /// The first `{…}` comment after the move, trimmed.
    pub comment: Option<String>,
    /// The file's line the move is on.
    pub line: usize,
}

/// Why a game's moves cannot be replayed: the file's line and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    pub line: usize,
    pub problem: String,
}

impl PgnGame {
    /// The value of tag `name`.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The start position: the `FEN` tag's (Chess960 if the `Variant` tag says so), else the
    /// standard start.
    pub fn start(&self) -> Result<Position, ReplayError> {
        let Some(fen) = self.tag("FEN") else {
            return Ok(Position::startpos());
        };
        let mut pos = Position::from_fen(fen).map_err(|e| ReplayError {
            line: self.line,
            problem: format!("its FEN: {e}"),
        })?;
        let variant = self.tag("Variant").unwrap_or("").to_ascii_lowercase();
        if variant.contains("960") || variant.contains("fischer") {
            pos.set_chess960(true);
        }
        Ok(pos)
    }

    /// The start position and the moves, checked against the rules.
    pub fn replay(&self) -> Result<(Position, Vec<Move>), ReplayError> {
        let start = self.start()?;
        let mut pos = start;
        let mut moves = Vec::with_capacity(self.moves.len());
        for m in &self.moves {
            let mv = pos.parse_san(&m.san).map_err(|e| ReplayError {
                line: m.line,
                problem: format!("move {} '{}': {e}", pos.fullmove_number(), m.san),
            })?;
            pos.play(mv);
            moves.push(mv);
        }
        Ok((start, moves))
    }
}

/// The name and value of a tag-pair line `[Name "value"]`.
fn tag_pair(line: &str) -> Option<(&str, &str)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((name, value))
}

/// Every game of a PGN text, in order.
pub fn read_games(text: &str) -> Vec<PgnGame> {
    Games::new(text.as_bytes()).collect()
}

/// The games of a PGN stream, one at a time (a DATAGEN file may hold millions): a tag pair
/// after movetext starts the next game. Lines that are not UTF-8 are read lossily; a read
/// error ends the stream.
pub struct Games<R> {
    input: R,
    line: usize,
    game: PgnGame,
    reader: MovetextReader,
    buffer: Vec<u8>,
}

impl<R: std::io::BufRead> Games<R> {
    pub fn new(input: R) -> Games<R> {
        Games {
            input,
            line: 0,
            game: PgnGame::default(),
            reader: MovetextReader::default(),
            buffer: Vec::new(),
        }
    }
}

impl<R: std::io::BufRead> Iterator for Games<R> {
    type Item = PgnGame;

    fn next(&mut self) -> Option<PgnGame> {
        loop {
            self.buffer.clear();
            match self.input.read_until(b'\n', &mut self.buffer) {
                Ok(0) | Err(_) => {
                    let game = std::mem::take(&mut self.game);
                    self.reader = MovetextReader::default();
                    return (!game.tags.is_empty() || !game.moves.is_empty()).then_some(game);
                }
                Ok(_) => {}
            }
            self.line += 1;
            let text = String::from_utf8_lossy(&self.buffer);
            let line = text.trim_end_matches(['\n', '\r']);
            let game = &mut self.game;
            if self.reader.depth_is_zero() {
                if let Some((name, value)) = tag_pair(line) {
                    let finished = (!game.moves.is_empty() || game.termination.is_some())
                        .then(|| std::mem::take(game));
                    if self.game.tags.is_empty() {
                        self.game.line = self.line;
                    }
                    self.game.tags.push((name.to_string(), value.to_string()));
                    if finished.is_some() {
                        return finished;
                    }
                    continue;
                }
            }
            // `%` in the first column escapes the line.
            if line.starts_with('%') {
                continue;
            }
            if game.line == 0 && !line.trim().is_empty() {
                game.line = self.line;
            }
            self.reader.read_line(line, self.line, game);
        }
    }
}

/// The state of the movetext between lines: inside a comment, in variations.
#[derive(Default)]
struct MovetextReader {
    comment: Option<String>,
    variation_depth: usize,
}

impl MovetextReader {
    fn depth_is_zero(&self) -> bool {
        self.comment.is_none() && self.variation_depth == 0
    }

    fn read_line(&mut self, line: &str, number: usize, game: &mut PgnGame) {
        let mut word = String::new();
        for c in line.chars() {
            if let Some(comment) = &mut self.comment {
                if c == '}' {
                    let text = std::mem::take(comment).trim().to_string();
                    self.comment = None;
                    // Only a main-line move's first comment is its own.
                    if self.variation_depth == 0 {
                        if let Some(last) = game.moves.last_mut().filter(|m| m.comment.is_none()) {
                            last.comment = Some(text);
                        }
                    }
                } else {
                    comment.push(c);
                }
                continue;
            }
            match c {
                '{' => {
                    self.word(&mut word, number, game);
                    self.comment = Some(String::new());
                }
                ';' => {
                    self.word(&mut word, number, game);
                    return; // a comment to the end of the line
                }
                '(' => {
                    self.word(&mut word, number, game);
                    self.variation_depth += 1;
                }
                ')' => {
                    word.clear();
                    self.variation_depth = self.variation_depth.saturating_sub(1);
                }
                c if c.is_whitespace() => self.word(&mut word, number, game),
                c => word.push(c),
            }
        }
        self.word(&mut word, number, game);
        if let Some(comment) = &mut self.comment {
            comment.push(' ');
        }
    }

    /// A finished word of the movetext: a move, a move number, a NAG or the result.
    fn word(&self, word: &mut String, number: usize, game: &mut PgnGame) {
        if self.variation_depth > 0 || word.is_empty() {
            word.clear();
            return;
        }
        if matches!(word.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
            game.termination = Some(std::mem::take(word));
            return;
        }
        // "12." and "12..." are move numbers; "12.e4" is a move written without a space.
        let san = match word.split_once('.') {
            Some((n, rest)) if n.chars().all(|c| c.is_ascii_digit()) => {
                rest.trim_start_matches('.')
            }
            _ => word.as_str(),
        };
        if !san.is_empty() && !san.starts_with('$') {
            game.moves.push(PgnMove {
                san: san.to_string(),
                comment: None,
                line: number,
            });
        }
        word.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_GAMES: &str = r#"[Event "test"]
[White "Kestrel"]
[Black "Other"]
[Result "1-0"]

1. e4 {book} e5 {+0.12/10 0.5s} 2. Nf3 (2. Bc4 {a variation} Nc6) {-0.30/12 1.2s}
Nc6 {+M5/20 0.1s, a second comment} {ignored} 3. Bb5 $1 ; to the end of the line
a6 {0.00/1
0s} 1-0

[Event "test"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]

1. e4 Kd7 *
"#;

    #[test]
    fn games_moves_comments_and_lines_are_read() {
        let games = read_games(TWO_GAMES);
        assert_eq!(games.len(), 2);
        let g = &games[0];
        assert_eq!(
            (g.line, g.tag("White"), g.tag("Result")),
            (1, Some("Kestrel"), Some("1-0"))
        );
        let sans: Vec<&str> = g.moves.iter().map(|m| m.san.as_str()).collect();
        assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        let comments: Vec<Option<&str>> = g.moves.iter().map(|m| m.comment.as_deref()).collect();
        assert_eq!(
            comments,
            [
                Some("book"),
                Some("+0.12/10 0.5s"),
                Some("-0.30/12 1.2s"),
                Some("+M5/20 0.1s, a second comment"),
                None,
                Some("0.00/1 0s")
            ]
        );
        let lines: Vec<usize> = g.moves.iter().map(|m| m.line).collect();
        assert_eq!(lines, [6, 6, 6, 7, 7, 8]);
        assert_eq!(g.termination.as_deref(), Some("1-0"));
        let (start, moves) = g.replay().unwrap();
        assert_eq!(start, Position::startpos());
        assert_eq!(moves.len(), 6);
        let h = &games[1];
        assert_eq!((h.line, h.termination.as_deref()), (11, Some("*")));
        assert_eq!(h.replay().unwrap().1.len(), 2);
    }

    #[test]
    fn a_bad_move_is_named_with_its_line_and_a_truncated_game_has_no_marker() {
        let text = "[Event \"x\"]\n\n1. e4 e5\n2. Ke3 Nc6\n";
        let games = read_games(text);
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].termination, None);
        let error = games[0].replay().unwrap_err();
        assert_eq!(error.line, 4);
        assert!(error.problem.contains("move 2 'Ke3'"), "{}", error.problem);
        let bad_fen = read_games("[FEN \"8/8/8 w - - 0 1\"]\n\n*\n");
        assert!(bad_fen[0].replay().unwrap_err().problem.contains("its FEN"));
    }
}
