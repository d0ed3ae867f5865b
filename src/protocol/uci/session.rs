//! The UCI front end: the loop that turns UCI commands into calls on the engine engine, and
//! its side of the shared search hook (`isready`, `stop`, `ponderhit` during a search).
//!
//! A search in `go infinite` or `go ponder` never ends with a `bestmove` on its own: if it
//! runs out of depth it waits for `stop` or `ponderhit` (`UciSession::finish`).

use super::commands::{command_word, option_lines, GoParams, InfoLine, UciCommand};
use crate::chess::{CastlingSide, Color, File, Move, Position, Square};
use crate::engine::options::{OptionError, Protocol, OPTIONS};
use crate::engine::time::{Clock, MoveTime, TimeLimits};
use crate::engine::{
    line_problem_within, pv_text, run_search, Abort, Engine, Front, Io, Mode, Search,
    ENGINE_AUTHOR, ENGINE_NAME, MAX_COMMAND_LEN, MAX_POSITION_LEN,
};
use crate::game::Game;
use crate::search::tt::DEFAULT_HASH_MB;
use crate::search::{SearchInfo, SearchParams};
use std::time::Duration;

/// `currmove` lines start after this much of a search.
const CURRMOVE_AFTER: Duration = Duration::from_secs(1);

/// How long a `go` searches when parts of it were refused and what is left sets no limit
/// (`go depth -1`, `go foo`): the GUI waits for a move, most likely on a clock it meant to
/// send, so a short search gives it a good one without hanging it.
const FALLBACK_MOVETIME: Duration = Duration::from_secs(1);

/// The longest line taken for a command: a `position` carries a whole game.
fn max_line_len(command: &str) -> usize {
    if command == "position" {
        MAX_POSITION_LEN
    } else {
        MAX_COMMAND_LEN
    }
}

/// Whether every castling right of `pos` has its king and rook on the standard squares
/// (king on the e-file, rooks in the corners), so that it can be written the standard way.
fn has_standard_castling(pos: &Position) -> bool {
    [Color::White, Color::Black].into_iter().all(|color| {
        let rank = color.back_rank();
        CastlingSide::BOTH.into_iter().all(|side| {
            let corner = match side {
                CastlingSide::King => File::H,
                CastlingSide::Queen => File::A,
            };
            !pos.castling().has(color, side)
                || (pos.king(color) == Square::from_coords(File(4), rank)
                    && pos.castle_rook(color, side) == Square::from_coords(corner, rank))
        })
    })
}

/// A UCI session.
pub struct UciSession {
    front: UciFront,
}

/// The engine and what UCI keeps of its own: the search hook's side of the session.
struct UciFront {
    engine: Engine,
    /// The last `go` gave a clock or a move time (a ponder hit then starts a timed search).
    timed: bool,
    /// The last `position` was refused: the game held is not the one the GUI means, so
    /// `go` is not searched until a good `position` or `ucinewgame`.
    position_refused: bool,
}

impl UciSession {
    /// A session on `io`; the `uci` line that chose the protocol is still to be read.
    pub fn new(io: Io) -> UciSession {
        UciSession {
            front: UciFront {
                engine: Engine::new(io, DEFAULT_HASH_MB),
                timed: false,
                position_refused: false,
            },
        }
    }

    /// Runs until `quit` or the end of input.
    pub fn run(&mut self) {
        while !self.front.engine.io.quit {
            let line = self.front.engine.io.next_line();
            self.handle_line(&line);
        }
    }

