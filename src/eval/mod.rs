//! Static evaluation, in centipawns, from the side to move's point of view. It reads a
//! position and its own weights only: no search state, no protocol.
//!
//! The terms (material, piece-square tables, mobility, pawn structure, passed pawns, pieces,
//! threats, king safety, tempo) are computed from White's view, each a middlegame and an
//! endgame value; the two are blended by the game phase, and the result is scaled down in
//! drawish endings.
//!
//! Every weight lives in `weights.rs` and has an index in one flat table (`params`). The terms
//! apply weights only through [`Sink::add`]: "this weight, for this colour, this many times".
//! The plain evaluator's sink adds the weighted values up; the [`Trace`] sink counts instead,
//! which gives a tuner each weight's coefficient from the same code. The pawn-structure terms
//! depend on the pawns alone and are cached in a small pawn hash table owned by an
//! [`Evaluator`] (one per search thread); `evaluate` works without one.

mod explain;
mod king;
mod lone_king;
pub mod params;
mod pawns;
mod pieces;
#[rustfmt::skip]
mod weights;

use crate::chess::attacks::{king_attacks, pawn_attacks_set};
use crate::chess::{Bitboard, Color, Position, Role, Square};
pub use explain::{all_terms, breakdown, Breakdown, Count, Term, TermLine};
pub use lone_king::lone_king;
use params::{Group, NUM, SECTIONS, WEIGHTS};
pub use pawns::{pawn_hash, PAWN_TABLE_BYTES};

/// A middlegame and an endgame value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Score {
    pub mg: i32,
    pub eg: i32,
}

impl Score {
    pub const ZERO: Score = Score { mg: 0, eg: 0 };

    pub const fn new(mg: i32, eg: i32) -> Score {
        Score { mg, eg }
    }
}

/// Short constructor for the weight tables.
pub(crate) const fn s(mg: i32, eg: i32) -> Score {
    Score { mg, eg }
}

impl std::ops::Add for Score {
    type Output = Score;
    #[inline(always)]
    fn add(self, o: Score) -> Score {
        Score::new(self.mg + o.mg, self.eg + o.eg)
    }
}

impl std::ops::Sub for Score {
    type Output = Score;
    #[inline(always)]
    fn sub(self, o: Score) -> Score {
        Score::new(self.mg - o.mg, self.eg - o.eg)
    }
}

impl std::ops::Mul<i32> for Score {
    type Output = Score;
    #[inline(always)]
    fn mul(self, k: i32) -> Score {
        Score::new(self.mg * k, self.eg * k)
    }
}

impl std::ops::AddAssign for Score {
    #[inline(always)]
    fn add_assign(&mut self, o: Score) {
        self.mg += o.mg;
        self.eg += o.eg;
    }
}

impl std::ops::SubAssign for Score {
    #[inline(always)]
    fn sub_assign(&mut self, o: Score) {
        self.mg -= o.mg;
        self.eg -= o.eg;
    }
}

/// Value of a role for move ordering and SEE-like decisions (middlegame).
pub const fn role_value(role: Role) -> i32 {
    weights::MATERIAL[role as usize].mg
}

/// Game phase weight of each role; 24 = all pieces on the board.
const PHASE: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;
/// The tapered score is multiplied by `scale / SCALE_NORMAL`.
pub const SCALE_NORMAL: i32 = 64;

/// Where the terms send the weights they apply.
pub trait Sink {
    /// Whether this sink records coefficients (it then never receives cached sums).
    const TRACING: bool;
    /// Weight `index` applies `count` times to `color`'s side.
    fn add(&mut self, color: Color, index: usize, count: i32);
    /// An already weighted sum from White's view (the pawn hash); never sent when tracing.
    fn add_score(&mut self, white_view: Score);
    /// A fact that explains a term without weighing anything (for the `eval` table). Only a
    /// tracing sink keeps it: callers send it under `if S::TRACING`, so play never makes it.
    #[inline(always)]
    fn note(&mut self, _color: Color, _note: Note) {}
}

/// What the `eval` table says about a term beyond its weights: the parts of the king attack,
/// whose danger table entry is chosen by a sum of units and so cannot be split into weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// A piece attacks `squares` squares of the enemy king zone.
    KingAttacker { squares: i32 },
    /// A piece of this role can check the enemy king from a square the enemy does not guard.
    SafeCheck(Role),
    /// The units that chose the danger entry; halved when the attacker has no queen.
    KingAttackUnits { units: i32, halved: bool },
}

