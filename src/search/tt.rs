//! The transposition table: a fixed-size array of search results keyed by Zobrist key.

use crate::chess::Move;

/// How a stored score bounds the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    None = 0,
    /// The score is at most this (all moves failed low).
    Upper = 1,
    /// The score is at least this (a move failed high).
    Lower = 2,
    Exact = 3,
}

#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Entry {
    key: u64,
    mv: u16,
    score: i16,
    depth: u8,
    /// Bound in the low 2 bits, search generation in the rest.
    flags: u8,
    _pad: u16,
}

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub mv: Move,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

pub struct TranspositionTable {
    entries: Vec<Entry>,
    generation: u8,
}

pub const DEFAULT_HASH_MB: usize = 64;
/// Refuse absurd sizes (`memory 100000`): this many megabytes at most.
pub const MAX_HASH_MB: usize = 16 * 1024;

impl TranspositionTable {
    /// A table of about `megabytes` MB (clamped to 1..=MAX_HASH_MB; if the memory cannot be
    /// had, smaller sizes are tried).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let mut mb = megabytes.clamp(1, MAX_HASH_MB);
        loop {
            let count = mb * 1024 * 1024 / std::mem::size_of::<Entry>();
            let mut entries = Vec::new();
            if entries.try_reserve_exact(count).is_ok() {
                entries.resize(count, Entry::default());
                return TranspositionTable {
                    entries,
                    generation: 0,
                };
            }
            if mb == 1 {
                panic!("cannot allocate even 1 MB for the transposition table");
            }
            mb /= 2;
        }
    }

    /// Size in whole megabytes.
    pub fn megabytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<Entry>() / (1024 * 1024)
    }

    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
        self.generation = 0;
    }

    /// Start of a new search: older entries become preferred for replacement.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline(always)]
    fn index(&self, key: u64) -> usize {
        // Map the key onto the table without a division (Lemire's multiply-shift).
        ((key as u128 * self.entries.len() as u128) >> 64) as usize
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let e = &self.entries[self.index(key)];
        if e.key != key || e.flags & 3 == 0 {
            return None;
        }
        let bound = match e.flags & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        Some(Hit {
            mv: Move::from_bits(e.mv),
            score: e.score as i32,
            depth: e.depth as i32,
            bound,
        })
    }

    #[inline]
    pub fn store(&mut self, key: u64, mv: Move, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let i = self.index(key);
        let e = &mut self.entries[i];
        // Replace unless the slot holds a deeper result of this search for another position.
        let same = e.key == key;
        let stale = (e.flags >> 2) != generation;
        if !same && !stale && (e.depth as i32) > depth + 2 {
            return;
        }
        let mv = if mv.is_none() && same {
            Move::from_bits(e.mv)
        } else {
            mv
        };
        *e = Entry {
            key,
            mv: mv.bits(),
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: bound as u8 | (generation << 2),
            _pad: 0,
        };
    }

    /// Permille of the first thousand slots used in this search (for `hashfull`).
    pub fn hashfull(&self) -> usize {
        let n = self.entries.len().min(1000);
        self.entries[..n]
            .iter()
            .filter(|e| e.flags & 3 != 0 && (e.flags >> 2) == self.generation)
            .count()
            * 1000
            / n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    #[test]
    fn stores_and_finds() {
        let mut tt = TranspositionTable::new(1);
        let mv = Move::normal(Square::E1, Square::E8);
        tt.store(0xDEAD_BEEF, mv, -123, 7, Bound::Lower);
        let hit = tt.probe(0xDEAD_BEEF).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.depth, hit.bound),
            (mv, -123, 7, Bound::Lower)
        );
        assert!(tt.probe(0xDEAD_BEEE).is_none());
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF).is_none());
    }

    #[test]
    fn absurd_sizes_are_clamped() {
        assert_eq!(TranspositionTable::new(0).megabytes(), 1);
    }
}
