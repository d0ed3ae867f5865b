//! The xboard front end: the loop that knows the xboard state (which side the engine
//! plays, force/analyze/ponder, options of its own) on top of the shared engine engine
//! (`engine`: game, clocks, options, the search hook), answering input through the hook while
//! it thinks.
//!
//! Where things happen:
//! * `ping` is answered in `Session::handle_harmless` (at once when idle, pondering or
//!   analysing; queued behind the move while thinking on our own move).
//! * Time limits are set in `XboardSession::think` (from `Engine::limits`) and on a ponder
//!   hit in `Session::on_search_input`.
//! * A move is made in `Session::play_engine_move` (ours) and `Session::user_move` (theirs).
//!
//! Beside this file: `game` (new game, set-up board, moves, takebacks, results),
//! `search_front` (the search hook: input while thinking, pondering or
//! analysing, the thinking output), `edit` (legacy edit mode) and `settings` (`option`, `elo`,
//! `exclude`/`include`).

mod edit;
mod game;
mod search_front;
mod settings;

use edit::EditBoard;

use super::commands::{
    feature_options, format_score, parse_edit_line, thinking_line, Command, CommandError, EditLine,
};
use super::terminal;
use crate::chess::{Color, Move, Position};
use crate::engine::options::{Protocol, OPTIONS};
use crate::engine::time::{Clock, TimeControl, TimeLimits};
use crate::engine::{line_problem, run_search, Abort, Engine, Io, Mode, Search, ENGINE_NAME};
use crate::search::SearchParams;
use crossbeam_channel::Receiver;
use std::io::Write;
use std::time::Duration;

/// The engine and what xboard keeps of its own.
struct Session {
    /// The engine: searcher, game, clocks and options, as the UCI front end has them.
    engine: Engine,
    /// The side the engine plays; `None` in force mode.
    engine_color: Option<Color>,
    analyzing: bool,
    paused: bool,
    /// A result was seen or claimed; no thinking until a new game or position.
    game_over: bool,
    /// The last board set up (`setboard`, `edit`) was refused: the GUI shows a position the
    /// engine does not have, so no move is taken or played until `new` or a board set up
    /// that succeeds.
    board_refused: bool,
    /// We just moved and may ponder on the opponent's time.
    ponder_due: bool,
    /// Thinking output on. A person (below) gets it from the start, a GUI when it asks.
    post: bool,
    /// Neither `xboard` nor `protover` came: a person at a terminal, not a GUI (every GUI
    /// sends one first). Thinking is shown under a header, and `undo` takes back the
    /// person's move rather than giving Kestrel its move to play again.
    person: bool,
    /// The thinking output's header is yet to be shown for this search (a person only).
    thinking_header_due: bool,
    /// The time control (`level`, `st`) and our clock (`time`), which make the engine's
    /// clock for each move.
    time_control: TimeControl,
    time_left: Option<Duration>,
    opponent_time_left: Option<Duration>,
    excluded: Vec<Move>,
    /// Consecutive moves our score was below the resign threshold.
    losing_moves: u32,
    /// Consecutive moves our score was near zero late in the game.
    dead_even_moves: u32,
    last_score: Option<i32>,
    hint: Option<Move>,
    edit: Option<EditBoard>,
}

/// An xboard session: the loop that reads commands and drives the engine (as
/// `uci::UciSession` is UCI's).
pub struct XboardSession {
    session: Session,
}

impl XboardSession {
    pub fn new(rx: Receiver<String>, out: Box<dyn Write + Send>) -> XboardSession {
        XboardSession::with_hash_mb(rx, out, crate::search::tt::DEFAULT_HASH_MB)
    }

    /// A driver whose hash table starts at `hash_mb` MB instead of the default (the fuzzer
    /// builds thousands of drivers a minute; `memory` still resizes it).
    pub fn with_hash_mb(
        rx: Receiver<String>,
        out: Box<dyn Write + Send>,
        hash_mb: usize,
    ) -> XboardSession {
        XboardSession::with_io(Io::new(rx, out), hash_mb)
    }