/// One side's attack on the enemy king, as the evaluation counted it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KingAttack {
    /// Pieces attacking the king zone.
    pub attackers: i32,
    /// Zone squares attacked, counted once for each attacking piece.
    pub zone_squares: i32,
    /// Safe checks by role (knight, bishop, rook, queen at their role indices).
    pub safe_checks: [bool; 6],
    /// The units (before the danger table's limit), 0 without attackers.
    pub units: i32,
    /// No queen: the units were halved.
    pub halved: bool,
}

/// The weights padded to a power of two, so that the plain evaluator indexes them with a
/// mask instead of a bounds check (the trace, which checks, catches a bad index in tests).
const PADDED_LEN: usize = NUM.next_power_of_two();
static PADDED: [Score; PADDED_LEN] = {
    let mut padded = [Score::ZERO; PADDED_LEN];
    let mut i = 0;
    while i < NUM {
        padded[i] = WEIGHTS[i];
        i += 1;
    }
    padded
};

/// The plain evaluator's sink: sums of weights per colour.
#[derive(Default)]
struct Accumulator {
    side: [Score; 2],
}

impl Accumulator {
    #[inline(always)]
    fn white_view(&self) -> Score {
        self.side[0] - self.side[1]
    }
}

impl Sink for Accumulator {
    const TRACING: bool = false;

    #[inline(always)]
    fn add(&mut self, color: Color, index: usize, count: i32) {
        self.side[color.index()] += PADDED[index & (PADDED_LEN - 1)] * count;
    }

    #[inline(always)]
    fn add_score(&mut self, white_view: Score) {
        self.side[0] += white_view;
    }
}

/// How often each weight applied to each side in one position, with the phase and scale:
/// the evaluation is `taper(Σ (white − black count) × weight)`, which `Trace::evaluate`
/// recomputes for any set of weights in the same layout.
#[derive(Clone)]
pub struct Trace {
    pub counts: [[i16; NUM]; 2],
    pub phase: i32,
    /// The scale out of `SCALE_NORMAL` (it depends on the sign of the endgame sum,
    /// so a tuner should treat it as fixed for the position).
    pub scale: i32,
    /// Each side's attack on the enemy king, for the `eval` table.
    pub king_attack: [KingAttack; 2],
}

impl Trace {
    fn new() -> Trace {
        Trace {
            counts: [[0; NUM]; 2],
            phase: 0,
            scale: SCALE_NORMAL,
            king_attack: [KingAttack::default(); 2],
        }
    }

    /// White's count minus Black's for every weight: the linear coefficients.
    pub fn coefficients(&self) -> Vec<i16> {
        (0..NUM)
            .map(|i| self.counts[0][i] - self.counts[1][i])
            .collect()
    }

    /// The non-zero coefficients as (flat weight index, coefficient): the compact form a
    /// tuner stores per position.
    pub fn sparse(&self) -> Vec<(u16, i16)> {
        (0..NUM)
            .filter_map(|i| {
                let c = self.counts[0][i] - self.counts[1][i];
                (c != 0).then_some((i as u16, c))
            })
            .collect()
    }

    /// The sum of coefficient × weight, from White's view, before tapering.
    pub fn sum(&self, weights: &[Score]) -> Score {
        let mut total = Score::ZERO;
        for (i, w) in weights.iter().enumerate().take(NUM) {
            total += *w * (self.counts[0][i] - self.counts[1][i]) as i32;
        }
        total
    }

    /// The tapered, scaled evaluation from White's view for the given weights.
    pub fn evaluate(&self, weights: &[Score]) -> i32 {
        taper(self.sum(weights), self.phase, self.scale)
    }

    /// One side's weighted sum of a term group.
    pub fn group(&self, group: Group, color: Color) -> Score {
        let mut total = Score::ZERO;
        for sec in SECTIONS.iter().filter(|s| s.group == group) {
            let range = sec.offset..sec.offset + sec.size();
            let counts = &self.counts[color.index()][range.clone()];
            for (w, &n) in WEIGHTS[range].iter().zip(counts) {
                total += *w * n as i32;
            }
        }
        total
    }
}

impl Sink for Trace {
    const TRACING: bool = true;

    #[inline(always)]
    fn add(&mut self, color: Color, index: usize, count: i32) {
        self.counts[color.index()][index] += count as i16;
    }

    fn add_score(&mut self, _: Score) {
        unreachable!("a trace never reads the pawn hash");
    }

    fn note(&mut self, color: Color, note: Note) {
        let attack = &mut self.king_attack[color.index()];
        match note {
            Note::KingAttacker { squares } => {
                attack.attackers += 1;
                attack.zone_squares += squares;
            }
            Note::SafeCheck(role) => attack.safe_checks[role.index()] = true,
            Note::KingAttackUnits { units, halved } => {
                attack.units = units;
                attack.halved = halved;
            }
        }
    }
}

