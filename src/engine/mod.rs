//! The engine core both protocol front ends share: the input and output of a session, the
//! game, the options, the clocks, and running a search with a hook that reads input while
//! it thinks and applies the time limits, including the switch from pondering to a timed
//! search on a ponder hit.
//!
//! A front end (`protocol::xboard`, `protocol::uci`) owns a `Core` and a
//! `Searcher`, parses its language into calls on them, and formats what comes back. During
//! a search the shared hook hands every input line to the front end (`Front`), which decides
//! whether it is answered at once, queued, stops the search, or is a ponder hit.

pub mod time;

use self::time::{compute_limits_with_margin, SearchClock, TimeControl, TimeLimits, SAFETY_MARGIN};
use crate::book::{Book, BookMove, BookRng};
use crate::chess::{Move, Position};
use crate::game::Game;
use crate::protocol::transcript::Transcript;
use crate::search::{
    SearchHook, SearchInfo, SearchParams, SearchResult, Searcher, MAX_SYZYGY_PROBE_DEPTH,
};
use crate::tablebase::Tablebase;
use crossbeam_channel::Receiver;
use std::collections::VecDeque;
use std::io::Write;
use std::time::Duration;

pub const ENGINE_NAME: &str = concat!("Kestrel ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the Kestrel authors";
/// Lines longer than this are refused: no command needs more than a FEN and a bit, except
/// a UCI `position` with a whole game's moves (`MAX_POSITION_LEN`).
pub const MAX_COMMAND_LEN: usize = 4096;
/// The longest UCI `position` line taken. GUIs send the whole game with every move, about
/// five characters a ply; 128 KiB holds more than 20,000 plies, beyond the longest game the
/// 75-move rule allows (under 18,000 plies), with the FEN. Longer is not a game.
pub const MAX_POSITION_LEN: usize = 128 * 1024;
/// The Move Overhead option's range, in milliseconds.
pub const MAX_MOVE_OVERHEAD_MS: u64 = 5000;
/// The most lines the MultiPV option allows (more than any position has legal moves; the
/// search caps it at the moves there are).
pub const MAX_MULTI_PV: usize = 256;

/// The session's input (lines from the reader thread) and output, with its transcript.
pub struct Io {
    rx: Receiver<String>,
    /// Input read during a search and not yet handled, in arrival order.
    pub pending: VecDeque<String>,
    out: Box<dyn Write + Send>,
    pub transcript: Transcript,
    /// `quit` was read, or nobody reads our output any more.
    pub quit: bool,
}

impl Io {
    pub fn new(rx: Receiver<String>, out: Box<dyn Write + Send>) -> Io {
        Io {
            rx,
            pending: VecDeque::new(),
            out,
            transcript: Transcript::default(),
            quit: false,
        }
    }

    /// The next input line, waiting for it (end of input reads as `quit`).
    pub fn receive(&mut self) -> String {
        let line = self.rx.recv().unwrap_or_else(|_| "quit".into());
        self.transcript.input(&line);
        line
    }

    /// The next line to handle: a queued one first, else the next input line.
    pub fn next_line(&mut self) -> String {
        match self.pending.pop_front() {
            Some(line) => line,
            None => self.receive(),
        }
    }

    /// The next input line if one is there.
    pub fn try_receive(&mut self) -> Option<String> {
        match self.rx.try_recv() {
            Ok(line) => {
                self.transcript.input(&line);
                Some(line)
            }
            Err(crossbeam_channel::TryRecvError::Empty) => None,
            Err(crossbeam_channel::TryRecvError::Disconnected) => Some("quit".into()),
        }
    }

    pub fn send(&mut self, line: &str) {
        log::debug!("out: {line}");
        self.transcript.output(line);
        let ok = writeln!(self.out, "{line}").and_then(|_| self.out.flush());
        if ok.is_err() {
            // Nobody listens any more (GUI gone): stop.
            self.quit = true;
        }
    }
}

/// Why an input line is refused outright, whatever the protocol: the reason and a
/// printable preview of the line.
pub fn line_problem(line: &str) -> Option<(&'static str, String)> {
    line_problem_within(line, MAX_COMMAND_LEN)
}

/// `line_problem` for a command that may be up to `max_len` bytes long.
pub fn line_problem_within(line: &str, max_len: usize) -> Option<(&'static str, String)> {
    let preview: String = line.chars().filter(|c| !c.is_control()).take(40).collect();
    if line.starts_with(crate::protocol::input::TRUNCATED_MARK) || line.len() > max_len {
        Some(("line too long", format!("{preview}...")))
    } else if line.contains('\u{FFFD}') {
        Some(("input is not valid UTF-8", preview))
    } else {
        None
    }
}

/// A PV as text, as far as its moves are legal, each move written by `text`.
pub fn pv_text(root: &Position, pv: &[Move], text: impl Fn(&Position, Move) -> String) -> String {
    let mut pos = *root;
    let mut parts = Vec::with_capacity(pv.len());
    for &m in pv {
        if !pos.is_legal(m) {
            break;
        }
        parts.push(text(&pos, m));
        pos.play(m);
    }
    parts.join(" ")
}

/// What both protocols keep: the game, the options, the clocks.
pub struct Core {
    pub io: Io,
    pub game: Game,
    /// Castling is written and read king-takes-rook (xboard `variant fischerandom`, UCI
    /// `UCI_Chess960`).
    pub chess960: bool,
    /// Pondering allowed (xboard `hard`/`easy`, UCI `Ponder`).
    pub ponder: bool,
    pub time_control: TimeControl,
    /// Our clock, if the GUI told us.
    pub time_left: Option<Duration>,
    pub max_depth: Option<u32>,
    /// Nodes per second standing in for the clock (xboard `nps`).
    pub nps: Option<u64>,
    pub threads: usize,
    /// Kept back from every clock reading for latency (the Move Overhead option).
    pub move_overhead: Duration,
    /// Best root moves searched and shown, each with its score and PV (the MultiPV option).
    pub multi_pv: usize,
    /// The opening book, if a book file is set and could be opened.
    pub book: Option<Book>,
    /// Play from the book when there is one (xboard `Book`, UCI `OwnBook`).
    pub use_book: bool,
    /// Draws the book moves: seeded once per session, so a session's choices can be
    /// repeated, while the games of one session still differ.
    pub book_rng: BookRng,
}

impl Core {
    pub fn new(io: Io) -> Core {
        Core {
            io,
            game: Game::default(),
            chess960: false,
            ponder: false,
            time_control: TimeControl::default(),
            time_left: None,
            max_depth: None,
            nps: None,
            threads: 1,
            move_overhead: SAFETY_MARGIN,
            multi_pv: 1,
            book: None,
            use_book: false,
            book_rng: BookRng::new(crate::book::DEFAULT_SEED),
        }
    }

    pub fn send(&mut self, line: &str) {
        self.io.send(line);
    }

    /// The time limits for our move, `moves_made` moves into the time control.
    pub fn limits(&self, moves_made: u32) -> TimeLimits {
        compute_limits_with_margin(
            self.time_control,
            self.time_left,
            moves_made,
            self.move_overhead,
        )
    }

    /// Starts a new game from `start` (Chess960 castling if the session or the FEN says so).
    pub fn new_game(&mut self, mut start: Position) {
        start.set_chess960(self.chess960 || start.is_chess960());
        self.game = Game::new(start);
    }

    /// Hash table size in MB, clamped to what the table allows; resizing clears it.
    pub fn set_hash_mb(&mut self, searcher: &mut Searcher, mb: usize) {
        let mb = mb.clamp(1, crate::search::tt::MAX_HASH_MB);
        if mb != searcher.hash_mb() {
            searcher.set_hash_mb(mb);
        }
    }

    /// Search threads, clamped to 1..=MAX_THREADS.
    pub fn set_threads(&mut self, searcher: &mut Searcher, threads: usize) {
        self.threads = threads.clamp(1, crate::search::MAX_THREADS);
        searcher.set_threads(self.threads);
    }

    /// Loads the Syzygy tables in `path` (one directory or several separated by the
    /// platform's path separator; empty or `<empty>`: no tables) in place of the old ones.
    /// A directory that does not exist is skipped, as GUIs send default paths that need not
    /// exist (XBoard's stock `/EGT/Syzygy`); with none left there are no tables. Returns the
    /// lines to show (what was skipped, what was loaded), or why nothing was loaded from
    /// directories that exist: the engine then plays without tables.
    pub fn set_syzygy_path(
        &mut self,
        searcher: &mut Searcher,
        path: &str,
    ) -> Result<Vec<String>, String> {
        // The prober allows one set of tables at a time: the old one goes first.
        searcher.set_tablebase(None);
        let path = path.trim();
        if path.is_empty() || path == "<empty>" {
            return Ok(vec!["Syzygy tables off".into()]);
        }
        let opened = Tablebase::open(path)?;
        let missing: Vec<String> = opened
            .missing
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        let missing = match missing.len() {
            0 => None,
            1 => Some(format!("Syzygy directory {} does not exist", missing[0])),
            _ => Some(format!(
                "Syzygy directories {} do not exist",
                missing.join(", ")
            )),
        };
        let Some(tables) = opened.tables else {
            let line = format!("{}; playing without tables", missing.unwrap_or_default());
            log::warn!("{line}");
            return Ok(vec![line]);
        };
        let mut lines = Vec::new();
        if let Some(missing) = missing {
            let line = format!("{missing}: skipped");
            log::warn!("{line}");
            lines.push(line);
        }
        let loaded = format!(
            "Syzygy tables: {} found, up to {} pieces",
            tables.table_count(),
            tables.largest()
        );
        log::info!("{loaded}");
        lines.push(loaded);
        searcher.set_tablebase(Some(tables));
        Ok(lines)
    }

    /// `SyzygyProbeDepth`: 1 to `MAX_SYZYGY_PROBE_DEPTH` plies.
    pub fn set_syzygy_probe_depth(
        &mut self,
        searcher: &mut Searcher,
        text: &str,
    ) -> Result<(), String> {
        match text.trim().parse::<i32>() {
            Ok(d) if (1..=MAX_SYZYGY_PROBE_DEPTH).contains(&d) => {
                searcher.set_syzygy_probe_depth(d);
                Ok(())
            }
            _ => Err(format!(
                "SyzygyProbeDepth must be 1-{MAX_SYZYGY_PROBE_DEPTH}, not '{}'",
                text.trim()
            )),
        }
    }

    /// The tables' verdict on the current position: `wdl W dtz D` (W from -2, lost, to 2,
    /// won, ignoring the 50-move counter; D the signed distance to the next capture or
    /// pawn move, counting the 50-move rule) and the moves that keep it. An error when
    /// there are no tables or they do not know the position.
    pub fn tablebase_report(&self, searcher: &Searcher) -> Result<String, String> {
        let tables = searcher
            .tablebase()
            .ok_or("no Syzygy tables loaded (set SyzygyPath or egtpath syzygy DIR)")?;
        let pos = self.game.position();
        if !tables.covers(pos) {
            return Err(format!(
                "the tables cover positions of at most {} pieces without castling rights",
                tables.largest()
            ));
        }
        let missing = || "a table this position needs is missing".to_string();
        let wdl = tables.probe_wdl(pos).ok_or_else(missing)?;
        let root = tables.probe_root(pos).ok_or_else(missing)?;
        let best: Vec<String> = root
            .best_moves()
            .iter()
            .map(|&m| pos.coordinate(m))
            .collect();
        let mut line = format!("wdl {} dtz {}", wdl.value(), root.dtz);
        if !best.is_empty() {
            line.push_str(&format!(" best {}", best.join(" ")));
        }
        Ok(line)
    }

    /// Move Overhead in milliseconds, 0 to `MAX_MOVE_OVERHEAD_MS`.
    pub fn set_move_overhead(&mut self, text: &str) -> Result<(), String> {
        match text.trim().parse::<u64>() {
            Ok(ms) if ms <= MAX_MOVE_OVERHEAD_MS => {
                self.move_overhead = Duration::from_millis(ms);
                Ok(())
            }
            _ => Err(format!("Move Overhead must be 0-{MAX_MOVE_OVERHEAD_MS} ms")),
        }
    }

    /// MultiPV: the number of best lines, 1 to `MAX_MULTI_PV`.
    pub fn set_multi_pv(&mut self, text: &str) -> Result<(), String> {
        match text.trim().parse::<usize>() {
            Ok(n) if (1..=MAX_MULTI_PV).contains(&n) => {
                self.multi_pv = n;
                Ok(())
            }
            _ => Err(format!("MultiPV must be 1-{MAX_MULTI_PV}")),
        }
    }
}

impl Core {
    /// Opens the book file `path` (an empty path: no book). On failure the book set before,
    /// if any, stays, and the reason comes back.
    pub fn set_book_file(&mut self, path: &str) -> Result<(), String> {
        let path = path.trim();
        if path.is_empty() {
            self.book = None;
            return Ok(());
        }
        match Book::open(std::path::Path::new(path)) {
            Ok(book) => {
                self.book = Some(book);
                Ok(())
            }
            Err(e) => {
                let kept = if self.book.is_some() {
                    "; the book set before stays"
                } else {
                    ""
                };
                Err(format!("cannot open book file {path}: {e}{kept}"))
            }
        }
    }

    /// The book moves of the current position (an empty list without a book); a read
    /// error comes back as text.
    pub fn book_moves(&self) -> Result<Vec<BookMove>, String> {
        let Some(book) = &self.book else {
            return Ok(Vec::new());
        };
        let pos = self.game.position();
        // With the last move known, the key follows the format's en-passant rule exactly.
        let key = match (self.game.position_before_last(), self.game.last_move()) {
            (Some(before), Some(mv)) => crate::book::polyglot_key_after(before, mv),
            _ => crate::book::polyglot_key(pos),
        };
        book.moves_with_key(pos, key)
            .map_err(|e| format!("cannot read the book: {e}"))
    }

    /// A move to play from the book in the current position, with the total weight of the
    /// position's book moves; `None` if the book is off, missing or has nothing here.
    pub fn book_move(&mut self) -> Option<(BookMove, u32)> {
        if !self.use_book || self.book.is_none() {
            return None;
        }
        let moves = match self.book_moves() {
            Ok(moves) => moves,
            Err(e) => {
                log::warn!("{e}");
                return None;
            }
        };
        let total = moves.iter().map(|b| u32::from(b.weight)).sum();
        crate::book::choose(&moves, &mut self.book_rng).map(|b| (b, total))
    }
}

/// Why a search ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abort {
    /// Not aborted by input (finished, or stopped by its limits).
    No,
    /// Move now with the best move so far (xboard `?`, UCI `stop`).
    MoveNow,
    /// Another command needs the front end: the search result is not used.
    Command,
}

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Our move, on our clock.
    Think,
    /// The opponent's time; `expected` is the reply we search as if it were played (xboard;
    /// under UCI the GUI already put it in the position). A ponder hit makes it `Think`.
    Ponder { expected: Option<Move> },
    /// No limit until told to stop (xboard analysis, UCI `go infinite`).
    Analyze,
}

