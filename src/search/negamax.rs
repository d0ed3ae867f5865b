//! The alpha-beta search below the root: a negamax with principal variation search, hash
//! cutoffs, the in-tree tablebase probe, pruning (reverse futility, null move, late-move
//! and SEE pruning), singular extensions and late-move reductions; and what it learns at a
//! cutoff (history, killers, countermoves) and from its scores (evaluation correction).
//!
//! Beside this file: `reductions` (the late-move reduction table and a move's reduction) and
//! `learning` (what a cutoff and a finished node teach the histories, the correction and the
//! table).

use super::history::PieceTo;
use super::movepick::{is_quiet, piece_to, Context, MovePicker, Pick, ORDER_KILLER};
use super::params;
use super::score::{
    bound_cuts, bound_of, is_mate_score, refined_eval, score_from_tt, score_to_tt, MATE,
    MATE_BOUND, TB_WIN, TB_WIN_BOUND,
};
use super::see::see_ge;
use super::tt::Hit;
use super::{Bound, SearchHook, Worker, FRAME_OFFSET, INFINITE, MAX_DEPTH, MAX_PLY, NO_EVAL};
use crate::chess::{Move, Position};
use crate::tablebase::Wdl;
use std::ops::ControlFlow;
use std::sync::atomic::Ordering::Relaxed;

mod learning;
mod reductions;

pub(super) use reductions::Reductions;

/// One node of the search: where it is, its window and its kind. `depth` and `alpha` move
/// as the node learns (a tablebase bound, internal iterative reduction, a better move).
#[derive(Clone, Copy)]
struct Node {
    depth: i32,
    alpha: i32,
    beta: i32,
    ply: usize,
    is_pv: bool,
    cut_node: bool,
    in_check: bool,
    key: u64,
    /// The move this node must not search (`Move::NONE` but in a singular search).
    excluded: Move,
}

/// The evaluations of a node, before any move is searched.
#[derive(Clone, Copy)]
struct Evals {
    /// The evaluator's score (or the one the table kept); `NO_EVAL` in check.
    raw: i32,
    /// `raw` with the correction history's average error added.
    static_eval: i32,
    /// The best guess of the node's score the pruning decisions use: `static_eval`, or
    /// the hash score where its bound says it is nearer the truth.
    eval: i32,
    /// Better than two plies ago (our last turn): prune less, reduce less.
    improving: bool,
}

/// What the tablebases proved about a PV node without ending it: its score stays inside.
#[derive(Clone, Copy)]
struct TbBounds {
    floor: i32,
    ceiling: i32,
}

impl TbBounds {
    const NONE: TbBounds = TbBounds {
        floor: -INFINITE,
        ceiling: INFINITE,
    };

    #[inline(always)]
    fn apply(self, score: i32) -> i32 {
        score.max(self.floor).min(self.ceiling)
    }
}

/// The move loop's record so far: the best score and move, the moves counted and searched,
/// and the moves tried without a cutoff (a later cutting move's bonus is their malus).
struct MoveLoop {
    best_score: i32,
    best_move: Move,
    legal: usize,
    searched: usize,
    quiets_tried: [Move; 64],
    quiet_count: usize,
    noisy_tried: [Move; 32],
    noisy_count: usize,
}

impl MoveLoop {
    #[inline(always)]
    fn new() -> MoveLoop {
        MoveLoop {
            best_score: -INFINITE,
            best_move: Move::NONE,
            legal: 0,
            searched: 0,
            quiets_tried: [Move::NONE; 64],
            quiet_count: 0,
            noisy_tried: [Move::NONE; 32],
            noisy_count: 0,
        }
    }

    /// A searched move that did not cut, kept while there is room.
    #[inline(always)]
    fn remember(&mut self, mv: Move, quiet: bool) {
        if quiet {
            if self.quiet_count < self.quiets_tried.len() {
                self.quiets_tried[self.quiet_count] = mv;
                self.quiet_count += 1;
            }
        } else if self.noisy_count < self.noisy_tried.len() {
            self.noisy_tried[self.noisy_count] = mv;
            self.noisy_count += 1;
        }
    }
}

