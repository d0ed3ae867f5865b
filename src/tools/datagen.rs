//! `datagen`: self-play games at a fixed node count, written as training positions for the
//! evaluation tuner (`tune`).
//!
//! Each game starts from an opening (a line of the openings file, or the start position),
//! plays a few uniformly random plies, and is then played out by the search at `nodes` per
//! move until the rules end it or it is adjudicated: a win once the search has given one
//! side at least `WIN_SCORE` for `WIN_PLIES` plies in a row, a draw once the score has
//! stayed within `DRAW_SCORE` for `DRAW_PLIES` plies after move `DRAW_FROM_PLY / 2`, or
//! at `MAX_PLIES`.
//!
//! Of the positions searched, those a static evaluation can judge are kept: not in check, the
//! best move not a capture or promotion, no mate score, and not the first few searched
//! plies. Each is written as `FEN | score | result`, the search score in centipawns and the
//! result (`1.0`, `0.5`, `0.0`), both from White's view; or, in the bullet format, as a
//! 32-byte record (`tools::training_data`) of the same, from the side to move's view.
//!
//! Game `i` depends only on the seed and `i` (its own random stream, a cleared searcher, one
//! search thread), and games are written in index order whatever thread played them: the
//! same seed writes the same file, for any thread count. So a run is resumed by running it
//! again from the first game it did not write (`first_game`), appending to its file.
//!
//! A position already written in the run (the same key) is not written again: openings and
//! endings repeat across games, and a repeated position would weigh more in training.

use crate::chess::{Color, Position};
use crate::game::{Game, GameResult};
use crate::nnue::Network;
use crate::rng::Rng;
use crate::search::movepick::is_quiet;
use crate::search::{is_mate_score, FixedLimits, SearchParams, Searcher};
use crate::tools::training_data::{DataFormat, PackedPosition};
use std::collections::{BTreeMap, HashSet};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A side this far ahead (centipawns, by the search) for `WIN_PLIES` plies has won.
const WIN_SCORE: i32 = 1000;
const WIN_PLIES: u32 = 5;
/// A score this close to zero for `DRAW_PLIES` plies, from ply `DRAW_FROM_PLY` on, is a draw.
const DRAW_SCORE: i32 = 8;
const DRAW_PLIES: u32 = 12;
const DRAW_FROM_PLY: usize = 80;
/// Games still going after this many searched plies are drawn.
const MAX_PLIES: usize = 500;
/// Searched plies at the start of a game not written (still close to the random opening).
const SKIP_PLIES: usize = 4;
/// An opening the first search scores beyond this is replaced (the random plies blundered).
const OPENING_MAX_SCORE: i32 = 400;

/// How to generate.
#[derive(Clone)]
pub struct Config {
    /// Games of the run: indices `first_game..games`.
    pub games: u64,
    /// The first game to play (0, or where a stopped run left off).
    pub first_game: u64,
    /// Node budget of each move's search (the hard limit).
    pub nodes: u64,
    /// With it, no new iteration starts past this many nodes, so each move's score is a
    /// whole iteration's (and `nodes` is only the cap).
    pub soft_nodes: Option<u64>,
    pub threads: usize,
    pub seed: u64,
    /// Uniformly random plies after the opening.
    pub random_plies: u32,
    /// Hash per thread, MB.
    pub hash_mb: usize,
    /// Starting positions; empty means the standard start position.
    pub openings: Vec<Position>,
    /// How positions are written.
    pub format: DataFormat,
    /// The net that plays (None: the engine's default, the embedded net), so a candidate net
    /// can make data before it is embedded.
    pub net: Option<Arc<Network>>,
}

/// A game's result as written in the data: White's score.
fn white_score_text(result: GameResult) -> &'static str {
    match result {
        GameResult::WhiteWins => "1.0",
        GameResult::Draw => "0.5",
        GameResult::BlackWins => "0.0",
    }
}

/// One game: the positions kept for training (with White's search score) and the result.
#[derive(Clone, Debug)]
pub struct GameRecord {
    pub positions: Vec<(Position, i32)>,
    pub result: GameResult,
    /// Plies the search played.
    pub plies: usize,
    /// Whether the result was adjudicated rather than reached by the rules.
    pub adjudicated: bool,
}