/// One running search as the front ends see it.
pub struct Search {
    pub mode: Mode,
    pub clock: SearchClock,
    pub root: Position,
    pub abort: Abort,
    /// The pondered search became our own (the opponent played the expected move).
    pub ponder_hit: bool,
    /// A node budget for our move (UCI `go nodes`).
    pub max_nodes: Option<u64>,
    /// The main line has been reported at least once: depth 1 is done and there is a
    /// searched move to play. Until then neither the clock, a node budget nor `?`/`stop`
    /// ends the search (depth 1 takes well under a millisecond); another command does.
    pub has_move: bool,
    pub depth: u32,
    pub nodes: u64,
    /// The root move being searched, its index and the number of root moves.
    pub root_index: usize,
    pub root_count: usize,
    pub root_move: Move,
}

impl Search {
    pub fn new(mode: Mode, limits: TimeLimits, nps: Option<u64>, root: Position) -> Search {
        Search {
            mode,
            clock: SearchClock::new(limits, nps),
            root,
            abort: Abort::No,
            ponder_hit: false,
            max_nodes: None,
            has_move: false,
            depth: 0,
            nodes: 0,
            root_index: 0,
            root_count: 0,
            root_move: Move::NONE,
        }
    }

    /// Ends the search at the next poll (the first reason given counts).
    pub fn stop(&mut self, why: Abort) {
        if self.abort == Abort::No {
            self.abort = why;
        }
    }

