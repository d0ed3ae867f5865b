//! EPD test suites (WAC, Bratko-Kopec, ECM, ...): reading them and running the engine on
//! them.
//!
//! An EPD line is the first four FEN fields followed by operations, `opcode operands;`:
//!
//! ```text
//! 2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";
//! ```
//!
//! Suites found in the wild bend the format, so the reader is lenient where the meaning is
//! still clear: SAN with `+`, `#`, `!`, `?` suffixes, coordinate moves (`e2e4`), several
//! moves per `bm`/`am` (space or comma separated), a full six-field FEN with its move
//! counters, quoted operands containing `;`, a missing final `;`, CRLF endings. It is strict
//! where guessing would hide a broken test: an unknown or illegal move in `bm`/`am` is an
//! error naming that move, and so is a line with nothing to test (no `bm` and no `am`).
//!
//! The runner searches each position with a fresh hash table (so a suite run with a depth
//! or node limit is deterministic) and counts a position as solved when the move the search
//! ends on is a best move (and not a move to avoid). The solution time is when the search
//! settled on a solving move for good, which is what test-suite tables traditionally report.

use crate::chess::{FenError, Move, MoveError, Position};
use crate::search::{FixedLimits, SearchParams, Searcher};
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// One test position.
#[derive(Clone, Debug)]
pub struct EpdEntry {
    /// The four FEN fields (placement, side, castling, en passant) as written in the line,
    /// separated by single spaces.
    pub fen: String,
    /// The position, with the move counters of the line if it had any (six-field FEN or
    /// `hmvc`/`fmvn` operations): the halfmove clock matters to the 50-move rule.
    pub position: Position,
    /// `bm`: the position is solved by playing one of these (empty: any move not avoided).
    pub best_moves: Vec<Move>,
    /// `am`: the position is failed by playing one of these.
    pub avoid_moves: Vec<Move>,
    /// `id`, e.g. `WAC.001`, if the line has one.
    pub id: Option<String>,
}

impl EpdEntry {
    /// Whether playing `mv` solves this position: it is one of the best moves (if any were
    /// given) and not one of the moves to avoid.
    pub fn is_solution(&self, mv: Move) -> bool {
        (self.best_moves.is_empty() || self.best_moves.contains(&mv))
            && !self.avoid_moves.contains(&mv)
    }

    /// What is expected, in SAN: `bm Rd8`, `am Kg1`, `bm Nf3 Nc3; am e4`.
    pub fn expectation(&self) -> String {
        let list = |moves: &[Move]| {
            moves
                .iter()
                .map(|&m| self.position.san(m))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut parts = Vec::new();
        if !self.best_moves.is_empty() {
            parts.push(format!("bm {}", list(&self.best_moves)));
        }
        if !self.avoid_moves.is_empty() {
            parts.push(format!("am {}", list(&self.avoid_moves)));
        }
        parts.join("; ")
    }
}

/// Why an EPD line was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EpdError {
    /// Nothing on the line.
    Empty,
    /// The FEN part is malformed. `fen` is the text that was read as the FEN.
    Fen { fen: String, error: FenError },
    /// A move in a `bm` or `am` operation is not a legal move in the position.
    BadMove {
        opcode: String,
        text: String,
        /// Whose move it is, since a FEN with the wrong side to move is a common cause.
        side: &'static str,
        error: MoveError,
    },
    /// No `bm` or `am` operation with at least one move: nothing to test.
    NoBestOrAvoidMove,
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpdError::Empty => write!(f, "empty line, expected a FEN and operations"),
            EpdError::Fen { fen, error } => write!(f, "bad FEN '{fen}': {error}"),
            EpdError::BadMove {
                opcode,
                text,
                side,
                error,
            } => write!(
                f,
                "bad move '{text}' in '{opcode}' ({side} to move): {error}"
            ),
            EpdError::NoBestOrAvoidMove => write!(
                f,
                "no 'bm' (best move) or 'am' (avoid move) operation with a move: nothing to test"
            ),
        }
    }
}