    /// A driver on a session whose input and output are already open (the first line may
    /// be queued in `io.pending`).
    pub fn with_io(io: Io, hash_mb: usize) -> XboardSession {
        let mut engine = Engine::new(io, hash_mb);
        engine.take_defaults_of(Protocol::Xboard);
        XboardSession {
            session: Session {
                engine,
                engine_color: Some(Color::Black),
                analyzing: false,
                paused: false,
                game_over: false,
                board_refused: false,
                ponder_due: false,
                post: true,
                person: true,
                thinking_header_due: false,
                time_control: TimeControl::default(),
                time_left: None,
                opponent_time_left: None,
                excluded: Vec::new(),
                losing_moves: 0,
                dead_even_moves: 0,
                last_score: None,
                hint: None,
                edit: None,
            },
        }
    }

    /// Writes a transcript of the session to `path` (or stops writing with `None`).
    pub fn set_transcript(&mut self, path: Option<&std::path::Path>) -> std::io::Result<()> {
        self.session.engine.io.transcript.open(path)
    }

    /// Runs until `quit` or the end of input.
    /// Whether a command whose failure is the session's failed (see `Io::failed`).
    pub fn failed(&self) -> bool {
        self.session.engine.io.failed
    }

    pub fn run(&mut self) {
        while !self.session.engine.io.quit {
            let s = &self.session;
            // No search while a board is being set up in edit mode (in analysis the search
            // would take the edit lines as commands).
            let idle = s.engine.io.pending.is_empty()
                && !s.paused
                && !s.game_over
                && !s.board_refused
                && s.edit.is_none();
            let to_move = s.engine.game.position().side_to_move();
            if idle && s.analyzing {
                self.analyze();
                continue;
            }
            if idle && s.engine_color == Some(to_move) {
                self.think();
                continue;
            }
            if idle && s.engine.ponder && s.ponder_due && s.engine_color == Some(!to_move) {
                self.ponder();
                continue;
            }
            let line = self.session.engine.io.next_line();
            self.handle_line(&line);
        }
    }

    fn handle_line(&mut self, line: &str) {
        log::debug!("in: {line}");
        if let Some(msg) = invalid_line(line) {
            self.session.send(&msg);
            return;
        }
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        if self.session.edit.is_some() {
            self.handle_edit_mode_line(line);
            return;
        }
        match Command::parse(line) {
            Ok(cmd) => self.dispatch(cmd),
            Err(e) => {
                // A malformed OpenBench request fails the run, as a failed one does.
                if line.split_whitespace().next() == Some("genfens") {
                    self.session.engine.io.failed = true;
                }
                self.session.send_error(&e)
            }
        }
    }

    /// A line in legacy `edit` mode. Edit commands edit; `ping` is answered and `quit`
    /// quits; any other real command ends edit mode (the board set up so far is applied as
    /// with `.`) and is then carried out, so a GUI or script that lost track of the mode is
    /// never stuck in it. A line that is neither is refused and edit mode goes on.
    fn handle_edit_mode_line(&mut self, line: &str) {
        let s = &mut self.session;
        match parse_edit_line(line) {
            Ok(EditLine::Edit(edit)) => s.edit_command(edit),
            Ok(EditLine::Command(cmd @ Command::Ping(_))) => s.handle_harmless(cmd),
            Ok(EditLine::Command(Command::Quit)) => s.engine.io.quit = true,
            Ok(EditLine::Command(cmd)) => {
                let word = line.split_whitespace().next().unwrap_or(line);
                s.end_edit_mode_for(word);
                self.dispatch(cmd);
            }
            Err(CommandError::Unknown(_)) => s.send(&format!(
                "Error (edit mode expects Pa4, xa4, #, c, . or a command): {line}"
            )),
            Err(CommandError::BadArgument(why)) => {
                s.send(&format!("Error ({why}; still in edit mode): {line}"))
            }
        }
    }

