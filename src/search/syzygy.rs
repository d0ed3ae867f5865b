//! The Syzygy tablebases as the search sees them: each thread's shared access and hit
//! count, the root probe that keeps only the moves holding the tables' best outcome, and
//! the hook that shows the tables' verdict as the score. The probe inside the tree is
//! part of `negamax`.

use super::score::{is_mate_score, TB_WIN};
use super::{SearchHook, SearchInfo, SearchParams, Searcher, DEFAULT_SYZYGY_PROBE_DEPTH, MAX_PLY};
use crate::chess::{Move, Position};
use crate::tablebase::{Tablebase, Wdl};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

/// The tablebases as each search thread sees them: shared, read-only, with one hit count.
#[derive(Clone)]
pub(super) struct TbAccess {
    pub(super) tables: Option<Arc<Tablebase>>,
    pub(super) probe_depth: i32,
    pub(super) hits: Arc<AtomicU64>,
}

impl TbAccess {
    pub(super) fn none() -> TbAccess {
        TbAccess {
            tables: None,
            probe_depth: DEFAULT_SYZYGY_PROBE_DEPTH,
            hits: Arc::new(AtomicU64::new(0)),
        }
    }

    pub(super) fn hits(&self) -> u64 {
        self.hits.load(Relaxed)
    }
}

impl Searcher {
    /// With the root in the tablebases, the search params with every root move left out
    /// that does not keep the tables' best outcome (or, winning, is not among the fastest
    /// to convert), and the score that outcome shows. `None` without tables, outside them,
    /// or when the caller's own exclusions would leave nothing. Counts a hit. Only before
    /// the helpers start: the root probe is not thread-safe.
    pub(super) fn tablebase_root(
        &self,
        root: &Position,
        params: &SearchParams,
    ) -> Option<TablebaseRoot> {
        let tables = self.main.tb.tables.as_deref()?;
        let probe = tables.probe_root(root)?;
        self.main.tb.hits.fetch_add(1, Relaxed);
        let keep = probe.best_moves();
        let allowed = keep.iter().any(|m| !params.excluded.contains(m));
        if keep.is_empty() || !allowed {
            return None;
        }
        // The kept moves share their outcome and, winning or losing, their DTZ: the plies
        // to the capture or pawn move that reaches the won (lost) table position, which a
        // table win found in the search counts the same way.
        let kept = probe.moves.iter().find(|m| m.mv == keep[0])?;
        let plies = kept.dtz.abs().clamp(1, MAX_PLY as i32);
        let score = match kept.wdl {
            Wdl::Win => TB_WIN - plies,
            Wdl::Loss => -TB_WIN + plies,
            // Wins and losses the 50-move rule spoils are draws.
            _ => 0,
        };
        let mut excluded = params.excluded.clone();
        excluded.extend(
            probe
                .moves
                .iter()
                .map(|m| m.mv)
                .filter(|m| !keep.contains(m)),
        );
        Some(TablebaseRoot {
            params: SearchParams {
                excluded,
                ..params.clone()
            },
            score,
        })
    }
}

/// The root in the tablebases: the moves to search, and the tables' verdict as a score.
pub(super) struct TablebaseRoot {
    pub(super) params: SearchParams,
    pub(super) score: i32,
}

/// The caller's hook, shown the tables' verdict as the score when the root is in the
/// tablebases: the search's own score there is an evaluation (it probes only after captures
/// and pawn moves). A mate the search proves is kept; it says more than the verdict.
pub(super) struct VerdictHook<'a> {
    pub(super) inner: &'a mut dyn SearchHook,
    pub(super) verdict: Option<i32>,
}

impl VerdictHook<'_> {
    pub(super) fn shown(&self, score: i32) -> i32 {
        match self.verdict {
            Some(verdict) if !is_mate_score(score) => verdict,
            _ => score,
        }
    }
}

impl SearchHook for VerdictHook<'_> {
    fn poll(&mut self, nodes: u64) -> bool {
        self.inner.poll(nodes)
    }
    fn may_start_iteration(&mut self, depth: u32, nodes: u64) -> bool {
        self.inner.may_start_iteration(depth, nodes)
    }
    fn may_search_next_root_move(&mut self, nodes: u64, score_dropped: bool) -> bool {
        self.inner.may_search_next_root_move(nodes, score_dropped)
    }
    fn report(&mut self, info: &SearchInfo) {
        if self.verdict.is_none() || is_mate_score(info.score) {
            return self.inner.report(info);
        }
        // A failed aspiration window keeps its bound: the exact verdict is one as well, and
        // the GUI sees the usual bound line before the iteration's exact one.
        self.inner.report(&SearchInfo {
            score: self.shown(info.score),
            ..info.clone()
        });
    }
    fn root_move(&mut self, index: usize, count: usize, mv: Move) {
        self.inner.root_move(index, count, mv);
    }
    fn deadline(&self) -> Option<Instant> {
        self.inner.deadline()
    }
    fn node_budget(&self) -> Option<u64> {
        self.inner.node_budget()
    }
}
