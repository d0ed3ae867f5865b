//! `genfens`: opening positions for OpenBench's workloads. An OpenBench worker starts the
//! engine as `./engine "genfens N seed S book <None|FILE> [extra]" quit` and reads every
//! line `info string genfens <FEN>`, expecting exactly N.
//!
//! A position is a start (a line of the book, chosen by the seed, or else the start
//! position, or with `frc` / `dfrc` in `extra` a Chess960 / double Chess960 start) and then a
//! fixed number of random legal plies: `RANDOM_PLIES_WITH_BOOK` after a book line,
//! `RANDOM_PLIES_WITHOUT_BOOK` otherwise, or `plies K` from `extra`. It is kept only if the
//! game is not over there (no mate, stalemate or draw by rule), it was not given before, and
//! a short search (`BALANCE_NODES` nodes) scores it within `MAX_SCORE` centipawns: varied,
//! but playable for both sides. The same request gives the same positions.

use crate::chess::Position;
use crate::game::Game;
use crate::rng::Rng;
use crate::search::{FixedLimits, SearchParams, Searcher};
use std::collections::HashSet;
use std::path::Path;

/// Random plies after a book line, unless `extra` says `plies K`.
pub const RANDOM_PLIES_WITH_BOOK: u32 = 2;
/// Random plies from the start position (or a Chess960 start), unless `extra` says.
pub const RANDOM_PLIES_WITHOUT_BOOK: u32 = 8;
/// A kept position scores at most this much for either side in the balance search.
pub const MAX_SCORE: i32 = 300;
/// The balance search's node budget.
pub const BALANCE_NODES: u64 = 2000;
/// Most positions a request may ask for.
pub const MAX_COUNT: u64 = 1_000_000;
/// Tries per position asked for before the request is given up (a book whose lines are all
/// decided, a ply count that always ends the game).
const TRIES_PER_POSITION: u64 = 200;

/// Which start positions a request without a book uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Starts {
    Standard,
    /// Chess960: one of the 960 back ranks, the same for both sides.
    Chess960,
    /// Double Chess960: each side its own back rank.
    DoubleChess960,
}

/// One `genfens` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub count: u64,
    pub seed: u64,
    /// The book's path; `None` for `book None`.
    pub book: Option<String>,
    pub random_plies: Option<u32>,
    pub starts: Starts,
}

impl Request {
    /// Parses what follows `genfens`: `N seed S book <None|FILE> [extra]`, where `extra`
    /// may hold `plies K`, `frc` (or `chess960`) and `dfrc`; other words are ignored (an
    /// OpenBench instance may pass its own).
    pub fn parse(args: &str) -> Result<Request, String> {
        let words: Vec<&str> = args.split_whitespace().collect();
        let usage = "genfens N seed S book <None|FILE> [plies K] [frc|dfrc]";
        let count = match words.first() {
            Some(n) => n
                .parse::<u64>()
                .ok()
                .filter(|n| (1..=MAX_COUNT).contains(n))
                .ok_or_else(|| format!("genfens: N must be 1 to {MAX_COUNT}, not '{n}'"))?,
            None => return Err(format!("genfens needs a count: {usage}")),
        };
        let seed_text = value_of(&words, "seed", usage)?;
        let seed = seed_text
            .parse::<u64>()
            .map_err(|_| format!("genfens: the seed must be a whole number, not '{seed_text}'"))?;
        let book = match value_of(&words, "book", usage)? {
            none if none.eq_ignore_ascii_case("none") => None,
            path => Some(path.to_string()),
        };
        let mut random_plies = None;
        let mut starts = Starts::Standard;
        for (i, word) in words.iter().enumerate() {
            match word.to_ascii_lowercase().as_str() {
                "plies" => {
                    let k = words.get(i + 1).and_then(|k| k.parse::<u32>().ok());
                    match k.filter(|k| *k <= 40) {
                        Some(k) => random_plies = Some(k),
                        None => return Err("genfens: 'plies' needs a count from 0 to 40".into()),
                    }
                }
                "frc" | "chess960" => starts = Starts::Chess960,
                "dfrc" => starts = Starts::DoubleChess960,
                _ => {}
            }
        }
        Ok(Request {
            count,
            seed,
            book,
            random_plies,
            starts,
        })
    }

    /// The random plies after each start.
    pub fn plies(&self) -> u32 {
        self.random_plies.unwrap_or(if self.book.is_some() {
            RANDOM_PLIES_WITH_BOOK
        } else {
            RANDOM_PLIES_WITHOUT_BOOK
        })
    }
}

