//! The move picker: hands the search one move at a time, best guess first, and does the
//! work of each stage only when the stage is reached — a node that cuts on the hash move or
//! a good capture never generates or scores its quiet moves.
//!
//! Stages: the hash move; captures and queen promotions that do not lose material (by victim,
//! then capture history; the exchange test is made only when a capture is picked); killers;
//! the countermove; quiet moves by butterfly and continuation history; losing captures and
//! under-promotions.

use super::history::{History, PieceTo, PieceToTable};
use super::see::{see_ge, SEE_VALUE};
use crate::chess::moves::MAX_MOVES;
use crate::chess::{CheckSquares, Move, MoveList, Piece, Position, Role};
use std::mem::MaybeUninit;

/// Ordering score bands: each kind of move sorts ahead of the next.
pub const ORDER_TT: i32 = 1 << 30;
pub const ORDER_GOOD_NOISY: i32 = 1 << 28;
pub const ORDER_KILLER: i32 = 1 << 27;
pub const ORDER_COUNTER: i32 = (1 << 27) - 2;
pub const ORDER_BAD_NOISY: i32 = -(1 << 28);

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Stage {
    /// Generate and score the noisy moves (the hash move's stage looks for it among them).
    Generate,
    HashMove,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    Quiets,
    BadNoisy,
    Done,
}

/// What the picker knows of the node it serves.
pub struct Context {
    pub tt_move: Move,
    pub killers: [Move; 2],
    pub counter: Move,
    /// The moves one and two plies back, for continuation history.
    pub earlier: [Option<PieceTo>; 2],
}

/// Ordering scores, one per move of a list, each written before it is read. Not zeroed: a
/// picker is made at every node (the quiescence search's too), and most nodes score a few
/// moves, not the 256 an array has room for.
struct Scores {
    values: [MaybeUninit<i32>; MAX_MOVES],
    len: usize,
}

impl Scores {
    fn new() -> Scores {
        Scores {
            // SAFETY: an array of `MaybeUninit` needs no initialisation (made whole, so that
            // no memset of the array is merged with `len = 0`, as with `MoveList::new`).
            values: unsafe { MaybeUninit::<[MaybeUninit<i32>; MAX_MOVES]>::uninit().assume_init() },
            len: 0,
        }
    }

    fn push(&mut self, score: i32) {
        self.values[self.len].write(score);
        self.len += 1;
    }

    /// The scores written so far.
    fn as_mut_slice(&mut self) -> &mut [i32] {
        // SAFETY: the first `len` values were written by `push`; `MaybeUninit<i32>` has the
        // layout of `i32`.
        unsafe { std::slice::from_raw_parts_mut(self.values.as_mut_ptr().cast(), self.len) }
    }
}

pub struct MovePicker {
    stage: Stage,
    ctx: Context,
    noisy: MoveList,
    noisy_scores: Scores,
    noisy_next: usize,
    /// Noisy moves that lose material (or under-promote): they wait for the end.
    bad: MoveList,
    bad_next: usize,
    /// Generated when a stage first needs them (`quiet_list`).
    quiets: MoveList,
    quiets_generated: bool,
    quiet_scores: Scores,
    quiet_next: usize,
    /// No quiet moves at all (quiescence: `noisy_only`).
    skip_quiets: bool,
    /// Late-move pruning has begun: of the quiet moves still to come, only checks are
    /// searched (the search need not look at the rest, which it would prune).
    quiet_checks_only: Option<CheckSquares>,
}

/// A picked move and its ordering score (its band tells the search what kind it is).
#[derive(Clone, Copy, Debug)]
pub struct Pick {
    pub mv: Move,
    pub score: i32,
}

impl MovePicker {
    /// All legal moves of the position later passed to `next`, or with `noisy_only` its
    /// captures and promotions.
    ///
    /// A picker (3.6 kB) is made at every node. Nothing is generated here, so that the
    /// picker is laid out where the caller keeps it: one that generated its captures while
    /// being made was copied out whole, and a generated list moved into it copied half a
    /// kilobyte. The first `next` generates them in place.
    #[inline(always)]
    pub fn new(ctx: Context, noisy_only: bool) -> MovePicker {
        MovePicker {
            stage: Stage::Generate,
            ctx,
            noisy: MoveList::new(),
            noisy_scores: Scores::new(),
            noisy_next: 0,
            bad: MoveList::new(),
            bad_next: 0,
            quiets: MoveList::new(),
            quiets_generated: false,
            quiet_scores: Scores::new(),
            quiet_next: 0,
            skip_quiets: noisy_only,
            quiet_checks_only: None,
        }
    }