impl std::error::Error for EpdError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EpdError::Fen { error, .. } => Some(error),
            EpdError::BadMove { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// The next token of `s`: leading whitespace skipped, then everything up to whitespace or
/// `;`. Returns the token (empty at the end or before a `;`) and what follows it.
fn next_token(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s
        .find(|c: char| c.is_whitespace() || c == ';')
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Splits the operations part into `(opcode, operands)`. Quoted operands may contain `;`
/// and spaces (and `\"`, `\\` escapes, which some writers use); empty operations (`;;`)
/// are skipped, and the last `;` may be missing.
fn parse_operations(s: &str) -> Vec<(String, Vec<String>)> {
    let mut ops = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut finish = |current: &mut Vec<String>| {
        if !current.is_empty() {
            let opcode = current.remove(0);
            ops.push((opcode, std::mem::take(current)));
        }
    };
    let mut chars = s.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        match chars.peek() {
            None => {
                finish(&mut current);
                break;
            }
            Some(';') => {
                chars.next();
                finish(&mut current);
            }
            Some('"') => {
                chars.next();
                let mut text = String::new();
                // An unterminated quote runs to the end of the line.
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\')) => {
                            text.push(chars.next().unwrap())
                        }
                        _ => text.push(c),
                    }
                }
                current.push(text);
            }
            Some(_) => {
                let mut text = String::new();
                while let Some(c) = chars.next_if(|&c| !c.is_whitespace() && c != ';') {
                    text.push(c);
                }
                current.push(text);
            }
        }
    }
    ops
}

/// Reads the moves of a `bm`/`am` operation; commas between moves are allowed.
fn parse_moves(
    pos: &Position,
    opcode: &str,
    operands: &[String],
    into: &mut Vec<Move>,
) -> Result<(), EpdError> {
    let texts = operands
        .iter()
        .flat_map(|o| o.split(',').map(str::trim))
        .filter(|t| !t.is_empty());
    for text in texts {
        let mv = pos.parse_move(text).map_err(|error| EpdError::BadMove {
            opcode: opcode.to_string(),
            text: text.to_string(),
            side: pos.side_to_move().name(),
            error,
        })?;
        if !into.contains(&mv) {
            into.push(mv);
        }
    }
    Ok(())
}

/// Parses one EPD line (see the module documentation for what is accepted).
pub fn parse_epd_line(line: &str) -> Result<EpdEntry, EpdError> {
    let line = line.trim_matches(|c: char| c.is_whitespace() || c == '\0' || c == '\u{feff}');
    if line.is_empty() {
        return Err(EpdError::Empty);
    }
    let mut rest = line;
    let mut fields = Vec::with_capacity(4);
    while fields.len() < 4 {
        let (token, after) = next_token(rest);
        if token.is_empty() {
            break;
        }
        fields.push(token);
        rest = after;
    }
    let fen = fields.join(" ");
    let fen_error = |error| EpdError::Fen {
        fen: fen.clone(),
        error,
    };
    if fields.len() < 4 {
        // Let the FEN reader say which field is missing.
        return Err(fen_error(
            Position::from_fen(&fen).expect_err("a FEN of fewer than 4 fields"),
        ));
    }
    // A six-field FEN: opcodes start with a letter, so leading numbers are move counters.
    let mut halfmove = None;
    let mut fullmove = None;
    for slot in [&mut halfmove, &mut fullmove] {
        let (token, after) = next_token(rest);
        if token.is_empty() || !token.bytes().all(|b| b.is_ascii_digit()) {
            break;
        }
        *slot = Some(token.to_string());
        rest = after;
    }

    let ops = parse_operations(rest);
    let operand_text = |operands: &[String]| operands.join(" ");
    let mut id = None;
    for (opcode, operands) in &ops {
        match opcode.to_ascii_lowercase().as_str() {
            "hmvc" if !operands.is_empty() => halfmove = Some(operand_text(operands)),
            "fmvn" if !operands.is_empty() => fullmove = Some(operand_text(operands)),
            "id" if id.is_none() && !operands.is_empty() => id = Some(operand_text(operands)),
            _ => {}
        }
    }

    let mut full_fen = fen.clone();
    if halfmove.is_some() || fullmove.is_some() {
        full_fen.push(' ');
        full_fen.push_str(halfmove.as_deref().unwrap_or("0"));
        full_fen.push(' ');
        full_fen.push_str(fullmove.as_deref().unwrap_or("1"));
    }
    let position = Position::from_fen(&full_fen).map_err(|error| EpdError::Fen {
        fen: full_fen.clone(),
        error,
    })?;

    let mut best_moves = Vec::new();
    let mut avoid_moves = Vec::new();
    for (opcode, operands) in &ops {
        match opcode.to_ascii_lowercase().as_str() {
            "bm" => parse_moves(&position, opcode, operands, &mut best_moves)?,
            "am" => parse_moves(&position, opcode, operands, &mut avoid_moves)?,
            _ => {}
        }
    }
    if best_moves.is_empty() && avoid_moves.is_empty() {
        return Err(EpdError::NoBestOrAvoidMove);
    }
    Ok(EpdEntry {
        fen,
        position,
        best_moves,
        avoid_moves,
        id,
    })
}

