//! Syzygy endgame tablebases, probed through the `pyrrhic-rs` crate (a Rust port of the
//! Fathom/Pyrrhic prober made for engines). This module is the adapter the crate needs
//! (Kestrel's attack tables) and a Kestrel-typed API: `probe_wdl` for the search,
//! `probe_root` for the root moves with their distance to zeroing (DTZ).
//!
//! The crate keeps its tables in global state, so only one `Tablebase` may exist at a time:
//! `Tablebase::open` fails while another is alive, and the owner (the `Searcher`) drops the
//! old one before opening a new path. The crate's root probe refuses while its handle is
//! cloned; Kestrel never clones it (threads borrow the one `Tablebase`), and only probes
//! the root before the helper threads start.
//!
//! The crate registers every table name up to six pieces whether its file exists or not,
//! so its `max_pieces` is no guide: the largest table is found here by listing the
//! directories, which also gives a clear error for a path with no tables at all.

use crate::chess::{attacks, Bitboard, Color, Move, Position, Role, Square};
use pyrrhic_rs::{DtzProbeValue, EngineAdapter, TBError, TableBases, WdlProbeResult};
use std::path::{Path, PathBuf};

/// Kestrel's attack tables, as the prober asks for them.
#[derive(Clone)]
pub struct KestrelAttacks;

fn square(index: u64) -> Square {
    Square::new(index as u8)
}

impl EngineAdapter for KestrelAttacks {
    fn pawn_attacks(color: pyrrhic_rs::Color, sq: u64) -> u64 {
        let color = match color {
            pyrrhic_rs::Color::White => Color::White,
            pyrrhic_rs::Color::Black => Color::Black,
        };
        attacks::pawn_attacks(color, square(sq)).0
    }
    fn knight_attacks(sq: u64) -> u64 {
        attacks::knight_attacks(square(sq)).0
    }
    fn bishop_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::bishop_attacks(square(sq), Bitboard(occupied)).0
    }
    fn rook_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::rook_attacks(square(sq), Bitboard(occupied)).0
    }
    fn queen_attacks(sq: u64, occupied: u64) -> u64 {
        attacks::queen_attacks(square(sq), Bitboard(occupied)).0
    }
    fn king_attacks(sq: u64) -> u64 {
        attacks::king_attacks(square(sq)).0
    }
}

/// A win/draw/loss for the side to move. The cursed win and the blessed loss are wins and
/// losses that the 50-move rule turns into draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Wdl {
    Loss = -2,
    BlessedLoss = -1,
    Draw = 0,
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    fn from_probe(w: WdlProbeResult) -> Wdl {
        match w {
            WdlProbeResult::Loss => Wdl::Loss,
            WdlProbeResult::BlessedLoss => Wdl::BlessedLoss,
            WdlProbeResult::Draw => Wdl::Draw,
            WdlProbeResult::CursedWin => Wdl::CursedWin,
            WdlProbeResult::Win => Wdl::Win,
        }
    }

    /// -2 (loss) to 2 (win), as Syzygy tools print it.
    pub fn value(self) -> i32 {
        self as i32
    }
}

/// One legal root move as the tables see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootMove {
    pub mv: Move,
    /// The outcome for the side to move at the root after this move, counting the 50-move
    /// rule from the root's halfmove clock.
    pub wdl: Wdl,
    /// Plies to the next zeroing move (capture or pawn move) after this move, counting
    /// this move: positive when it wins, negative when it loses, 0 for a draw.
    pub dtz: i32,
}

/// The root position as the tables see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootProbe {
    pub wdl: Wdl,
    /// Distance to zeroing of the root position: positive winning, negative losing.
    pub dtz: i32,
    pub moves: Vec<RootMove>,
}

