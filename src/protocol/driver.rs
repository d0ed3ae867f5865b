//! The protocol driver: the one loop that knows the xboard state (which side the engine
//! plays, force/analyze/ponder, clocks, options) and runs the search in its own thread,
//! answering input through the search hook while it thinks.
//!
//! Where things happen:
//! * `ping` is answered in `Session::handle_harmless` (at once when idle, pondering or
//!   analysing; queued behind the move while thinking on our own move).
//! * Time limits are set in `Driver::think` (from `search::time::compute_limits`) and on a
//!   ponder hit in `Hook::on_input`.
//! * A move is made in `Session::play_engine_move` (ours) and `Session::user_move` (theirs).

use super::terminal;
use super::transcript::Transcript;
use super::xboard::{thinking_line, Command, CommandError};
use crate::chess::{Color, Move, Piece, Position, Square, STARTPOS_FEN};
use crate::game::Game;
use crate::search::time::{compute_limits, SearchClock, TimeControl, TimeLimits};
use crate::search::{SearchHook, SearchInfo, SearchParams, SearchResult, Searcher};
use crossbeam_channel::Receiver;
use std::collections::VecDeque;
use std::io::Write;
use std::time::Duration;

const ENGINE_NAME: &str = concat!("Kestrel ", env!("CARGO_PKG_VERSION"));
/// Lines longer than this are refused (no command needs more than a FEN and a bit).
const MAX_COMMAND_LEN: usize = 4096;

/// Why a search ended early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Abort {
    /// Not aborted by input (finished, or stopped by its time limits).
    No,
    /// `?`: move now with the best move so far.
    MoveNow,
    /// Another command needs the driver: the search result is not used.
    Command,
}

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Our move, on our clock.
    Think,
    /// The opponent's time; `expected` is the reply we search as if it were played.
    Ponder {
        expected: Option<Move>,
    },
    Analyze,
}

/// Everything the driver knows except the searcher, so the search hook can borrow it.
struct Session {
    rx: Receiver<String>,
    /// Input read during a search and not yet handled, in arrival order.
    pending: VecDeque<String>,
    out: Box<dyn Write + Send>,
    game: Game,
    chess960: bool,
    /// The side the engine plays; `None` in force mode.
    engine_color: Option<Color>,
    analyzing: bool,
    paused: bool,
    /// A result was seen or claimed; no thinking until a new game or position.
    game_over: bool,
    ponder: bool,
    /// We just moved and may ponder on the opponent's time.
    ponder_due: bool,
    post: bool,
    time_control: TimeControl,
    time_left: Option<Duration>,
    opponent_time_left: Option<Duration>,
    max_depth: Option<u32>,
    nps: Option<u64>,
    excluded: Vec<Move>,
    resign_threshold: i32,
    draw_offers: bool,
    /// Consecutive moves our score was below the resign threshold.
    losing_moves: u32,
    /// Consecutive moves our score was near zero late in the game.
    dead_even_moves: u32,
    last_score: Option<i32>,
    hint: Option<Move>,
    edit: Option<EditBoard>,
    cores: usize,
    transcript: Transcript,
    quit: bool,
}

/// The protocol driver.
pub struct Driver {
    searcher: Searcher,
    session: Session,
}

impl Driver {
    pub fn new(rx: Receiver<String>, out: Box<dyn Write + Send>) -> Driver {
        Driver::with_hash_mb(rx, out, crate::search::tt::DEFAULT_HASH_MB)
    }