/// What the terms share: occupancy and the attack maps, made once per evaluation.
pub(crate) struct Ctx<'a> {
    pos: &'a Position,
    occupied: Bitboard,
    pawns: [Bitboard; 2],
    pawn_attacks: [Bitboard; 2],
    attacked_by: [[Bitboard; 6]; 2],
    /// Squares attacked by any piece of the colour.
    attacked: [Bitboard; 2],
    king: [Square; 2],
    king_zone: [Bitboard; 2],
    /// Attack units a colour has gathered against the enemy king zone.
    king_units: [i32; 2],
}

impl<'a> Ctx<'a> {
    fn new(pos: &'a Position) -> Ctx<'a> {
        let mut c = Ctx {
            pos,
            occupied: pos.occupied(),
            pawns: [Bitboard::EMPTY; 2],
            pawn_attacks: [Bitboard::EMPTY; 2],
            attacked_by: [[Bitboard::EMPTY; 6]; 2],
            attacked: [Bitboard::EMPTY; 2],
            king: [pos.king(Color::White), pos.king(Color::Black)],
            king_zone: [Bitboard::EMPTY; 2],
            king_units: [0; 2],
        };
        for color in Color::ALL {
            let i = color.index();
            c.pawns[i] = pos.pieces(color, Role::Pawn);
            c.pawn_attacks[i] = pawn_attacks_set(color, c.pawns[i]);
            let king = king_attacks(c.king[i]);
            c.attacked_by[i][Role::Pawn.index()] = c.pawn_attacks[i];
            c.attacked_by[i][Role::King.index()] = king;
            c.attacked[i] = c.pawn_attacks[i] | king;
            let area = king.with(c.king[i]);
            c.king_zone[i] = area | area.forward(color);
        }
        c
    }
}

/// All terms, sent to `sink`; returns the phase. With a pawn table (and a sink that does not
/// trace) the pawn structure comes from the table.
#[inline(always)]
fn terms<S: Sink>(pos: &Position, sink: &mut S, pawn_table: Option<&mut pawns::PawnTable>) -> i32 {
    let mut c = Ctx::new(pos);
    let mut phase = 0;
    for color in Color::ALL {
        for role in Role::ALL {
            // Counted while walking the squares: popcount is slow on baseline x86-64.
            let mut n = 0;
            for sq in pos.pieces(color, role) {
                let index = params::PSQT + role.index() * 64 + sq.relative_to(color).index();
                sink.add(color, index, 1);
                n += 1;
            }
            sink.add(color, params::MATERIAL + role.index(), n);
            phase += PHASE[role.index()] * n;
        }
    }
    let passed = match pawn_table {
        Some(table) if !S::TRACING => {
            let entry = table.probe(pos);
            sink.add_score(entry.score);
            entry.passed
        }
        _ => pawns::structure(pos, sink),
    };
    for color in Color::ALL {
        pieces::pieces(&mut c, color, sink);
    }
    for color in Color::ALL {
        king::safety(&c, color, sink);
        pieces::threats(&c, color, sink);
        pawns::passed(&c, color, passed & c.pawns[color.index()], sink);
    }
    sink.add(pos.side_to_move(), params::TEMPO, 1);
    phase.min(MAX_PHASE)
}

/// The game phase, 0 (bare kings and pawns) to `MAX_PHASE` (all pieces).
pub fn phase(pos: &Position) -> i32 {
    let mut phase = 0;
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        phase += PHASE[role.index()] * pos.role_bb(role).count() as i32;
    }
    phase.min(MAX_PHASE)
}

/// Middlegame and endgame blended by the phase, then scaled (drawish endings).
#[inline(always)]
pub fn taper(score: Score, phase: i32, scale: i32) -> i32 {
    (score.mg * phase + score.eg * (MAX_PHASE - phase)) / MAX_PHASE * scale / SCALE_NORMAL
}