    fn handle_line(&mut self, line: &str) {
        log::debug!("in: {line}");
        let command = command_word(line);
        if let Some((why, preview)) = line_problem_within(line, max_line_len(&command)) {
            let problem = format!("{why}: {preview}");
            match command.as_str() {
                // Every `go` is answered; of this one only the word can be trusted.
                "go" => self.go(GoParams {
                    problems: vec![format!("{problem}; its limits are ignored")],
                    ..GoParams::default()
                }),
                "position" => {
                    self.front.error(&problem);
                    self.front.position_refused = true;
                }
                _ => self.front.error(&problem),
            }
            return;
        }
        if line.trim().is_empty() {
            return;
        }
        let front = &mut self.front;
        match UciCommand::parse(line) {
            Ok(UciCommand::Uci) => front.send_id(),
            Ok(UciCommand::IsReady) => front.engine.send("readyok"),
            Ok(UciCommand::SetOption { name, value }) => self.set_option(&name, value.as_deref()),
            Ok(UciCommand::UciNewGame) => {
                front.engine.clear_hash();
                front.engine.new_game(Position::startpos());
                front.position_refused = false;
            }
            Ok(UciCommand::Position { fen, moves }) => front.set_position(fen.as_deref(), &moves),
            Ok(UciCommand::Go(params)) => self.go(params),
            Ok(UciCommand::Quit) => front.engine.io.quit = true,
            Ok(UciCommand::Eval) => {
                let net = front.engine.net_eval();
                let pos = front.engine.game.position();
                for line in crate::protocol::xboard::terminal::eval_lines(pos, net.as_ref()) {
                    front.engine.send(&line);
                }
            }
            // No search to stop or to turn into ours; nothing to register or debug.
            Ok(UciCommand::Stop | UciCommand::PonderHit | UciCommand::Debug) => {}
            Ok(UciCommand::Register) => {}
            Err(e) => {
                front.error(&e);
                if command == "position" {
                    front.position_refused = true;
                }
            }
        }
    }

    /// `setoption`, through the engine's option table (names in any case).
    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let front = &mut self.front;
        let shown = value.unwrap_or("").trim();
        match front.engine.set_option(Protocol::Uci, name, value) {
            Ok(lines) => {
                for line in lines {
                    front.engine.send(&format!("info string {line}"));
                }
            }
            Err(OptionError::Unknown) => front.error(&format!("unknown option '{name}'")),
            Err(OptionError::BadValue(why)) => front.error(&format!("{why}, not '{shown}'")),
            Err(OptionError::Refused(why)) => front.error(&why),
        }
    }

    /// `go`: searches the current position and answers with `bestmove`, always once. Bad
    /// parts of the line (searchmoves that are no legal move too) are reported and left
    /// out; if that leaves no limit, the search is given `FALLBACK_MOVETIME`. After a refused `position` there is no position to search:
    /// `bestmove 0000` (for analysis and pondering after `stop` or `ponderhit`, as always).
    fn go(&mut self, mut go: GoParams) {
        let front = &mut self.front;
        let pos = *front.engine.game.position();
        for problem in &go.problems {
            front.error(problem);
        }
        let mode = if go.infinite {
            Mode::Analyze
        } else if go.ponder {
            Mode::Ponder { expected: None }
        } else {
            Mode::Think
        };
        if front.position_refused {
            front.error("no valid position to search (the last position command was refused)");
            let mut waiting = Search::new(mode, TimeLimits::INFINITE, None, pos);
            front.finish(&mut waiting);
            front.engine.send("bestmove 0000");
            return;
        }
        let legal = pos.legal_moves();
        let clock_refused = front.check_clock_side(&go, pos.side_to_move());
        let (excluded, moves_refused) = front.excluded_moves(&go, &pos);
        let refused_parts = !go.problems.is_empty() || clock_refused || moves_refused;
        if refused_parts && go.is_unbounded(pos.side_to_move()) {
            go.movetime = Some(FALLBACK_MOVETIME);
            front.engine.send(&format!(
                "info string no limit left in this go: searching {} ms",
                FALLBACK_MOVETIME.as_millis()
            ));
        }
        let limits = front.set_clock(&go, pos.side_to_move());
        // A book move stands in for a search only when the GUI asks us to play a move:
        // not for analysis (`infinite`), not while pondering, and not when it asks for a
        // search of its own shape (`depth`, `nodes`, `mate`, `searchmoves`).
        let plays_a_move = !go.infinite
            && !go.ponder
            && go.depth.is_none()
            && go.nodes.is_none()
            && go.mate.is_none()
            && go.searchmoves.is_empty();
        if plays_a_move {
            if let Some((book_move, total)) = front.engine.book_move() {
                let text = pos.coordinate(book_move.mv);
                front.engine.send(&format!(
                    "info string book move {text} weight {} of {total}",
                    book_move.weight
                ));
                front.engine.send(&format!("bestmove {text}"));
                return;
            }
        }
        let timed_move = mode == Mode::Think && front.timed;
        let params = SearchParams {
            max_depth: go.depth.or(go.mate.map(|n| 2 * n)),
            excluded,
            history: front.engine.game.history_keys(),
            stop_on_mate: timed_move || go.mate.is_some(),
            instant_single_reply: timed_move,
            multi_pv: front.engine.multi_pv,
            eval_noise: 0,
            full_width: go.mate.is_some(),
        };
        let start_limits = if mode == Mode::Think {
            limits
        } else {
            TimeLimits::INFINITE
        };
        let mut search = Search::new(mode, start_limits, None, pos);
        search.max_nodes = go.nodes;
        let mut best = None;
        let mut ponder = None;
        if !legal.is_empty() {
            let result = run_search(front, &mut search, &params);
            best = result.best.filter(|&m| pos.is_legal(m));
            ponder = result.ponder;
        } else {
            // A game that is over: say so, so an analysis window is not left blank.
            let score = if pos.in_check() { "mate 0" } else { "cp 0" };
            front.engine.send(&format!("info depth 0 score {score}"));
        }
        front.finish(&mut search);
        front.send_bestmove(&pos, best.or_else(|| legal.iter().copied().next()), ponder);
    }
}