    /// A driver whose hash table starts at `hash_mb` MB instead of the default (the fuzzer
    /// builds thousands of drivers a minute; `memory` still resizes it).
    pub fn with_hash_mb(
        rx: Receiver<String>,
        out: Box<dyn Write + Send>,
        hash_mb: usize,
    ) -> Driver {
        Driver {
            searcher: Searcher::new(hash_mb),
            session: Session {
                rx,
                pending: VecDeque::new(),
                out,
                game: Game::default(),
                chess960: false,
                engine_color: Some(Color::Black),
                analyzing: false,
                paused: false,
                game_over: false,
                ponder: false,
                ponder_due: false,
                post: false,
                time_control: TimeControl::default(),
                time_left: None,
                opponent_time_left: None,
                max_depth: None,
                nps: None,
                excluded: Vec::new(),
                resign_threshold: 0,
                draw_offers: true,
                losing_moves: 0,
                dead_even_moves: 0,
                last_score: None,
                hint: None,
                edit: None,
                cores: 1,
                transcript: Transcript::default(),
                quit: false,
            },
        }
    }

    /// Writes a transcript of the session to `path` (or stops writing with `None`).
    pub fn set_transcript(&mut self, path: Option<&std::path::Path>) -> std::io::Result<()> {
        self.session.transcript.open(path)
    }

    /// Runs until `quit` or the end of input.
    pub fn run(&mut self) {
        while !self.session.quit {
            let s = &self.session;
            let idle = s.pending.is_empty() && !s.paused && !s.game_over;
            let to_move = s.game.position().side_to_move();
            if idle && s.analyzing {
                self.analyze();
                continue;
            }
            if idle && s.engine_color == Some(to_move) {
                self.think();
                continue;
            }
            if idle && s.ponder && s.ponder_due && s.engine_color == Some(!to_move) {
                self.ponder();
                continue;
            }
            let line = match self.session.pending.pop_front() {
                Some(line) => line,
                None => self.session.receive(),
            };
            self.handle_line(&line);
        }
    }

    fn handle_line(&mut self, line: &str) {
        log::debug!("in: {line}");
        if let Some(msg) = invalid_line(line) {
            self.session.send(&msg);
            return;
        }
        // In edit mode lines are board edits, except `quit` (also what end of input reads
        // as), which must always end the session.
        if self.session.edit.is_some() && line.trim() != "quit" {
            self.session.edit_command(line.trim());
            return;
        }
        let line = line.trim();
        if line.is_empty() {
            return;
        }
        match Command::parse(line) {
            Ok(cmd) => {
                if !cmd.is_harmless_during_search() {
                    self.session.ponder_due = false;
                }
                self.handle(cmd);
            }
            Err(e) => self.session.send_error(&e),
        }
    }