/// One line of an EPD file: its line number and what it parsed to.
pub type EpdLine = (usize, Result<EpdEntry, EpdError>);

/// Reads an EPD file: every line that is not blank or a `#` comment, with its line number
/// (from 1) and what it parsed to. Bad lines are returned, not fatal, so a caller can
/// report them and run the rest. Bytes that are not UTF-8 (old files in Latin-1 comments)
/// are replaced rather than refused.
pub fn read_epd_file(path: impl AsRef<Path>) -> Result<Vec<EpdLine>, std::io::Error> {
    let bytes = std::fs::read(path)?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(text
        .split('\n')
        .enumerate()
        .filter_map(|(i, line)| {
            let trimmed =
                line.trim_matches(|c: char| c.is_whitespace() || c == '\0' || c == '\u{feff}');
            if trimmed.is_empty() || trimmed.starts_with('#') {
                None
            } else {
                Some((i + 1, parse_epd_line(trimmed)))
            }
        })
        .collect())
}

/// How long to search each position. Each limit that is set stops the search; with none
/// set a search runs to the engine's maximum depth, which in practice never ends.
#[derive(Clone, Debug)]
pub struct EpdLimits {
    pub time: Option<Duration>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Hash table size; each position starts with an empty table of this size.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
}

/// How the engine did on one position.
#[derive(Clone, Debug)]
pub struct PositionResult {
    /// 1-based index in the suite.
    pub index: usize,
    pub id: Option<String>,
    /// The move the search ended on (`None` if the position has no legal move).
    pub found: Option<Move>,
    /// `found` in SAN (`-` if none).
    pub found_san: String,
    pub solved: bool,
    /// When the search settled on a solving move for good (solved positions only).
    pub solution_time: Option<Duration>,
    /// The iteration depth at that moment (solved positions only).
    pub solution_depth: Option<u32>,
    /// Deepest completed iteration.
    pub depth: u32,
    /// Final score, centipawns from the side to move (or a mate score).
    pub score: i32,
    pub nodes: u64,
    /// Time the whole search of this position took.
    pub time: Duration,
}

/// The outcome of a suite run.
#[derive(Clone, Debug)]
pub struct SuiteSummary {
    pub solved: usize,
    pub total: usize,
    pub total_nodes: u64,
    /// Mean solution time over the solved positions (zero if none was solved).
    pub average_solution_time: Duration,
    /// Wall-clock time of the whole run.
    pub total_time: Duration,
    pub results: Vec<PositionResult>,
}

/// Searches one position within `limits` with `searcher` (whose tables are cleared first,
/// so the result does not depend on what was searched before).
pub fn run_position(
    searcher: &mut Searcher,
    entry: &EpdEntry,
    index: usize,
    limits: &EpdLimits,
) -> PositionResult {
    searcher.clear();
    let params = SearchParams {
        max_depth: limits.depth,
        // As in timed play: once a mate is proven, deeper iterations change nothing.
        stop_on_mate: true,
        ..Default::default()
    };
    let mut hook = FixedLimits::new(limits.nodes, limits.time);
    let result = searcher.search(&entry.position, &params, &mut hook);
    let time = hook.start.elapsed();

    let found = result.best;
    let solved = found.is_some_and(|m| entry.is_solution(m));
    let (mut solution_time, mut solution_depth) = (None, None);
    if solved {
        // The first report from which on every report's first move solves.
        let unsolved_after = hook
            .reports
            .iter()
            .rposition(|(_, r)| !r.pv.first().is_some_and(|&m| entry.is_solution(m)));
        let first_solved = unsolved_after.map_or(0, |i| i + 1);
        match hook.reports.get(first_solved) {
            Some((elapsed, r)) => {
                solution_time = Some(*elapsed);
                solution_depth = Some(r.depth);
            }
            // The search ended on a solving move that no report announced (a budget too
            // small for the first iteration): it was found at the very end.
            None => {
                solution_time = Some(time);
                solution_depth = Some(result.depth);
            }
        }
    }
    PositionResult {
        index,
        id: entry.id.clone(),
        found,
        found_san: found.map_or_else(|| "-".to_string(), |m| entry.position.san(m)),
        solved,
        solution_time,
        solution_depth,
        depth: result.depth,
        score: result.score,
        nodes: result.nodes,
        time,
    }
}