impl GameRecord {
    /// The game's training positions not in `written` (keys of the run's positions so far),
    /// as lines or records; they join `written`. Returns how many were written.
    pub fn write_new(
        &self,
        out: &mut dyn Write,
        format: DataFormat,
        written: &mut HashSet<u64>,
    ) -> io::Result<u64> {
        let mut count = 0;
        for (pos, score) in &self.positions {
            if !written.insert(pos.key()) {
                continue;
            }
            count += 1;
            match format {
                DataFormat::Text => {
                    let fen = pos.to_fen();
                    writeln!(out, "{fen} | {score} | {}", white_score_text(self.result))?
                }
                DataFormat::Bullet => {
                    out.write_all(PackedPosition::new(pos, *score, self.result).as_bytes())?
                }
            }
        }
        Ok(count)
    }
}

/// The random stream of game `index`.
fn game_rng(seed: u64, index: u64) -> Rng {
    let mut mix = Rng::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
    Rng::new(mix.next_u64())
}

/// White's view of a score from the side to move's.
fn white_view(pos: &Position, score: i32) -> i32 {
    match pos.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    }
}

/// The start of a game: an opening plus random plies, not yet decided (the first search
/// scores it within `OPENING_MAX_SCORE`).
fn start_position(config: &Config, rng: &mut Rng, searcher: &mut Searcher) -> Game {
    loop {
        let opening = if config.openings.is_empty() {
            Position::startpos()
        } else {
            config.openings[rng.below(config.openings.len() as u64) as usize]
        };
        let mut game = Game::new(opening);
        let mut ok = true;
        for _ in 0..config.random_plies {
            let moves = game.position().legal_moves();
            if moves.is_empty() || game.outcome().is_some() {
                ok = false;
                break;
            }
            game.play(moves[rng.below(moves.len() as u64) as usize]);
        }
        if !ok || game.outcome().is_some() {
            continue;
        }
        searcher.clear();
        let score = search(searcher, &game, config).1;
        if score.abs() <= OPENING_MAX_SCORE {
            return game;
        }
    }
}

/// The best move and its score (side to move's view) within the node budget.
fn search(
    searcher: &mut Searcher,
    game: &Game,
    config: &Config,
) -> (Option<crate::chess::Move>, i32) {
    let params = SearchParams {
        history: game.history_keys(),
        stop_on_mate: true,
        instant_single_reply: true,
        ..SearchParams::default()
    };
    let mut limits = FixedLimits::new(Some(config.nodes), None);
    limits.soft_nodes = config.soft_nodes;
    let result = searcher.search(game.position(), &params, &mut limits);
    (result.best, result.score)
}

/// Plays game `index` of `config`.
pub fn play_game(config: &Config, searcher: &mut Searcher, index: u64) -> GameRecord {
    let mut rng = game_rng(config.seed, index);
    let mut game = start_position(config, &mut rng, searcher);
    searcher.clear();
    let mut kept = Vec::new();
    let (mut win_run, mut draw_run) = (0u32, 0u32);
    let mut last_winner = None;
    let mut plies = 0;
    let (result, adjudicated) = loop {
        if let Some(outcome) = game.outcome() {
            break (outcome.result, false);
        }
        if plies >= MAX_PLIES {
            break (GameResult::Draw, true);
        }
        let (best, score) = search(searcher, &game, config);
        let Some(best) = best else {
            // Only reachable with no legal move, which `outcome` has already caught.
            break (GameResult::Draw, true);
        };
        let pos = game.position();
        let white_score = white_view(pos, score);
        if plies >= SKIP_PLIES && !pos.in_check() && is_quiet(pos, best) && !is_mate_score(score) {
            kept.push((*pos, white_score));
        }

        let winner = if white_score >= WIN_SCORE {
            Some(GameResult::WhiteWins)
        } else if white_score <= -WIN_SCORE {
            Some(GameResult::BlackWins)
        } else {
            None
        };
        win_run = if winner.is_some() && winner == last_winner {
            win_run + 1
        } else {
            u32::from(winner.is_some())
        };
        last_winner = winner;
        if let Some(winner) = winner.filter(|_| win_run >= WIN_PLIES) {
            break (winner, true);
        }
        draw_run = if white_score.abs() <= DRAW_SCORE {
            draw_run + 1
        } else {
            0
        };
        if plies >= DRAW_FROM_PLY && draw_run >= DRAW_PLIES {
            break (GameResult::Draw, true);
        }

        game.play(best);
        plies += 1;
    };
    GameRecord {
        positions: kept,
        result,
        plies,
        adjudicated,
    }
}

/// What a run made.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    /// The next game to play: where a run stopped now would resume (`--first-game`).
    pub next_game: u64,
    /// Positions written.
    pub positions: u64,
    /// Positions kept by a game but not written, having been written before in the run.
    pub duplicates: u64,
    pub white_wins: u64,
    pub draws: u64,
    pub black_wins: u64,
    pub adjudicated: u64,
    pub plies: u64,
    pub elapsed: Duration,
}