impl UciFront {
    /// A `go` with a clock for the other side only (and no other limit) is an error: says
    /// so and returns true.
    fn check_clock_side(&mut self, go: &GoParams, us: Color) -> bool {
        let (ours, theirs) = match us {
            Color::White => (go.wtime, go.btime),
            Color::Black => (go.btime, go.wtime),
        };
        if ours.is_none() && theirs.is_some() && go.is_unbounded(us) {
            self.error(&format!(
                "go gives a clock for {:?} only, not for {us:?}, the side to move",
                !us
            ));
            return true;
        }
        false
    }

    /// The root moves `searchmoves` leaves out (none if it names no legal move), and
    /// whether any of its words was refused (each is reported).
    fn excluded_moves(&mut self, go: &GoParams, pos: &Position) -> (Vec<Move>, bool) {
        let mut refused = false;
        let mut allowed = Vec::new();
        for text in &go.searchmoves {
            match pos.parse_coordinate(text) {
                Ok(m) => allowed.push(m),
                Err(e) => {
                    self.error(&format!("searchmoves: {text}: {e}; ignored"));
                    refused = true;
                }
            }
        }
        if allowed.is_empty() {
            return (Vec::new(), refused);
        }
        let excluded = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| !allowed.contains(m))
            .collect();
        (excluded, refused)
    }

    /// `bestmove` (with `ponder` when the reply is legal after it), or `bestmove 0000`
    /// when there is no move.
    fn send_bestmove(&mut self, pos: &Position, best: Option<Move>, ponder: Option<Move>) {
        let Some(best) = best else {
            self.engine.send("bestmove 0000");
            return;
        };
        let after = pos.after(best);
        let mut line = format!("bestmove {}", pos.coordinate(best));
        if let Some(reply) = ponder.filter(|&m| after.is_legal(m)) {
            line.push_str(&format!(" ponder {}", after.coordinate(reply)));
        }
        self.engine.send(&line);
    }

    fn error(&mut self, what: &str) {
        self.engine.send(&format!("info string error: {what}"));
    }

    fn send_id(&mut self) {
        let lines = [
            format!("id name {ENGINE_NAME}"),
            format!("id author {ENGINE_AUTHOR}"),
        ];
        let options = option_lines(OPTIONS)
            .into_iter()
            .chain(crate::engine::options::search_param_lines());
        for line in lines.into_iter().chain(options) {
            self.engine.send(&line);
        }
        self.engine.send("uciok");
    }

    /// `position`: the new game, or an error, and then no position until the next good
    /// one (a `go` must not search a position the GUI did not mean).
    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        self.position_refused = true;
        let mut start = match fen {
            None => Position::startpos(),
            Some(fen) => match Position::from_fen(fen) {
                Ok(pos) => pos,
                Err(e) => {
                    self.error(&format!("bad FEN ({e}): {fen}"));
                    return;
                }
            },
        };
        // A Shredder-FEN (`HAha`) names the castling rooks by file, which does not make the
        // game Chess960: with UCI_Chess960 off and king and rooks on the standard squares,
        // the GUI plays standard chess and wants castling as the king's two-square move.
        // Elsewhere only king takes rook can say which castling is meant.
        start.set_chess960(
            self.engine.chess960 || (start.is_chess960() && !has_standard_castling(&start)),
        );
        let mut game = Game::new(start);
        for text in moves {
            match game.position().parse_coordinate(text) {
                Ok(m) => game.play(m),
                Err(e) => {
                    self.error(&format!("illegal move {text} ({e})"));
                    return;
                }
            }
        }
        self.engine.game = game;
        self.position_refused = false;
    }

    /// Sets the engine's clock from `go` and returns the limits for our move (infinite when
    /// `go` gave no time at all).
    fn set_clock(&mut self, go: &GoParams, us: Color) -> TimeLimits {
        let (time, increment) = match us {
            Color::White => (go.wtime, go.winc),
            Color::Black => (go.btime, go.binc),
        };
        self.timed = go.movetime.is_some() || time.is_some();
        if !self.timed {
            return TimeLimits::INFINITE;
        }
        self.engine.clock = Clock {
            time_left: time,
            increment: increment.unwrap_or(Duration::ZERO),
            moves_to_go: go.movestogo,
            // UCI does not say what a control gives: the clock left stands for it.
            control_time: None,
            move_time: go.movetime.map(MoveTime::Exactly),
        };
        self.engine.limits()
    }

    /// A search that may not end on its own (`infinite`, `ponder`) waits here for `stop`
    /// or `ponderhit` before its `bestmove`; the input is read as during the search.
    fn finish(&mut self, search: &mut Search) {
        while search.mode != Mode::Think && search.abort == Abort::No && !self.engine.io.quit {
            let line = self.engine.io.receive();
            self.on_search_input(search, line);
        }
    }

    fn pv(&self, root: &Position, pv: &[Move]) -> String {
        pv_text(root, pv, |pos, m| pos.coordinate(m))
    }
}