/// The word after `key` in a request.
fn value_of<'a>(words: &[&'a str], key: &str, usage: &str) -> Result<&'a str, String> {
    let at = words
        .iter()
        .position(|w| w.eq_ignore_ascii_case(key))
        .ok_or_else(|| format!("genfens needs '{key}': {usage}"))?;
    words
        .get(at + 1)
        .copied()
        .ok_or_else(|| format!("genfens: '{key}' needs a value: {usage}"))
}

/// The positions of an openings file or book: EPD or FEN lines, of which the first four
/// fields are read; `#` lines and blank lines are skipped, a malformed line is an error
/// naming it. (Also what `datagen`, `calibrate` and `spsa` read their `--openings` with.)
pub fn read_book(path: &Path) -> Result<Vec<Position>, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let mut positions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().take(4).collect();
        if fields.is_empty() || fields[0].starts_with('#') {
            continue;
        }
        let fen = format!("{} 0 1", fields.join(" "));
        let pos = Position::from_fen(&fen).map_err(|e| format!("{shown}:{}: {e}", i + 1))?;
        positions.push(pos);
    }
    if positions.is_empty() {
        return Err(format!("{shown} holds no positions"));
    }
    Ok(positions)
}

/// The Chess960 back rank number `n` (0 to 959, 518 the standard one), files a to h, by
/// the standard numbering: the light-squared bishop, the dark-squared bishop, the queen on
/// the free squares, the knights by one of ten placements, then rook, king, rook.
pub fn chess960_back_rank(n: u32) -> [char; 8] {
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let mut rank = [' '; 8];
    let mut n = n as usize % 960;
    rank[2 * (n % 4) + 1] = 'B';
    n /= 4;
    rank[2 * (n % 4)] = 'B';
    n /= 4;
    let free = |rank: &[char; 8]| -> Vec<usize> { (0..8).filter(|&f| rank[f] == ' ').collect() };
    let queen = free(&rank)[n % 6];
    rank[queen] = 'Q';
    n /= 6;
    let (a, b) = KNIGHTS[n];
    let empty = free(&rank);
    rank[empty[a]] = 'N';
    rank[empty[b]] = 'N';
    for (piece, file) in ['R', 'K', 'R'].into_iter().zip(free(&rank)) {
        rank[file] = piece;
    }
    rank
}

/// The start position with these back ranks (White's and Black's numbers), castling rights
/// written as rook files so that any arrangement reads as Chess960.
pub fn chess960_start(white: u32, black: u32) -> Position {
    let white_rank = chess960_back_rank(white);
    let black_rank = chess960_back_rank(black);
    let rook_files = |rank: &[char; 8]| -> String {
        let files: Vec<char> = (0..8)
            .filter(|&f| rank[f] == 'R')
            .map(|f| (b'a' + f as u8) as char)
            .collect();
        // The king's-side rook first, as FEN lists castling rights.
        files.iter().rev().collect()
    };
    let castling = format!(
        "{}{}",
        rook_files(&white_rank).to_ascii_uppercase(),
        rook_files(&black_rank)
    );
    let white_text: String = white_rank.iter().collect();
    let black_text: String = black_rank.iter().collect::<String>().to_ascii_lowercase();
    let fen = format!("{black_text}/pppppppp/8/8/8/8/PPPPPPPP/{white_text} w {castling} - 0 1");
    Position::from_fen(&fen).expect("every Chess960 start is a legal position")
}

/// Generates the request's positions, handing each FEN to `emit` as it is found. An error
/// if the book cannot be read or too few positions can be found.
pub fn generate(request: &Request, emit: &mut dyn FnMut(&str)) -> Result<(), String> {
    let book = request
        .book
        .as_deref()
        .map(|p| read_book(Path::new(p)))
        .transpose()?;
    let plies = request.plies();
    let mut rng = Rng::new(request.seed);
    let mut searcher = Searcher::new(1);
    let mut seen = HashSet::new();
    let mut found = 0;
    let mut tries = 0;
    while found < request.count {
        tries += 1;
        if tries > TRIES_PER_POSITION * request.count {
            return Err(format!(
                "genfens: only {found} of {} positions found in {} tries (a book of decided \
                 positions, or too many plies?)",
                request.count,
                tries - 1
            ));
        }
        let start = match &book {
            Some(book) => book[rng.below(book.len() as u64) as usize],
            None => match request.starts {
                Starts::Standard => Position::startpos(),
                Starts::Chess960 => {
                    let n = rng.below(960) as u32;
                    chess960_start(n, n)
                }
                Starts::DoubleChess960 => {
                    chess960_start(rng.below(960) as u32, rng.below(960) as u32)
                }
            },
        };
        let Some(game) = random_game(start, plies, &mut rng) else {
            continue;
        };
        let pos = *game.position();
        if !seen.insert(pos.key()) || !balanced(&mut searcher, &game) {
            continue;
        }
        emit(&pos.to_fen());
        found += 1;
    }
    Ok(())
}