    fn handle(&mut self, cmd: Command) {
        let s = &mut self.session;
        match cmd {
            Command::Xboard => {}
            Command::Protover(_) => s.send_features(),
            Command::New => {
                s.chess960 = false;
                s.new_game(Position::startpos());
                s.engine_color = if s.analyzing {
                    None
                } else {
                    Some(Color::Black)
                };
                s.max_depth = None;
                s.time_left = None;
                s.opponent_time_left = None;
                s.paused = false;
                self.searcher.clear();
            }
            Command::Variant(v) => match v.as_str() {
                "normal" => s.set_chess960(false),
                "fischerandom" => s.set_chess960(true),
                other => s.send(&format!("Error (unsupported variant): {other}")),
            },
            Command::Quit => s.quit = true,
            Command::Force => s.engine_color = None,
            Command::Go => {
                s.engine_color = Some(s.game.position().side_to_move());
                s.check_game_over();
            }
            Command::PlayOther => {
                s.engine_color = Some(!s.game.position().side_to_move());
                s.ponder_due = true;
            }
            Command::White => s.engine_color = Some(Color::Black),
            Command::Black => s.engine_color = Some(Color::White),
            Command::Move(text) => s.user_move(&text),
            Command::Result(_) => {
                s.game_over = true;
            }
            Command::SetBoard(fen) => s.set_board(&fen),
            Command::Edit => s.edit = Some(EditBoard::from_position(s.game.position())),
            Command::Undo => {
                if s.game.undo() {
                    s.position_changed();
                } else {
                    s.send("Error (no move to undo): undo");
                }
            }
            Command::Remove => {
                if s.game.moves().len() >= 2 {
                    s.game.undo();
                    s.game.undo();
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
            Command::Easy => s.ponder = false,
            Command::Memory(mb) => {
                let mb = mb.clamp(1, crate::search::tt::MAX_HASH_MB);
                if mb != self.searcher.hash_mb() {
                    self.searcher.set_hash_mb(mb);
                }
            }
            Command::Cores(n) => {
                s.cores = n.clamp(1, crate::search::MAX_THREADS);
                self.searcher.set_threads(s.cores);
            }
            Command::Option { name, value } => s.set_option(&name, value.as_deref()),
            Command::Exclude(what) => s.exclude(&what, true),
            Command::Include(what) => s.exclude(&what, false),
            Command::SetScore { score, depth } => {
                // The protocol gives it in favour of the side to move, as the table holds it.
                let pos = *s.game.position();
                self.searcher.set_score(&pos, score, depth);
            }
            Command::Perft(depth) => {
                let start = std::time::Instant::now();
                let nodes = crate::chess::perft::perft(s.game.position(), depth);
                let secs = start.elapsed().as_secs_f64();
                s.send(&format!(
                    "perft {depth}: {nodes} nodes in {secs:.3} s ({:.1} Mnps)",
                    nodes as f64 / secs.max(1e-9) / 1e6
                ));
            }
            Command::Divide(depth) => {
                let pos = *s.game.position();
                let mut total = 0;
                for (m, n) in crate::chess::perft::divide(&pos, depth) {
                    total += n;
                    s.send(&format!("{}: {n}", pos.coordinate(m)));
                }
                s.send(&format!("total {total}"));
            }
            Command::Bench(depth) => {
                let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
                let r = crate::bench::run(depth, 1, &mut std::io::sink(), false);
                s.send(&format!(
                    "bench depth {depth}: {} nodes {} nps ({:.2} s)",
                    r.nodes,
                    r.nps(),
                    r.elapsed.as_secs_f64()
                ));
            }
            Command::Test { file, seconds } => s.run_test_suite(&file, seconds),
            harmless => s.handle_harmless(harmless),
        }
    }

    fn think(&mut self) {
        let s = &mut self.session;
        let pos = *s.game.position();
        if pos.legal_moves().is_empty() {
            s.check_game_over();
            return;
        }
        let limits = compute_limits(s.time_control, s.time_left, s.moves_made());
        log::debug!("limits {limits:?}");
        let params = SearchParams {
            max_depth: s.max_depth,
            // `exclude` shapes analysis only: in play every legal move stays a candidate
            // (excluding them all must not leave the engine without a move).
            excluded: Vec::new(),
            history: s.game.history_keys(),
            stop_on_mate: true,
            instant_single_reply: true,
        };
        let clock = SearchClock::new(limits, s.nps);
        let mut hook = Hook::new(s, Mode::Think, clock, pos);
        let result = self.searcher.search(&pos, &params, &mut hook);
        let abort = hook.abort;
        if abort != Abort::Command {
            self.session.play_engine_move(&result);
        }
    }

    /// Thinks on the opponent's time. On a ponder hit the search goes on as our timed
    /// search and its move is played.
    fn ponder(&mut self) {
        let s = &mut self.session;
        s.ponder_due = false;
        let pos = *s.game.position();
        let expected = s
            .hint
            .filter(|&m| pos.is_legal(m) && pos.after(m).has_legal_moves());
        let mut history = s.game.history_keys();
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
            max_depth: s.max_depth,
            excluded: Vec::new(),
            history,
            stop_on_mate: false,
            instant_single_reply: false,
        };
        let clock = SearchClock::new(TimeLimits::INFINITE, s.nps);
        let mut hook = Hook::new(s, Mode::Ponder { expected }, clock, root);
        let result = self.searcher.search(&root, &params, &mut hook);
        let (mut hit, abort) = (hook.ponder_hit, hook.abort);
        let s = &mut self.session;
        if let (None, Abort::No, Some(expected)) = (hit, abort, expected) {
            // The search ended on its own before the opponent moved: wait for the move.
            hit = s.wait_for_expected_move(expected);
        }
        if let Some(m) = hit {
            s.game.play(m);
            s.excluded.clear();
            if abort != Abort::Command {
                s.play_engine_move(&result);
            }
        }
    }

    fn analyze(&mut self) {
        let s = &mut self.session;
        let pos = *s.game.position();
        let has_moves = pos.legal_moves().iter().any(|m| !s.excluded.contains(m));
        if has_moves {
            let params = SearchParams {
                max_depth: None,
                excluded: s.excluded.clone(),
                history: s.game.history_keys(),
                stop_on_mate: false,
                instant_single_reply: false,
            };
            let clock = SearchClock::new(TimeLimits::INFINITE, s.nps);
            let mut hook = Hook::new(s, Mode::Analyze, clock, pos);
            self.searcher.search(&pos, &params, &mut hook);
            if hook.abort != Abort::No {
                return;
            }
        }
        // Nothing (more) to search here: wait for input rather than search again.
        let s = &mut self.session;
        let line = s.receive();
        s.pending.push_back(line);
    }
}

/// An input line the driver refuses outright (cut, not UTF-8, far too long).
fn invalid_line(line: &str) -> Option<String> {
    let preview: String = line.chars().filter(|c| !c.is_control()).take(40).collect();
    if line.starts_with(super::input::TRUNCATED_MARK) || line.len() > MAX_COMMAND_LEN {
        Some(format!("Error (line too long): {preview}..."))
    } else if line.contains('\u{FFFD}') {
        Some(format!("Error (input is not valid UTF-8): {preview}"))
    } else {
        None
    }
}

impl Session {
    /// Moves the side to move has made in this game (from its start or set-up position, as
    /// the GUI counts them for `level MPS ...`).
    fn moves_made(&self) -> u32 {
        self.game.moves().len() as u32 / 2
    }

