//! Running a search for a front end: what the search is for (`Mode`), its clock and how it
//! ended (`Search`), and the hook that reads input while it thinks, applies the time limits
//! and switches from pondering to a timed search on a ponder hit.
//!
//! A limited strength (`Engine::strength`) shapes every search but analysis: its node
//! budget (pondering too), its candidate lines (the GUI sees only the lines it asked for),
//! the choice among them, and a move that is not answered at once when the budget ran out
//! early (`PACED_SHARE` of the time the clock would give), the input being read as during
//! the search meanwhile.

use super::time::{self, SearchClock, TimeLimits};
use super::Engine;
use crate::chess::{Move, Position};
use crate::search::strength::Strength;
use crate::search::tt::TranspositionTable;
use crate::search::{SearchHook, SearchInfo, SearchParams, SearchResult};
use std::sync::Arc;

/// The share of its time target a limited search that ended early takes before answering:
/// about what a full-strength search uses before it stops starting iterations.
pub const PACED_SHARE: f64 = 0.5;

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
    /// The limited strength's node budget, for our move and for pondering.
    pub strength_nodes: Option<u64>,
    /// MultiPV lines the front end shows (a limited strength searches more).
    pub shown_lines: usize,
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
    /// The transposition table being searched (for its fill, `hashfull`).
    table: Option<Arc<TranspositionTable>>,
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
            strength_nodes: None,
            shown_lines: usize::MAX,
            has_move: false,
            depth: 0,
            nodes: 0,
            root_index: 0,
            root_count: 0,
            root_move: Move::NONE,
            table: None,
        }
    }

    /// How full the transposition table is, in permille (0 before the search starts).
    pub fn hashfull(&self) -> usize {
        self.table.as_ref().map_or(0, |t| t.hashfull())
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

    /// Whether the limits of our own move are used up (only `Think` has a clock and `go
    /// nodes`, pondering only a limited strength's budget; and only once depth 1 has given a
    /// move).
    fn past_hard_limit(&self, nodes: u64) -> bool {
        self.has_move
            && ((self.mode == Mode::Think && self.clock.past_never_exceed(nodes))
                || self.node_budget().is_some_and(|n| nodes >= n))
    }

    /// The node budget of this search, if it has one now (a limited strength's is set for
    /// every search but analysis).
    fn node_budget(&self) -> Option<u64> {
        let go_nodes = self.max_nodes.filter(|_| self.mode == Mode::Think);
        match (go_nodes, self.strength_nodes) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// A protocol front end, as the shared search hook calls it.
pub trait Front {
    fn engine(&mut self) -> &mut Engine;
    /// One line that arrived during `search`: answer it, queue it in `engine().io.pending`,
    /// stop the search, or take it as a ponder hit.
    fn on_search_input(&mut self, search: &mut Search, line: String);
    /// An iteration finished (or a new best root move was found).
    fn on_report(&mut self, search: &Search, info: &SearchInfo);
    /// The search moved on to another root move (`search.root_move`).
    fn on_root_move(&mut self, _search: &Search) {}
}

/// Runs the engine's searcher on `search.root` with `front` reading the input meanwhile.
/// On return `search` says how it ended (`abort`, `ponder_hit`). Under a limited strength
/// the result is the line chosen.
pub fn run_search<F: Front>(
    front: &mut F,
    search: &mut Search,
    params: &SearchParams,
) -> SearchResult {
    let strength = front
        .engine()
        .strength()
        .filter(|_| search.mode != Mode::Analyze);
    let Some(strength) = strength else {
        return run_searcher(front, search, params);
    };
    search.strength_nodes = Some(strength.nodes);
    search.shown_lines = params.multi_pv.max(1);
    let mut result = run_searcher(front, search, &strength.params(params));
    if search.abort == Abort::Command {
        return result;
    }
    play_limited(front, search, strength, &mut result);
    result
}

/// The limited strength's move: the choice among the lines, shown as the line played when
/// the GUI sees one line only, then the time a full search would have taken, in part.
fn play_limited<F: Front>(
    front: &mut F,
    search: &mut Search,
    strength: Strength,
    result: &mut SearchResult,
) {
    let candidates = result.lines.clone();
    if let Some(chosen) = strength.choose_in(result, &mut front.engine().strength_rng) {
        report_played_line(front, search, &chosen, &candidates, result.nodes);
    }
    // A forced reply is played at once, as at full strength.
    let forced = search.root.legal_moves().len() <= 1;
    if search.mode != Mode::Think || search.abort != Abort::No || forced {
        return;
    }
    let Some(until) = search.clock.paced_until(PACED_SHARE) else {
        return;
    };
    while search.abort == Abort::No && !front.engine().io.quit {
        match front.engine().io.receive_until(until) {
            Some(line) => front.on_search_input(search, line),
            None => break,
        }
    }
}

/// Shows the limited strength's choice as the best line, so that the last line the GUI
/// reads (which it attaches to the move) is the move played: the other shown lines first,
/// renumbered 2, 3, …, then the chosen one as line 1.
fn report_played_line<F: Front>(
    front: &mut F,
    search: &mut Search,
    chosen: &SearchInfo,
    candidates: &[SearchInfo],
    nodes: u64,
) {
    let others = candidates.iter().filter(|l| l.line != chosen.line);
    for (i, other) in others.take(search.shown_lines - 1).enumerate() {
        let info = SearchInfo {
            line: i + 2,
            nodes: nodes.max(other.nodes),
            ..other.clone()
        };
        front.on_report(search, &info);
    }
    let played = SearchInfo {
        line: 1,
        nodes: nodes.max(chosen.nodes),
        ..chosen.clone()
    };
    front.on_report(search, &played);
}

/// The search itself.
fn run_searcher<F: Front>(
    front: &mut F,
    search: &mut Search,
    params: &SearchParams,
) -> SearchResult {
    // The searcher leaves the engine while it runs, so that the front end can answer input
    // through the rest of the engine meanwhile.
    let mut searcher = front
        .engine()
        .searcher
        .take()
        .expect("one search at a time");
    search.table = Some(searcher.table());
    let root = search.root;
    let result = searcher.search(&root, params, &mut Hook { front, search });
    front.engine().searcher = Some(searcher);
    result
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
            match self.front.engine().io.try_receive() {
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
        // A limited strength's extra candidate lines are its own.
        if info.line > self.search.shown_lines {
            return;
        }
        // The clock follows the best line only: the others are no candidate to play.
        if let Some(best) = info.pv.first().filter(|_| info.line == 1) {
            let share = time::best_move_share(info.depth, info.best_move_nodes, info.nodes);
            self.search.clock.note_best(best.bits(), info.score, share);
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
        self.search.node_budget().filter(|_| self.search.has_move)
    }

    fn root_move(&mut self, index: usize, count: usize, mv: Move) {
        self.search.root_index = index;
        self.search.root_count = count;
        self.search.root_move = mv;
        self.front.on_root_move(self.search);
    }
}