impl Summary {
    fn add(&mut self, record: &GameRecord, written: u64) {
        self.games += 1;
        self.positions += written;
        self.duplicates += record.positions.len() as u64 - written;
        self.plies += record.plies as u64;
        self.adjudicated += u64::from(record.adjudicated);
        match record.result {
            GameResult::WhiteWins => self.white_wins += 1,
            GameResult::Draw => self.draws += 1,
            GameResult::BlackWins => self.black_wins += 1,
        }
    }

    /// One line: counts, rates and results.
    pub fn line(&self, total_games: u64) -> String {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        format!(
            "datagen: {}/{} games (next {}), {} positions ({} repeats left out), {:.1} games/s, \
             {:.0} positions/s, +{} ={} -{} (white's view), {} adjudicated, {:.0} plies/game",
            self.games,
            total_games,
            self.next_game,
            self.positions,
            self.duplicates,
            self.games as f64 / secs,
            self.positions as f64 / secs,
            self.white_wins,
            self.draws,
            self.black_wins,
            self.adjudicated,
            self.plies as f64 / self.games.max(1) as f64,
        )
    }
}

/// Plays games `config.first_game..config.games` on `config.threads` threads, writing their
/// new positions to `out` in game order, and a progress line to `progress` every `every`.
pub fn run(
    config: &Config,
    out: &mut dyn Write,
    progress: &mut dyn Write,
    every: Duration,
) -> io::Result<Summary> {
    let start = Instant::now();
    let next_game = AtomicU64::new(config.first_game);
    let failed = AtomicBool::new(false);
    let (send, receive) = crossbeam_channel::unbounded::<(u64, GameRecord)>();
    let mut summary = Summary {
        next_game: config.first_game,
        ..Summary::default()
    };
    std::thread::scope(|scope| -> io::Result<()> {
        for _ in 0..config.threads.max(1) {
            let (send, next_game, failed) = (send.clone(), &next_game, &failed);
            scope.spawn(move || {
                let mut searcher = Searcher::new(config.hash_mb);
                if let Some(net) = &config.net {
                    searcher.set_network(Some(net.clone()));
                }
                loop {
                    let index = next_game.fetch_add(1, Relaxed);
                    if index >= config.games || failed.load(Relaxed) {
                        break;
                    }
                    let record = play_game(config, &mut searcher, index);
                    if send.send((index, record)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(send);
        // Games finish out of order; write them in index order.
        let mut waiting = BTreeMap::new();
        let mut written = HashSet::new();
        let mut next_to_write = config.first_game;
        let mut last_progress = Instant::now();
        for (index, record) in receive {
            waiting.insert(index, record);
            while let Some(record) = waiting.remove(&next_to_write) {
                let new = record
                    .write_new(out, config.format, &mut written)
                    .and_then(|n| out.flush().map(|()| n));
                match new {
                    Ok(new) => summary.add(&record, new),
                    Err(e) => {
                        failed.store(true, Relaxed);
                        return Err(e);
                    }
                }
                next_to_write += 1;
                summary.next_game = next_to_write;
            }
            if last_progress.elapsed() >= every {
                last_progress = Instant::now();
                summary.elapsed = start.elapsed();
                let _ = writeln!(
                    progress,
                    "{}",
                    summary.line(config.games - config.first_game)
                );
            }
        }
        Ok(())
    })?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(threads: usize, seed: u64) -> Config {
        Config {
            games: 3,
            first_game: 0,
            nodes: 600,
            soft_nodes: None,
            threads,
            seed,
            random_plies: 4,
            hash_mb: 1,
            openings: Vec::new(),
            format: DataFormat::Text,
            net: None,
        }
    }

    fn generate_bytes(config: &Config) -> Vec<u8> {
        let mut out = Vec::new();
        run(config, &mut out, &mut io::sink(), Duration::from_secs(3600)).unwrap();
        out
    }

    fn generate(config: &Config) -> String {
        String::from_utf8(generate_bytes(config)).unwrap()
    }

    #[test]
    fn bullet_records_hold_what_the_text_lines_hold() {
        let text = generate(&config(2, 5));
        let bullet = generate_bytes(&Config {
            format: DataFormat::Bullet,
            ..config(2, 5)
        });
        assert!(text.lines().count() > 20, "{text}");
        assert_eq!(bullet.len(), 32 * text.lines().count());
        for (line, record) in text.lines().zip(bullet.chunks_exact(32)) {
            let expected = PackedPosition::parse_line(line).unwrap();
            assert_eq!(record, expected.as_bytes(), "{line}");
        }
    }

    #[test]
    fn the_same_seed_writes_the_same_positions_for_any_thread_count() {
        let one = generate(&config(1, 7));
        assert!(one.lines().count() > 20, "{one}");
        assert_eq!(one, generate(&config(1, 7)));
        assert_eq!(one, generate(&config(2, 7)));
        assert_ne!(one, generate(&config(1, 8)));
    }

    #[test]
    fn written_positions_are_quiet_and_carry_a_result() {
        let data = generate(&config(2, 3));
        for line in data.lines() {
            let fields: Vec<&str> = line.split(" | ").collect();
            assert_eq!(fields.len(), 3, "{line}");
            let pos = Position::from_fen(fields[0]).unwrap();
            assert!(!pos.in_check(), "{line}");
            let score: i32 = fields[1].parse().unwrap();
            assert!(!is_mate_score(score), "{line}");
            assert!(["1.0", "0.5", "0.0"].contains(&fields[2]), "{line}");
        }
    }

    fn key_of(line: &str) -> u64 {
        Position::from_fen(line.split(" | ").next().unwrap())
            .unwrap()
            .key()
    }

    #[test]
    fn a_resumed_run_writes_what_the_whole_run_writes() {
        let whole = generate(&Config {
            games: 5,
            ..config(2, 11)
        });
        let first = generate(&Config {
            games: 2,
            ..config(1, 11)
        });
        let rest = generate(&Config {
            games: 5,
            first_game: 2,
            ..config(2, 11)
        });
        assert!(first.lines().count() > 10 && rest.lines().count() > 10);
        // The rest starts at game 2: it holds none of the first part's lines.
        assert!(rest.lines().all(|l| !first.contains(l)));
        // The whole run also leaves out the rest's positions that the first part wrote.
        let seen: HashSet<u64> = first.lines().map(key_of).collect();
        let joined: Vec<&str> = first
            .lines()
            .chain(rest.lines().filter(|l| !seen.contains(&key_of(l))))
            .collect();
        assert_eq!(whole.lines().collect::<Vec<_>>(), joined);
    }

    #[test]
    fn a_position_is_written_once_in_a_run() {
        // Without random plies every game from the start position is the same game (a
        // cleared searcher, one thread each): only the first one's positions are written.
        let same = Config {
            games: 3,
            random_plies: 0,
            ..config(2, 1)
        };
        let mut out = Vec::new();
        let summary = run(&same, &mut out, &mut io::sink(), Duration::from_secs(3600)).unwrap();
        let text = String::from_utf8(out).unwrap();
        let one_game = generate(&Config {
            games: 1,
            ..same.clone()
        });
        assert!(one_game.lines().count() > 10, "{one_game}");
        assert_eq!(text, one_game);
        assert_eq!(summary.positions, one_game.lines().count() as u64);
        // Every kept position of the three games is written or counted as a repeat (the
        // first game repeats some of its own, too).
        let kept = play_game(&same, &mut Searcher::new(1), 0).positions.len() as u64;
        assert_eq!(summary.positions + summary.duplicates, 3 * kept);
        assert!(summary.duplicates >= 2 * summary.positions);
        assert_eq!(summary.next_game, 3);
        // And in any run, no two lines share a position.
        let data = generate(&Config {
            games: 6,
            ..config(2, 4)
        });
        let keys: HashSet<u64> = data.lines().map(key_of).collect();
        assert_eq!(keys.len(), data.lines().count());
    }

    #[test]
    fn a_soft_node_limit_ends_the_search_at_an_iteration_boundary() {
        let game = Game::new(Position::startpos());
        let mut searcher = Searcher::new(1);
        let params = SearchParams::default();
        for soft in [300, 3000] {
            searcher.clear();
            let mut limits = FixedLimits::new(Some(1_000_000), None);
            limits.soft_nodes = Some(soft);
            let result = searcher.search(game.position(), &params, &mut limits);
            // Past the soft limit, but only by the iteration that crossed it: the last
            // report is that whole iteration's.
            assert!(result.nodes >= soft, "{soft}: {}", result.nodes);
            assert!(result.nodes < 40 * soft, "{soft}: {}", result.nodes);
            let (_, last) = limits.reports.last().unwrap();
            assert_eq!(last.depth, result.depth);
        }
    }

    #[test]
    fn random_streams_differ_by_game_and_stay_in_range() {
        let (mut a, mut b) = (game_rng(1, 0), game_rng(1, 1));
        assert_ne!(a.next_u64(), b.next_u64());
        assert!((0..1000).all(|_| a.below(7) < 7));
    }
}
