//! The layout of the evaluation weights: every weight of `weights.rs` has one index in a flat
//! array, so the evaluation can apply any weight through one path (`Sink::add`), a trace can
//! count how often each weight was applied, and a tuner can read and rewrite them all.
//!
//! The list below is the single description of the layout: name, term group, shape and doc.
//! From it the macro makes an offset constant per section (`params::PSQT` etc.), the flat
//! `WEIGHTS` table (copied at compile time from the named arrays of `weights.rs`) and the
//! section table `SECTIONS` that `weights_source` uses to write `weights.rs` back out.

use super::{weights, Score};

/// The term groups shown by the `eval` command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    Material,
    Placement,
    Mobility,
    Pawns,
    Passed,
    Pieces,
    Threats,
    King,
    Tempo,
}

impl Group {
    pub const ALL: [Group; 9] = [
        Group::Material,
        Group::Placement,
        Group::Mobility,
        Group::Pawns,
        Group::Passed,
        Group::Pieces,
        Group::Threats,
        Group::King,
        Group::Tempo,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Group::Material => "material",
            Group::Placement => "placement",
            Group::Mobility => "mobility",
            Group::Pawns => "pawns",
            Group::Passed => "passed pawns",
            Group::Pieces => "pieces",
            Group::Threats => "threats",
            Group::King => "king safety",
            Group::Tempo => "tempo",
        }
    }
}

/// One named array (or single value) of weights inside the flat table.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    pub name: &'static str,
    pub doc: &'static str,
    pub group: Group,
    pub offset: usize,
    /// `[]` for a single value, `[n]` for an array, `[rows, cols]` for a table.
    pub dims: &'static [usize],
}

impl Section {
    /// The number of weights in the section.
    pub const fn size(&self) -> usize {
        match self.dims.len() {
            0 => 1,
            1 => self.dims[0],
            _ => self.dims[0] * self.dims[1],
        }
    }
}

const fn prefix_sum(lens: &[usize], k: usize) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < k {
        sum += lens[i];
        i += 1;
    }
    sum
}

