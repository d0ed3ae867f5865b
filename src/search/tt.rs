//! The transposition table: search results keyed by Zobrist key, shared by every search
//! thread without locks.
//!
//! The table is an array of 64-byte buckets of four entries. An entry is two words: the key
//! XOR the data, and the data (move 16 bits, score 16, depth 8 stored plus one so that the
//! quiescence search's depth -1 fits, bound 2, generation 6, static evaluation 16). A reader
//! accepts an entry only if the two words it loaded XOR to the key it looks for, so a read
//! that races with a write (a torn entry) is rejected instead of giving one position's data
//! to another.

use crate::chess::Move;
use crate::memory::{bucket_of, Words};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

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

const BUCKET_ENTRIES: usize = 4;
/// Words per bucket: (key ^ data, data) per entry.
const BUCKET_WORDS: usize = 2 * BUCKET_ENTRIES;
const BUCKET_BYTES: usize = BUCKET_WORDS * 8;

/// Added to a depth to store it: depths from -1 (the quiescence search without checks) up.
const DEPTH_OFFSET: i32 = 1;

#[inline(always)]
fn pack(mv: Move, score: i32, depth: i32, bound: Bound, generation: u8, eval: i32) -> u64 {
    let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let eval = eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = (depth + DEPTH_OFFSET).clamp(0, 255) as u64;
    let flags = (bound as u8 | (generation << 2)) as u64;
    mv.bits() as u64 | score << 16 | depth << 32 | flags << 40 | eval << 48
}

#[inline(always)]
fn depth_of(data: u64) -> i32 {
    ((data >> 32) & 255) as i32 - DEPTH_OFFSET
}

#[inline(always)]
fn generation_of(data: u64) -> u8 {
    ((data >> 42) & 63) as u8
}

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub mv: Move,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
    /// The static evaluation stored with it (`NO_EVAL` if none was).
    pub eval: i32,
    /// The search that stored it (`TranspositionTable::generation`).
    pub generation: u8,
}

/// Stored for "no static evaluation" (the position was in check).
pub const NO_EVAL: i32 = i16::MIN as i32;

pub struct TranspositionTable {
    words: Words,
    buckets: usize,
    generation: AtomicU64,
    /// Something may have been stored since the table was made or last cleared: a table
    /// that is still all zeros needs no clearing.
    used: AtomicBool,
}

pub const DEFAULT_HASH_MB: usize = 64;
/// The largest table offered: 1 TB, beyond the testers' biggest machines. What a machine
/// can really give is checked when the table is made (`Searcher::set_hash_mb`).
pub const MAX_HASH_MB: usize = 1 << 20;

