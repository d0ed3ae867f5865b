//! The hidden layer's inputs before the activation, both sides' views, kept for every ply of
//! the line a search thread is on.
//!
//! An accumulator depends on the piece placement alone, so a child's is its parent's plus
//! the columns of the pieces that appeared and minus those of the pieces that went: found by
//! comparing the two placements, which covers every kind of move (castling in Chess960, en
//! passant, promotions) and the null move without decoding any. Updates are lazy: entering a
//! node only records its placement ([`AccumulatorStack::set`]); the accumulator is computed
//! when the node is evaluated, from the nearest computed ply below it, so that the many
//! nodes cut off before their evaluation cost a copy of 12 words and nothing more.
//!
//! With king buckets, a view whose king moved to another bucket (or across the board's
//! middle, which turns its files) reads other inputs: that view alone is computed afresh,
//! from the last accumulator of that input set (a cache by view and input set) plus and
//! minus the pieces that differ since.

use super::format::{feature_index_in, KingView, INPUTS, MAX_KING_BUCKETS};
use super::network::{AlignedI16, Network};
use super::simd;
use crate::chess::{Color, Position, Role, Square};

/// The pieces by colour and role (`color · 6 + role`), as bitboards.
pub type Placement = [u64; 12];

pub fn placement(pos: &Position) -> Placement {
    let mut pieces = [0; 12];
    for color in Color::ALL {
        for role in Role::ALL {
            pieces[color.index() * 6 + role.index()] = pos.pieces(color, role).0;
        }
    }
    pieces
}

/// Whether two placements are the same, compared word by word: the derived comparison
/// called `memcmp` at every node.
#[inline(always)]
fn same_placement(a: &Placement, b: &Placement) -> bool {
    a.iter().zip(b).fold(0, |differ, (x, y)| differ | (x ^ y)) == 0
}

/// Where `color`'s king stands in `pieces`.
#[inline(always)]
fn king_square(pieces: &Placement, color: Color) -> Square {
    let kings = pieces[color.index() * 6 + Role::King.index()];
    Square::new(kings.trailing_zeros().min(63) as u8)
}

/// How each view (White's, Black's) of `pieces` reads the net's inputs.
#[inline(always)]
fn king_views(net: &Network, pieces: &Placement) -> [KingView; 2] {
    Color::ALL.map(|view| net.king_view(view, king_square(pieces, view)))
}

/// Most features one view's update adds or removes before a full refresh is cheaper (and
/// what a refresh of a legal position, at most 32 pieces, needs).
const MAX_CHANGES: usize = 32;

// Every input column of every net fits the 16 bits `Changes` keeps it in.
const _: () = assert!(MAX_KING_BUCKETS * INPUTS <= 1 << 16);

/// Feature columns to add and to remove for each view. Columns are 16-bit (a net has at
/// most 16 × 768 inputs): an update fills the lists at every evaluated node, and four
/// times smaller than `usize`s they cost a few stores rather than a kilobyte.
#[derive(Default)]
struct Changes {
    adds: [[u16; MAX_CHANGES]; 2],
    subs: [[u16; MAX_CHANGES]; 2],
    added: usize,
    removed: usize,
}

impl Changes {
    /// From `before` to `after`, each view reading the inputs of `views`, or `None` if that
    /// is more than `MAX_CHANGES` either way.
    #[inline]
    fn between(before: &Placement, after: &Placement, views: [KingView; 2]) -> Option<Changes> {
        let mut changes = Changes::default();
        changes.fill(before, after, views).then_some(changes)
    }