macro_rules! layout {
    ($( #[doc = $doc:literal] $name:ident : $group:ident $dims:tt ),* $(,)?) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        enum Id { $($name),* }
        const LENS: &[usize] = &[$(layout!(@len $dims)),*];
        $(
            #[doc = $doc]
            pub const $name: usize = prefix_sum(LENS, Id::$name as usize);
        )*
        /// The number of weights.
        pub const NUM: usize = prefix_sum(LENS, LENS.len());
        /// Every section, in flat order.
        pub static SECTIONS: &[Section] = &[$(Section {
            name: stringify!($name),
            doc: $doc,
            group: Group::$group,
            offset: $name,
            dims: &layout!(@dims $dims),
        }),*];
        /// All weights, flat: section `X` starts at index `params::X`.
        pub static WEIGHTS: [Score; NUM] = {
            let mut flat = [Score::ZERO; NUM];
            $( layout!(@copy flat, $name, $dims); )*
            flat
        };
    };
    (@len []) => { 1 };
    (@len [$n:expr]) => { $n };
    (@len [$r:expr, $c:expr]) => { $r * $c };
    (@dims []) => { [] };
    (@dims [$n:expr]) => { [$n] };
    (@dims [$r:expr, $c:expr]) => { [$r, $c] };
    (@copy $flat:ident, $name:ident, []) => { $flat[$name] = weights::$name; };
    (@copy $flat:ident, $name:ident, [$n:expr]) => {
        let mut i = 0;
        while i < $n {
            $flat[$name + i] = weights::$name[i];
            i += 1;
        }
    };
    (@copy $flat:ident, $name:ident, [$r:expr, $c:expr]) => {
        let mut i = 0;
        while i < $r {
            let mut j = 0;
            while j < $c {
                $flat[$name + i * $c + j] = weights::$name[i][j];
                j += 1;
            }
            i += 1;
        }
    };
}

layout! {
    /// Piece values by role (pawn, knight, bishop, rook, queen, king).
    MATERIAL: Material [6],
    /// Piece-square tables by role, squares a1..h8 from the owner's side (rank 1 first).
    PSQT: Placement [6, 64],
    /// Knight mobility by the number of safe squares attacked (0-8).
    MOBILITY_KNIGHT: Mobility [9],
    /// Bishop mobility (0-13).
    MOBILITY_BISHOP: Mobility [14],
    /// Rook mobility (0-14).
    MOBILITY_ROOK: Mobility [15],
    /// Queen mobility (0-27).
    MOBILITY_QUEEN: Mobility [28],
    /// Each pawn with another own pawn ahead of it on its file.
    PAWN_DOUBLED: Pawns [],
    /// Each pawn with no own pawn on the files next to it.
    PAWN_ISOLATED: Pawns [],
    /// Each pawn that no own pawn can defend and whose stop square an enemy pawn controls.
    PAWN_BACKWARD: Pawns [],
    /// Each pawn with an own pawn beside it, by relative rank.
    PAWN_PHALANX: Pawns [8],
    /// Each own pawn defending a pawn, by the defended pawn's relative rank.
    PAWN_SUPPORTED: Pawns [8],
    /// Passed pawns by relative rank.
    PASSED_RANK: Passed [8],
    /// Passed pawns whose stop square is occupied, by relative rank.
    PASSED_BLOCKED: Passed [8],
    /// Passed pawns whose path to promotion is empty and not attacked, by relative rank.
    PASSED_FREE_PATH: Passed [8],
    /// Times the own king's distance to the stop square, by relative rank.
    PASSED_OWN_KING_DISTANCE: Passed [8],
    /// Times the enemy king's distance to the stop square, by relative rank.
    PASSED_THEIR_KING_DISTANCE: Passed [8],
    /// A passed pawn the enemy king cannot catch when the enemy has only pawns.
    PASSED_UNSTOPPABLE: Passed [],
    /// Two bishops or more.
    BISHOP_PAIR: Pieces [],
    /// A knight on ranks 4-6 defended by a pawn and beyond the reach of enemy pawns.
    KNIGHT_OUTPOST: Pieces [],
    /// A bishop on such an outpost.
    BISHOP_OUTPOST: Pieces [],
    /// A rook on a file without pawns.
    ROOK_OPEN_FILE: Pieces [],
    /// A rook on a file with enemy pawns only.
    ROOK_HALF_OPEN_FILE: Pieces [],
    /// A rook on the seventh rank with the enemy king on the eighth or enemy pawns on the seventh.
    ROOK_SEVENTH: Pieces [],
    /// A queen on a file without pawns.
    QUEEN_OPEN_FILE: Pieces [],
    /// A queen on a file with enemy pawns only.
    QUEEN_HALF_OPEN_FILE: Pieces [],
    /// Enemy pieces attacked by pawns, by the victim's role.
    THREAT_BY_PAWN: Threats [6],
    /// Weak enemy pieces (not pawn-defended) and rooks and queens attacked by knights or bishops, by victim.
    THREAT_BY_MINOR: Threats [6],
    /// Weak enemy pieces and queens attacked by rooks, by victim.
    THREAT_BY_ROOK: Threats [6],
    /// Enemy pieces (not pawns) attacked and not defended at all.
    HANGING: Threats [],
    /// Per file at and beside the king: the relative rank of the nearest own pawn ahead.
    KING_SHIELD: King [8],
    /// Per file at and beside the king: the relative rank of the nearest enemy pawn ahead.
    KING_STORM: King [8],
    /// Per file at and beside the king without pawns.
    KING_OPEN_FILE: King [],
    /// Per file at and beside the king with enemy pawns only.
    KING_HALF_OPEN_FILE: King [],
    /// Bonus for the attacker, indexed by the attack units on the enemy king (see weights.rs).
    KING_DANGER: King [64],
    /// For the side to move.
    TEMPO: Tempo [],
}

/// Writes the source of `weights.rs` for a flat set of weights in this layout (what a tuner
/// commits). The index weights of king safety, which the linear trace cannot tune, are kept.
pub fn weights_source(flat: &[Score]) -> String {
    use std::fmt::Write;
    assert_eq!(flat.len(), NUM);
    let mut out = String::new();
    out.push_str(
        "//! Evaluation weights in centipawns, `s(middlegame, endgame)`, White's view of White's\n\
         //! pieces (Black's squares are mirrored). Written by `params::weights_source`: a tuner\n\
         //! may regenerate this file; the layout and the meaning of each entry are in\n\
         //! `params.rs`.\n\nuse super::{s, Score};\n",
    );
    let cell = |x: Score| format!("s({:>4},{:>5})", x.mg, x.eg);
    for sec in SECTIONS {
        let w = &flat[sec.offset..sec.offset + sec.size()];
        let _ = write!(out, "\n/// {}\n", sec.doc.trim());
        match *sec.dims {
            [] => {
                let _ = writeln!(out, "pub const {}: Score = {};", sec.name, cell(w[0]));
            }
            [n] => {
                let _ = writeln!(out, "pub const {}: [Score; {n}] = [", sec.name);
                for chunk in w.chunks(8) {
                    let row: Vec<String> = chunk.iter().map(|&x| cell(x)).collect();
                    let _ = writeln!(out, "    {},", row.join(", "));
                }
                out.push_str("];\n");
            }
            [r, c] => {
                let _ = writeln!(out, "pub const {}: [[Score; {c}]; {r}] = [", sec.name);
                for row in w.chunks(c) {
                    out.push_str("    [\n");
                    for chunk in row.chunks(8) {
                        let cells: Vec<String> = chunk.iter().map(|&x| cell(x)).collect();
                        let _ = writeln!(out, "        {},", cells.join(", "));
                    }
                    out.push_str("    ],\n");
                }
                out.push_str("];\n");
            }
            _ => unreachable!("sections have at most two dimensions"),
        }
    }
    let ints = |v: &[i32]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = write!(
        out,
        "\n// Index weights: they choose the entry of KING_DANGER, so the linear trace cannot tune\n\
         // them; they are kept as they are when the file is rewritten.\n\n\
         /// Attack units per piece (by role) attacking the enemy king zone.\n\
         pub const KING_ATTACKER_UNITS: [i32; 6] = [{}];\n\n\
         /// Attack units per attack of a king-zone square.\n\
         pub const KING_ZONE_ATTACK_UNITS: i32 = {};\n\n\
         /// Attack units for a safe check by each role.\n\
         pub const KING_SAFE_CHECK_UNITS: [i32; 6] = [{}];\n",
        ints(&weights::KING_ATTACKER_UNITS),
        weights::KING_ZONE_ATTACK_UNITS,
        ints(&weights::KING_SAFE_CHECK_UNITS),
    );
    out
}

/// The weight section holding flat index `index`, and the index within it.
pub fn section_of(index: usize) -> (&'static Section, usize) {
    let sec = SECTIONS
        .iter()
        .rev()
        .find(|s| s.offset <= index)
        .expect("index inside the layout");
    (sec, index - sec.offset)
}

/// A readable name for flat index `index`, like `PSQT[1][3]` or `TEMPO`.
pub fn weight_name(index: usize) -> String {
    let (sec, i) = section_of(index);
    match *sec.dims {
        [] => sec.name.to_string(),
        [_] => format!("{}[{i}]", sec.name),
        [_, c] => format!("{}[{}][{}]", sec.name, i / c, i % c),
        _ => unreachable!("sections have at most two dimensions"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_tile_the_flat_table() {
        let mut next = 0;
        for sec in SECTIONS {
            assert_eq!(sec.offset, next, "{}", sec.name);
            next += sec.size();
        }
        assert_eq!(next, NUM);
        assert_eq!(section_of(PSQT + 70).0.name, "PSQT");
        assert_eq!(section_of(TEMPO).0.name, "TEMPO");
    }

    /// The committed weights file is exactly what the writer makes of the weights: a tuner
    /// can regenerate it, and nobody has edited it into a shape the writer cannot produce.
    #[test]
    fn weights_file_is_in_written_form() {
        let written = weights_source(&WEIGHTS);
        let committed = include_str!("weights.rs");
        if written != committed {
            let line = written
                .lines()
                .zip(committed.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "weights.rs differs from weights_source at line {}",
                line + 1
            );
        }
    }
}