impl TranspositionTable {
    /// A table of about `megabytes` MB (clamped to 1..=MAX_HASH_MB; if the memory cannot be
    /// had, smaller sizes are tried).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let mut mb = megabytes.clamp(1, MAX_HASH_MB);
        loop {
            if let Some(table) = TranspositionTable::try_new(mb) {
                return table;
            }
            if mb == 1 {
                panic!("cannot allocate even 1 MB for the transposition table");
            }
            mb /= 2;
        }
    }

    /// A table of `megabytes` MB (clamped to 1..=MAX_HASH_MB), or None if the memory cannot
    /// be had.
    pub fn try_new(megabytes: usize) -> Option<TranspositionTable> {
        let buckets = megabytes.clamp(1, MAX_HASH_MB) * 1024 * 1024 / BUCKET_BYTES;
        Some(TranspositionTable {
            words: Words::zeroed(buckets * BUCKET_WORDS)?,
            buckets,
            generation: AtomicU64::new(0),
            used: AtomicBool::new(false),
        })
    }

    /// Size in whole megabytes.
    pub fn megabytes(&self) -> usize {
        self.buckets * BUCKET_BYTES / (1024 * 1024)
    }

    /// Forgets every entry, in place (see `Words::clear`).
    pub fn clear(&self) {
        // As after a fresh allocation, so that a search from a cleared table is the same.
        self.generation.store(0, Relaxed);
        if self.used.swap(false, Relaxed) {
            self.words.clear();
        }
    }

    /// The words are about to be written other than by `store`.
    pub fn mark_used(&self) {
        self.used.store(true, Relaxed);
    }

    /// Start of a new search: older entries become preferred for replacement.
    pub fn new_search(&self) {
        let next = (self.generation.load(Relaxed) + 1) & 63;
        self.generation.store(next, Relaxed);
    }

    /// The search under way, as entries record it (`Hit::generation`).
    pub fn generation(&self) -> u8 {
        self.generation.load(Relaxed) as u8
    }

    /// Permille of the entries sampled that this search wrote (UCI `hashfull`).
    pub fn hashfull(&self) -> usize {
        let generation = self.generation();
        let sample = self.buckets.min(250);
        let mut used = 0;
        for bucket in 0..sample {
            for e in 0..BUCKET_ENTRIES {
                let data = self.words[bucket * BUCKET_WORDS + 2 * e + 1].load(Relaxed);
                used += (data != 0 && generation_of(data) == generation) as usize;
            }
        }
        used * 1000 / (sample * BUCKET_ENTRIES)
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> usize {
        bucket_of(key, self.buckets) * BUCKET_WORDS
    }

    /// Asks the processor to fetch the bucket of `key` now, to be probed soon.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        self.words.prefetch(self.bucket(key));
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<Hit> {
        let base = self.bucket(key);
        for e in 0..BUCKET_ENTRIES {
            let check = self.words[base + 2 * e].load(Relaxed);
            let data = self.words[base + 2 * e + 1].load(Relaxed);
            if data == 0 || check ^ data != key {
                continue;
            }
            let bound = match (data >> 40) & 3 {
                0 => Bound::None,
                1 => Bound::Upper,
                2 => Bound::Lower,
                _ => Bound::Exact,
            };
            return Some(Hit {
                mv: Move::from_bits(data as u16),
                score: (data >> 16) as u16 as i16 as i32,
                depth: depth_of(data),
                bound,
                eval: (data >> 48) as u16 as i16 as i32,
                generation: generation_of(data),
            });
        }
        None
    }

    /// Stores a result. `mv` may be `Move::NONE` (a fail-low proves no move best): the move
    /// already stored for the position is then kept.
    #[inline]
    pub fn store(&self, key: u64, mv: Move, score: i32, depth: i32, bound: Bound, eval: i32) {
        // Read first: the flag's cache line stays shared between the threads.
        if !self.used.load(Relaxed) {
            self.mark_used();
        }
        let generation = self.generation();
        let base = self.bucket(key);
        // The entry of this position if there is one, else the least worth keeping: the
        // shallowest, counting each search of age as eight plies of depth.
        let mut slot = 0;
        let mut slot_worth = i32::MAX;
        let mut same = None;
        for e in 0..BUCKET_ENTRIES {
            let check = self.words[base + 2 * e].load(Relaxed);
            let data = self.words[base + 2 * e + 1].load(Relaxed);
            if data != 0 && check ^ data == key {
                same = Some((e, data));
                break;
            }
            let age = (generation.wrapping_sub(generation_of(data)) & 63) as i32;
            let worth = if data == 0 {
                i32::MIN
            } else {
                depth_of(data) - 8 * age
            };
            if worth < slot_worth {
                slot_worth = worth;
                slot = e;
            }
        }
        let mut mv = mv;
        if let Some((e, old)) = same {
            // Keep a deeper result of this search unless the new one is exact.
            if generation_of(old) == generation
                && bound != Bound::Exact
                && depth_of(old) > depth + 2
            {
                return;
            }
            if mv.is_none() {
                mv = Move::from_bits(old as u16);
            }
            slot = e;
        }
        let data = pack(mv, score, depth, bound, generation, eval);
        self.words[base + 2 * slot].store(key ^ data, Relaxed);
        self.words[base + 2 * slot + 1].store(data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Square;

    #[test]
    fn stores_and_finds() {
        let tt = TranspositionTable::new(1);
        let mv = Move::normal(Square::E1, Square::E8);
        tt.store(0xDEAD_BEEF, mv, -123, 7, Bound::Lower, 45);
        let hit = tt.probe(0xDEAD_BEEF).unwrap();
        assert_eq!(
            (hit.mv, hit.score, hit.depth, hit.bound, hit.eval),
            (mv, -123, 7, Bound::Lower, 45)
        );
        assert!(tt.probe(0xDEAD_BEEE).is_none());
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF).is_none());
    }

    #[test]
    fn an_unused_table_is_not_cleared_again() {
        let tt = TranspositionTable::new(1);
        // Written behind the table's back (as only a test does): not known to be used, so
        // `clear` leaves it; `store` or `mark_used` makes `clear` zero it.
        tt.words[5].store(7, Relaxed);
        tt.clear();
        assert_eq!(tt.words[5].load(Relaxed), 7);
        tt.mark_used();
        tt.clear();
        assert_eq!(tt.words[5].load(Relaxed), 0);
    }

    #[test]
    fn absurd_sizes_are_clamped() {
        assert_eq!(TranspositionTable::new(0).megabytes(), 1);
        assert_eq!(TranspositionTable::try_new(0).unwrap().megabytes(), 1);
    }

    #[test]
    fn a_fail_low_keeps_the_stored_move() {
        let tt = TranspositionTable::new(1);
        let mv = Move::normal(Square::E1, Square::E8);
        tt.store(42, mv, 10, 5, Bound::Lower, 0);
        tt.store(42, Move::NONE, -20, 6, Bound::Upper, 0);
        let hit = tt.probe(42).unwrap();
        assert_eq!((hit.mv, hit.score, hit.bound), (mv, -20, Bound::Upper));
    }

    #[test]
    fn a_deeper_result_of_this_search_is_kept() {
        let tt = TranspositionTable::new(1);
        let mv = Move::normal(Square::E1, Square::E8);
        tt.store(42, mv, 10, 12, Bound::Lower, 0);
        tt.store(42, Move::NONE, -20, 0, Bound::Upper, 0);
        assert_eq!(tt.probe(42).unwrap().depth, 12);
        // ... but not one of an earlier search.
        tt.new_search();
        tt.store(42, Move::NONE, -20, 0, Bound::Upper, 0);
        assert_eq!(tt.probe(42).unwrap().depth, 0);
    }

    #[test]
    fn a_bucket_holds_four_positions_and_then_evicts_the_shallowest() {
        let tt = TranspositionTable::new(1);
        // Keys that land in one bucket: the same high bits.
        let keys: Vec<u64> = (0..5).map(|i| (7u64 << 52) | i).collect();
        for (i, &k) in keys[..4].iter().enumerate() {
            tt.store(k, Move::NONE, 0, 10 - i as i32, Bound::Exact, 0);
        }
        assert!(keys[..4].iter().all(|&k| tt.probe(k).is_some()));
        tt.store(keys[4], Move::NONE, 0, 20, Bound::Exact, 0);
        assert!(tt.probe(keys[4]).is_some());
        assert!(tt.probe(keys[3]).is_none(), "the shallowest gives way");
        assert!(keys[..3].iter().all(|&k| tt.probe(k).is_some()));
    }

    /// Threads hammering the same few buckets never read one position's data under another
    /// position's key: every entry's data names its own key.
    #[test]
    fn shared_table_never_returns_a_torn_entry() {
        use std::sync::Arc;
        let tt = Arc::new(TranspositionTable::new(1));
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let tt = Arc::clone(&tt);
                std::thread::spawn(move || {
                    let mut bad = 0;
                    for i in 0..200_000u64 {
                        let key = (3u64 << 56) | ((i * 7 + t) % 16);
                        // The stored score and eval are functions of the key.
                        let tag = (key & 0xFF) as i32;
                        tt.store(key, Move::NONE, tag, (i % 30) as i32, Bound::Exact, -tag);
                        let probe = (3u64 << 56) | ((i * 13 + t) % 16);
                        if let Some(hit) = tt.probe(probe) {
                            let want = (probe & 0xFF) as i32;
                            bad += (hit.score != want || hit.eval != -want) as u32;
                        }
                    }
                    bad
                })
            })
            .collect();
        let bad: u32 = threads.into_iter().map(|t| t.join().unwrap()).sum();
        assert_eq!(bad, 0);
    }
}
