//! The engine both protocol front ends drive, in no protocol's terms: the searcher, the game,
//! the options (`options`: one table both protocols render and parse), the book and tables,
//! the clock (`time`), and running a search (`thinking`) with a hook that reads input while
//! it thinks. It must not speak either protocol: no command is parsed and no line formatted
//! here, only the session's I/O (`io`) is kept.
//!
//! A front end (`protocol::xboard`, `protocol::uci`) owns an `Engine` and its own protocol
//! state, parses its language into calls on the engine, and formats what comes back. During
//! a search the hook hands every input line to the front end (`Front`), which decides
//! whether it is answered at once, queued, stops the search, or is a ponder hit.

mod io;
pub mod options;
mod thinking;
pub mod time;
pub mod transcript;

pub use io::{
    line_problem, line_problem_within, pv_text, Io, MAX_COMMAND_LEN, MAX_POSITION_LEN,
    TRUNCATED_MARK,
};
pub use options::{MAX_MOVE_OVERHEAD_MS, MAX_MULTI_PV};
pub use thinking::{run_search, Abort, Front, Mode, Search};

use self::time::{limits_for, oversubscription_margin, Clock, TimeLimits, SAFETY_MARGIN};
use crate::book::{Book, BookMove, BookRng};
use crate::chess::Position;
use crate::game::Game;
use crate::nnue::format::Activation;
use crate::nnue::Network;
use crate::rng::Rng;
use crate::search::strength::{Strength, DEFAULT_ELO};
use crate::search::Searcher;
use crate::tablebase::Tablebase;
use std::sync::Arc;
use std::time::Duration;

pub const ENGINE_NAME: &str = concat!("Kestrel ", env!("CARGO_PKG_VERSION"));
pub const ENGINE_AUTHOR: &str = "the Kestrel authors";

/// The engine: what both protocols drive.
pub struct Engine {
    pub io: Io,
    /// The searcher, with the transposition table and the tablebases. Out (`None`) only
    /// while `run_search` runs it, when nothing but the search's own hook runs.
    searcher: Option<Box<Searcher>>,
    pub game: Game,
    /// Castling is written and read king-takes-rook (xboard `variant fischerandom`, UCI
    /// `UCI_Chess960`).
    pub chess960: bool,
    /// Pondering allowed (xboard `hard`/`easy`, UCI `Ponder`).
    pub ponder: bool,
    /// Our clock for the next move, as the front end filled it in.
    pub clock: Clock,
    pub max_depth: Option<u32>,
    /// Nodes per second standing in for the clock (xboard `nps`).
    pub nps: Option<u64>,
    /// Kept back from every clock reading for latency (the MoveOverhead option).
    pub move_overhead: Duration,
    /// The machine's cores: more search threads than this are kept back more time.
    cores: usize,
    /// Best root moves searched and shown, each with its score and PV (the MultiPV option).
    pub multi_pv: usize,
    /// The opening book, if a book file is set and could be opened.
    pub book: Option<Book>,
    /// Play from the book when there is one (xboard `Book`, UCI `OwnBook`).
    pub use_book: bool,
    /// Draws the book moves: seeded once per session, so a session's choices can be
    /// repeated, while the games of one session still differ.
    pub book_rng: BookRng,
    /// Resign when the score stays below minus this many centipawns (0: never).
    pub resign_threshold: i32,
    /// Offer draws in dead-even endings.
    pub draw_offers: bool,
    /// The net `EvalFile` chose (the embedded one by default), if any.
    net: Option<LoadedNet>,
    /// Play with the net when there is one (`UseNNUE`); off: the classical evaluation.
    use_nnue: bool,
    /// Play below full strength, at `elo` (`UCI_LimitStrength`, `UCI_Elo`).
    pub limit_strength: bool,
    /// `UCI_ShowWDL`: `wdl W D L` on every UCI `info` line with a score.
    pub show_wdl: bool,
    pub elo: i64,
    /// Draws the limited strength's choices: seeded once per session, as the book's.
    pub strength_rng: Rng,
}

/// A net and the name it was loaded by (a path, or `<embedded>`).
struct LoadedNet {
    name: String,
    net: Arc<Network>,
}

/// What the net makes of a position, for `eval`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetEval {
    /// The path the net was loaded from, or `<embedded>` and the embedded net's name.
    pub name: String,
    /// `256 hidden neurons` (and the king buckets, if any).
    pub hidden: String,
    pub activation: Activation,
    /// Centipawns for the side to move (0 when neither side can mate, as in the search).
    pub score: i32,
    /// The search uses it (`UseNNUE` is on).
    pub in_use: bool,
}

/// The seed of every session's strength choices.
const STRENGTH_SEED: u64 = 0x4B45_5354_5245_4C31;

/// How `EvalFile` names the net built into the binary (also the empty value).
pub const EMBEDDED_NET_NAME: &str = "<embedded>";