    /// The next input line, waiting for it (end of input reads as `quit`).
    fn receive(&mut self) -> String {
        let line = self.rx.recv().unwrap_or_else(|_| "quit".into());
        self.transcript.input(&line);
        line
    }

    /// The next input line if one is there.
    fn try_receive(&mut self) -> Option<String> {
        match self.rx.try_recv() {
            Ok(line) => {
                self.transcript.input(&line);
                Some(line)
            }
            Err(crossbeam_channel::TryRecvError::Empty) => None,
            Err(crossbeam_channel::TryRecvError::Disconnected) => Some("quit".into()),
        }
    }

    fn send(&mut self, line: &str) {
        log::debug!("out: {line}");
        self.transcript.output(line);
        let ok = writeln!(self.out, "{line}").and_then(|_| self.out.flush());
        if ok.is_err() {
            // Nobody listens any more (GUI gone): stop.
            self.quit = true;
        }
    }

    fn send_lines(&mut self, lines: Vec<String>) {
        for line in lines {
            self.send(&line);
        }
    }

    /// `test FILE [SECONDS]`: runs an EPD suite, one line per position, then the total.
    fn run_test_suite(&mut self, file: &str, seconds: f64) {
        use crate::epd::{read_epd_file, run_suite, EpdLimits};
        let lines = match read_epd_file(file) {
            Ok(lines) => lines,
            Err(e) => {
                self.send(&format!("Error (cannot read {file}: {e}): test"));
                return;
            }
        };
        let mut entries = Vec::new();
        for (line, parsed) in lines {
            match parsed {
                Ok(entry) => entries.push(entry),
                Err(e) => self.send(&format!("{file}:{line}: skipped: {e}")),
            }
        }
        let limits = EpdLimits {
            time: Some(Duration::from_secs_f64(seconds)),
            depth: None,
            nodes: None,
            hash_mb: crate::search::tt::DEFAULT_HASH_MB,
            threads: self.cores,
        };
        let mut report = Vec::new();
        run_suite(&entries, &limits, &mut report, &mut std::io::sink());
        let text = String::from_utf8_lossy(&report).into_owned();
        for line in text.lines() {
            self.send(line);
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
             debug=1 memory=1 smp=1 exclude=1 setscore=1"
        ));
        self.send("feature option=\"Resign Threshold -spin 0 0 10000\"");
        self.send("feature option=\"Draw Offers -check 1\"");
        self.send("feature option=\"Log File -string off\"");
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
            Command::Hard => self.ponder = true,
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
            Command::Sd(d) => self.max_depth = Some(d),
            Command::Nps(n) => self.nps = (n > 0).then_some(n),
            Command::Hint => {
                let pos = *self.game.position();
                if let Some(m) = self.hint.filter(|&m| pos.is_legal(m)) {
                    let text = self.move_text(&pos, m);
                    self.send(&format!("Hint: {text}"));
                }
            }
            Command::Book => {
                self.send("\tKestrel has no opening book.");
                self.send("");
            }
            Command::Draw => {
                let dead = self.game.position().is_insufficient_material();
                let worse = self.last_score.is_some_and(|s| s <= -150);
                if self.draw_offers && (dead || worse) && !self.game_over {
                    self.send("offer draw");
                }
            }
            Command::Help => self.send_lines(terminal::help_lines()),
            Command::Display => {
                let last = self.game.last_move().zip(self.game.position_before_last());
                let lines = terminal::board_lines(self.game.position(), last);
                self.send_lines(lines);
            }
            Command::Moves => self.send_lines(terminal::move_lines(self.game.position())),
            Command::Eval => self.send_lines(terminal::eval_lines(self.game.position())),
            Command::Fen => {
                let fen = self.game.position().to_fen();
                self.send(&fen);
            }
            // Noted, nothing to do: accepted/rejected features, opponent's name and rating,
            // ICS, computer opponent, random, egtpath, `.` outside analysis.
            _ => {}
        }
    }

    fn set_chess960(&mut self, on: bool) {
        self.chess960 = on;
        let mut start = *self.game.position();
        start.set_chess960(on);
        self.new_game(start);
    }

    fn new_game(&mut self, mut start: Position) {
        start.set_chess960(self.chess960 || start.is_chess960());
        self.game = Game::new(start);
        self.game_over = false;
        self.position_changed();
        self.hint = None;
        self.last_score = None;
        self.losing_moves = 0;
        self.dead_even_moves = 0;
    }

    fn position_changed(&mut self) {
        self.excluded.clear();
        self.game_over = false;
        self.ponder_due = false;
    }

    fn set_board(&mut self, fen: &str) {
        match Position::from_fen(fen) {
            Ok(pos) => self.new_game(pos),
            Err(e) => self.send(&format!("tellusererror Illegal position: {e}")),
        }
    }

    /// The opponent's (or a user's) move.
    fn user_move(&mut self, text: &str) {
        let pos = *self.game.position();
        match pos.parse_move(text) {
            Ok(mv) => {
                self.game.play(mv);
                self.excluded.clear();
                if self.engine_color.is_some() && !self.analyzing {
                    self.check_game_over();
                }
            }
            Err(e) => self.send(&format!("Illegal move ({e}): {text}")),
        }
    }

    /// Claims the result if the game has ended by the rules.
    fn check_game_over(&mut self) {
        if let Some(outcome) = self.game.outcome() {
            self.send(&outcome.to_string());
            self.game_over = true;
        }
    }

    /// Plays the search's move (or resigns), then claims a result the move brings about.
    fn play_engine_move(&mut self, result: &SearchResult) {
        let Some(mv) = result.best else {
            self.check_game_over();
            if !self.game_over {
                // No move and no result: never spin on searching again; wait for input.
                log::warn!("search gave no move in {}", self.game.position().to_fen());
                self.engine_color = None;
            }
            return;
        };
        let pos = *self.game.position();
        let score = result.score;
        if self.resign_threshold > 0 && score <= -self.resign_threshold {
            self.losing_moves += 1;
            if self.losing_moves >= 2 {
                self.send("resign");
                self.game_over = true;
                return;
            }
        } else {
            self.losing_moves = 0;
        }
        if score.abs() <= 5 && pos.fullmove_number() >= 60 && !crate::search::is_mate_score(score) {
            self.dead_even_moves += 1;
        } else {
            self.dead_even_moves = 0;
        }
        if self.draw_offers && self.dead_even_moves == 10 {
            self.send("offer draw");
        }
        let text = self.move_text(&pos, mv);
        self.game.play(mv);
        self.send(&format!("move {text}"));
        self.excluded.clear();
        self.hint = result.ponder;
        self.last_score = Some(score);
        self.ponder_due = true;
        self.check_game_over();
    }

    /// A move as xboard wants it: coordinates, castling as `O-O`/`O-O-O` in Chess960.
    fn move_text(&self, pos: &Position, mv: Move) -> String {
        match pos.castling_side_of(mv) {
            Some(side) if self.chess960 || pos.is_chess960() => side.notation().to_string(),
            _ => pos.coordinate(mv),
        }
    }

    fn pv_text(&self, root: &Position, pv: &[Move]) -> String {
        let mut pos = *root;
        let mut parts = Vec::with_capacity(pv.len());
        for &m in pv {
            if !pos.is_legal(m) {
                break;
            }
            parts.push(self.move_text(&pos, m));
            pos.play(m);
        }
        parts.join(" ")
    }

    /// Blocks until the opponent moves. Returns the expected move if that is what came;
    /// anything else is left for the driver.
    fn wait_for_expected_move(&mut self, expected: Move) -> Option<Move> {
        loop {
            let line = self.receive();
            match Command::parse(&line) {
                Ok(Command::Move(text))
                    if self.game.position().parse_move(&text) == Ok(expected) =>
                {
                    return Some(expected);
                }
                Ok(cmd) if cmd.is_harmless_during_search() && invalid_line(&line).is_none() => {
                    self.handle_harmless(cmd)
                }
                _ => {
                    self.pending.push_back(line);
                    return None;
                }
            }
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match (name, value) {
            ("Resign Threshold", Some(v)) => match v.parse::<i32>() {
                Ok(n) if (0..=10_000).contains(&n) => self.resign_threshold = n,
                _ => self.send(&format!("Error (Resign Threshold must be 0-10000): {v}")),
            },
            ("Draw Offers", Some(v)) => match v {
                "1" | "true" => self.draw_offers = true,
                "0" | "false" => self.draw_offers = false,
                _ => self.send(&format!("Error (Draw Offers must be 0 or 1): {v}")),
            },
            ("Log File", Some(v)) => {
                let path = (!v.is_empty() && v != "off").then(|| std::path::Path::new(v));
                if let Err(e) = self.transcript.open(path) {
                    self.send(&format!("Error (cannot open log file: {e}): {v}"));
                }
            }
            _ => self.send(&format!("Error (unknown option): {name}")),
        }
    }

    fn exclude(&mut self, what: &str, exclude: bool) {
        let pos = *self.game.position();
        if what == "all" {
            self.excluded = if exclude {
                pos.legal_moves().to_vec()
            } else {
                Vec::new()
            };
            return;
        }
        match pos.parse_move(what) {
            Ok(m) => {
                self.excluded.retain(|&e| e != m);
                if exclude {
                    self.excluded.push(m);
                }
            }
            Err(e) => self.send(&format!("Illegal move ({e}): {what}")),
        }
    }

    /// A line in legacy `edit` mode.
    fn edit_command(&mut self, line: &str) {
        let Some(edit) = self.edit.as_mut() else {
            return;
        };
        match line {
            "." => {
                let edit = self.edit.take().unwrap();
                let fen = edit.to_fen(self.game.position().side_to_move());
                self.set_board(&fen);
            }
            "#" => edit.pieces = [None; 64],
            "c" => edit.color = !edit.color,
            _ => {
                let mut chars = line.chars();
                let (Some(letter), Some(sq)) = (chars.next(), Square::parse(chars.as_str())) else {
                    self.send(&format!(
                        "Error (edit mode expects Pa4, xa4, #, c or .): {line}"
                    ));
                    return;
                };
                if letter == 'x' || letter == 'X' {
                    edit.pieces[sq.index()] = None;
                } else if let Some(p) = Piece::from_char(letter.to_ascii_uppercase()) {
                    edit.pieces[sq.index()] = Some(Piece::new(edit.color, p.role()));
                } else {
                    self.send(&format!(
                        "Error (edit mode expects Pa4, xa4, #, c or .): {line}"
                    ));
                }
            }
        }
    }
}