    fn dispatch(&mut self, cmd: Command) {
        if !cmd.is_harmless_during_search() {
            self.session.ponder_due = false;
        }
        self.handle(cmd);
    }

    fn handle(&mut self, cmd: Command) {
        let s = &mut self.session;
        if s.board_refused {
            if let Some(reply) = refused_without_board(&cmd) {
                s.send(&reply);
                return;
            }
        }
        match cmd {
            Command::Xboard => s.leave_person_mode(),
            Command::Protover(_) => {
                s.leave_person_mode();
                s.send_features();
            }
            Command::New => {
                s.board_refused = false;
                s.engine.chess960 = false;
                s.new_game(Position::startpos());
                s.engine_color = if s.analyzing {
                    None
                } else {
                    Some(Color::Black)
                };
                s.engine.max_depth = None;
                s.time_left = None;
                s.opponent_time_left = None;
                s.paused = false;
                s.engine.clear_hash();
            }
            Command::Variant(v) => match v.as_str() {
                "normal" => s.set_chess960(false),
                "fischerandom" => s.set_chess960(true),
                other => s.send(&format!("Error (unsupported variant): {other}")),
            },
            Command::Quit => s.engine.io.quit = true,
            Command::Force => s.engine_color = None,
            Command::Go => {
                // A GUI that sends `go` wants a move, even one that lost track of being in
                // analysis mode: `go` leaves it (as `exit` would) and plays.
                if s.analyzing {
                    s.analyzing = false;
                    s.send("# go: leaving analysis mode to play the side to move");
                }
                s.engine_color = Some(s.engine.game.position().side_to_move());
                s.check_game_over();
            }
            Command::PlayOther => {
                s.engine_color = Some(!s.engine.game.position().side_to_move());
                s.ponder_due = true;
            }
            Command::White => s.engine_color = Some(Color::Black),
            Command::Black => s.engine_color = Some(Color::White),
            Command::Move(text) => s.user_move(&text),
            Command::Result(_) => {
                s.game_over = true;
            }
            Command::SetBoard(fen) => s.set_board(&fen),
            Command::Edit => s.edit = Some(EditBoard::from_position(s.engine.game.position())),
            Command::Undo => s.undo(),
            Command::Remove => {
                if s.engine.game.moves().len() >= 2 {
                    s.engine.game.undo();
                    s.engine.game.undo();
                    s.position_changed();
                } else {
                    s.send("Error (fewer than two moves to remove): remove");
                }
            }
            Command::Analyze => {
                s.analyzing = true;
                s.engine_color = None;
            }
            Command::Exit => s.analyzing = false,
            Command::Pause => s.paused = true,
            Command::Resume => s.paused = false,
            Command::MoveNow => {} // not thinking: nothing to hurry
            Command::Easy => s.engine.ponder = false,
            Command::Memory(mb) => {
                // A person chose the size in a dialog: they should see why it was refused.
                if let Err(why) = s.engine.set_hash_mb(mb) {
                    s.send(&format!("tellusererror {why}"));
                }
            }
            Command::Cores(n) => s.engine.set_threads(n),
            Command::EgtPath { kind, path } => {
                // Other kinds of tables (Nalimov, Gaviota, ...) are noted and not used.
                if kind == "syzygy" {
                    // A directory that does not exist is only noted: XBoard sends its
                    // stock path to every engine, and a dialog at every game helps nobody.
                    match s.engine.set_syzygy_path(&path) {
                        Ok(lines) => {
                            for line in lines {
                                s.send(&format!("# {line}"));
                            }
                        }
                        Err(e) => s.send(&format!("tellusererror {e}")),
                    }
                }
            }
            Command::Tablebase => match s.engine.tablebase_report() {
                Ok(line) => s.send(&line),
                Err(e) => s.send(&format!("Error ({e}): tb")),
            },
            Command::Option { name, value } => s.set_option(&name, value.as_deref()),
            Command::Elo(setting) => s.set_elo(&setting),
            Command::Exclude(what) => s.exclude(&what, true),
            Command::Include(what) => s.exclude(&what, false),
            Command::SetScore { score, depth } => {
                // The protocol gives it in favour of the side to move, as the table holds it.
                let pos = *s.engine.game.position();
                s.engine.searcher().set_score(&pos, score, depth);
            }
            Command::Perft(depth) => s.run_perft(depth, false),
            Command::Divide(depth) => s.run_perft(depth, true),
            Command::Bench(depth) => {
                let depth = depth.unwrap_or(crate::tools::bench::DEFAULT_DEPTH);
                let r = crate::tools::bench::run(depth, 1, &mut std::io::sink(), false);
                s.send(&r.to_string());
            }
            Command::Test { file, seconds } => s.run_test_suite(&file, seconds),
            Command::Genfens(request) => s.run_genfens(&request),
            harmless => s.handle_harmless(harmless),
        }
    }

