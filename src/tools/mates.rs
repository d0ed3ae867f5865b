//! `strength-mates`: does every strength setting convert the basic won endings? From random
//! KR vs K and KQ vs K positions (the stronger side to move), Kestrel at each setting plays
//! the stronger side against full-strength Kestrel defending, with no tablebases, until the
//! rules end the game; anything but a mate (stalemate, a lost piece, the 50-move rule, a
//! threefold repetition) is a failure.
//!
//! The limited side moves as the engine does in a game (`Strength::params`, `choose_in`),
//! with the setting's node budget; the full-strength sides search a fixed number of nodes,
//! so a run repeats exactly: game `i` of a setting depends only on the seed, the setting
//! and `i`.

use crate::chess::{Color, Position};
use crate::game::{Game, GameResult};
use crate::rng::Rng;
use crate::search::strength::Strength;
use crate::search::{FixedLimits, SearchParams, Searcher};
use std::io::{self, Write};

/// The endings played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// King and rook against king.
    Krk,
    /// King and queen against king.
    Kqk,
}

impl Ending {
    pub const ALL: [Ending; 2] = [Ending::Krk, Ending::Kqk];

    pub fn name(self) -> &'static str {
        match self {
            Ending::Krk => "KRvK",
            Ending::Kqk => "KQvK",
        }
    }

    /// The ending of `pos`, if it is one of these.
    pub fn of(pos: &Position) -> Option<Ending> {
        let fen = pos.to_fen();
        let board = fen.split(' ').next().unwrap_or("");
        let mut pieces: Vec<char> = board.chars().filter(char::is_ascii_alphabetic).collect();
        pieces.sort_unstable();
        match pieces.iter().collect::<String>().as_str() {
            "KRk" | "Kkr" => Some(Ending::Krk),
            "KQk" | "Kkq" => Some(Ending::Kqk),
            _ => None,
        }
    }

    fn piece(self) -> char {
        match self {
            Ending::Krk => 'R',
            Ending::Kqk => 'Q',
        }
    }
}

/// A random legal position of `ending` with the stronger side (either colour) to move and
/// the game not over.
pub fn random_position(ending: Ending, rng: &mut Rng) -> Position {
    loop {
        let [king, piece, lone] = [(); 3].map(|_| rng.below(64) as usize);
        if king == piece || king == lone || piece == lone {
            continue;
        }
        let white = rng.below(2) == 0;
        let case = |c: char, strong: bool| {
            if strong == white {
                c
            } else {
                c.to_ascii_lowercase()
            }
        };
        let mut board = [None; 64];
        board[king] = Some(case('K', true));
        board[piece] = Some(case(ending.piece(), true));
        board[lone] = Some(case('K', false));
        let mut ranks = Vec::new();
        for rank in (0..8).rev() {
            let mut text = String::new();
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    Some(c) => {
                        if empty > 0 {
                            text.push_str(&empty.to_string());
                            empty = 0;
                        }
                        text.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                text.push_str(&empty.to_string());
            }
            ranks.push(text);
        }
        let side = if white { 'w' } else { 'b' };
        let fen = format!("{} {side} - - 0 1", ranks.join("/"));
        // Kings side by side or the lone king in check: not a legal position.
        let Ok(pos) = Position::from_fen(&fen) else {
            continue;
        };
        if Game::new(pos).outcome().is_none() {
            return pos;
        }
    }
}

/// How one game went.
#[derive(Clone, Debug)]
pub struct MateGame {
    pub start: Position,
    pub mated: bool,
    /// Plies played.
    pub plies: usize,
    /// How it ended (the rules' reason).
    pub end: &'static str,
}

/// What to play.
#[derive(Clone, Debug)]
pub struct Config {
    /// Settings to play at (each at or above full strength plays at full strength).
    pub elos: Vec<i64>,
    /// Random positions per ending and setting.
    pub positions: usize,
    /// Positions to play instead of random ones (each of a known ending).
    pub fens: Vec<Position>,
    pub seed: u64,
    /// Nodes per move of the full-strength sides (the defender, and the stronger side at
    /// full strength).
    pub full_nodes: u64,
    /// Games played at once.
    pub threads: usize,
}

/// Longest game played (more plies than the 50-move rule allows without a capture).
const MAX_PLIES: usize = 120;

/// Plays `start` out: the stronger side at `strength` (`None`: full strength), the other at
/// full strength.
pub fn play(start: Position, strength: Option<Strength>, full_nodes: u64, seed: u64) -> MateGame {
    let mut rng = Rng::new(seed);
    let strong = start.side_to_move();
    let (mut attacker, mut defender) = (Searcher::new(16), Searcher::new(16));
    let mut game = Game::new(start);
    let outcome = loop {
        if let Some(outcome) = game.outcome() {
            break Some(outcome);
        }
        if game.moves().len() >= MAX_PLIES {
            break None;
        }
        let pos = *game.position();
        let params = SearchParams {
            history: game.history_keys(),
            stop_on_mate: true,
            instant_single_reply: true,
            ..SearchParams::default()
        };
        let limited = strength.filter(|_| pos.side_to_move() == strong);
        let best = match limited {
            Some(s) => {
                let mut limits = FixedLimits::new(Some(s.nodes), None);
                let mut result = attacker.search(&pos, &s.params(&params), &mut limits);
                s.choose_in(&mut result, &mut rng);
                result.best
            }
            None => {
                let searcher = if pos.side_to_move() == strong {
                    &mut attacker
                } else {
                    &mut defender
                };
                let mut limits = FixedLimits::new(Some(full_nodes), None);
                searcher.search(&pos, &params, &mut limits).best
            }
        };
        let best = best.expect("a position with legal moves gets a move");
        game.play(best);
    };
    let strong_wins = match strong {
        Color::White => GameResult::WhiteWins,
        Color::Black => GameResult::BlackWins,
    };
    MateGame {
        start,
        mated: outcome.as_ref().is_some_and(|o| o.result == strong_wins),
        plies: game.moves().len(),
        end: outcome.map_or("too long", |o| o.reason),
    }
}