    /// The opponent played the move we pondered on: from now on the search is our timed
    /// search under `limits` (time already pondered counts towards the soft limits).
    pub fn on_ponder_hit(&mut self, limits: TimeLimits) {
        self.ponder_hit = true;
        self.mode = Mode::Think;
        self.clock.ponder_hit(limits, self.nodes);
    }

    /// Whether the limits of our own move are used up (only `Think` has any, and only
    /// once depth 1 has given a move).
    fn past_hard_limit(&self, nodes: u64) -> bool {
        self.mode == Mode::Think
            && self.has_move
            && (self.clock.past_never_exceed(nodes) || self.max_nodes.is_some_and(|n| nodes >= n))
    }
}

/// A protocol front end, as the shared search hook calls it.
pub trait Front {
    fn core(&mut self) -> &mut Core;
    /// One line that arrived during `search`: answer it, queue it in `core().io.pending`,
    /// stop the search, or take it as a ponder hit.
    fn on_search_input(&mut self, search: &mut Search, line: String);
    /// An iteration finished (or a new best root move was found).
    fn on_report(&mut self, search: &Search, info: &SearchInfo);
    /// The search moved on to another root move (`search.root_move`).
    fn on_root_move(&mut self, _search: &Search) {}
}

/// Runs `searcher` on `search.root` with `front` reading the input meanwhile. On return
/// `search` says how it ended (`abort`, `ponder_hit`).
pub fn run_search<F: Front>(
    searcher: &mut Searcher,
    front: &mut F,
    search: &mut Search,
    params: &SearchParams,
) -> SearchResult {
    let root = search.root;
    let mut hook = Hook { front, search };
    searcher.search(&root, params, &mut hook)
}