/// The move the loop is at, and what pruning, extension and reduction ask of it.
#[derive(Clone, Copy)]
struct ThisMove {
    mv: Move,
    /// The picker's ordering score (`ORDER_KILLER`, `ORDER_COUNTER`, negative for a
    /// losing capture, ...).
    order: i32,
    quiet: bool,
    gives_check: bool,
    /// Moves of this node searched before this one.
    searched_before: usize,
    /// Plies added to its depth (the singular extension).
    extension: i32,
}

/// What per-move pruning decided about a move.
enum Pruning {
    /// Search it.
    None,
    /// Skip it.
    Move,
    /// Late-move pruning: skip it and every later quiet move that does not give check (it
    /// holds for them all: the count of quiet moves searched only grows).
    LateQuiets,
}

/// Mate distance pruning: no line here can beat a mate already found nearer the root.
/// Narrows the window; returns the node's score when nothing is left of it.
#[inline(always)]
fn mate_distance_pruning(alpha: &mut i32, beta: &mut i32, ply: usize) -> Option<i32> {
    *alpha = (*alpha).max(-MATE + ply as i32);
    *beta = (*beta).min(MATE - ply as i32 - 1);
    if *alpha >= *beta {
        return Some(*alpha);
    }
    None
}

/// Hash cutoff: outside PV nodes, a stored bound from a deep enough search ends the node.
#[inline(always)]
fn hash_cutoff(tt_hit: Option<Hit>, node: &Node) -> Option<i32> {
    let hit = tt_hit?;
    if !node.is_pv && hit.depth >= node.depth && bound_cuts(hit, node.ply, node.alpha, node.beta) {
        return Some(score_from_tt(hit.score, node.ply));
    }
    None
}

/// Reverse futility pruning: far above beta at low depth, assume it holds.
#[inline(always)]
fn reverse_futility_pruning(node: &Node, evals: &Evals) -> Option<i32> {
    if node.depth <= params::rfp_max_depth()
        && evals.eval - params::rfp_margin() * (node.depth - evals.improving as i32) >= node.beta
        && !is_mate_score(node.beta)
    {
        return Some(evals.eval);
    }
    None
}

/// Internal iterative reduction: with no hash move this node is probably new to us;
/// search it a ply shallower rather than spend a full depth guessing.
#[inline(always)]
fn internal_iterative_reduction(node: &mut Node, tt_move: Move) {
    if node.depth >= params::iir_min_depth() && tt_move.is_none() {
        node.depth -= 1;
    }
}

impl Worker {
    /// The static evaluation `raw_eval` of `pos` with the correction history's average
    /// error added; `NO_EVAL` (in check) stays.
    #[inline(always)]
    pub(super) fn corrected(&self, pos: &Position, raw_eval: i32) -> i32 {
        if raw_eval == NO_EVAL {
            return NO_EVAL;
        }
        (raw_eval + self.correction.get(pos)).clamp(-TB_WIN_BOUND + 1, TB_WIN_BOUND - 1)
    }