/// One setting's games of one ending.
#[derive(Clone, Debug)]
pub struct Tally {
    pub elo: i64,
    pub ending: Ending,
    pub games: Vec<MateGame>,
}

impl Tally {
    pub fn mates(&self) -> usize {
        self.games.iter().filter(|g| g.mated).count()
    }

    pub fn failures(&self) -> impl Iterator<Item = &MateGame> {
        self.games.iter().filter(|g| !g.mated)
    }
}

/// The random stream of game `index` at `elo`.
fn game_seed(seed: u64, elo: i64, ending: Ending, index: usize) -> u64 {
    let mut mix = Rng::new(
        seed ^ (elo as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (index as u64)
                .wrapping_mul(2)
                .wrapping_add(ending as u64)
                .wrapping_mul(0xD1B5_4A32_D192_ED03),
    );
    mix.next_u64()
}

/// Plays every setting of `config`, writing a line per setting and ending and one per
/// failed game to `out`. Returns the tallies, settings in the order given.
pub fn run(config: &Config, out: &mut dyn Write) -> io::Result<Vec<Tally>> {
    let mut tallies = Vec::new();
    for &elo in &config.elos {
        for ending in Ending::ALL {
            // The same positions at every setting.
            let starts: Vec<Position> = if config.fens.is_empty() {
                let mut rng = Rng::new(game_seed(config.seed, 0, ending, usize::MAX));
                (0..config.positions)
                    .map(|_| random_position(ending, &mut rng))
                    .collect()
            } else {
                let fixed = config.fens.iter();
                fixed
                    .filter(|p| Ending::of(p) == Some(ending))
                    .copied()
                    .collect()
            };
            if starts.is_empty() {
                continue;
            }
            let games = play_all(config, elo, ending, &starts);
            let tally = Tally { elo, ending, games };
            let plies: Vec<usize> = tally.games.iter().map(|g| g.plies).collect();
            writeln!(
                out,
                "elo {elo} {}: {}/{} mated, plies mean {:.1} max {}",
                ending.name(),
                tally.mates(),
                tally.games.len(),
                plies.iter().sum::<usize>() as f64 / plies.len() as f64,
                plies.iter().max().unwrap_or(&0)
            )?;
            for failed in tally.failures() {
                writeln!(
                    out,
                    "  failed: {} after {} plies: {}",
                    failed.start.to_fen(),
                    failed.plies,
                    failed.end
                )?;
            }
            tallies.push(tally);
        }
    }
    Ok(tallies)
}

/// The games of `starts` at `elo`, on `config.threads` threads, in the order of `starts`.
fn play_all(config: &Config, elo: i64, ending: Ending, starts: &[Position]) -> Vec<MateGame> {
    let strength = Strength::at(elo);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut games: Vec<Option<MateGame>> = vec![None; starts.len()];
    let results = std::sync::Mutex::new(&mut games);
    std::thread::scope(|scope| {
        for _ in 0..config.threads.clamp(1, starts.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&start) = starts.get(i) else {
                    break;
                };
                let seed = game_seed(config.seed, elo, ending, i);
                let game = play(start, strength, config.full_nodes, seed);
                results.lock().expect("no game panics")[i] = Some(game);
            });
        }
    });
    games
        .into_iter()
        .map(|g| g.expect("every game played"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_positions_are_legal_games_of_their_ending_with_the_stronger_side_to_move() {
        let mut rng = Rng::new(3);
        let mut colours = [0; 2];
        for ending in Ending::ALL {
            for _ in 0..200 {
                let pos = random_position(ending, &mut rng);
                assert_eq!(Ending::of(&pos), Some(ending), "{}", pos.to_fen());
                assert!(Game::new(pos).outcome().is_none(), "{}", pos.to_fen());
                // The side to move has the piece: its own king and one more.
                let fen = pos.to_fen();
                let board = fen.split(' ').next().unwrap();
                let upper = board.chars().filter(char::is_ascii_uppercase).count();
                let white = pos.side_to_move() == Color::White;
                assert_eq!(upper, if white { 2 } else { 1 }, "{fen}");
                colours[usize::from(white)] += 1;
            }
        }
        assert!(colours.iter().all(|&n| n > 100), "{colours:?}");
    }

    /// A run plays each ending at each setting, reports it, and repeats itself.
    #[test]
    fn a_run_reports_every_setting_and_ending_and_repeats() {
        let config = Config {
            elos: vec![1000],
            positions: 1,
            fens: Vec::new(),
            seed: 5,
            full_nodes: 3000,
            threads: 2,
        };
        let mut out = Vec::new();
        let tallies = run(&config, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(tallies.len(), 2, "{text}");
        assert!(text.starts_with("elo 1000 KRvK: 1/1 mated"), "{text}");
        assert!(text.contains("elo 1000 KQvK: 1/1 mated"), "{text}");
        let again = run(&config, &mut Vec::new()).unwrap();
        let plies = |t: &[Tally]| t.iter().map(|t| t.games[0].plies).collect::<Vec<_>>();
        assert_eq!(plies(&tallies), plies(&again));
    }
}
