//! `rescore`: training positions searched again at a larger node count, their scores
//! replaced. Self-play at a few thousand nodes a move makes many positions quickly but labels
//! them from a shallow search; rescoring relabels positions already made (from any run, on
//! any machine) with a deeper one, a quarter or less of the cost of playing new games at that
//! depth, since no game needs to be played around them.
//!
//! Input and output are text data lines, `FEN | score | result` (White's view). Each output
//! line is its input line's FEN and result with the new score. Lines whose new score is a
//! mate are left out (training has no use for them), as are blank lines, `#` comments and
//! lines that do not parse (the first few reported).
//!
//! Lines are searched in blocks of `BLOCK` lines, counted from the file's first line: each
//! block by one thread with a searcher cleared at its start (consecutive lines of a datagen
//! file come from one game, so the table carries over between them as in the game), and
//! blocks are written in order. So the output depends only on the input and the settings,
//! for any thread count, and a stopped run resumes from the `next line` of its last progress
//! line (always a block's first), appending to its file.

use crate::chess::Color;
use crate::nnue::Network;
use crate::search::{is_mate_score, FixedLimits, SearchParams, Searcher};
use crate::tools::training_data::split_line;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Lines per block: the unit of work of a thread, and of resuming.
pub const BLOCK: u64 = 256;

/// Malformed lines named in the summary, at most; the rest are only counted.
const ERRORS_KEPT: usize = 20;

/// How to rescore.
#[derive(Clone)]
pub struct Config {
    /// Node budget of each position's search (the hard limit).
    pub nodes: u64,
    pub threads: usize,
    /// Hash per thread, MB.
    pub hash_mb: usize,
    /// The first input line to rescore (0-based; a block's first line, as the progress lines
    /// give it); the lines before it are read and skipped.
    pub first_line: u64,
    /// The input line to stop before, if not the end of the input.
    pub end_line: Option<u64>,
    /// The net that searches (None: the embedded net).
    pub net: Option<Arc<Network>>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Input lines rescored or left out.
    pub lines: u64,
    /// The next input line: where a run stopped now would resume (`--first-line`).
    pub next_line: u64,
    pub written: u64,
    /// Positions whose new score is a mate, left out.
    pub mates: u64,
    /// Lines that do not parse, left out: the count and the first few (line number from 1,
    /// reason).
    pub malformed: u64,
    pub errors: Vec<(u64, String)>,
    /// Sum of |new score − old score| over the written lines, centipawns.
    pub change_sum: u64,
    pub elapsed: Duration,
}

impl Summary {
    fn add(&mut self, block: &Block) {
        self.lines += block.lines;
        self.written += block.out.len() as u64;
        self.mates += block.mates;
        self.malformed += block.errors.len() as u64;
        self.change_sum += block.change_sum;
        for error in &block.errors {
            if self.errors.len() < ERRORS_KEPT {
                self.errors.push(error.clone());
            }
        }
    }

    /// One line: counts, rate and the mean change of score.
    pub fn line(&self) -> String {
        let secs = self.elapsed.as_secs_f64().max(1e-9);
        format!(
            "rescore: {} lines (next line {}), {} written, {} mate scores and {} malformed \
             left out, {:.0} positions/s, mean change {:.1} cp",
            self.lines,
            self.next_line,
            self.written,
            self.mates,
            self.malformed,
            self.lines as f64 / secs,
            self.change_sum as f64 / self.written.max(1) as f64,
        )
    }
}

/// A block's input lines and, once searched, its output.
#[derive(Default)]
struct Block {
    /// The block's first line (0-based).
    first: u64,
    input: Vec<String>,
    lines: u64,
    out: Vec<String>,
    mates: u64,
    errors: Vec<(u64, String)>,
    change_sum: u64,
}

/// The line with a new score: the FEN and result as they were, or why it is left out.
enum Rescored {
    Line(String, u64),
    Skipped,
    Mate,
    Malformed(String),
}

fn rescore_line(searcher: &mut Searcher, config: &Config, line: &str) -> Rescored {
    let text = line.trim();
    if text.is_empty() || text.starts_with('#') {
        return Rescored::Skipped;
    }
    let (pos, old, result) = match split_line(text) {
        Ok(fields) => fields,
        Err(e) => return Rescored::Malformed(e),
    };
    if pos.legal_moves().is_empty() {
        return Rescored::Malformed("no legal move (the game is over)".to_string());
    }
    let fen = text.split('|').next().unwrap_or_default().trim();
    let params = SearchParams {
        stop_on_mate: true,
        ..SearchParams::default()
    };
    let mut limits = FixedLimits::new(Some(config.nodes), None);
    let score = searcher.search(&pos, &params, &mut limits).score;
    if is_mate_score(score) {
        return Rescored::Mate;
    }
    let white = match pos.side_to_move() {
        Color::White => score,
        Color::Black => -score,
    };
    Rescored::Line(
        format!("{fen} | {white} | {result}"),
        u64::from(white.abs_diff(old)),
    )
}