    /// `between`, written into `self` (whose lists need not be cleared): false if the
    /// placements differ by more than `MAX_CHANGES` either way. Every evaluated node makes
    /// one, and returning it by value copied and zeroed its 272 bytes each time.
    #[inline]
    fn fill(&mut self, before: &Placement, after: &Placement, views: [KingView; 2]) -> bool {
        let changes = self;
        changes.added = 0;
        changes.removed = 0;
        for (kind, (&old, &new)) in before.iter().zip(after).enumerate() {
            let changed = old ^ new;
            if changed == 0 {
                continue;
            }
            let color = Color::ALL[kind / 6];
            let role = Role::ALL[kind % 6];
            for (bits, added) in [(new & changed, true), (old & changed, false)] {
                let mut bits = bits;
                while bits != 0 {
                    let square = Square::new(bits.trailing_zeros() as u8);
                    bits &= bits - 1;
                    let count = if added {
                        &mut changes.added
                    } else {
                        &mut changes.removed
                    };
                    if *count == MAX_CHANGES {
                        return false;
                    }
                    for view in Color::ALL {
                        let feature =
                            feature_index_in(views[view.index()], view, color, role, square);
                        let list = if added {
                            &mut changes.adds[view.index()]
                        } else {
                            &mut changes.subs[view.index()]
                        };
                        list[*count] = feature as u16;
                    }
                    *count += 1;
                }
            }
        }
        true
    }
}

/// One search thread's accumulators, by ply.
pub struct AccumulatorStack {
    hidden: usize,
    /// `plies × 2 × hidden`: for each ply White's view, then Black's.
    values: AlignedI16,
    placements: Vec<Placement>,
    /// Whether the ply's accumulator is that of its placement (for the net in use).
    computed: Vec<bool>,
    /// Compute each accumulator when its placement is set rather than when it is evaluated
    /// (to compare the two ways; the search uses lazy updates).
    pub eager: bool,
    /// Plies computed from their parent's, and views computed afresh (for measurements).
    pub updates: u64,
    pub refreshes: u64,
    /// The last accumulator computed afresh for each view and input set (king bucket and
    /// turn): `(view · K + bucket) · 2 + turned`. A view whose king changed bucket starts
    /// from it and adds and removes only the pieces that differ since, so that a king walking
    /// between buckets costs an update rather than 32 columns.
    cache: AlignedI16,
    cache_placements: Vec<Placement>,
    /// Whether the entry holds an accumulator of the net in use.
    cache_valid: Vec<bool>,
    /// The changes of the last update, kept here so that an update neither zeroes nor
    /// copies them.
    changes: Box<Changes>,
}

impl AccumulatorStack {
    /// Room for `plies` plies of a net with `hidden` neurons per view.
    pub fn new(hidden: usize, plies: usize) -> AccumulatorStack {
        assert!(hidden.is_multiple_of(simd::LANES) && plies > 0);
        AccumulatorStack {
            hidden,
            values: AlignedI16::zeroed(plies * 2 * hidden),
            placements: vec![[0; 12]; plies],
            computed: vec![false; plies],
            eager: false,
            updates: 0,
            refreshes: 0,
            cache: AlignedI16::zeroed(0),
            cache_placements: Vec::new(),
            cache_valid: Vec::new(),
            changes: Box::default(),
        }
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Whether the placement set at `ply` is that of `pos`.
    #[inline(always)]
    pub fn holds(&self, ply: usize, pos: &Position) -> bool {
        same_placement(&self.placements[ply], &placement(pos))
    }

    /// Forgets every accumulator: the next evaluation refreshes from scratch (a new search,
    /// or another net).
    pub fn clear(&mut self) {
        self.computed.fill(false);
        self.cache_valid.fill(false);
    }

    /// `pos` is the position at `ply` of the current line (its parent is at `ply - 1`).
    /// What was computed for the same placement stays.
    #[inline]
    pub fn set(&mut self, ply: usize, pos: &Position, net: &Network) {
        let pieces = placement(pos);
        if !same_placement(&self.placements[ply], &pieces) {
            self.placements[ply] = pieces;
            self.computed[ply] = false;
        }
        if self.eager {
            self.materialise(net, ply);
        }
    }

    /// The net's evaluation of the position set at `ply`, for `side` to move.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, ply: usize, side: Color) -> i32 {
        let pieces = self.placements[ply].iter().map(|b| b.count_ones()).sum();
        let (white, black) = self.materialise(net, ply);
        match side {
            Color::White => net.output(white, black, pieces),
            Color::Black => net.output(black, white, pieces),
        }
    }