/// Runs the suite: a line per position to `out`, a `searching ...` line before each search
/// to `progress` (for a person watching a long run; the CLI sends it to stderr), and the
/// totals at the end. Write errors are ignored: the summary is returned either way.
pub fn run_suite(
    entries: &[EpdEntry],
    limits: &EpdLimits,
    out: &mut dyn Write,
    progress: &mut dyn Write,
) -> SuiteSummary {
    let start = Instant::now();
    let total = entries.len();
    let index_width = total.to_string().len();
    let label = |i: usize, e: &EpdEntry| e.id.clone().unwrap_or_else(|| format!("#{}", i + 1));
    let id_width = entries
        .iter()
        .enumerate()
        .map(|(i, e)| label(i, e).chars().count())
        .max()
        .unwrap_or(0);
    let mut searcher = Searcher::new(limits.hash_mb);
    searcher.set_threads(limits.threads);
    let mut results = Vec::with_capacity(total);
    for (i, entry) in entries.iter().enumerate() {
        let name = label(i, entry);
        let _ = writeln!(progress, "searching {}/{total} {name} ...", i + 1);
        let _ = progress.flush();
        let r = run_position(&mut searcher, entry, i + 1, limits);
        let head = format!(
            "{:>index_width$}/{total} {name:<id_width$}  found {:<7}",
            i + 1,
            r.found_san
        );
        let line = match (r.solution_time, r.solution_depth) {
            (Some(t), Some(d)) if r.solved => {
                format!("{head}  solved at {:.2} s depth {d}", t.as_secs_f64())
            }
            _ => format!("{head}  FAILED ({})", entry.expectation()),
        };
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
        results.push(r);
    }

    let solved: Vec<&PositionResult> = results.iter().filter(|r| r.solved).collect();
    let solution_total: Duration = solved.iter().filter_map(|r| r.solution_time).sum();
    let average_solution_time = if solved.is_empty() {
        Duration::ZERO
    } else {
        solution_total / solved.len() as u32
    };
    let summary = SuiteSummary {
        solved: solved.len(),
        total,
        total_nodes: results.iter().map(|r| r.nodes).sum(),
        average_solution_time,
        total_time: start.elapsed(),
        results,
    };
    let percent = if total == 0 {
        0.0
    } else {
        100.0 * summary.solved as f64 / total as f64
    };
    let _ = writeln!(
        out,
        "solved {}/{} ({percent:.1}%), average solution time {:.2} s, total time {:.1} s, nodes {}",
        summary.solved,
        summary.total,
        summary.average_solution_time.as_secs_f64(),
        summary.total_time.as_secs_f64(),
        summary.total_nodes
    );
    let _ = out.flush();
    summary
}