    fn think(&mut self) {
        let s = &mut self.session;
        let pos = *s.engine.game.position();
        if pos.legal_moves().is_empty() {
            s.check_game_over();
            return;
        }
        if let Some((book_move, total)) = s.engine.book_move() {
            s.play_book_move(book_move.mv, book_move.weight, total);
            return;
        }
        let limits = s.limits(s.moves_made());
        log::debug!("limits {limits:?}");
        let params = SearchParams {
            max_depth: s.engine.max_depth,
            // `exclude` shapes analysis only: in play every legal move stays a candidate
            // (excluding them all must not leave the engine without a move).
            excluded: Vec::new(),
            history: s.engine.game.history_keys(),
            stop_on_mate: true,
            instant_single_reply: true,
            multi_pv: s.engine.multi_pv,
            eval_noise: 0,
            full_width: false,
        };
        let mut search = Search::new(Mode::Think, limits, s.engine.nps, pos);
        s.thinking_header_due = s.person;
        let result = run_search(s, &mut search, &params);
        if search.abort != Abort::Command {
            self.session.play_engine_move(&result);
        }
    }

    /// Thinks on the opponent's time. On a ponder hit the search goes on as our timed
    /// search and its move is played.
    fn ponder(&mut self) {
        let s = &mut self.session;
        s.ponder_due = false;
        let pos = *s.engine.game.position();
        let expected = s
            .hint
            .filter(|&m| pos.is_legal(m) && pos.after(m).has_legal_moves());
        let mut history = s.engine.game.history_keys();
        let root = match expected {
            Some(m) => {
                history.push(pos.key());
                pos.after(m)
            }
            None => pos,
        };
        if !root.has_legal_moves() {
            return;
        }
        let params = SearchParams {
            max_depth: s.engine.max_depth,
            excluded: Vec::new(),
            history,
            stop_on_mate: false,
            instant_single_reply: false,
            multi_pv: s.engine.multi_pv,
            eval_noise: 0,
            full_width: false,
        };
        let mode = Mode::Ponder { expected };
        let mut search = Search::new(mode, TimeLimits::INFINITE, s.engine.nps, root);
        let result = run_search(s, &mut search, &params);
        let abort = search.abort;
        let mut hit = expected.filter(|_| search.ponder_hit);
        if let (None, Abort::No, Some(expected)) = (hit, abort, expected) {
            // The search ended on its own before the opponent moved: wait for the move.
            hit = s.wait_for_expected_move(expected);
        }
        if let Some(m) = hit {
            s.engine.game.play(m);
            s.excluded.clear();
            if abort != Abort::Command {
                s.play_engine_move(&result);
            }
        }
    }