fn search_block(searcher: &mut Searcher, config: &Config, block: &mut Block) {
    searcher.clear();
    for (i, line) in block.input.iter().enumerate() {
        match rescore_line(searcher, config, line) {
            Rescored::Line(out, change) => {
                block.out.push(out);
                block.change_sum += change;
            }
            Rescored::Skipped => {}
            Rescored::Mate => block.mates += 1,
            Rescored::Malformed(e) => block.errors.push((block.first + i as u64 + 1, e)),
        }
    }
    block.lines = block.input.len() as u64;
    block.input = Vec::new();
}

/// Reads `input` in blocks from `config.first_line` to `config.end_line` (or its end) and
/// sends them, numbered, to the searching threads.
fn read_blocks(
    input: &mut (dyn BufRead + Send),
    config: &Config,
    send: crossbeam_channel::Sender<(u64, Block)>,
    failed: &AtomicBool,
) -> io::Result<()> {
    let end = config.end_line.unwrap_or(u64::MAX);
    let mut line = String::new();
    let mut index = 0u64;
    while index < config.first_line {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        index += 1;
    }
    let mut number = 0u64;
    while index < end && !failed.load(Relaxed) {
        // Blocks end at multiples of BLOCK, so a resumed run cuts them as the whole run did.
        let block_end = ((index / BLOCK + 1) * BLOCK).min(end);
        let mut block = Block {
            first: index,
            ..Block::default()
        };
        while index < block_end {
            line.clear();
            if input.read_line(&mut line)? == 0 {
                break;
            }
            block.input.push(line.trim_end().to_string());
            index += 1;
        }
        let last = index < block_end;
        if !block.input.is_empty() && send.send((number, block)).is_err() {
            break;
        }
        number += 1;
        if last {
            break;
        }
    }
    Ok(())
}