impl RootProbe {
    /// The root moves worth searching: those that keep the best outcome, and of them, when
    /// winning, the ones that reach the next zeroing move soonest (so the win is converted
    /// within the 50-move rule), when losing the ones that hold out longest. Empty when the
    /// root has no moves.
    pub fn best_moves(&self) -> Vec<Move> {
        let Some(best) = self.moves.iter().map(|m| m.wdl).max() else {
            return Vec::new();
        };
        let keeping: Vec<&RootMove> = self.moves.iter().filter(|m| m.wdl == best).collect();
        // Winning DTZs are positive and losing ones negative: the least is what we want.
        let target = if best == Wdl::Draw {
            None
        } else {
            keeping.iter().map(|m| m.dtz).min()
        };
        keeping
            .into_iter()
            .filter(|m| target.is_none_or(|t| m.dtz == t))
            .map(|m| m.mv)
            .collect()
    }
}

/// A loaded set of Syzygy tables (at most one at a time: see the module notes).
pub struct Tablebase {
    tables: TableBases<KestrelAttacks>,
    largest: u32,
    files: usize,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("largest", &self.largest)
            .field("files", &self.files)
            .finish()
    }
}

/// A WDL table's name (`KQvKR`) and its number of pieces, or `None` for other files.
fn table_pieces(file_name: &str) -> Option<u32> {
    let stem = file_name.strip_suffix(".rtbw")?;
    let (white, black) = stem.split_once('v')?;
    let side_ok =
        |s: &str| s.starts_with('K') && s[1..].chars().all(|c| "QRBNP".contains(c)) && s.len() <= 7;
    (side_ok(white) && side_ok(black)).then_some((white.len() + black.len()) as u32)
}

/// What opening a Syzygy path gave: the tables of the directories that exist (none when no
/// directory exists) and the directories that do not.
#[derive(Debug)]
pub struct Opened {
    pub tables: Option<Tablebase>,
    pub missing: Vec<PathBuf>,
}