impl Engine {
    /// An engine on the session `io`, with a `hash_mb` MB table and every option at its
    /// UCI default.
    pub fn new(io: Io, hash_mb: usize) -> Engine {
        Engine {
            io,
            searcher: Some(Box::new(Searcher::new(hash_mb))),
            game: Game::default(),
            chess960: false,
            ponder: false,
            clock: Clock::default(),
            max_depth: None,
            nps: None,
            move_overhead: SAFETY_MARGIN,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            multi_pv: 1,
            book: None,
            use_book: false,
            book_rng: BookRng::new(crate::book::DEFAULT_SEED),
            resign_threshold: 0,
            draw_offers: true,
            net: crate::nnue::embedded().map(|net| LoadedNet {
                name: EMBEDDED_NET_NAME.into(),
                net,
            }),
            use_nnue: true,
            limit_strength: false,
            show_wdl: false,
            elo: DEFAULT_ELO,
            strength_rng: Rng::new(STRENGTH_SEED),
        }
    }

    /// How a search for play is limited, if the strength is: `None` when the limit is off
    /// or set to full strength.
    pub fn strength(&self) -> Option<Strength> {
        Strength::at(self.elo).filter(|_| self.limit_strength)
    }

    pub fn send(&mut self, line: &str) {
        self.io.send(line);
    }

    /// The time limits for our move on the clock the front end set, shortened when the
    /// search threads outnumber the cores (they then answer late).
    pub fn limits(&self) -> TimeLimits {
        let threads = self.searcher.as_ref().map_or(1, |s| s.threads());
        limits_for(&self.clock, self.move_overhead)
            .shortened_by(oversubscription_margin(threads, self.cores))
    }

    /// Starts a new game from `start` (Chess960 castling if the session or the FEN says so).
    pub fn new_game(&mut self, mut start: Position) {
        start.set_chess960(self.chess960 || start.is_chess960());
        self.game = Game::new(start);
    }

    /// The searcher (its table, threads and tablebases).
    pub fn searcher(&mut self) -> &mut Searcher {
        self.searcher
            .as_mut()
            .expect("the searcher is busy: only the search's hook runs during a search")
    }

    /// The searcher, to read.
    pub fn searcher_ref(&self) -> &Searcher {
        self.searcher
            .as_ref()
            .expect("the searcher is busy: only the search's hook runs during a search")
    }