    pub(super) fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].min(MAX_PLY - ply - 1);
        self.pv[ply][0] = mv;
        for i in 0..child_len {
            self.pv[ply][i + 1] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len + 1;
    }

    /// Draw by the 50-move rule, insufficient material, or repetition: once inside the
    /// search tree (the root included), twice if the earlier positions are before the root.
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.halfmove_clock() >= 100 || pos.is_insufficient_material() {
            return true;
        }
        let key = pos.key();
        let len = self.keys.len();
        let floor = len
            .saturating_sub(pos.halfmove_clock() as usize)
            .max(self.null_floor);
        let mut seen_before_root = 0;
        let mut back = 2;
        while back <= len && len - back >= floor {
            let index = len - back;
            if self.keys[index] == key {
                if index >= self.root_index {
                    return true;
                }
                seen_before_root += 1;
                if seen_before_root >= 2 {
                    return true;
                }
            }
            back += 2;
        }
        false
    }

    #[inline]
    pub(super) fn enter_node(&mut self, hook: &mut dyn SearchHook) -> bool {
        self.nodes += 1;
        // The intervals are powers of two: a mask, not a division, on every node.
        if self.nodes & (self.poll_interval - 1) == 0 && hook.poll(self.nodes) {
            self.stopped = true;
        }
        self.stopped
    }

    /// The search of `pos` below the root, `depth` plies deep in the window `alpha..beta`:
    /// the score from the side to move, or 0 once stopped. It reads as its steps: entry
    /// checks, hash and tablebase probes, static evaluation, whole-node pruning, then the
    /// move loop (per-move pruning, singular extension, the search of the move with its
    /// reduction, the best so far), and at the end the learning and the table store.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn negamax(
        &mut self,
        pos: &Position,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        is_pv: bool,
        cut_node: bool,
        hook: &mut dyn SearchHook,
    ) -> i32 {
        let in_check = pos.in_check();
        // Check extension: a position in check is searched a ply deeper.
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiescence(pos, alpha, beta, ply, true, hook);
        }
        self.evaluator.enter(ply, pos);
        if let Some(score) = self.ends_on_entry(pos, ply, in_check, hook) {
            return score;
        }
        if let Some(score) = mate_distance_pruning(&mut alpha, &mut beta, ply) {
            return score;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        let mut node = Node {
            depth,
            alpha,
            beta,
            ply,
            is_pv,
            cut_node,
            in_check,
            key: pos.key(),
            excluded: self.frames[ply + FRAME_OFFSET].excluded,
        };

        let tt_hit = self.probe_hash(&node);
        let tt_move = tt_hit.map_or(Move::NONE, |hit| hit.mv);
        // A full-width search trusts only its own results: an earlier search's may have
        // pruned the move that mates.
        let trusted_hit = match tt_hit {
            Some(hit) if self.full_width && hit.generation != self.tt.generation() => None,
            _ => tt_hit,
        };
        if let Some(score) = hash_cutoff(trusted_hit, &node) {
            return score;
        }
        let mut tb_bounds = TbBounds::NONE;
        if let Some(score) = self.probe_tablebases(pos, &mut node, &mut tb_bounds) {
            return score;
        }
        let evals = self.evaluate_node(pos, &node, tt_hit);

        // Whole-node pruning: not at a PV node (it needs a score, not a bound), in check (no
        // static evaluation), in a singular search (it asks about the other moves) or in a
        // full-width search.
        if !node.is_pv && !node.in_check && node.excluded.is_none() && !self.full_width {
            if let Some(score) = reverse_futility_pruning(&node, &evals) {
                return score;
            }
            if let Some(score) = self.null_move_pruning(pos, &node, &evals, hook) {
                return score;
            }
        }
        if !self.full_width {
            internal_iterative_reduction(&mut node, tt_move);
        }

        let earlier = self.earlier_moves(node.ply);
        let mut picker = self.move_picker(&node, tt_move, earlier);

        let original_alpha = node.alpha;
        let mut moves = MoveLoop::new();
        let has_pieces = !pos.only_king_and_pawns(pos.side_to_move());
        let check_squares = pos.check_squares();
        self.keys.push(node.key);
        while let Some(Pick { mv, score: order }) = picker.next(pos, &self.history) {
            moves.legal += 1;
            if mv == node.excluded {
                continue;
            }
            let mut this = ThisMove {
                mv,
                order,
                quiet: is_quiet(pos, mv),
                gives_check: pos.gives_check_with(&check_squares, mv),
                searched_before: moves.searched,
                extension: 0,
            };
            match self.prunes_move(pos, &node, &evals, &this, &moves, has_pieces) {
                Pruning::None => {}
                Pruning::Move => continue,
                Pruning::LateQuiets => {
                    picker.only_quiet_checks(check_squares);
                    continue;
                }
            }
            this.extension = match self.singular_extension(pos, &node, tt_hit, tt_move, mv, hook) {
                ControlFlow::Continue(extension) => extension,
                ControlFlow::Break(score) => {
                    self.keys.pop();
                    return score;
                }
            };
            let score = self.search_move(pos, &node, &evals, &this, earlier, hook);
            moves.searched += 1;
            if self.stopped {
                self.keys.pop();
                return 0;
            }
            if self.record_score(pos, &mut node, &mut moves, mv, score) {
                break;
            }
            moves.remember(mv, this.quiet);
        }
        self.keys.pop();
        if moves.legal == 0 {
            // Checkmate or stalemate.
            return if node.in_check {
                -MATE + node.ply as i32
            } else {
                0
            };
        }
        if moves.searched == 0 {
            // Every move was pruned: fall back to a fail-low at alpha.
            return node.alpha;
        }
        // The tables' bound holds whatever this search found.
        let best_score = tb_bounds.apply(moves.best_score);
        let bound = bound_of(best_score, original_alpha, node.beta);
        if !node.excluded.is_none() {
            return best_score;
        }
        self.learn_and_store(pos, &node, &evals, best_score, moves.best_move, bound);
        best_score
    }

    /// The checks that end a node before it looks at the table: a stop, a draw, the ply
    /// limit. Returns the node's score if one of them does.
    #[inline(always)]
    fn ends_on_entry(
        &mut self,
        pos: &Position,
        ply: usize,
        in_check: bool,
        hook: &mut dyn SearchHook,
    ) -> Option<i32> {
        self.pv_len[ply] = 0;
        if self.enter_node(hook) {
            return Some(0);
        }
        if self.is_draw(pos) {
            // A 50-move position that is mate is still mate.
            if !(pos.halfmove_clock() >= 100 && in_check && !pos.has_legal_moves()) {
                return Some(0);
            }
        }
        if ply >= MAX_PLY {
            return Some(self.evaluator.evaluate(pos, ply));
        }
        None
    }

    /// The hash probe: the move to try first and a stored score. A search with a move
    /// excluded is about a different tree: it neither probes nor cuts.
    #[inline(always)]
    fn probe_hash(&self, node: &Node) -> Option<Hit> {
        if node.excluded.is_none() {
            self.tt.probe(node.key)
        } else {
            None
        }
    }

    /// The tablebase probe in the tree: exact only right after a capture or pawn move (the
    /// 50-move counter at 0) and without castling rights. A win or loss is a bound (a mate
    /// may be nearer than the table says); a draw is exact. Returns the node's score when
    /// the table's answer cuts; else, at a PV node, keeps the bound in `tb_bounds` (and
    /// raises alpha to a proven floor).
    #[inline(always)]
    fn probe_tablebases(
        &mut self,
        pos: &Position,
        node: &mut Node,
        tb_bounds: &mut TbBounds,
    ) -> Option<i32> {
        let tables = self
            .tb
            .tables
            .as_deref()
            .filter(|_| node.excluded.is_none())?;
        let pieces = pos.occupied().count();
        if pos.halfmove_clock() == 0
            && tables.covers(pos)
            && (pieces < tables.largest() || node.depth >= self.tb.probe_depth)
        {
            if let Some(wdl) = tables.probe_wdl(pos) {
                self.tb.hits.fetch_add(1, Relaxed);
                let ply = node.ply;
                let (score, bound) = match wdl {
                    Wdl::Win => (TB_WIN - ply as i32, Bound::Lower),
                    Wdl::Loss => (-TB_WIN + ply as i32, Bound::Upper),
                    // Wins and losses the 50-move rule spoils are draws.
                    _ => (0, Bound::Exact),
                };
                let cuts = match bound {
                    Bound::Lower => score >= node.beta,
                    Bound::Upper => score <= node.alpha,
                    _ => true,
                };
                if cuts {
                    self.tt.store(
                        node.key,
                        Move::NONE,
                        score_to_tt(score, ply),
                        (node.depth + 6).min(MAX_DEPTH as i32),
                        bound,
                        NO_EVAL,
                    );
                    return Some(score);
                }
                if node.is_pv {
                    if bound == Bound::Lower {
                        tb_bounds.floor = score;
                        node.alpha = node.alpha.max(score);
                    } else {
                        tb_bounds.ceiling = score;
                    }
                }
            }
        }
        None
    }

    /// Static evaluation and improving: what the pruning below judges a node by. Records
    /// the static evaluation in the node's frame for the plies below, and clears the next
    /// ply's killers.
    #[inline(always)]
    fn evaluate_node(&mut self, pos: &Position, node: &Node, tt_hit: Option<Hit>) -> Evals {
        let (ply, in_check) = (node.ply, node.in_check);
        let raw = match tt_hit {
            _ if in_check => NO_EVAL,
            Some(hit) if hit.eval != NO_EVAL => hit.eval,
            _ => self.evaluator.evaluate(pos, ply),
        };
        let static_eval = self.corrected(pos, raw);
        self.frame(ply).static_eval = static_eval;
        // The hash score, where its bound allows, is a better guess than the static one.
        let eval = match tt_hit {
            Some(hit) if !in_check => refined_eval(static_eval, hit.score, hit.bound),
            _ => static_eval,
        };
        self.frame(ply + 1).killers = [Move::NONE; 2];
        let improving = !in_check && {
            let two_back = self.frames[ply + FRAME_OFFSET - 2].static_eval;
            two_back == NO_EVAL || static_eval > two_back
        };
        Evals {
            raw,
            static_eval,
            eval,
            improving,
        }
    }

    /// Null-move pruning: if passing still fails high, a real move surely would. Returns
    /// the node's score when it does (0 when the search was stopped meanwhile).
    #[inline(always)]
    fn null_move_pruning(
        &mut self,
        pos: &Position,
        node: &Node,
        evals: &Evals,
        hook: &mut dyn SearchHook,
    ) -> Option<i32> {
        let us = pos.side_to_move();
        if node.depth >= params::nmp_min_depth()
            && evals.eval >= node.beta
            && self.frames[node.ply + FRAME_OFFSET - 1].moved.is_some()
            && !pos.only_king_and_pawns(us)
        {
            let r = params::nmp_base()
                + node.depth / params::nmp_depth_divisor()
                + ((evals.eval - node.beta) / params::nmp_eval_divisor())
                    .min(params::nmp_eval_max());
            let mut null = *pos;
            null.play_null();
            self.keys.push(node.key);
            self.frame(node.ply).moved = None;
            self.frame(node.ply + 1).double_extensions = self.frame(node.ply).double_extensions;
            let saved_floor = self.null_floor;
            self.null_floor = self.keys.len();
            let score = -self.negamax(
                &null,
                node.depth - 1 - r,
                -node.beta,
                -node.beta + 1,
                node.ply + 1,
                false,
                !node.cut_node,
                hook,
            );
            self.null_floor = saved_floor;
            self.keys.pop();
            if self.stopped {
                return Some(0);
            }
            if score >= node.beta {
                // Neither a mate nor a table win is proven by passing.
                return Some(if score.abs() >= TB_WIN_BOUND {
                    node.beta
                } else {
                    score
                });
            }
        }
        None
    }

    /// The move picker for a node: the hash move, then captures, killers and the
    /// countermove, then the quiet moves by history.
    #[inline(always)]
    fn move_picker(&self, node: &Node, tt_move: Move, earlier: [Option<PieceTo>; 2]) -> MovePicker {
        MovePicker::new(
            Context {
                tt_move,
                killers: self.frames[node.ply + FRAME_OFFSET].killers,
                counter: self.history.countermove(earlier[0]),
                earlier,
            },
            false,
        )
    }

    /// Per-move pruning, before making the move: at low depth, with a move already
    /// searched and no mate against us to defend, late and hopeless moves are skipped
    /// (late-move, futility and SEE pruning).
    #[inline(always)]
    fn prunes_move(
        &self,
        pos: &Position,
        node: &Node,
        evals: &Evals,
        this: &ThisMove,
        moves: &MoveLoop,
        has_pieces: bool,
    ) -> Pruning {
        if moves.best_score > -MATE_BOUND && has_pieces && !self.full_width {
            let (depth, mv) = (node.depth, this.mv);
            if this.quiet {
                let lmr_depth =
                    (depth - 1 - self.reductions.get(depth, this.searched_before + 1)).max(0);
                // Only this move: a later quiet move may still give check.
                if !node.in_check && !this.gives_check {
                    let late = (params::lmp_base() + depth * depth) / (2 - evals.improving as i32);
                    if depth <= params::lmp_max_depth() && moves.quiet_count as i32 >= late {
                        return Pruning::LateQuiets;
                    }
                    if lmr_depth <= params::futility_max_depth()
                        && evals.eval
                            + params::futility_base()
                            + params::futility_per_depth() * lmr_depth
                            <= node.alpha
                    {
                        return Pruning::Move;
                    }
                }
                if lmr_depth <= params::futility_max_depth()
                    && !see_ge(pos, mv, -params::see_quiet_margin() * lmr_depth * lmr_depth)
                {
                    return Pruning::Move;
                }
            } else if depth <= params::see_noisy_max_depth()
                && this.order < ORDER_KILLER
                && !see_ge(pos, mv, -params::see_noisy_margin() * depth)
            {
                return Pruning::Move;
            }
        }
        Pruning::None
    }

    /// Singular extension: if every other move falls well short of the hash move's score,
    /// the hash move is forced: search it deeper (two plies if far short). If even without
    /// it the node fails high, several moves cut: trust that (multi-cut). If it is not
    /// singular but its hash score already reaches beta, search it a ply shallower.
    /// Continues with the extension in plies (−1 to 2), or breaks with the node's score
    /// (0 when stopped); the node's key stays pushed.
    #[inline(always)]
    fn singular_extension(
        &mut self,
        pos: &Position,
        node: &Node,
        tt_hit: Option<Hit>,
        tt_move: Move,
        mv: Move,
        hook: &mut dyn SearchHook,
    ) -> ControlFlow<i32, i32> {
        let mut extension = 0;
        let depth = node.depth;
        // Not in a full-width search: multi-cut prunes.
        if mv == tt_move
            && depth >= params::singular_min_depth()
            && node.ply > 0
            && node.excluded.is_none()
            && !self.full_width
        {
            if let Some(hit) = tt_hit.filter(|h| {
                h.bound != Bound::Upper
                    && h.depth >= depth - params::singular_tt_depth_margin()
                    && !is_mate_score(h.score)
            }) {
                let singular_beta = hit.score - params::singular_beta_per_depth() * depth;
                self.frame(node.ply).excluded = mv;
                self.keys.pop();
                let score = self.negamax(
                    pos,
                    (depth - 1) / 2,
                    singular_beta - 1,
                    singular_beta,
                    node.ply,
                    false,
                    node.cut_node,
                    hook,
                );
                self.keys.push(node.key);
                self.frame(node.ply).excluded = Move::NONE;
                if self.stopped {
                    return ControlFlow::Break(0);
                }
                if score < singular_beta {
                    // Far below: the hash move is all there is; search it two plies deeper
                    // (a few times a line at most).
                    extension = if !node.is_pv
                        && score < singular_beta - params::double_extension_margin()
                        && i32::from(self.frame(node.ply).double_extensions)
                            < params::max_double_extensions()
                    {
                        2
                    } else {
                        1
                    };
                } else if singular_beta >= node.beta {
                    return ControlFlow::Break(singular_beta);
                } else if hit.score >= node.beta {
                    // Not singular, and the hash says it cuts anyway: another move likely
                    // cuts too, so this one needs less depth.
                    extension = -1;
                }
            }
        }
        ControlFlow::Continue(extension)
    }

    /// Makes the move and searches it: the first with the full window; later ones with a
    /// null window, reduced if late, and again at full depth and window only where they
    /// beat alpha. Returns the move's score from this node's side.
    #[inline(always)]
    fn search_move(
        &mut self,
        pos: &Position,
        node: &Node,
        evals: &Evals,
        this: &ThisMove,
        earlier: [Option<PieceTo>; 2],
        hook: &mut dyn SearchHook,
    ) -> i32 {
        let (alpha, beta, ply) = (node.alpha, node.beta, node.ply);
        // The entry's memory is fetched while the move is made.
        self.tt.prefetch(pos.key_after(this.mv));
        let child = pos.after(this.mv);
        self.frame(ply).moved = Some(piece_to(pos, this.mv));
        self.frame(ply).moved_quiet = this.quiet;
        let new_depth = node.depth - 1 + this.extension;
        self.frame(ply + 1).double_extensions =
            self.frame(ply).double_extensions + (this.extension >= 2) as u8;
        let mut score;
        if this.searched_before == 0 {
            score = -self.negamax(
                &child,
                new_depth,
                -beta,
                -alpha,
                ply + 1,
                node.is_pv,
                !node.is_pv && !node.cut_node,
                hook,
            );
        } else {
            let reduction = self.late_move_reduction(pos, node, evals, this, new_depth, earlier);
            score = -self.negamax(
                &child,
                new_depth - reduction,
                -alpha - 1,
                -alpha,
                ply + 1,
                false,
                true,
                hook,
            );
            if score > alpha && reduction > 0 && !self.stopped {
                score = -self.negamax(
                    &child,
                    new_depth,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    false,
                    !node.cut_node,
                    hook,
                );
            }
            if score > alpha && score < beta && node.is_pv && !self.stopped {
                score = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, true, false, hook);
            }
        }
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::tt::TranspositionTable;
    use std::sync::Arc;

    #[test]
    fn repetition_and_fifty_moves_are_draws() {
        let mut searcher = Worker::new(Arc::new(TranspositionTable::new(1)), None);
        let pos = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 6 40").unwrap();
        // The same position four plies back, inside the search tree: a repetition.
        searcher.keys = vec![pos.key(), 1, 2, 3];
        searcher.root_index = 0;
        assert!(searcher.is_draw(&pos));
        // Once before the root is not yet a draw: the game could go on from there.
        searcher.root_index = 2;
        assert!(!searcher.is_draw(&pos));
        // Twice before the root is (the third time is now).
        let twice = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 8 40").unwrap();
        searcher.keys = vec![twice.key(), 1, twice.key(), 3, 4, 5];
        searcher.root_index = 6;
        assert!(searcher.is_draw(&twice));
        searcher.root_index = 0;
        // An odd distance cannot be the same side to move; not a repetition.
        searcher.keys = vec![pos.key(), 1, 2];
        assert!(!searcher.is_draw(&pos));
        // Beyond the last capture or pawn move it cannot repeat.
        let fresh = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 2 40").unwrap();
        searcher.keys = vec![fresh.key(), 1, 2, 3];
        assert!(!searcher.is_draw(&fresh));
        // Nor across a null move.
        searcher.keys = vec![pos.key(), 1, 2, 3];
        searcher.null_floor = 1;
        assert!(!searcher.is_draw(&pos));
        searcher.null_floor = 0;
        let fifty = Position::from_fen("4k3/8/8/8/8/8/R7/4K3 w - - 100 90").unwrap();
        searcher.keys.clear();
        assert!(searcher.is_draw(&fifty));
    }
}