/// `plies` random legal moves from `start`, or `None` if the game ends on the way or there.
fn random_game(start: Position, plies: u32, rng: &mut Rng) -> Option<Game> {
    let mut game = Game::new(start);
    for _ in 0..plies {
        if game.outcome().is_some() {
            return None;
        }
        let moves = game.position().legal_moves();
        game.play(moves[rng.below(moves.len() as u64) as usize]);
    }
    game.outcome().is_none().then_some(game)
}

/// Whether a short search scores the position within `MAX_SCORE` for either side.
fn balanced(searcher: &mut Searcher, game: &Game) -> bool {
    searcher.clear();
    let params = SearchParams {
        history: game.history_keys(),
        ..SearchParams::default()
    };
    let mut limits = FixedLimits::new(Some(BALANCE_NODES), None);
    let result = searcher.search(game.position(), &params, &mut limits);
    result.score.abs() <= MAX_SCORE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_as_openbench_writes_them() {
        let r = Request::parse("64 seed 7 book None").unwrap();
        assert_eq!(
            r,
            Request {
                count: 64,
                seed: 7,
                book: None,
                random_plies: None,
                starts: Starts::Standard
            }
        );
        assert_eq!(r.plies(), RANDOM_PLIES_WITHOUT_BOOK);
        let r = Request::parse("10 seed 1 book Books/x.epd plies 3 dfrc").unwrap();
        assert_eq!(r.book.as_deref(), Some("Books/x.epd"));
        assert_eq!((r.plies(), r.starts), (3, Starts::DoubleChess960));
        assert_eq!(
            Request::parse("5 seed 2 book a.epd").unwrap().plies(),
            RANDOM_PLIES_WITH_BOOK
        );
        for bad in [
            "",
            "x seed 1 book None",
            "0 seed 1 book None",
            "5 book None",
            "5 seed x book None",
            "5 seed 1",
            "5 seed 1 book",
            "5 seed 1 book None plies 99",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_chess960_numbering_gives_the_standard_position_at_518() {
        assert_eq!(
            chess960_back_rank(518).iter().collect::<String>(),
            "RNBQKBNR"
        );
        assert_eq!(chess960_back_rank(0).iter().collect::<String>(), "BBQNNRKR");
        let mut ranks = HashSet::new();
        for n in 0..960 {
            let rank = chess960_back_rank(n);
            ranks.insert(rank);
            let king = rank.iter().position(|&c| c == 'K').unwrap();
            let rooks: Vec<usize> = (0..8).filter(|&f| rank[f] == 'R').collect();
            assert!(rooks[0] < king && king < rooks[1], "{n}: {rank:?}");
            let bishops: Vec<usize> = (0..8).filter(|&f| rank[f] == 'B').collect();
            assert_ne!(bishops[0] % 2, bishops[1] % 2, "{n}: {rank:?}");
            // 16 pawn moves and at least one for each knight.
            let start = chess960_start(n, (n + 1) % 960);
            assert!(start.legal_moves().len() >= 18, "{n}: {}", start.to_fen());
        }
        assert_eq!(ranks.len(), 960);
    }

    #[test]
    fn positions_are_distinct_playable_and_the_same_for_a_seed() {
        let request = Request::parse("12 seed 5 book None").unwrap();
        let mut first = Vec::new();
        generate(&request, &mut |fen| first.push(fen.to_string())).unwrap();
        assert_eq!(first.len(), 12);
        let unique: HashSet<&String> = first.iter().collect();
        assert_eq!(unique.len(), 12);
        for fen in &first {
            let pos = Position::from_fen(fen).unwrap();
            assert!(!pos.legal_moves().is_empty(), "{fen}");
        }
        let mut again = Vec::new();
        generate(&request, &mut |fen| again.push(fen.to_string())).unwrap();
        assert_eq!(first, again);
        let other = Request::parse("12 seed 6 book None").unwrap();
        let mut third = Vec::new();
        generate(&other, &mut |fen| third.push(fen.to_string())).unwrap();
        assert_ne!(first, third);
    }
}