/// Reads the suite in `path` and runs it as `run_suite` does. Each line that is not a test
/// position is passed to `skipped` as `FILE:LINE: skipped: why` and left out of the run.
/// A file that cannot be read is the error, and nothing is run.
pub fn run_suite_file(
    path: &Path,
    limits: &EpdLimits,
    skipped: &mut dyn FnMut(&str),
    out: &mut dyn Write,
    progress: &mut dyn Write,
) -> std::io::Result<SuiteSummary> {
    let mut entries = Vec::new();
    for (line, parsed) in read_epd_file(path)? {
        match parsed {
            Ok(entry) => entries.push(entry),
            Err(e) => skipped(&format!("{}:{line}: skipped: {e}", path.display())),
        }
    }
    Ok(run_suite(&entries, limits, out, progress))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAC1: &str = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -";

    fn coords(e: &EpdEntry, moves: &[Move]) -> Vec<String> {
        moves.iter().map(|&m| e.position.coordinate(m)).collect()
    }

    #[test]
    fn plain_wac_line() {
        let e = parse_epd_line(&format!("{WAC1} bm Qg6; id \"WAC.001\";")).unwrap();
        assert_eq!(e.fen, WAC1);
        assert_eq!(coords(&e, &e.best_moves), ["g3g6"]);
        assert!(e.avoid_moves.is_empty());
        assert_eq!(e.id.as_deref(), Some("WAC.001"));
        assert_eq!(e.position.halfmove_clock(), 0);
        assert_eq!(e.position.fullmove_number(), 1);
    }

    #[test]
    fn san_suffixes_are_accepted() {
        // Qxh7+ in WAC.004, and the same move with annotations.
        let fen = "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - -";
        for text in ["Qxh7+", "Qxh7", "Qxh7+!", "Qxh7!?", "Qxh7#", "Qxh7?"] {
            let e = parse_epd_line(&format!("{fen} bm {text}; id \"x\";")).unwrap();
            assert_eq!(coords(&e, &e.best_moves), ["h6h7"], "{text}");
        }
    }

    #[test]
    fn several_best_moves_and_commas() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let e = parse_epd_line(&format!("{start} bm Nf3 Nc3;")).unwrap();
        assert_eq!(coords(&e, &e.best_moves), ["g1f3", "b1c3"]);
        assert_eq!(e.id, None);
        let e = parse_epd_line(&format!("{start} bm Nf3, Nc3,e4; id BK;")).unwrap();
        assert_eq!(coords(&e, &e.best_moves), ["g1f3", "b1c3", "e2e4"]);
        assert_eq!(e.id.as_deref(), Some("BK"));
        // Repeated moves are kept once.
        let e = parse_epd_line(&format!("{start} bm e4 e2e4 e4+;")).unwrap();
        assert_eq!(coords(&e, &e.best_moves), ["e2e4"]);
    }

    #[test]
    fn coordinate_moves() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let e = parse_epd_line(&format!("{start} bm g1f3 e2e4; am f2f3;")).unwrap();
        assert_eq!(coords(&e, &e.best_moves), ["g1f3", "e2e4"]);
        assert_eq!(coords(&e, &e.avoid_moves), ["f2f3"]);
        // Castling and promotion in coordinates.
        let e = parse_epd_line("r3k3/1P6/8/8/8/8/8/4K2R w K - bm e1g1 b7a8q;").unwrap();
        assert_eq!(coords(&e, &e.best_moves), ["e1g1", "b7a8q"]);
        assert_eq!(e.position.san(e.best_moves[1]), "bxa8=Q+");
    }

    #[test]
    fn avoid_move_only() {
        let e = parse_epd_line(
            "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - am Ba6; id \"am only\";",
        )
        .unwrap();
        assert!(e.best_moves.is_empty());
        assert_eq!(coords(&e, &e.avoid_moves), ["f1a6"]);
        assert_eq!(e.id.as_deref(), Some("am only"));
        assert!(!e.is_solution(e.avoid_moves[0]));
        let other = e.position.parse_san("Bb5").unwrap();
        assert!(e.is_solution(other));
        assert_eq!(e.expectation(), "am Ba6");
    }

    #[test]
    fn extra_operations_quotes_and_semicolons() {
        let line = format!(
            "{WAC1} c0 \"a; tricky \\\"comment\\\"\"; ce 750; acd 12; bm Qg6!; \
             id \"WAC 001; the first\"; c1 \"unused\";"
        );
        let e = parse_epd_line(&line).unwrap();
        assert_eq!(coords(&e, &e.best_moves), ["g3g6"]);
        assert_eq!(e.id.as_deref(), Some("WAC 001; the first"));
        // Operations glued to their semicolons and no final semicolon.
        let e = parse_epd_line(&format!("{WAC1};bm Qg6;id WAC.001")).unwrap();
        assert_eq!(coords(&e, &e.best_moves), ["g3g6"]);
        assert_eq!(e.id.as_deref(), Some("WAC.001"));
    }

    #[test]
    fn trailing_whitespace_and_crlf() {
        let e = parse_epd_line(&format!("  {WAC1}\tbm  Qg6 ;  id \"WAC.001\" ; \r\n")).unwrap();
        assert_eq!(e.fen, WAC1);
        assert_eq!(coords(&e, &e.best_moves), ["g3g6"]);
        assert_eq!(e.id.as_deref(), Some("WAC.001"));
    }

    #[test]
    fn six_field_fen_with_counters() {
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let e = parse_epd_line(&format!("{start} 0 1 bm e4;")).unwrap();
        assert_eq!(e.fen, start);
        assert_eq!(coords(&e, &e.best_moves), ["e2e4"]);
        let e = parse_epd_line(&format!("{WAC1} 12 34 bm Qg6; id \"x\";")).unwrap();
        assert_eq!(e.position.halfmove_clock(), 12);
        assert_eq!(e.position.fullmove_number(), 34);
        assert_eq!(e.fen, WAC1);
        // Only the halfmove clock.
        let e = parse_epd_line(&format!("{WAC1} 7 bm Qg6;")).unwrap();
        assert_eq!(e.position.halfmove_clock(), 7);
        assert_eq!(e.position.fullmove_number(), 1);
        // Counters as operations.
        let e = parse_epd_line(&format!("{WAC1} hmvc 9; fmvn 40; bm Qg6;")).unwrap();
        assert_eq!(e.position.halfmove_clock(), 9);
        assert_eq!(e.position.fullmove_number(), 40);
    }

    #[test]
    fn bad_fen_is_reported_with_the_fen() {
        let err = parse_epd_line("2rr3k/pp3pp1/8 w - - bm Qg6;").unwrap_err();
        assert_eq!(
            err,
            EpdError::Fen {
                fen: "2rr3k/pp3pp1/8 w - -".into(),
                error: FenError::WrongRankCount(3)
            }
        );
        assert_eq!(
            err.to_string(),
            "bad FEN '2rr3k/pp3pp1/8 w - -': piece placement has 3 ranks, expected 8"
        );
        // A missing en-passant field swallows the opcode: the message shows it.
        let err = parse_epd_line("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - bm Qg6;")
            .unwrap_err();
        assert!(matches!(
            err,
            EpdError::Fen {
                error: FenError::BadEnPassant(ref s),
                ..
            } if s == "bm"
        ));
        let err = parse_epd_line("8/8/8/8/8/8/8/8 w").unwrap_err();
        assert!(matches!(
            err,
            EpdError::Fen {
                error: FenError::MissingField("castling"),
                ..
            }
        ));
        // A counter too large for the FEN reader.
        let err = parse_epd_line(&format!("{WAC1} 99999 1 bm Qg6;")).unwrap_err();
        assert!(matches!(
            err,
            EpdError::Fen {
                error: FenError::BadHalfmoveClock(_),
                ..
            }
        ));
        assert_eq!(parse_epd_line(" \r\n").unwrap_err(), EpdError::Empty);
    }

    #[test]
    fn bad_moves_are_named() {
        let err = parse_epd_line(&format!("{WAC1} bm Qa3; id \"WAC.001\";")).unwrap_err();
        assert_eq!(
            err,
            EpdError::BadMove {
                opcode: "bm".into(),
                text: "Qa3".into(),
                side: "White",
                error: MoveError::NoSuchMove
            }
        );
        assert_eq!(
            err.to_string(),
            "bad move 'Qa3' in 'bm' (White to move): that piece cannot move there"
        );
        // The second of two moves is the bad one; and a move for the wrong side.
        let err = parse_epd_line(&format!("{WAC1} bm Qg6 Kh8;")).unwrap_err();
        assert!(matches!(err, EpdError::BadMove { ref text, .. } if text == "Kh8"));
        let err = parse_epd_line(&format!("{WAC1} am c8c1;")).unwrap_err();
        assert_eq!(
            err,
            EpdError::BadMove {
                opcode: "am".into(),
                text: "c8c1".into(),
                side: "White",
                error: MoveError::NotYourPiece(crate::chess::Square::parse("c8").unwrap())
            }
        );
        let err = parse_epd_line(&format!("{WAC1} bm hello;")).unwrap_err();
        assert!(matches!(
            err,
            EpdError::BadMove { error: MoveError::Syntax(ref s), .. } if s == "hello"
        ));
    }

    #[test]
    fn nothing_to_test() {
        for line in [
            format!("{WAC1} id \"WAC.001\";"),
            WAC1.to_string(),
            format!("{WAC1} bm ; id \"x\";"),
            // `bm` inside a quoted comment is not an operation.
            format!("{WAC1} c0 \"bm Qg6;\";"),
        ] {
            assert_eq!(
                parse_epd_line(&line).unwrap_err(),
                EpdError::NoBestOrAvoidMove,
                "{line}"
            );
        }
        assert!(EpdError::NoBestOrAvoidMove.to_string().contains("'bm'"));
    }

    #[test]
    fn operations_tokenizer() {
        let ops = parse_operations(r#" bm e4 d4; c0 "x;y" ; ; id "a \"b\" \\c"; pv "unterminated"#);
        assert_eq!(
            ops,
            [
                ("bm".to_string(), vec!["e4".to_string(), "d4".to_string()]),
                ("c0".to_string(), vec!["x;y".to_string()]),
                ("id".to_string(), vec![r#"a "b" \c"#.to_string()]),
                ("pv".to_string(), vec!["unterminated".to_string()]),
            ]
        );
    }

    #[test]
    fn file_reader_skips_blanks_and_comments() {
        let dir = std::env::temp_dir().join(format!("kestrel-epd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mixed.epd");
        let text = format!(
            "\u{feff}# a comment\r\n\r\n{WAC1} bm Qg6; id \"WAC.001\";\r\n   \n  # indented comment\n\
             {WAC1} bm Qa3;\n8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - bm Rxb2; id \"WAC.002\";"
        );
        std::fs::write(&path, text).unwrap();
        let entries = read_epd_file(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let lines: Vec<usize> = entries.iter().map(|(n, _)| *n).collect();
        assert_eq!(lines, [3, 6, 7]);
        assert_eq!(
            entries[0].1.as_ref().unwrap().id.as_deref(),
            Some("WAC.001")
        );
        assert!(matches!(
            entries[1].1,
            Err(EpdError::BadMove { ref text, .. }) if text == "Qa3"
        ));
        assert_eq!(
            entries[2].1.as_ref().unwrap().id.as_deref(),
            Some("WAC.002")
        );
        assert!(read_epd_file(dir.join("missing.epd")).is_err());
    }

    #[test]
    fn run_suite_prints_a_line_per_position_and_totals() {
        // A mate in one (Re8#) and a position whose `am` is the only sensible move.
        let entries = vec![
            parse_epd_line("6k1/5ppp/8/8/8/8/8/4R1K1 w - - bm Re8#; id \"mate\";").unwrap(),
            parse_epd_line("4k3/8/8/3q4/8/8/3R4/4K3 w - - am Rxd5; id \"avoid\";").unwrap(),
        ];
        let limits = EpdLimits {
            time: None,
            depth: Some(4),
            nodes: None,
            hash_mb: 1,
            threads: 1,
        };
        let mut out = Vec::new();
        let mut progress = Vec::new();
        let summary = run_suite(&entries, &limits, &mut out, &mut progress);
        let out = String::from_utf8(out).unwrap();
        let progress = String::from_utf8(progress).unwrap();
        assert_eq!(
            progress,
            "searching 1/2 mate ...\nsearching 2/2 avoid ...\n"
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert!(
            lines[0].starts_with("1/2 mate   found Re8#     solved at "),
            "{out}"
        );
        assert!(lines[0].ends_with(" s depth 1"), "{out}");
        assert_eq!(lines[1], "2/2 avoid  found Rxd5     FAILED (am Rxd5)");
        assert!(lines[2].starts_with("solved 1/2 (50.0%), average solution time "));
        assert!(lines[2].ends_with(&format!(", nodes {}", summary.total_nodes)));
        assert_eq!((summary.solved, summary.total), (1, 2));
        let r = &summary.results;
        assert_eq!(r[0].found_san, "Re8#");
        assert!(r[0].solved);
        assert_eq!(r[0].solution_depth, Some(1));
        assert!(!r[1].solved);
        assert_eq!(r[1].solution_time, None);
        assert_eq!(r[1].depth, 4);
        assert_eq!(summary.total_nodes, r.iter().map(|r| r.nodes).sum::<u64>());
        assert_eq!(summary.average_solution_time, r[0].solution_time.unwrap());
    }

    #[test]
    fn node_limit_stops_the_search() {
        let e =
            parse_epd_line("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - bm Bb5;")
                .unwrap();
        let limits = EpdLimits {
            time: None,
            depth: None,
            nodes: Some(20_000),
            hash_mb: 1,
            threads: 1,
        };
        let r = run_position(&mut Searcher::new(1), &e, 1, &limits);
        assert!(r.found.is_some());
        assert!(
            r.nodes < 20_000 + 4 * crate::search::POLL_INTERVAL,
            "{}",
            r.nodes
        );
    }
}