/// The board being set up in legacy `edit` mode.
struct EditBoard {
    pieces: [Option<Piece>; 64],
    color: Color,
}

impl EditBoard {
    fn from_position(pos: &Position) -> EditBoard {
        let mut pieces = [None; 64];
        for sq in Square::all() {
            pieces[sq.index()] = pos.piece_on(sq);
        }
        EditBoard {
            pieces,
            color: Color::White,
        }
    }

    /// FEN with every castling right the placement allows (the parser drops the rest).
    fn to_fen(&self, side: Color) -> String {
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match self.pieces[rank * 8 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(p.char());
                    }
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        let start = Position::from_fen(STARTPOS_FEN).unwrap();
        let home = |sq: Square| self.pieces[sq.index()] == start.piece_on(sq);
        let mut castling = String::new();
        for (king, rook, letter) in [
            (Square::E1, Square::H1, 'K'),
            (Square::E1, Square::A1, 'Q'),
            (Square::E8, Square::H8, 'k'),
            (Square::E8, Square::A8, 'q'),
        ] {
            if home(king) && home(rook) {
                castling.push(letter);
            }
        }
        if castling.is_empty() {
            castling.push('-');
        }
        format!("{fen} {} {castling} - 0 1", side.fen_char())
    }
}

/// The driver's side of the search: reads input while the search runs, answers what can
/// be answered at once, queues the rest, and applies the time limits.
struct Hook<'a> {
    s: &'a mut Session,
    mode: Mode,
    clock: SearchClock,
    root: Position,
    abort: Abort,
    /// The expected move, once the opponent has played it.
    ponder_hit: Option<Move>,
    depth: u32,
    nodes: u64,
    root_index: usize,
    root_count: usize,
    root_move: Move,
}