/// Rescores `input`'s lines from `config.first_line` on `config.threads` threads, writing
/// them to `out` in input order, and a progress line to `progress` every `every`.
pub fn run(
    config: &Config,
    input: &mut (dyn BufRead + Send),
    out: &mut dyn Write,
    progress: &mut dyn Write,
    every: Duration,
) -> io::Result<Summary> {
    let start = Instant::now();
    let failed = AtomicBool::new(false);
    let threads = config.threads.max(1);
    let (send_block, receive_block) = crossbeam_channel::bounded::<(u64, Block)>(2 * threads);
    let (send_done, receive_done) = crossbeam_channel::unbounded::<(u64, Block)>();
    let mut summary = Summary {
        next_line: config.first_line,
        ..Summary::default()
    };
    std::thread::scope(|scope| -> io::Result<()> {
        let failed = &failed;
        let reader = scope.spawn(move || read_blocks(input, config, send_block, failed));
        for _ in 0..threads {
            let (receive, send) = (receive_block.clone(), send_done.clone());
            scope.spawn(move || {
                let mut searcher = Searcher::new(config.hash_mb);
                if let Some(net) = &config.net {
                    searcher.set_network(Some(net.clone()));
                }
                for (number, mut block) in receive {
                    search_block(&mut searcher, config, &mut block);
                    if send.send((number, block)).is_err() {
                        break;
                    }
                }
            });
        }
        drop((receive_block, send_done));
        // Blocks finish out of order; write them in input order.
        let mut waiting = BTreeMap::new();
        let mut next_to_write = 0u64;
        let mut last_progress = Instant::now();
        let mut written = Ok(());
        for (number, block) in receive_done {
            waiting.insert(number, block);
            while let Some(block) = waiting.remove(&next_to_write) {
                written = written.and_then(|()| {
                    block
                        .out
                        .iter()
                        .try_for_each(|line| writeln!(out, "{line}"))
                        .and_then(|()| out.flush())
                });
                if written.is_err() {
                    failed.store(true, Relaxed);
                    break;
                }
                summary.add(&block);
                summary.next_line = block.first + block.lines;
                next_to_write += 1;
            }
            if last_progress.elapsed() >= every {
                last_progress = Instant::now();
                summary.elapsed = start.elapsed();
                let _ = writeln!(progress, "{}", summary.line());
            }
        }
        written?;
        reader.join().expect("the reader thread panicked")
    })?;
    summary.elapsed = start.elapsed();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    /// Lines of a short datagen run, whose scores came from a 600-node search.
    fn data(games: u64) -> String {
        let config = crate::tools::datagen::Config {
            games,
            first_game: 0,
            nodes: 600,
            soft_nodes: None,
            threads: 2,
            seed: 21,
            random_plies: 4,
            hash_mb: 1,
            openings: Vec::new(),
            format: crate::tools::training_data::DataFormat::Text,
            net: None,
        };
        let mut out = Vec::new();
        crate::tools::datagen::run(&config, &mut out, &mut io::sink(), Duration::MAX).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn config(threads: usize, nodes: u64) -> Config {
        Config {
            nodes,
            threads,
            hash_mb: 1,
            first_line: 0,
            end_line: None,
            net: None,
        }
    }

    fn rescore(config: &Config, input: &str) -> (String, Summary) {
        let mut out = Vec::new();
        let summary = run(
            config,
            &mut io::Cursor::new(input.as_bytes().to_vec()),
            &mut out,
            &mut io::sink(),
            Duration::MAX,
        )
        .unwrap();
        (String::from_utf8(out).unwrap(), summary)
    }

    #[test]
    fn lines_keep_their_position_and_result_and_get_the_deeper_score() {
        let input = data(3);
        let (out, summary) = rescore(&config(2, 2000), &input);
        assert!(input.lines().count() > 100, "{input}");
        assert_eq!(summary.lines, input.lines().count() as u64);
        assert_eq!(summary.written + summary.mates, summary.lines);
        // Datagen writes a position once, so its FEN finds its input line.
        let inputs: std::collections::HashMap<&str, (usize, i32, &str)> = input
            .lines()
            .enumerate()
            .map(|(i, line)| {
                let (_, score, result) = split_line(line).unwrap();
                (line.split(" | ").next().unwrap(), (i, score, result))
            })
            .collect();
        let (mut changed, mut last) = (0, None);
        for line in out.lines() {
            let (_, new_score, new_result) = split_line(line).unwrap();
            let (i, old_score, old_result) = inputs[line.split(" | ").next().unwrap()];
            assert!(last < Some(i), "out of order: {line}");
            last = Some(i);
            assert_eq!(new_result, old_result);
            assert!(!is_mate_score(new_score));
            changed += usize::from(new_score != old_score);
        }
        assert_eq!(out.lines().count() as u64, summary.written);
        // A search of 2,000 nodes disagrees with one of 600 on most positions.
        assert!(changed * 2 > input.lines().count(), "{changed} changed");
        assert!(summary.change_sum > 0);
    }

    #[test]
    fn the_output_is_the_same_for_any_thread_count_and_when_resumed() {
        let input = data(9);
        let lines = input.lines().count() as u64;
        assert!(lines > 2 * BLOCK, "{lines} lines");
        let (one, _) = rescore(&config(1, 500), &input);
        let (two, summary) = rescore(&config(3, 500), &input);
        assert_eq!(one, two);
        assert_eq!(summary.next_line, lines);
        // Stopped after the first block, resumed from the next.
        let (first, head) = rescore(
            &Config {
                end_line: Some(BLOCK),
                ..config(2, 500)
            },
            &input,
        );
        assert_eq!(head.next_line, BLOCK);
        let (rest, _) = rescore(
            &Config {
                first_line: BLOCK,
                ..config(2, 500)
            },
            &input,
        );
        assert_eq!(first + &rest, one);
    }

    #[test]
    fn a_wrong_score_is_corrected() {
        // White a queen up, the input claiming White is lost.
        let input = "4k3/8/8/8/8/8/3QK3/8 w - - 0 1 | -900 | 1.0\n";
        let (out, summary) = rescore(&config(1, 3000), input);
        assert_eq!(summary.written, 1);
        let (pos, score, result) = split_line(out.trim()).unwrap();
        assert_eq!(
            pos.to_fen(),
            Position::from_fen("4k3/8/8/8/8/8/3QK3/8 w - - 0 1")
                .unwrap()
                .to_fen()
        );
        assert!(score > 500, "{out}");
        assert_eq!(result, "1.0");
    }

    #[test]
    fn bad_lines_are_counted_and_named_and_lose_nothing_else() {
        let input = "# a comment\n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 10 | 0.5\n\
            not a fen | 3 | 1.0\n\
            \n\
            rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | 20 | 0.5\n\
            rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | ten | 0.5\n\
            k7/1Q6/1K6/8/8/8/8/8 b - - 0 1 | 0 | 1.0\n";
        let (out, summary) = rescore(&config(2, 1000), input);
        assert_eq!(out.lines().count(), 2, "{out}");
        assert_eq!(summary.lines, 7);
        assert_eq!(summary.malformed, 3);
        let lines: Vec<u64> = summary.errors.iter().map(|(line, _)| *line).collect();
        assert_eq!(lines, [3, 6, 7]);
    }
}