impl Tablebase {
    /// Opens the tables in `path`: one directory, or several separated by the platform's
    /// path separator (`:` on Unix, `;` on Windows). A directory that does not exist is
    /// skipped and listed in `missing`. Fails with a reason a person can act on when a
    /// directory that exists cannot be read or is not a directory, when the directories
    /// that exist hold no tables, or when a table file is unreadable or truncated; nothing
    /// is loaded then.
    pub fn open(path: &str) -> Result<Opened, String> {
        let dirs: Vec<PathBuf> = std::env::split_paths(path.trim())
            .filter(|d| !d.as_os_str().is_empty())
            .collect();
        if dirs.is_empty() {
            return Err("no Syzygy directory given".into());
        }
        let mut present = Vec::new();
        let mut missing = Vec::new();
        for dir in dirs {
            match std::fs::metadata(&dir) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing.push(dir),
                Err(e) => {
                    return Err(format!(
                        "cannot read Syzygy directory {}: {e}",
                        dir.display()
                    ))
                }
                Ok(meta) if !meta.is_dir() => {
                    return Err(format!(
                        "{} is not a directory (SyzygyPath lists directories of tables)",
                        dir.display()
                    ))
                }
                Ok(_) => present.push(dir),
            }
        }
        if present.is_empty() {
            return Ok(Opened {
                tables: None,
                missing,
            });
        }
        let mut largest = 0;
        let mut files = 0;
        for dir in &present {
            let (dir_largest, dir_files) = scan_directory(dir)?;
            largest = largest.max(dir_largest);
            files += dir_files;
        }
        let shown: Vec<String> = present.iter().map(|d| d.display().to_string()).collect();
        if files == 0 {
            return Err(format!(
                "no Syzygy tables (.rtbw files) in {}",
                shown.join(", ")
            ));
        }
        // The prober splits its path at ':' on every platform.
        let joined = shown.join(":");
        let tables = TableBases::<KestrelAttacks>::new(joined.clone()).map_err(|e| match e {
            TBError::AlreadyInitialized | TBError::NotSingleton => {
                "another set of Syzygy tables is still loaded".to_string()
            }
            TBError::BadPath => format!(
                "the Syzygy prober found no tables in {joined}; restart the engine to set \
                 another path"
            ),
            other => format!("cannot load the Syzygy tables in {joined}: {other:?}"),
        })?;
        Ok(Opened {
            tables: Some(Tablebase {
                tables,
                largest,
                files,
            }),
            missing,
        })
    }

    /// The most pieces (kings included) of any table found.
    pub fn largest(&self) -> u32 {
        self.largest
    }

    /// How many WDL tables were found.
    pub fn table_count(&self) -> usize {
        self.files
    }

    /// Whether the tables may know `pos`: few enough pieces and no castling rights (the
    /// tables assume none).
    pub fn covers(&self, pos: &Position) -> bool {
        pos.occupied().count() <= self.largest && pos.castling().is_empty()
    }

    /// The position's outcome with best play, ignoring the 50-move counter (exact when it
    /// is 0). `None` when the tables do not cover the position or a table is missing.
    pub fn probe_wdl(&self, pos: &Position) -> Option<Wdl> {
        if !self.covers(pos) {
            return None;
        }
        let b = Boards::of(pos);
        self.tables
            .probe_wdl(
                b.white,
                b.black,
                b.kings,
                b.queens,
                b.rooks,
                b.bishops,
                b.knights,
                b.pawns,
                b.ep,
                b.white_to_move,
            )
            .ok()
            .map(Wdl::from_probe)
    }

    /// Every legal move of `pos` with its outcome and DTZ, and the root's own, counting
    /// the 50-move rule from the position's halfmove clock. `None` when the tables do not
    /// cover the position or a WDL or DTZ table is missing. Not to be called while other
    /// threads probe (the prober's root probe is not thread-safe).
    pub fn probe_root(&self, pos: &Position) -> Option<RootProbe> {
        if !self.covers(pos) {
            return None;
        }
        let b = Boards::of(pos);
        let probe = self
            .tables
            .probe_root(
                b.white,
                b.black,
                b.kings,
                b.queens,
                b.rooks,
                b.bishops,
                b.knights,
                b.pawns,
                u32::from(pos.halfmove_clock()),
                b.ep,
                b.white_to_move,
            )
            .ok()?;
        let (wdl, dtz) = match probe.root {
            DtzProbeValue::DtzResult(r) => {
                let wdl = Wdl::from_probe(r.wdl);
                (wdl, signed_dtz(wdl, r.dtz))
            }
            // Mated: lost, and the Syzygy convention (as python-chess has it) gives -1.
            DtzProbeValue::Checkmate => (Wdl::Loss, -1),
            DtzProbeValue::Stalemate => (Wdl::Draw, 0),
            DtzProbeValue::Failed => return None,
        };
        let legal = pos.legal_moves();
        let mut moves = Vec::with_capacity(probe.num_moves);
        for value in &probe.moves[..probe.num_moves] {
            let DtzProbeValue::DtzResult(r) = *value else {
                return None;
            };
            let promotion = match r.promotion {
                pyrrhic_rs::Piece::Queen => Some(Role::Queen),
                pyrrhic_rs::Piece::Rook => Some(Role::Rook),
                pyrrhic_rs::Piece::Bishop => Some(Role::Bishop),
                pyrrhic_rs::Piece::Knight => Some(Role::Knight),
                _ => None,
            };
            let mv = legal.iter().copied().find(|m| {
                m.from().index() == usize::from(r.from_square)
                    && m.to().index() == usize::from(r.to_square)
                    && m.promotion_role() == promotion
            })?;
            let wdl = Wdl::from_probe(r.wdl);
            moves.push(RootMove {
                mv,
                wdl,
                dtz: signed_dtz(wdl, r.dtz),
            });
        }
        // The prober skips no legal move; if it did, a filter on its list could drop one.
        if moves.len() != legal.len() {
            return None;
        }
        Some(RootProbe { wdl, dtz, moves })
    }
}

fn signed_dtz(wdl: Wdl, dtz: u16) -> i32 {
    match wdl {
        Wdl::Win | Wdl::CursedWin => i32::from(dtz),
        Wdl::Draw => 0,
        Wdl::Loss | Wdl::BlessedLoss => -i32::from(dtz),
    }
}