    fn analyze(&mut self) {
        let s = &mut self.session;
        let pos = *s.engine.game.position();
        let has_moves = pos.legal_moves().iter().any(|m| !s.excluded.contains(m));
        if has_moves {
            let params = SearchParams {
                max_depth: None,
                excluded: s.excluded.clone(),
                history: s.engine.game.history_keys(),
                stop_on_mate: false,
                instant_single_reply: false,
                multi_pv: s.engine.multi_pv,
                eval_noise: 0,
                full_width: false,
            };
            let mut search = Search::new(Mode::Analyze, TimeLimits::INFINITE, s.engine.nps, pos);
            s.thinking_header_due = s.person;
            run_search(s, &mut search, &params);
            if search.abort != Abort::No {
                return;
            }
        }
        let s = &mut self.session;
        if pos.legal_moves().is_empty() {
            // A game that is over still gets a line in the analysis window: mated (a
            // mate-in-0 score against the side to move) or stalemated (a draw).
            let (score, why) = if pos.in_check() {
                (-crate::search::MATE, "checkmate")
            } else {
                (0, "stalemate")
            };
            let score = format_score(score, 0);
            let line = thinking_line(0, score, Duration::ZERO, 0, 0, 0, &format!("({why})"));
            s.send(&line);
        }
        // Nothing (more) to search here: wait for input rather than search again.
        let line = s.engine.io.receive();
        s.engine.io.pending.push_back(line);
    }
}

/// An input line the driver refuses outright (cut, not UTF-8, far too long).
fn invalid_line(line: &str) -> Option<String> {
    line_problem(line).map(|(why, preview)| format!("Error ({why}): {preview}"))
}

/// The reply to `cmd` while the last board set up was refused, if `cmd` is one that would
/// play or take back moves on the engine's board, which is not the GUI's: a move is illegal
/// and nothing is played.
fn refused_without_board(cmd: &Command) -> Option<String> {
    const WHY: &str = "no position: the last board set up was refused";
    let word = match cmd {
        Command::Move(text) => return Some(format!("Illegal move ({WHY}): {text}")),
        Command::Go => "go",
        Command::PlayOther => "playother",
        Command::Analyze => "analyze",
        Command::Undo => "undo",
        Command::Remove => "remove",
        _ => return None,
    };
    Some(format!("Error ({WHY}; send new, setboard or edit): {word}"))
}

impl Session {
    /// The limits of our move, `moves_made` of our moves into the game: the engine's clock
    /// is set from the time control and our time left first.
    fn limits(&mut self, moves_made: u32) -> TimeLimits {
        self.engine.clock = Clock::under(self.time_control, self.time_left, moves_made);
        self.engine.limits()
    }

    /// Moves the side to move has made in this game (from its start or set-up position, as
    /// the GUI counts them for `level MPS ...`).
    fn moves_made(&self) -> u32 {
        self.engine.game.moves().len() as u32 / 2
    }

    fn send(&mut self, line: &str) {
        self.engine.io.send(line);
    }

    fn send_lines(&mut self, lines: Vec<String>) {
        for line in lines {
            self.send(&line);
        }
    }

    /// `perft N` / `divide N` on the current position.
    fn run_perft(&mut self, depth: u32, divide: bool) {
        use crate::tools::perft::{run, PerftJob, PerftReportStyle};
        let pos = *self.engine.game.position();
        let job = PerftJob::plain(depth, divide);
        run(&pos, &job, PerftReportStyle::Session, &mut |line| {
            self.send(line)
        });
    }

    /// `genfens N seed S book B [extra]` (OpenBench): each position as a line `info string
    /// genfens FEN` as soon as it is found; a failure also fails the process (OpenBench runs
    /// it from the command line and reads the exit status).
    fn run_genfens(&mut self, request: &crate::tools::genfens::Request) {
        let found = crate::tools::genfens::generate(request, &mut |fen| {
            self.send(&format!("info string genfens {fen}"))
        });
        if let Err(e) = found {
            self.send(&format!("Error ({e}): genfens"));
            self.engine.io.failed = true;
        }
    }

