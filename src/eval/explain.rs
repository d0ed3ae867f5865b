//! The evaluation explained term by term, for the `eval` command: every term's weighted sum
//! for each side, from the same trace a tuner reads, under its group.
//!
//! A term is a run of weights in the flat layout (`params`): one weight (the bishop pair),
//! one entry of an array (a passed pawn on its rank, a threat by its victim) or a whole
//! array (a piece-square table, the mobility of a piece type). The list below covers every
//! weight exactly once, so the terms of a group add up to the group and the groups to the
//! evaluation; a test holds it to that.

use super::params::{self as p, Group, WEIGHTS};
use super::{evaluate, scale_factor, trace, weights, KingAttack, Score};
use crate::chess::{Color, Position, Role};

/// What a term's count column shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Count {
    /// How many times its weights applied (pawns, pieces, files, distance steps...).
    Times,
    /// Which of its weights applied (the attack units choosing the king danger entry).
    Index,
}

/// One term of the `eval` table: the weights `first..first + len` of the flat layout.
#[derive(Clone, Debug)]
pub struct Term {
    pub group: Group,
    pub label: String,
    pub first: usize,
    pub len: usize,
    pub count: Count,
}

/// Piece types in the plural, by role.
const PIECES: [&str; 6] = ["pawns", "knights", "bishops", "rooks", "queens", "kings"];

/// Every term, group by group in the order of `Group::ALL`.
pub fn all_terms() -> Vec<Term> {
    let mut list = Vec::new();
    let mut add = |group, label: &str, first, len, count| {
        list.push(Term {
            group,
            label: label.to_string(),
            first,
            len,
            count,
        })
    };
    use Count::{Index, Times};
    use Group::*;
    for (i, pieces) in PIECES.iter().enumerate() {
        add(Material, pieces, p::MATERIAL + i, 1, Times);
    }
    for (i, pieces) in PIECES.iter().enumerate() {
        add(Placement, pieces, p::PSQT + i * 64, 64, Times);
    }
    use weights::{MOBILITY_BISHOP, MOBILITY_KNIGHT, MOBILITY_QUEEN, MOBILITY_ROOK};
    for (label, first, len) in [
        ("knights", p::MOBILITY_KNIGHT, MOBILITY_KNIGHT.len()),
        ("bishops", p::MOBILITY_BISHOP, MOBILITY_BISHOP.len()),
        ("rooks", p::MOBILITY_ROOK, MOBILITY_ROOK.len()),
        ("queens", p::MOBILITY_QUEEN, MOBILITY_QUEEN.len()),
    ] {
        add(Mobility, label, first, len, Times);
    }
    for (label, first, len) in [
        ("doubled", p::PAWN_DOUBLED, 1),
        ("isolated", p::PAWN_ISOLATED, 1),
        ("backward", p::PAWN_BACKWARD, 1),
        ("phalanx", p::PAWN_PHALANX, 8),
        ("supported", p::PAWN_SUPPORTED, 8),
    ] {
        add(Pawns, label, first, len, Times);
    }
    // Ranks 1 and 8 never hold a pawn; their rows exist so that every weight has one.
    for rank in 0..8 {
        let label = format!("rank {}", rank + 1);
        add(Passed, &label, p::PASSED_RANK + rank, 1, Times);
    }
    for (label, first, len) in [
        ("blocked", p::PASSED_BLOCKED, 8),
        ("free path", p::PASSED_FREE_PATH, 8),
        ("own king distance", p::PASSED_OWN_KING_DISTANCE, 8),
        ("enemy king distance", p::PASSED_THEIR_KING_DISTANCE, 8),
        ("unstoppable", p::PASSED_UNSTOPPABLE, 1),
    ] {
        add(Passed, label, first, len, Times);
    }
    for (label, first) in [
        ("bishop pair", p::BISHOP_PAIR),
        ("knight outpost", p::KNIGHT_OUTPOST),
        ("bishop outpost", p::BISHOP_OUTPOST),
        ("rook open file", p::ROOK_OPEN_FILE),
        ("rook half-open file", p::ROOK_HALF_OPEN_FILE),
        ("rook on 7th", p::ROOK_SEVENTH),
        ("queen open file", p::QUEEN_OPEN_FILE),
        ("queen half-open file", p::QUEEN_HALF_OPEN_FILE),
    ] {
        add(Pieces, label, first, 1, Times);
    }
    for (attacker, first) in [
        ("pawn", p::THREAT_BY_PAWN),
        ("minor", p::THREAT_BY_MINOR),
        ("rook", p::THREAT_BY_ROOK),
    ] {
        for victim in Role::ALL {
            let label = format!("{attacker} attacks {}", victim.name());
            add(Threats, &label, first + victim.index(), 1, Times);
        }
    }
    add(Threats, "hanging pieces", p::HANGING, 1, Times);
    add(King, "attack on king", p::KING_DANGER, 64, Index);
    for (label, first, len) in [
        ("pawn shield", p::KING_SHIELD, 8),
        ("pawn storm", p::KING_STORM, 8),
        ("open file", p::KING_OPEN_FILE, 1),
        ("half-open file", p::KING_HALF_OPEN_FILE, 1),
    ] {
        add(King, label, first, len, Times);
    }
    add(Tempo, "side to move", p::TEMPO, 1, Times);
    list
}