    /// From now on, only quiet moves that give check (`squares`: the position's
    /// `check_squares`); captures and promotions as before.
    pub fn only_quiet_checks(&mut self, squares: CheckSquares) {
        self.quiet_checks_only = Some(squares);
    }

    fn quiet_list(&mut self, pos: &Position) -> &MoveList {
        if !self.quiets_generated {
            pos.generate::<_, false, true>(&mut self.quiets);
            self.quiets_generated = true;
        }
        &self.quiets
    }

    /// Whether `mv` is a legal quiet move here that no earlier stage has given.
    fn fresh_quiet(&mut self, pos: &Position, mv: Move) -> bool {
        !mv.is_none()
            && mv != self.ctx.tt_move
            && self.quiet_list(pos).contains(mv)
            && wanted_quiet(self.quiet_checks_only, pos, mv)
    }

    pub fn next(&mut self, pos: &Position, history: &History) -> Option<Pick> {
        loop {
            match self.stage {
                Stage::Generate => {
                    self.stage = Stage::HashMove;
                    pos.generate::<_, true, false>(&mut self.noisy);
                    for &mv in self.noisy.iter() {
                        self.noisy_scores.push(noisy_score(pos, history, mv));
                    }
                }
                Stage::HashMove => {
                    self.stage = Stage::GoodNoisy;
                    let tt = self.ctx.tt_move;
                    if tt.is_none() {
                        continue;
                    }
                    let legal = if let Some(i) = self.noisy.iter().position(|&m| m == tt) {
                        // Already given: take it out of the capture stages.
                        self.noisy_scores.as_mut_slice()[i] = i32::MIN;
                        true
                    } else {
                        !self.skip_quiets && self.quiet_list(pos).contains(tt)
                    };
                    if legal {
                        return Some(Pick {
                            mv: tt,
                            score: ORDER_TT,
                        });
                    }
                }
                Stage::GoodNoisy => {
                    while self.noisy_next < self.noisy.len() {
                        let i = self.noisy_next;
                        let scores = self.noisy_scores.as_mut_slice();
                        select(&mut self.noisy, scores, i);
                        self.noisy_next += 1;
                        let (mv, score) = (self.noisy[i], scores[i]);
                        if score == i32::MIN {
                            continue;
                        }
                        let under = mv.promotion_role().is_some_and(|r| r != Role::Queen);
                        if under || !see_ge(pos, mv, 0) {
                            self.bad.push(mv);
                            continue;
                        }
                        return Some(Pick {
                            mv,
                            score: ORDER_GOOD_NOISY + score,
                        });
                    }
                    self.stage = Stage::Killer1;
                }
                Stage::Killer1 => {
                    self.stage = Stage::Killer2;
                    let mv = self.ctx.killers[0];
                    if !self.skip_quiets && self.fresh_quiet(pos, mv) {
                        return Some(Pick {
                            mv,
                            score: ORDER_KILLER,
                        });
                    }
                }
                Stage::Killer2 => {
                    self.stage = Stage::Counter;
                    let mv = self.ctx.killers[1];
                    if !self.skip_quiets && mv != self.ctx.killers[0] && self.fresh_quiet(pos, mv) {
                        return Some(Pick {
                            mv,
                            score: ORDER_KILLER - 1,
                        });
                    }
                }
                Stage::Counter => {
                    self.stage = Stage::Quiets;
                    let mv = self.ctx.counter;
                    if !self.skip_quiets
                        && !self.ctx.killers.contains(&mv)
                        && self.fresh_quiet(pos, mv)
                    {
                        return Some(Pick {
                            mv,
                            score: ORDER_COUNTER,
                        });
                    }
                }
                Stage::Quiets => {
                    if self.skip_quiets {
                        self.stage = Stage::BadNoisy;
                        continue;
                    }
                    if self.quiet_next == 0 {
                        self.score_quiets(pos, history);
                    }
                    let only_checks = self.quiet_checks_only;
                    let quiets = &mut self.quiets;
                    let scores = self.quiet_scores.as_mut_slice();
                    while self.quiet_next < quiets.len() {
                        let i = self.quiet_next;
                        select(quiets, scores, i);
                        self.quiet_next += 1;
                        if scores[i] == i32::MIN || !wanted_quiet(only_checks, pos, quiets[i]) {
                            continue;
                        }
                        return Some(Pick {
                            mv: quiets[i],
                            score: scores[i],
                        });
                    }
                    self.stage = Stage::BadNoisy;
                }
                Stage::BadNoisy => {
                    if self.bad_next < self.bad.len() {
                        let mv = self.bad[self.bad_next];
                        self.bad_next += 1;
                        return Some(Pick {
                            mv,
                            score: ORDER_BAD_NOISY - self.bad_next as i32,
                        });
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Scores every quiet move; those an earlier stage gave are marked to be passed over.
    fn score_quiets(&mut self, pos: &Position, history: &History) {
        self.quiet_list(pos);
        let quiets = &self.quiets;
        let us = pos.side_to_move().index();
        let given = [
            self.ctx.tt_move,
            self.ctx.killers[0],
            self.ctx.killers[1],
            self.ctx.counter,
        ];
        // The continuation rows are read once for the node, not again for each move.
        let rows = self.ctx.earlier.map(|e| history.continuation_row(e));
        for &mv in quiets.iter() {
            self.quiet_scores.push(if given.contains(&mv) {
                i32::MIN
            } else {
                quiet_score_in(pos, history, us, mv, rows)
            });
        }
    }
}

/// Whether a quiet move is still wanted: every one, or with `only_checks` (the position's
/// check squares, once late-move pruning has begun) only those that give check.
#[inline(always)]
fn wanted_quiet(only_checks: Option<CheckSquares>, pos: &Position, mv: Move) -> bool {
    only_checks.is_none_or(|squares| pos.gives_check_with(&squares, mv))
}

/// Moves the highest-scored move from `i` on to position `i` (one step of selection sort;
/// the first of equal scores wins, so the order is the same on every machine).
#[inline]
fn select(moves: &mut MoveList, scores: &mut [i32], i: usize) {
    let n = moves.len();
    // Slicing once lets the scan run without a bounds check per move and keep the best
    // score in a register: in an all-node this loop runs over every quiet move.
    let rest = &scores[i..n];
    let (mut best, mut best_score) = (0, rest[0]);
    for (j, &score) in rest.iter().enumerate().skip(1) {
        if score > best_score {
            best = j;
            best_score = score;
        }
    }
    if best != 0 {
        moves.swap(i, i + best);
        scores.swap(i, i + best);
    }
}

/// Captures by the value of the victim (a promotion adds the new queen), then history.
#[inline]
pub fn noisy_score(pos: &Position, history: &History, mv: Move) -> i32 {
    let (mover, victim) = capture_of(pos, mv);
    let promotion = match mv.promotion_role() {
        Some(Role::Queen) => SEE_VALUE[Role::Queen.index()],
        Some(_) => -SEE_VALUE[Role::Queen.index()],
        None => 0,
    };
    8 * (SEE_VALUE[victim.index()] + promotion) + history.capture(mover, mv.to(), victim)
}

/// Quiet moves by their history after the last two moves.
#[inline]
pub fn quiet_score(
    pos: &Position,
    history: &History,
    us: usize,
    mv: Move,
    earlier: [Option<PieceTo>; 2],
) -> i32 {
    quiet_score_in(
        pos,
        history,
        us,
        mv,
        earlier.map(|e| history.continuation_row(e)),
    )
}

/// `quiet_score` with the continuation rows of the last two moves already read.
#[inline(always)]
fn quiet_score_in(
    pos: &Position,
    history: &History,
    us: usize,
    mv: Move,
    rows: [Option<&PieceToTable<i16>>; 2],
) -> i32 {
    let now = piece_to(pos, mv);
    history.quiet(us, mv)
        + History::continuation_in(rows[0], now)
        + History::continuation_in(rows[1], now)
}

/// Not a capture, en passant or promotion (castling is quiet).
#[inline(always)]
pub fn is_quiet(pos: &Position, mv: Move) -> bool {
    !mv.is_promotion() && !mv.is_en_passant() && (mv.is_castle() || pos.role_on(mv.to()).is_none())
}

/// The piece that moves and where it lands (for castling, the king onto the rook's square).
#[inline(always)]
pub fn piece_to(pos: &Position, mv: Move) -> PieceTo {
    PieceTo {
        piece: Piece::new(
            pos.side_to_move(),
            pos.role_on(mv.from()).unwrap_or(Role::King),
        ),
        to: mv.to(),
    }
}

/// The capturing piece and the role it takes (a pawn for en passant and for a promotion
/// that takes nothing).
#[inline(always)]
pub fn capture_of(pos: &Position, mv: Move) -> (Piece, Role) {
    let mover = Piece::new(
        pos.side_to_move(),
        pos.role_on(mv.from()).unwrap_or(Role::Pawn),
    );
    let victim = if mv.is_en_passant() {
        Role::Pawn
    } else {
        pos.role_on(mv.to()).unwrap_or(Role::Pawn)
    };
    (mover, victim)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Every legal move comes out exactly once, whatever the hash move, killers and
    /// countermove claim (even moves that are not legal here).
    #[test]
    fn picks_every_legal_move_once() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        ];
        let history = History::default();
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let legal: Vec<Move> = pos.legal_moves().to_vec();
            let noisy: Vec<Move> = pos.noisy_moves().to_vec();
            let strangers = [
                Move::NONE,
                Move::normal(crate::chess::Square::A1, crate::chess::Square::H8),
            ];
            let tries = [
                (legal[0], legal[1], legal[2], legal[3]),
                (
                    noisy.first().copied().unwrap_or(legal[0]),
                    legal[4],
                    legal[4],
                    legal[5],
                ),
                (strangers[1], strangers[1], strangers[0], legal[0]),
            ];
            for (tt, k1, k2, counter) in tries {
                let ctx = Context {
                    tt_move: tt,
                    killers: [k1, k2],
                    counter,
                    earlier: [None, None],
                };
                let mut picker = MovePicker::new(ctx, false);
                let mut seen = Vec::new();
                while let Some(p) = picker.next(&pos, &history) {
                    seen.push(p.mv);
                }
                let unique: HashSet<Move> = seen.iter().copied().collect();
                assert_eq!(unique.len(), seen.len(), "{fen}: a move came twice");
                assert_eq!(unique, legal.iter().copied().collect(), "{fen}");
                if legal.contains(&tt) {
                    assert_eq!(seen[0], tt, "{fen}: hash move first");
                }
                let ctx = Context {
                    tt_move: tt,
                    killers: [k1, k2],
                    counter,
                    earlier: [None, None],
                };
                let mut picker = MovePicker::new(ctx, true);
                let mut seen = HashSet::new();
                while let Some(p) = picker.next(&pos, &history) {
                    assert!(seen.insert(p.mv));
                }
                assert_eq!(seen, noisy.iter().copied().collect(), "{fen}: noisy only");
            }
        }
    }

    /// Once told that only quiet checks are wanted (after the k-th pick, for every k > 0: the
    /// search tells it only after a move was searched), the picker gives the moves of the
    /// full order minus the quiet moves that do not check, in the same order: the search
    /// skips nothing it would have searched.
    #[test]
    fn only_quiet_checks_drops_exactly_the_quiet_moves_that_do_not_check() {
        let fens = [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 2 3",
            "4k3/8/8/3N4/8/8/3R4/R3K2R w KQ - 0 1",
        ];
        let history = History::default();
        let mut quiet_checks = 0;
        for fen in fens {
            let pos = Position::from_fen(fen).unwrap();
            let legal: Vec<Move> = pos.legal_moves().to_vec();
            let ctx = || Context {
                tt_move: legal[0],
                killers: [legal[1], legal[2]],
                counter: legal[3],
                earlier: [None, None],
            };
            let mut full = Vec::new();
            let mut picker = MovePicker::new(ctx(), false);
            while let Some(p) = picker.next(&pos, &history) {
                full.push(p.mv);
            }
            let squares = pos.check_squares();
            quiet_checks += full
                .iter()
                .filter(|&&m| is_quiet(&pos, m) && pos.gives_check(m))
                .count();
            for k in 1..full.len() {
                let mut picker = MovePicker::new(ctx(), false);
                let mut seen = Vec::new();
                while let Some(p) = picker.next(&pos, &history) {
                    seen.push(p.mv);
                    if seen.len() == k {
                        picker.only_quiet_checks(squares);
                    }
                }
                let expected: Vec<Move> = full
                    .iter()
                    .enumerate()
                    .filter(|&(i, &m)| i < k || !is_quiet(&pos, m) || pos.gives_check(m))
                    .map(|(_, &m)| m)
                    .collect();
                assert_eq!(seen, expected, "{fen}: told after {k} picks");
            }
        }
        assert!(
            quiet_checks >= 4,
            "the positions must offer quiet checks to keep"
        );
    }
}