    /// `test FILE [SECONDS]`: runs an EPD suite, one line per position, then the total.
    fn run_test_suite(&mut self, file: &str, seconds: f64) {
        use crate::tools::epd::{run_suite_file, EpdLimits};
        let limits = EpdLimits {
            time: Some(Duration::from_secs_f64(seconds)),
            depth: None,
            nodes: None,
            hash_mb: crate::search::tt::DEFAULT_HASH_MB,
            threads: self.engine.searcher_ref().threads(),
        };
        let mut report = Vec::new();
        let path = std::path::Path::new(file);
        let skipped = &mut |line: &str| self.send(line);
        match run_suite_file(path, &limits, skipped, &mut report, &mut std::io::sink()) {
            Ok(_) => {
                for line in String::from_utf8_lossy(&report).lines() {
                    self.send(line);
                }
            }
            Err(e) => self.send(&format!("Error (cannot read {file}: {e}): test")),
        }
    }

    fn send_error(&mut self, e: &CommandError) {
        match e {
            CommandError::Unknown(cmd) => self.send(&format!("Error (unknown command): {cmd}")),
            CommandError::BadArgument(why) => self.send(&format!("Error ({why})")),
        }
    }

    fn send_features(&mut self) {
        self.send(&format!(
            "feature ping=1 setboard=1 playother=1 san=0 usermove=1 time=1 draw=1 \
             sigint=0 sigterm=0 reuse=1 analyze=1 myname=\"{ENGINE_NAME}\" \
             variants=\"normal,fischerandom\" colors=0 ics=0 name=1 pause=1 nps=1 \
             debug=1 memory=1 smp=1 exclude=1 setscore=1 egt=\"syzygy\""
        ));
        for line in feature_options(OPTIONS) {
            self.send(&line);
        }
        self.send("feature done=1");
    }

    /// Commands that change nothing the search depends on: carried out at once when idle,
    /// pondering or analysing.
    fn handle_harmless(&mut self, cmd: Command) {
        match cmd {
            Command::Ping(n) => self.send(&format!("pong {n}")),
            Command::Time(t) => self.time_left = Some(t),
            Command::Otim(t) => self.opponent_time_left = Some(t),
            Command::Post => self.post = true,
            Command::NoPost => self.post = false,
            Command::Hard => self.engine.ponder = true,
            Command::Level {
                moves,
                base,
                increment,
            } => {
                self.time_control = TimeControl::Conventional {
                    moves,
                    base,
                    increment,
                }
            }
            Command::St(d) => self.time_control = TimeControl::PerMove(d),
            Command::Sd(d) => self.engine.max_depth = Some(d),
            Command::Nps(n) => self.engine.nps = (n > 0).then_some(n),
            Command::Hint => {
                let pos = *self.engine.game.position();
                if let Some(m) = self.hint.filter(|&m| pos.is_legal(m)) {
                    let text = self.move_text(&pos, m);
                    self.send(&format!("Hint: {text}"));
                }
            }
            Command::Book => self.send_book_moves(),
            Command::Draw => {
                let dead = self.engine.game.position().is_insufficient_material();
                let worse = self.last_score.is_some_and(|s| s <= -150);
                if self.engine.draw_offers && (dead || worse) && !self.game_over {
                    self.send("offer draw");
                }
            }
            Command::Help => self.send_lines(terminal::help_lines()),
            Command::Display => {
                let last = self
                    .engine
                    .game
                    .last_move()
                    .zip(self.engine.game.position_before_last());
                let lines = terminal::board_lines(self.engine.game.position(), last);
                self.send_lines(lines);
            }
            Command::Moves => self.send_lines(terminal::move_lines(self.engine.game.position())),
            Command::Eval => {
                let net = self.engine.net_eval();
                let lines = terminal::eval_lines(self.engine.game.position(), net.as_ref());
                self.send_lines(lines);
            }
            Command::Fen => {
                let fen = self.engine.game.position().to_fen();
                self.send(&fen);
            }
            // Noted, nothing to do: accepted/rejected features, opponent's name and rating,
            // ICS, computer opponent, random, `.` outside analysis.
            _ => {}
        }
    }
}