/// The position in the prober's terms.
struct Boards {
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    /// The en-passant square's index, 0 for none (a1 can never be one).
    ep: u32,
    white_to_move: bool,
}

impl Boards {
    fn of(pos: &Position) -> Boards {
        Boards {
            white: pos.color_bb(Color::White).0,
            black: pos.color_bb(Color::Black).0,
            kings: pos.role_bb(Role::King).0,
            queens: pos.role_bb(Role::Queen).0,
            rooks: pos.role_bb(Role::Rook).0,
            bishops: pos.role_bb(Role::Bishop).0,
            knights: pos.role_bb(Role::Knight).0,
            pawns: pos.role_bb(Role::Pawn).0,
            ep: pos.ep_square().map_or(0, |s| s.index() as u32),
            white_to_move: pos.side_to_move() == Color::White,
        }
    }
}

/// The largest table and the number of WDL tables in `dir`; an error for a directory that
/// cannot be read or a table file that is unreadable or truncated.
fn scan_directory(dir: &Path) -> Result<(u32, usize), String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read Syzygy directory {}: {e}", dir.display()))?;
    let mut largest = 0;
    let mut files = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pieces) = name.to_str().and_then(table_pieces) else {
            continue;
        };
        let file = entry.path();
        // Syzygy files are a 16-byte header and 64-byte blocks; anything else was cut short.
        let size = std::fs::File::open(&file)
            .and_then(|f| f.metadata())
            .map_err(|e| format!("cannot read Syzygy table {}: {e}", file.display()))?
            .len();
        if size % 64 != 16 {
            return Err(format!(
                "Syzygy table {} is incomplete ({size} bytes)",
                file.display()
            ));
        }
        largest = largest.max(pieces);
        files += 1;
    }
    Ok((largest, files))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_give_their_piece_counts() {
        assert_eq!(table_pieces("KQvK.rtbw"), Some(3));
        assert_eq!(table_pieces("KBNvK.rtbw"), Some(4));
        assert_eq!(table_pieces("KRPvKR.rtbw"), Some(5));
        assert_eq!(table_pieces("KRPPvKRP.rtbw"), Some(7));
        assert_eq!(table_pieces("KQvK.rtbz"), None);
        assert_eq!(table_pieces("README.rtbw"), None);
        assert_eq!(table_pieces("KXvK.rtbw"), None);
    }

    fn root_move(mv: u16, wdl: Wdl, dtz: i32) -> RootMove {
        RootMove {
            mv: Move::from_bits(mv),
            wdl,
            dtz,
        }
    }

    #[test]
    fn best_moves_keep_the_outcome_and_convert_fastest() {
        let probe = RootProbe {
            wdl: Wdl::Win,
            dtz: 3,
            moves: vec![
                root_move(1, Wdl::Win, 7),
                root_move(2, Wdl::Draw, 0),
                root_move(3, Wdl::Win, 3),
                root_move(4, Wdl::Win, 3),
                root_move(5, Wdl::Loss, -2),
            ],
        };
        assert_eq!(
            probe.best_moves(),
            vec![Move::from_bits(3), Move::from_bits(4)]
        );
        let losing = RootProbe {
            wdl: Wdl::Loss,
            dtz: -9,
            moves: vec![root_move(1, Wdl::Loss, -2), root_move(2, Wdl::Loss, -9)],
        };
        assert_eq!(losing.best_moves(), vec![Move::from_bits(2)]);
        let drawn = RootProbe {
            wdl: Wdl::Draw,
            dtz: 0,
            moves: vec![
                root_move(1, Wdl::Draw, 0),
                root_move(2, Wdl::Loss, -5),
                root_move(3, Wdl::Draw, 0),
            ],
        };
        assert_eq!(
            drawn.best_moves(),
            vec![Move::from_bits(1), Move::from_bits(3)]
        );
    }
}
