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

/// One slot: the full key, and the data packed in a second word as move (16 bits), score
/// (16), depth (8), bound (2) and search generation (6). Plain `u64` pairs let the table be
/// allocated zeroed by the OS, so memory is only committed as the search fills it.
type Entry = [u64; 2];

#[inline(always)]
fn pack(mv: Move, score: i32, depth: i32, bound: Bound, generation: u8) -> u64 {
    let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = depth.clamp(0, 255) as u64;
    let flags = (bound as u8 | (generation << 2)) as u64;
    mv.bits() as u64 | score << 16 | depth << 32 | flags << 40
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
pub const MAX_HASH_MB: usize = 4096;

impl TranspositionTable {
    /// A table of about `megabytes` MB (clamped to 1..=MAX_HASH_MB; if the memory cannot be
    /// had, smaller sizes are tried).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let mut mb = megabytes.clamp(1, MAX_HASH_MB);
        loop {
            let count = mb * 1024 * 1024 / std::mem::size_of::<Entry>();
            let mut entries: Vec<Entry> = Vec::new();
            if entries.try_reserve_exact(count).is_ok() {
                drop(entries);
                // `vec!` of zeros allocates zeroed memory without touching it.
                return TranspositionTable {
                    entries: vec![[0u64; 2]; count],
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
        // A fresh zeroed allocation is cheaper than writing every slot of a big table.
        let count = self.entries.len();
        self.entries = Vec::new();
        self.entries = vec![[0u64; 2]; count];
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
        let [stored_key, data] = self.entries[self.index(key)];
        let bound = match (data >> 40) & 3 {
            0 => return None,
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        if stored_key != key {
            return None;
        }
        Some(Hit {
            mv: Move::from_bits(data as u16),
            score: (data >> 16) as u16 as i16 as i32,
            depth: ((data >> 32) & 255) as i32,
            bound,
        })
    }

    #[inline]
    pub fn store(&mut self, key: u64, mv: Move, score: i32, depth: i32, bound: Bound) {
        let generation = self.generation;
        let i = self.index(key);
        let [old_key, old] = self.entries[i];
        // Replace unless the slot holds a deeper result of this search for another position.
        let same = old_key == key;
        let stale = ((old >> 42) & 63) as u8 != generation;
        if !same && !stale && ((old >> 32) & 255) as i32 > depth + 2 {
            return;
        }
        let mv = if mv.is_none() && same {
            Move::from_bits(old as u16)
        } else {
            mv
        };
        self.entries[i] = [key, pack(mv, score, depth, bound, generation)];
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