    /// The accumulators of `ply` (White's view, Black's), computed from the nearest
    /// computed ply below, or from scratch if there is none.
    pub fn materialise(&mut self, net: &Network, ply: usize) -> (&[i16], &[i16]) {
        debug_assert_eq!(net.hidden(), self.hidden);
        if !self.computed[ply] {
            let mut from = ply;
            while from > 0 && !self.computed[from] {
                from -= 1;
            }
            if !self.computed[from] {
                self.refresh(net, from);
            }
            for child in from + 1..=ply {
                self.update(net, child);
            }
        }
        let n = self.hidden;
        let both = &self.values.as_slice()[ply * 2 * n..(ply + 1) * 2 * n];
        both.split_at(n)
    }

    /// The accumulators of `ply` without its parent's.
    fn refresh(&mut self, net: &Network, ply: usize) {
        self.refresh_views(net, ply, [true, true]);
        self.computed[ply] = true;
    }

    /// The accumulators of `ply` that `views` (White's, Black's) marks, without its
    /// parent's: from the cache's last accumulator of the view's input set, or from the bias
    /// if the cache has none since the last `clear`.
    fn refresh_views(&mut self, net: &Network, ply: usize, views: [bool; 2]) {
        let n = self.hidden;
        let entries = 2 * net.king_buckets() * 2;
        if self.cache_valid.len() != entries {
            self.cache = AlignedI16::zeroed(entries * n);
            self.cache_placements = vec![[0; 12]; entries];
            self.cache_valid = vec![false; entries];
        }
        let pieces = self.placements[ply];
        let kings = king_views(net, &pieces);
        for view in (0..2).filter(|&v| views[v]) {
            let entry = (view * net.king_buckets() + kings[view].offset / INPUTS) * 2
                + (kings[view].flip != 0) as usize;
            let (from, start) = if self.cache_valid[entry] {
                let cached = &self.cache.as_slice()[entry * n..(entry + 1) * n];
                (self.cache_placements[entry], cached)
            } else {
                ([0; 12], net.feature_bias())
            };
            // Two legal placements differ by at most 32 pieces each way.
            let changes =
                Changes::between(&from, &pieces, kings).expect("at most 32 pieces a side");
            let dst = &mut self.values.as_mut_slice()[(ply * 2 + view) * n..][..n];
            simd::update(
                net.level(),
                dst,
                start,
                net.feature_weights(),
                &changes.adds[view][..changes.added],
                &changes.subs[view][..changes.removed],
            );
            self.cache.as_mut_slice()[entry * n..(entry + 1) * n].copy_from_slice(dst);
            self.cache_placements[entry] = pieces;
            self.cache_valid[entry] = true;
            self.refreshes += 1;
        }
    }

    /// The accumulators of `ply` from those of `ply - 1`, which are computed; a view whose
    /// king reads other inputs than at `ply - 1` from scratch.
    fn update(&mut self, net: &Network, ply: usize) {
        let views = king_views(net, &self.placements[ply]);
        let parent_views = king_views(net, &self.placements[ply - 1]);
        let stale = [views[0] != parent_views[0], views[1] != parent_views[1]];
        if !self
            .changes
            .fill(&self.placements[ply - 1], &self.placements[ply], views)
        {
            return self.refresh(net, ply);
        }
        if stale[0] || stale[1] {
            self.refresh_views(net, ply, stale);
        }
        let changes = &*self.changes;
        let n = self.hidden;
        let (below, here) = self.values.as_mut_slice().split_at_mut(ply * 2 * n);
        let parent = &below[(ply - 1) * 2 * n..];
        for view in 0..2 {
            if stale[view] {
                continue;
            }
            simd::update(
                net.level(),
                &mut here[view * n..(view + 1) * n],
                &parent[view * n..(view + 1) * n],
                net.feature_weights(),
                &changes.adds[view][..changes.added],
                &changes.subs[view][..changes.removed],
            );
        }
        self.computed[ply] = true;
        self.updates += 1;
    }
}