impl Front for UciFront {
    fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    fn on_search_input(&mut self, search: &mut Search, line: String) {
        let command = command_word(&line);
        // A new position or search means this one is over: answer it first (also when the
        // line is refused: the `go` after a refused `position` must know of it).
        if matches!(command.as_str(), "position" | "go" | "ucinewgame") {
            self.engine.io.pending.push_back(line);
            search.stop(Abort::MoveNow);
            return;
        }
        if let Some((why, preview)) = line_problem_within(&line, max_line_len(&command)) {
            self.error(&format!("{why}: {preview}"));
            return;
        }
        if line.trim().is_empty() {
            return;
        }
        match UciCommand::parse(&line) {
            Ok(UciCommand::IsReady) => self.engine.send("readyok"),
            Ok(UciCommand::Stop) => search.stop(Abort::MoveNow),
            Ok(UciCommand::PonderHit) => {
                if matches!(search.mode, Mode::Ponder { .. }) {
                    let limits = if self.timed {
                        self.engine.limits()
                    } else {
                        TimeLimits::INFINITE
                    };
                    search.on_ponder_hit(limits);
                }
            }
            Ok(UciCommand::Quit) => {
                self.engine.io.quit = true;
                search.stop(Abort::MoveNow);
            }
            // Options and the rest wait for the search to end.
            Ok(_) => self.engine.io.pending.push_back(line),
            Err(e) => self.error(&e),
        }
    }

    fn on_report(&mut self, search: &Search, info: &SearchInfo) {
        let pv = self.pv(&search.root, &info.pv);
        let root = &search.root;
        let line = InfoLine {
            multipv: info.line,
            depth: info.depth,
            seldepth: info.seldepth,
            score: info.score,
            material: crate::search::wdl::material(root),
            bound: info.bound,
            nodes: info.nodes,
            elapsed: search.clock.elapsed(info.nodes),
            hashfull: search.hashfull(),
            tbhits: info.tbhits,
            wdl: self
                .engine
                .show_wdl
                .then(|| crate::search::wdl::per_mille(info.score, root)),
            pv: &pv,
        }
        .format();
        self.engine.send(&line);
    }

    fn on_root_move(&mut self, search: &Search) {
        if search.root_move.is_none() || search.clock.elapsed(search.nodes) < CURRMOVE_AFTER {
            return;
        }
        let line = format!(
            "info depth {} currmove {} currmovenumber {}",
            search.depth,
            search.root.coordinate(search.root_move),
            search.root_index + 1
        );
        self.engine.send(&line);
    }
}