impl<'a> Hook<'a> {
    fn new(s: &'a mut Session, mode: Mode, clock: SearchClock, root: Position) -> Hook<'a> {
        Hook {
            s,
            mode,
            clock,
            root,
            abort: Abort::No,
            ponder_hit: None,
            depth: 0,
            nodes: 0,
            root_index: 0,
            root_count: 0,
            root_move: Move::NONE,
        }
    }

    fn stop(&mut self, why: Abort) {
        if self.abort == Abort::No {
            self.abort = why;
        }
    }

    /// One line that arrived during the search.
    fn on_input(&mut self, line: String) {
        let parsed = if invalid_line(&line).is_some() {
            Err(CommandError::Unknown(String::new()))
        } else {
            Command::parse(&line)
        };
        match self.mode {
            Mode::Think => match parsed {
                Ok(Command::MoveNow) => self.stop(Abort::MoveNow),
                // Errors and harmless commands wait their turn behind the move.
                Err(_) => self.s.pending.push_back(line),
                Ok(cmd) if cmd.is_harmless_during_search() => self.s.pending.push_back(line),
                Ok(_) => {
                    self.s.pending.push_back(line);
                    self.stop(Abort::Command);
                }
            },
            Mode::Ponder { expected } => match parsed {
                Ok(Command::Move(text))
                    if expected.is_some()
                        && self.s.game.position().parse_move(&text).ok() == expected =>
                {
                    self.on_ponder_hit(expected.unwrap())
                }
                Ok(Command::MoveNow) | Ok(Command::Stat) => {}
                Ok(cmd) if cmd.is_harmless_during_search() => self.s.handle_harmless(cmd),
                Err(e) if invalid_line(&line).is_none() => self.s.send_error(&e),
                _ => {
                    self.s.pending.push_back(line);
                    self.stop(Abort::Command);
                }
            },
            Mode::Analyze => match parsed {
                Ok(Command::Stat) => self.send_stat(),
                Ok(Command::MoveNow) => {}
                Ok(cmd) if cmd.is_harmless_during_search() => self.s.handle_harmless(cmd),
                Err(e) if invalid_line(&line).is_none() => self.s.send_error(&e),
                _ => {
                    self.s.pending.push_back(line);
                    self.stop(Abort::Command);
                }
            },
        }
    }

    /// The opponent played the move we pondered on: the search becomes our timed search.
    fn on_ponder_hit(&mut self, played: Move) {
        self.ponder_hit = Some(played);
        self.mode = Mode::Think;
        // The hit move is not in the game yet: count it.
        let moves_made = (self.s.game.moves().len() as u32).div_ceil(2);
        let limits = compute_limits(self.s.time_control, self.s.time_left, moves_made);
        self.clock.ponder_hit(limits, self.nodes);
    }

    fn send_stat(&mut self) {
        let cs = self.clock.elapsed(self.nodes).as_millis() / 10;
        let left = self.root_count.saturating_sub(self.root_index + 1);
        let name = if self.root_move.is_none() {
            String::new()
        } else {
            format!(" {}", self.s.move_text(&self.root, self.root_move))
        };
        let line = format!(
            "stat01: {cs} {} {} {left} {}{name}",
            self.nodes, self.depth, self.root_count
        );
        self.s.send(&line);
    }
}

impl SearchHook for Hook<'_> {
    fn poll(&mut self, nodes: u64) -> bool {
        self.nodes = nodes;
        while self.abort == Abort::No {
            match self.s.try_receive() {
                Some(line) => self.on_input(line),
                None => break,
            }
        }
        if self.abort != Abort::No {
            return true;
        }
        self.mode == Mode::Think && self.clock.past_never_exceed(nodes)
    }