/// One term's values in a position.
#[derive(Clone, Debug)]
pub struct TermLine {
    pub term: Term,
    /// White's and Black's weighted sums (each from its own side: positive is good).
    pub side: [Score; 2],
    /// White's and Black's count (see [`Count`]).
    pub count: [i32; 2],
}

impl TermLine {
    /// Whether the term says anything here: it applied to a side and is not weighted zero.
    pub fn applies(&self) -> bool {
        let range = self.term.first..self.term.first + self.term.len;
        let weighted = WEIGHTS[range].iter().any(|&w| w != Score::ZERO);
        weighted && (self.count != [0, 0] || self.side != [Score::ZERO; 2])
    }
}

/// Evaluation split by term group, term and colour (for the `eval` command).
#[derive(Clone, Debug)]
pub struct Breakdown {
    /// Each group's sum for White and for Black (each from its own side: positive is good).
    pub groups: Vec<(Group, [Score; 2])>,
    /// Every term, in group order, applying or not.
    pub terms: Vec<TermLine>,
    /// White's and Black's attack on the enemy king.
    pub king_attack: [KingAttack; 2],
    /// White's sums minus Black's.
    pub sum: Score,
    pub phase: i32,
    pub scale: i32,
    pub scale_reason: &'static str,
    /// The tapered, scaled total from White's view.
    pub total: i32,
    /// `evaluate`: from the side to move's view, 0 with insufficient material.
    pub side_to_move: i32,
}

pub fn breakdown(pos: &Position) -> Breakdown {
    let t = trace(pos);
    let groups = Group::ALL
        .iter()
        .map(|&g| (g, [t.group(g, Color::White), t.group(g, Color::Black)]))
        .collect();
    let terms = all_terms()
        .into_iter()
        .map(|term| {
            let mut side = [Score::ZERO; 2];
            let mut count = [0; 2];
            for color in Color::ALL {
                let c = color.index();
                let range = term.first..term.first + term.len;
                let weights = WEIGHTS[range.clone()].iter();
                for (k, (w, &n)) in weights.zip(&t.counts[c][range]).enumerate() {
                    let n = n as i32;
                    side[c] += *w * n;
                    count[c] += match term.count {
                        Count::Times => n,
                        Count::Index if n != 0 => k as i32,
                        Count::Index => 0,
                    };
                }
            }
            TermLine { term, side, count }
        })
        .collect();
    let sum = t.sum(&WEIGHTS);
    let (scale, scale_reason) = scale_factor(pos, sum.eg);
    Breakdown {
        groups,
        terms,
        king_attack: t.king_attack,
        sum,
        phase: t.phase,
        scale,
        scale_reason,
        total: t.evaluate(&WEIGHTS),
        side_to_move: evaluate(pos),
    }
}

/// The width of the label column: the longest term label, indented, and a space.
const LABEL: usize = 23;

fn pair(s: Score) -> String {
    format!("{:>6} {:>6}", s.mg, s.eg)
}

fn row(label: &str, [white, black]: [Score; 2]) -> String {
    format!(
        "{label:<LABEL$}{}   {}   {}",
        pair(white),
        pair(black),
        pair(white - black)
    )
}

/// How one side's king attack was counted, in words.
fn king_attack_words(color: Color, a: &KingAttack) -> String {
    if a.attackers == 0 {
        return format!("{}: no piece attacks the king zone", color.name());
    }
    let attackers = if a.attackers == 1 {
        "attacker"
    } else {
        "attackers"
    };
    let mut text = format!(
        "{}: {} {attackers} on {} zone squares",
        color.name(),
        a.attackers,
        a.zone_squares
    );
    let checks: Vec<String> = Role::ALL
        .iter()
        .filter(|r| a.safe_checks[r.index()])
        .map(|r| r.char().to_ascii_uppercase().to_string())
        .collect();
    if !checks.is_empty() {
        text += &format!(", safe checks by {}", checks.join(" "));
    }
    if a.halved {
        text += ", no queen (halved)";
    }
    text + &format!(": {} units", a.units)
}