    /// Hash table size in MB, clamped to what the table allows; resizing clears it. Refused
    /// (the old table kept) beyond what the machine can give.
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), String> {
        let mb = mb.clamp(1, crate::search::tt::MAX_HASH_MB);
        let searcher = self.searcher();
        if mb != searcher.hash_mb() {
            searcher.set_hash_mb(mb)?;
        }
        Ok(())
    }

    /// Search threads, clamped to 1..=MAX_THREADS.
    pub fn set_threads(&mut self, threads: usize) {
        self.searcher()
            .set_threads(threads.clamp(1, crate::search::MAX_THREADS));
    }

    /// Forgets what earlier searches learnt (the table, histories): a new game.
    pub fn clear_hash(&mut self) {
        self.searcher().clear();
    }

    /// Loads the Syzygy tables in `path` (one directory or several separated by the
    /// platform's path separator; empty or `<empty>`: no tables) in place of the old ones.
    /// A directory that does not exist is skipped, as GUIs send default paths that need not
    /// exist (XBoard's stock `/EGT/Syzygy`); with none left there are no tables. Returns the
    /// lines to show (what was skipped, what was loaded), or why nothing was loaded from
    /// directories that exist: the engine then plays without tables.
    pub fn set_syzygy_path(&mut self, path: &str) -> Result<Vec<String>, String> {
        let searcher = self.searcher();
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
            log::info!("{line}");
            return Ok(vec![line]);
        };
        let mut lines = Vec::new();
        if let Some(missing) = missing {
            let line = format!("{missing}: skipped");
            log::info!("{line}");
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

    /// `SyzygyProbeDepth`: the depth from which positions as large as the largest table
    /// are probed in the tree (the option table checks the range).
    pub fn set_syzygy_probe_depth(&mut self, depth: i32) {
        self.searcher().set_syzygy_probe_depth(depth);
    }

    /// The tables' verdict on the current position: `wdl W dtz D` (W from -2, lost, to 2,
    /// won, ignoring the 50-move counter; D the signed distance to the next capture or
    /// pawn move, counting the 50-move rule) and the moves that keep it. An error when
    /// there are no tables or they do not know the position.
    pub fn tablebase_report(&self) -> Result<String, String> {
        let tables = self
            .searcher_ref()
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
}

impl Engine {
    /// Loads the net file at `path` (empty or `<embedded>`: the net built into the binary)
    /// and plays with it if `UseNNUE` is on. Returns the lines to show; on failure the
    /// reason, the net in use (or the classical evaluation) staying.
    pub fn set_eval_file(&mut self, path: &str) -> Result<Vec<String>, String> {
        let path = path.trim();
        let loaded = if path.is_empty() || path == EMBEDDED_NET_NAME {
            crate::nnue::embedded().map(|net| LoadedNet {
                name: EMBEDDED_NET_NAME.into(),
                net,
            })
        } else {
            match crate::nnue::load(std::path::Path::new(path)) {
                Ok(net) => Some(LoadedNet {
                    name: path.into(),
                    net: Arc::new(net),
                }),
                Err(e) => {
                    let kept = match &self.net {
                        Some(old) => format!("the net {} stays", old.name),
                        None => "the classical evaluation stays".into(),
                    };
                    return Err(format!("{e}; {kept}"));
                }
            }
        };
        self.net = loaded;
        self.use_network();
        Ok(vec![self.net_summary()])
    }

    /// `UseNNUE`: the net (when there is one) or the classical evaluation.
    pub fn set_use_nnue(&mut self, on: bool) -> Vec<String> {
        self.use_nnue = on;
        self.use_network();
        vec![self.net_summary()]
    }

    /// Hands the searcher the evaluation the options choose, if it is not the one it has
    /// (a change clears what the search learnt with the other).
    fn use_network(&mut self) {
        let wanted = self
            .net
            .as_ref()
            .filter(|_| self.use_nnue)
            .map(|loaded| Arc::clone(&loaded.net));
        let searcher = self.searcher();
        let same = match (searcher.network(), &wanted) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            searcher.set_network(wanted);
        }
    }

    /// Which evaluation plays, in a line.
    fn net_summary(&self) -> String {
        match (&self.net, self.use_nnue) {
            (Some(loaded), true) => format!(
                "NNUE evaluation with net {} ({}, {:?}, {} instructions)",
                loaded.name,
                loaded.net.describe_hidden(),
                loaded.net.activation(),
                loaded.net.level().name()
            ),
            (Some(loaded), false) => format!(
                "net {} loaded; UseNNUE is off: the classical evaluation plays",
                loaded.name
            ),
            (None, _) => {
                "no net loaded and none embedded in this build: the classical evaluation plays"
                    .into()
            }
        }
    }

    /// The loaded net's view of the current position, if a net is loaded.
    pub fn net_eval(&self) -> Option<NetEval> {
        let loaded = self.net.as_ref()?;
        let pos = self.game.position();
        let score = if pos.is_insufficient_material() {
            0
        } else {
            crate::nnue::evaluate_from_scratch(&loaded.net, pos)
        };
        let name = if loaded.name == EMBEDDED_NET_NAME {
            format!("{EMBEDDED_NET_NAME} {}", crate::nnue::EMBEDDED_NAME)
        } else {
            loaded.name.clone()
        };
        Some(NetEval {
            name,
            hidden: loaded.net.describe_hidden(),
            activation: loaded.net.activation(),
            score,
            in_use: self.use_nnue,
        })
    }
}

impl Engine {
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

#[cfg(test)]
mod tests {
    use super::options::{OptionError, Protocol};
    use super::*;

    fn engine() -> Engine {
        let (_tx, rx) = crossbeam_channel::unbounded();
        Engine::new(Io::new(rx, Box::new(std::io::sink())), 1)
    }

    #[test]
    fn move_overhead_is_kept_back_from_the_clock() {
        let mut engine = engine();
        engine.clock = Clock::under(
            time::TimeControl::PerMove(Duration::from_secs(10)),
            Some(Duration::from_secs(2)),
            0,
        );
        assert_eq!(engine.limits().never_exceed, Duration::from_millis(1950));
        let overhead = |engine: &mut Engine, v: &str| {
            engine.set_option(Protocol::Uci, "MoveOverhead", Some(v))
        };
        overhead(&mut engine, "400").unwrap();
        assert_eq!(engine.limits().never_exceed, Duration::from_millis(1600));
        for bad in ["-1", "5001", "x", ""] {
            assert!(overhead(&mut engine, bad).is_err(), "{bad}");
        }
        assert_eq!(engine.move_overhead, Duration::from_millis(400));
    }

    #[test]
    fn multi_pv_takes_1_to_the_maximum_and_refuses_the_rest() {
        let mut engine = engine();
        let multi_pv =
            |engine: &mut Engine, v: &str| engine.set_option(Protocol::Xboard, "MultiPV", Some(v));
        assert_eq!(engine.multi_pv, 1);
        multi_pv(&mut engine, " 3 ").unwrap();
        assert_eq!(engine.multi_pv, 3);
        multi_pv(&mut engine, &MAX_MULTI_PV.to_string()).unwrap();
        assert_eq!(engine.multi_pv, MAX_MULTI_PV as usize);
        multi_pv(&mut engine, "3").unwrap();
        for bad in ["0", "-1", "257", "x", "", "2.5"] {
            assert_eq!(
                multi_pv(&mut engine, bad),
                Err(OptionError::BadValue("MultiPV must be 1-256".into())),
                "{bad}"
            );
        }
        assert_eq!(engine.multi_pv, 3);
    }
}