/// The search's view of the front end: input, limits, reports.
struct Hook<'a, F: Front> {
    front: &'a mut F,
    search: &'a mut Search,
}

impl<F: Front> SearchHook for Hook<'_, F> {
    fn poll(&mut self, nodes: u64) -> bool {
        self.search.nodes = nodes;
        while self.search.abort == Abort::No {
            match self.front.core().io.try_receive() {
                Some(line) => self.front.on_search_input(self.search, line),
                None => break,
            }
        }
        match self.search.abort {
            Abort::Command => true,
            // Move now, but with a searched move: depth 1 first.
            Abort::MoveNow => self.search.has_move,
            Abort::No => self.search.past_hard_limit(nodes),
        }
    }

    fn may_start_iteration(&mut self, depth: u32, nodes: u64) -> bool {
        self.search.depth = depth;
        self.search.nodes = nodes;
        if self.poll(nodes) {
            return false;
        }
        self.search.mode != Mode::Think || !self.search.clock.past_no_new_iteration(nodes)
    }

    fn may_search_next_root_move(&mut self, nodes: u64, score_dropped: bool) -> bool {
        self.search.nodes = nodes;
        if self.poll(nodes) {
            return false;
        }
        !self.search.has_move
            || self.search.mode != Mode::Think
            || score_dropped
            || !self.search.clock.past_no_new_move(nodes)
    }

    fn report(&mut self, info: &SearchInfo) {
        self.search.depth = info.depth;
        self.search.nodes = info.nodes;
        // The clock follows the best line only: the others are no candidate to play.
        if let Some(best) = info.pv.first().filter(|_| info.line == 1) {
            self.search.clock.note_best(best.bits(), info.score);
            self.search.has_move = true;
        }
        self.front.on_report(self.search, info);
    }

    fn deadline(&self) -> Option<std::time::Instant> {
        let search = &self.search;
        if search.mode == Mode::Think && search.has_move {
            search.clock.hard_deadline()
        } else {
            None
        }
    }

    fn node_budget(&self) -> Option<u64> {
        let search = &self.search;
        search
            .max_nodes
            .filter(|_| search.mode == Mode::Think && search.has_move)
    }

    fn root_move(&mut self, index: usize, count: usize, mv: Move) {
        self.search.root_index = index;
        self.search.root_count = count;
        self.search.root_move = mv;
        self.front.on_root_move(self.search);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_overhead_is_kept_back_from_the_clock() {
        let (_tx, rx) = crossbeam_channel::unbounded();
        let mut core = Core::new(Io::new(rx, Box::new(std::io::sink())));
        core.time_control = TimeControl::PerMove(Duration::from_secs(10));
        core.time_left = Some(Duration::from_secs(2));
        assert_eq!(core.limits(0).never_exceed, Duration::from_millis(1950));
        core.set_move_overhead("400").unwrap();
        assert_eq!(core.limits(0).never_exceed, Duration::from_millis(1600));
        for bad in ["-1", "5001", "x", ""] {
            assert!(core.set_move_overhead(bad).is_err(), "{bad}");
        }
        assert_eq!(core.move_overhead, Duration::from_millis(400));
    }

    #[test]
    fn multi_pv_takes_1_to_the_maximum_and_refuses_the_rest() {
        let (_tx, rx) = crossbeam_channel::unbounded();
        let mut core = Core::new(Io::new(rx, Box::new(std::io::sink())));
        assert_eq!(core.multi_pv, 1);
        core.set_multi_pv(" 3 ").unwrap();
        assert_eq!(core.multi_pv, 3);
        core.set_multi_pv(&MAX_MULTI_PV.to_string()).unwrap();
        assert_eq!(core.multi_pv, MAX_MULTI_PV);
        core.set_multi_pv("3").unwrap();
        for bad in ["0", "-1", "257", "x", "", "2.5"] {
            assert!(core.set_multi_pv(bad).is_err(), "{bad}");
        }
        assert_eq!(core.multi_pv, 3);
    }
}