/// Non-pawn material for the scaling rules (fixed values, not weights).
fn non_pawn_material(pos: &Position, color: Color) -> i32 {
    const VALUE: [i32; 6] = [0, 320, 330, 500, 1000, 0];
    [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        .into_iter()
        .map(|r| VALUE[r.index()] * pos.pieces(color, r).count() as i32)
        .sum()
}

/// The scale of the evaluation, out of `SCALE_NORMAL`, for drawish material, judged for the
/// side the endgame sum `eg` favours; with the reason, for the `eval` command.
pub fn scale_factor(pos: &Position, eg: i32) -> (i32, &'static str) {
    let strong = if eg > 0 { Color::White } else { Color::Black };
    let weak = !strong;
    let strong_pawns = pos.pieces(strong, Role::Pawn);
    let weak_pawns = pos.pieces(weak, Role::Pawn);

    if strong_pawns.is_empty() {
        let (npm_strong, npm_weak) = (non_pawn_material(pos, strong), non_pawn_material(pos, weak));
        let knights = pos.pieces(strong, Role::Knight);
        if npm_strong == 320 * knights.count() as i32 && knights.count() <= 2 {
            let scale = if weak_pawns.is_empty() { 0 } else { 8 };
            return (scale, "knights cannot force mate");
        }
        if npm_strong - npm_weak < 500 {
            let scale = if npm_strong <= 330 { 0 } else { 12 };
            return (scale, "no pawns and less than a rook up");
        }
    }

    // The remaining rules are about bishops.
    let strong_bishops = pos.pieces(strong, Role::Bishop);
    if strong_bishops.count() != 1 {
        return (SCALE_NORMAL, "normal");
    }
    let pieces = |c: Color| pos.color_bb(c) & !pos.role_bb(Role::Pawn) & !pos.role_bb(Role::King);
    let bishop_only = pieces(strong) == strong_bishops;

    // King, bishop and rook pawns on one edge file whose promotion square the bishop does
    // not control, with the defending king in the corner.
    if bishop_only
        && strong_pawns.non_empty()
        && ((strong_pawns & !Bitboard::FILE_A).is_empty()
            || (strong_pawns & !Bitboard::FILE_H).is_empty())
    {
        let file = strong_pawns.first().file();
        let promotion = Square::from_coords(file, (!strong).back_rank());
        let bishop_colour = Bitboard::same_colour_squares(strong_bishops.first());
        if !bishop_colour.contains(promotion)
            && crate::chess::attacks::distance(pos.king(weak), promotion) <= 1
        {
            return (0, "bishop of the wrong colour for the rook pawn");
        }
    }

    let weak_bishops = pos.pieces(weak, Role::Bishop);
    if weak_bishops.count() == 1
        && Bitboard::same_colour_squares(strong_bishops.first())
            != Bitboard::same_colour_squares(weak_bishops.first())
    {
        if bishop_only && pieces(weak) == weak_bishops {
            let surplus = strong_pawns.count() as i32 - weak_pawns.count() as i32;
            let scale = if surplus <= 1 { 18 } else { 32 };
            return (scale, "opposite-coloured bishops");
        }
        return (46, "opposite-coloured bishops with other pieces");
    }
    (SCALE_NORMAL, "normal")
}

#[inline(always)]
fn evaluate_with(pos: &Position, pawn_table: Option<&mut pawns::PawnTable>) -> i32 {
    if pos.is_insufficient_material() {
        return 0;
    }
    let mut acc = Accumulator::default();
    let phase = terms(pos, &mut acc, pawn_table);
    let total = acc.white_view();
    let (scale, _) = scale_factor(pos, total.eg);
    let white = taper(total, phase, scale);
    match pos.side_to_move() {
        Color::White => white,
        Color::Black => -white,
    }
}

/// The evaluation from the side to move's point of view. Drawn material scores 0.
pub fn evaluate(pos: &Position) -> i32 {
    evaluate_with(pos, None)
}

/// An evaluator with its own pawn hash table: one per search thread.
pub struct Evaluator {
    pawns: pawns::PawnTable,
}

impl Evaluator {
    pub fn new() -> Evaluator {
        Evaluator {
            pawns: pawns::PawnTable::new(),
        }
    }

    /// The same score as [`evaluate`], faster.
    pub fn evaluate(&mut self, pos: &Position) -> i32 {
        evaluate_with(pos, Some(&mut self.pawns))
    }

    /// Forgets the cached pawn structures.
    pub fn clear(&mut self) {
        self.pawns.clear();
    }
}

impl Default for Evaluator {
    fn default() -> Self {
        Evaluator::new()
    }
}

/// The coefficients of every weight in `pos` (see [`Trace`]). It ignores the insufficient
/// material rule, which `evaluate` applies before the terms.
pub fn trace(pos: &Position) -> Box<Trace> {
    let mut t = Box::new(Trace::new());
    t.phase = terms(pos, t.as_mut(), None);
    debug_assert_eq!(t.phase, phase(pos));
    t.scale = scale_factor(pos, t.sum(&WEIGHTS).eg).0;
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    const FENS: [&str; 10] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
        "8/6pp/3q1p2/3n1k2/1P6/3NQ2P/5PP1/6K1 w - - 0 1",
        "6k1/3r4/2R5/P5P1/1P4p1/8/4rB2/6K1 b - - 0 1",
        "8/8/4k3/8/2p5/8/B2K4/8 w - - 0 1",
        "8/5k2/8/3b4/8/2B5/1P3K2/8 w - - 0 1",
        "7k/P7/8/8/8/8/2B5/K7 w - - 0 1",
        "8/8/1k6/8/8/8/5P2/3NK1N1 b - - 0 1",
        "2r3k1/1p2q1pp/2b1pr2/p1pp4/6Q1/1P1PP1R1/P1PN2PP/5RK1 w - - 0 1",
    ];

    #[test]
    fn start_position_is_balanced() {
        let pos = Position::startpos();
        assert_eq!(breakdown(&pos).total, taper(WEIGHTS[params::TEMPO], 24, 64));
        assert_eq!(
            evaluate(&pos),
            taper(WEIGHTS[params::TEMPO], 24, SCALE_NORMAL)
        );
    }

    #[test]
    fn extra_queen_is_winning_for_its_owner() {
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 w - - 0 1").unwrap();
        assert!(evaluate(&pos) > 800);
        let pos = Position::from_fen("4k3/8/8/8/8/8/8/3QK3 b - - 0 1").unwrap();
        assert!(evaluate(&pos) < -800);
    }

    #[test]
    fn trace_reproduces_the_evaluation() {
        for fen in FENS {
            let pos = Position::from_fen(fen).unwrap();
            let t = trace(&pos);
            let white = t.evaluate(&WEIGHTS);
            let stm = if pos.side_to_move() == Color::White {
                white
            } else {
                -white
            };
            assert_eq!(stm, evaluate(&pos), "{fen}");
            // And from the flat coefficients, as a tuner would.
            let coefs = t.coefficients();
            let mut sum = Score::ZERO;
            for (c, w) in coefs.iter().zip(WEIGHTS.iter()) {
                sum += *w * *c as i32;
            }
            assert_eq!(taper(sum, t.phase, t.scale), white, "{fen}");
            // The groups add up to the same sum.
            let b = breakdown(&pos);
            let mut groups = Score::ZERO;
            for (_, [w, bl]) in &b.groups {
                groups += *w - *bl;
            }
            assert_eq!(groups, b.sum, "{fen}");
        }
    }

    #[test]
    fn sparse_trace_matches_the_dense_one() {
        let pos = Position::from_fen(FENS[2]).unwrap();
        let t = trace(&pos);
        let dense = t.coefficients();
        let sparse = t.sparse();
        assert!(!sparse.is_empty());
        for (i, c) in &sparse {
            assert_eq!(dense[*i as usize], *c);
        }
        assert_eq!(dense.iter().filter(|&&c| c != 0).count(), sparse.len());
        assert_eq!(params::weight_name(params::PSQT + 64 + 3), "PSQT[1][3]");
        assert_eq!(params::weight_name(params::TEMPO), "TEMPO");
        assert_eq!(params::weight_name(params::MATERIAL + 4), "MATERIAL[4]");
    }

    #[test]
    fn pawn_table_size_is_as_documented() {
        assert_eq!(PAWN_TABLE_BYTES, 512 * 1024);
    }

    #[test]
    fn pawn_hash_gives_the_same_score() {
        let mut ev = Evaluator::new();
        for _ in 0..2 {
            for fen in FENS {
                let pos = Position::from_fen(fen).unwrap();
                assert_eq!(ev.evaluate(&pos), evaluate(&pos), "{fen}");
            }
        }
    }

    #[test]
    fn drawish_endings_are_scaled() {
        // Bishop and the wrong rook pawn, defending king in the corner.
        let pos = Position::from_fen("k7/8/8/8/8/8/P7/2B1K3 w - - 0 1").unwrap();
        assert_eq!(scale_factor(&pos, 100).0, 0);
        // Two knights.
        let pos = Position::from_fen("8/8/1k6/8/8/8/8/3NK1N1 w - - 0 1").unwrap();
        assert_eq!(evaluate(&pos), 0);
        // Opposite-coloured bishops, a pawn up.
        let pos = Position::from_fen("8/5k2/8/3b4/8/2B5/1P3K2/8 w - - 0 1").unwrap();
        assert_eq!(scale_factor(&pos, 100).0, 18);
        // Rook against bishop.
        let pos = Position::from_fen("8/5k2/8/3b4/8/2R5/5K2/8 w - - 0 1").unwrap();
        assert_eq!(scale_factor(&pos, 100).0, 12);
    }
}