/// The net's evaluation of `pos` for the side to move, from scratch (no stack to keep).
pub fn evaluate_from_scratch(net: &Network, pos: &Position) -> i32 {
    let mut stack = AccumulatorStack::new(net.hidden(), 1);
    stack.set(0, pos, net);
    stack.evaluate(net, 0, pos.side_to_move())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Move;
    use crate::nnue::format::{king_view, Activation, KingBuckets, NetFile};
    use crate::nnue::network::tests::{random_king_net, random_net, reference_output};
    use crate::nnue::simd::Level;
    use crate::rng::Rng;

    /// Both views of `pos` computed the plainest way: bias plus every piece's column.
    fn from_scratch(net: &NetFile, pos: &Position) -> [Vec<i16>; 2] {
        Color::ALL.map(|view| {
            let mut acc = net.feature_bias.clone();
            let inputs = king_view(net.king_buckets.as_ref(), view, pos.king(view));
            for color in Color::ALL {
                for role in Role::ALL {
                    for square in pos.pieces(color, role) {
                        let f = feature_index_in(inputs, view, color, role, square);
                        let column = &net.feature_weights[f * net.hidden..(f + 1) * net.hidden];
                        for (a, &w) in acc.iter_mut().zip(column) {
                            *a = a.wrapping_add(w);
                        }
                    }
                }
            }
            acc
        })
    }

    /// Plays random games from `fens` (many plies, null moves among them), setting each
    /// position at its ply and checking the accumulators against a refresh from scratch at
    /// about two plies in three, so that lazy updates also span several plies.
    fn random_games(
        fens: &[&str],
        level: Level,
        eager: bool,
        kings: Option<KingBuckets>,
        seed: u64,
    ) -> (u64, [usize; 4]) {
        // Eight output buckets, so that the piece count the stack reads is checked too.
        let file = random_king_net(32, 8, kings, Activation::SCReLU, seed);
        let net = Network::with_level(&file, level);
        let mut stack = AccumulatorStack::new(32, 130);
        stack.eager = eager;
        let mut rng = Rng::new(seed);
        let mut checked = 0;
        // Castles, en passant captures, promotions, null moves played.
        let mut seen = [0usize; 4];
        for fen in fens {
            let root = Position::from_fen(fen).unwrap();
            for _game in 0..6 {
                let mut pos = root;
                stack.clear();
                for ply in 0..128 {
                    stack.set(ply, &pos, &net);
                    if rng.below(3) != 0 || ply == 127 {
                        let (white, black) = stack.materialise(&net, ply);
                        let expected = from_scratch(&file, &pos);
                        assert_eq!(white, &expected[0][..], "{} ply {ply}", pos.to_fen());
                        assert_eq!(black, &expected[1][..], "{} ply {ply}", pos.to_fen());
                        // The side to move's view meets the first half of the output weights.
                        let us = pos.side_to_move().index();
                        let pieces = pos.occupied().count();
                        let reference =
                            reference_output(&file, &expected[us], &expected[1 - us], pieces);
                        let score = stack.evaluate(&net, ply, pos.side_to_move());
                        let max = crate::nnue::network::MAX_EVAL as i64;
                        assert_eq!(score as i64, reference.clamp(-max, max));
                        assert_eq!(score, evaluate_from_scratch(&net, &pos));
                        checked += 1;
                    }
                    let moves = pos.legal_moves();
                    if moves.is_empty() || pos.halfmove_clock() >= 100 {
                        break;
                    }
                    if !pos.in_check() && rng.below(10) == 0 {
                        pos.play_null();
                        seen[3] += 1;
                        continue;
                    }
                    // Prefer the moves that change the most: castles, captures, promotions.
                    let special: Vec<Move> = moves
                        .iter()
                        .copied()
                        .filter(|&m| m.is_castle() || m.is_en_passant() || m.is_promotion())
                        .collect();
                    let mv = if !special.is_empty() && rng.below(2) == 0 {
                        special[rng.below(special.len() as u64) as usize]
                    } else {
                        moves[rng.below(moves.len() as u64) as usize]
                    };
                    seen[0] += mv.is_castle() as usize;
                    seen[1] += mv.is_en_passant() as usize;
                    seen[2] += mv.is_promotion() as usize;
                    pos = pos.after(mv);
                }
            }
        }
        (checked, seen)
    }

    const FENS: [&str; 5] = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        // Chess960: king on b1/b8, rooks on a and h: castling moves the rook over the king.
        "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1",
    ];

    #[test]
    fn incremental_accumulators_equal_a_refresh_at_every_ply() {
        for level in Level::supported() {
            for eager in [false, true] {
                let (checked, seen) = random_games(&FENS, level, eager, None, 21);
                assert!(checked > 1000, "{checked}");
                // The games played what they are meant to exercise.
                assert!(
                    seen.iter().all(|&n| n > 5),
                    "castles, e.p., promotions, nulls: {seen:?}"
                );
            }
        }
    }

    #[test]
    fn king_bucketed_accumulators_equal_a_refresh_at_every_ply() {
        // Random games walk the kings across buckets and across the board's middle.
        for count in [1, 4, 8] {
            for eager in [false, true] {
                let kings = KingBuckets::preset(count);
                let (checked, seen) = random_games(&FENS, Level::detected(), eager, kings, 23);
                assert!(checked > 1000 && seen.iter().all(|&n| n > 5), "{seen:?}");
            }
        }
    }

    #[test]
    fn a_king_crossing_into_another_bucket_refreshes_its_own_view_only() {
        let kings = KingBuckets::preset(4);
        let file = random_king_net(16, 1, kings, Activation::SCReLU, 8);
        let net = Network::new(&file);
        let mut stack = AccumulatorStack::new(16, 4);
        // White's king d2 to e2 crosses the middle: White's view turns, Black's does not.
        let before = Position::from_fen("4k3/8/8/8/8/8/3K4/8 w - - 0 1").unwrap();
        let after = Position::from_fen("4k3/8/8/8/8/8/4K3/8 b - - 1 1").unwrap();
        stack.set(0, &before, &net);
        stack.materialise(&net, 0);
        assert_eq!(stack.refreshes, 2);
        stack.set(1, &after, &net);
        let (white, black) = stack.materialise(&net, 1);
        let expected = from_scratch(&file, &after);
        assert_eq!((white, black), (&expected[0][..], &expected[1][..]));
        assert_eq!((stack.refreshes, stack.updates), (3, 1));
        // A king step inside its bucket is an update.
        let further = Position::from_fen("4k3/8/8/8/8/8/5K2/8 w - - 2 2").unwrap();
        stack.set(2, &further, &net);
        stack.materialise(&net, 2);
        assert_eq!((stack.refreshes, stack.updates), (3, 2));
    }

    /// The FENs of a perft suite in tests/data.
    fn suite(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.split(';').next())
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .collect()
    }

    #[test]
    fn perft_suite_positions_children_and_grandchildren_update_as_a_refresh() {
        let file = random_net(16, Activation::CReLU, 3);
        let net = Network::new(&file);
        let mut stack = AccumulatorStack::new(16, 3);
        let standard = suite(include_str!("../../tests/data/perft.epd"));
        let chess960 = suite(include_str!("../../tests/data/perft960.epd"));
        assert!(standard.len() > 100 && chess960.len() > 900);
        let mut checked = 0;
        for fen in standard.iter().chain(chess960.iter().step_by(10)) {
            let root = Position::from_fen(fen).unwrap();
            stack.set(0, &root, &net);
            for &mv in root.legal_moves().iter() {
                let child = root.after(mv);
                stack.set(1, &child, &net);
                for &reply in child.legal_moves().iter() {
                    let grandchild = child.after(reply);
                    stack.set(2, &grandchild, &net);
                    let (white, black) = stack.materialise(&net, 2);
                    let expected = from_scratch(&file, &grandchild);
                    assert_eq!(white, &expected[0][..], "{fen} {mv:?} {reply:?}");
                    assert_eq!(black, &expected[1][..], "{fen} {mv:?} {reply:?}");
                    checked += 1;
                }
                let (white, black) = stack.materialise(&net, 1);
                let expected = from_scratch(&file, &child);
                assert_eq!(
                    (white, black),
                    (&expected[0][..], &expected[1][..]),
                    "{fen} {mv:?}"
                );
            }
        }
        assert!(checked > 50_000, "{checked}");
    }
}