impl Breakdown {
    /// The table: each group with its terms below it (those that apply to a side), White's,
    /// Black's and the difference, middlegame and endgame; then the phase, the scale and the
    /// result.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = vec![
            "Static evaluation by term, each side from its own view. count: times the term"
                .to_string(),
            "applied, White/Black (attack on king: units); ranks from each side's own side;"
                .to_string(),
            "terms that apply to neither side are not shown.".to_string(),
            format!(
                "{:<LABEL$}{:^13}   {:^13}   {:^13}",
                "", "White", "Black", "White-Black"
            )
            .trim_end()
            .to_string(),
            format!(
                "{:<LABEL$}{:>6} {:>6}   {:>6} {:>6}   {:>6} {:>6}  {:>5}",
                "term", "mg", "eg", "mg", "eg", "mg", "eg", "count"
            ),
        ];
        for (group, sides) in &self.groups {
            lines.push(row(group.name(), *sides));
            for line in self.terms.iter().filter(|l| l.term.group == *group) {
                if !line.applies() {
                    continue;
                }
                let [w, b] = line.count;
                lines.push(format!(
                    "{}  {:>5}",
                    row(&format!("  {}", line.term.label), line.side),
                    format!("{w}/{b}")
                ));
                if line.term.count == Count::Index {
                    for color in Color::ALL {
                        let words = king_attack_words(color, &self.king_attack[color.index()]);
                        lines.push(format!("    {words}"));
                    }
                }
            }
        }
        lines.push(format!("{:<LABEL$}{:>32}{}", "sum", "", pair(self.sum)));
        lines.push(format!(
            "{:<LABEL$}{:>6} of 24 (24 = middlegame)",
            "phase", self.phase
        ));
        lines.push(format!(
            "{:<LABEL$}{:>6} of 64 ({})",
            "scale", self.scale, self.scale_reason
        ));
        lines.push(format!(
            "{:<LABEL$}{:>6} tapered and scaled, White's view (centipawns)",
            "total", self.total
        ));
        lines.push(format!(
            "{:<LABEL$}{:>6} (0 if neither side can mate)",
            "side to move", self.side_to_move
        ));
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::params::NUM;

    /// Every weight belongs to exactly one term, so the terms shown add up to the groups and
    /// a new weight cannot be left out of the table; and each term lies in its group.
    #[test]
    fn terms_cover_every_weight_once() {
        let mut owner = vec![None; NUM];
        for term in all_terms() {
            for (i, slot) in owner[term.first..term.first + term.len]
                .iter_mut()
                .enumerate()
            {
                assert!(slot.is_none(), "{} and {slot:?} share a weight", term.label);
                *slot = Some(term.label.clone());
                let (section, _) = p::section_of(term.first + i);
                assert_eq!(section.group, term.group, "{}", term.label);
            }
        }
        for (i, slot) in owner.iter().enumerate() {
            assert!(slot.is_some(), "{} is in no term", p::weight_name(i));
        }
    }

    #[test]
    fn terms_are_listed_group_by_group() {
        let order: Vec<usize> = all_terms()
            .iter()
            .map(|t| Group::ALL.iter().position(|&g| g == t.group).unwrap())
            .collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "{order:?}");
    }

    #[test]
    fn terms_add_up_to_their_group() {
        let pos = Position::from_fen("r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1")
            .unwrap();
        let b = breakdown(&pos);
        for (group, sides) in &b.groups {
            let mut sum = [Score::ZERO; 2];
            for line in b.terms.iter().filter(|l| l.term.group == *group) {
                sum[0] += line.side[0];
                sum[1] += line.side[1];
            }
            assert_eq!(sum, *sides, "{}", group.name());
        }
        // White's queen on h6 attacks Black's king: the units are shown and explained.
        let attack = b
            .terms
            .iter()
            .find(|l| l.term.count == Count::Index)
            .unwrap();
        assert!(attack.count[0] > 0);
        assert_eq!(attack.count[0], b.king_attack[0].units.min(63));
        assert!(b.king_attack[0].attackers > 0);
    }
}