    fn may_start_iteration(&mut self, depth: u32, nodes: u64) -> bool {
        self.depth = depth;
        self.nodes = nodes;
        if self.poll(nodes) {
            return false;
        }
        self.mode != Mode::Think || !self.clock.past_no_new_iteration(nodes)
    }

    fn may_search_next_root_move(&mut self, nodes: u64, score_dropped: bool) -> bool {
        self.nodes = nodes;
        if self.poll(nodes) {
            return false;
        }
        self.mode != Mode::Think || score_dropped || !self.clock.past_no_new_move(nodes)
    }

    fn report(&mut self, info: &SearchInfo) {
        self.depth = info.depth;
        self.nodes = info.nodes;
        if let Some(best) = info.pv.first() {
            self.clock.note_best(best.bits(), info.score);
        }
        if self.s.post || self.mode == Mode::Analyze {
            let pv = self.s.pv_text(&self.root, &info.pv);
            let line = thinking_line(
                info.depth,
                info.score,
                self.clock.elapsed(info.nodes),
                info.nodes,
                info.seldepth,
                &pv,
            );
            self.s.send(&line);
        }
    }

    fn root_move(&mut self, index: usize, count: usize, mv: Move) {
        self.root_index = index;
        self.root_count = count;
        self.root_move = mv;
    }
}
