//! Hashed, multi-threaded perft (`kestrel perft N --hash MB --threads T`).
//!
//! The same count as the plain perft, found faster: the leaf count under a position at a given
//! depth is kept in a table shared by all threads, so a subtree reached again by another move
//! order is counted once.
//!
//! The table is an array of 64-byte buckets of four entries. An entry is two words: the key
//! XOR the data, and the data (the count in the high 48 bits, then 8 check bits, then the
//! depth in the low 8). A reader accepts an entry only if the two words it loaded XOR to
//! the key it looks for and the depth and check bits are the ones it asks for, so a read
//! that races with a write (a torn entry) is rejected, and counts of different depths never
//! mix. The check bits come from a second hash of the position, independent of the Zobrist
//! key: two positions that share a key are then told apart 255 times in 256. A new entry
//! replaces the one of the bucket with the smallest count: the table keeps the counts that
//! save the most work.
//!
//! The table's memory is asked for as huge pages before it is first touched: a probe is
//! then one cache miss rather than a cache miss and a page-table walk.
//!
//! Depth 1 is bulk-counted (the legal moves are counted, not played) and never goes through
//! the table; every node of depth 2 or more is probed and stored.
//!
//! Threads: the tree is expanded from the root, ply by ply, until there are enough positions
//! to share out (64 per thread) or expanding further would leave little below them; the
//! threads then take these positions one at a time through an atomic index and count under
//! each, all sharing the table.

use super::plain;
use crate::chess::{Color, Move, MoveList, Position, Role};
use crate::memory::{bucket_of, Words};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

const BUCKET_ENTRIES: usize = 4;
/// Words per bucket: (key ^ data, data) per entry.
const BUCKET_WORDS: usize = 2 * BUCKET_ENTRIES;
const BUCKET_BYTES: usize = BUCKET_WORDS * 8;

const DEPTH_BITS: u32 = 8;
const MAX_DEPTH: u32 = (1 << DEPTH_BITS) - 1;
/// Depth and check bits: the low bits of the data word.
const TAG_BITS: u32 = 16;
const TAG_MASK: u64 = (1 << TAG_BITS) - 1;
/// Counts above this (2^48 - 1) do not fit in an entry and are not stored.
pub const MAX_STORED_COUNT: u64 = u64::MAX >> TAG_BITS;

/// Refuse absurd sizes: this many megabytes at most.
pub const MAX_HASH_MB: usize = 65536;

/// What an entry is looked up by: the Zobrist key, and a tag of the depth and 8 bits of a
/// second hash of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryKey {
    key: u64,
    tag: u64,
}

impl EntryKey {
    /// The entry of `pos` at `depth` (1 to 255).
    #[inline(always)]
    pub fn new(pos: &Position, depth: u32) -> EntryKey {
        EntryKey::from_parts(pos.key(), (placement_hash(pos) >> 56) as u8, depth)
    }

    /// From a Zobrist key, check bits and a depth (1 to 255): for tests.
    #[inline(always)]
    pub fn from_parts(key: u64, check: u8, depth: u32) -> EntryKey {
        debug_assert!((1..=MAX_DEPTH).contains(&depth));
        EntryKey {
            key,
            tag: (check as u64) << DEPTH_BITS | depth as u64,
        }
    }
}

/// A hash of where the pieces stand, independent of the Zobrist key (multiply-rotate over
/// the bitboards that fix the placement; the kings are the occupied squares left over).
#[inline(always)]
fn placement_hash(pos: &Position) -> u64 {
    const MUL: u64 = 0x9FB2_1C65_1E98_DF25;
    let words = [
        pos.occupied().0,
        pos.color_bb(Color::White).0,
        pos.role_bb(Role::Pawn).0,
        pos.role_bb(Role::Knight).0,
        pos.role_bb(Role::Bishop).0,
        pos.role_bb(Role::Rook).0,
        pos.role_bb(Role::Queen).0,
    ];
    let mut h: u64 = 0x243F_6A88_85A3_08D3;
    for w in words {
        h = (h ^ w).wrapping_mul(MUL).rotate_left(29);
    }
    (h ^ h >> 32).wrapping_mul(MUL)
}

#[inline(always)]
fn pack(k: EntryKey, count: u64) -> u64 {
    debug_assert!(count <= MAX_STORED_COUNT);
    count << TAG_BITS | k.tag
}

/// Leaf counts by (key, depth), shared by any number of threads without locks.
pub struct PerftTable {
    words: Words,
    buckets: usize,
}

impl PerftTable {
    /// A table of about `megabytes` MB (at least 1; if the memory cannot be had, smaller
    /// sizes are tried).
    pub fn new(megabytes: usize) -> PerftTable {
        let mut mb = megabytes.clamp(1, MAX_HASH_MB);
        loop {
            if let Some(table) = PerftTable::try_with_buckets(mb * 1024 * 1024 / BUCKET_BYTES) {
                return table;
            }
            if mb == 1 {
                panic!("cannot allocate even 1 MB for the perft table");
            }
            mb /= 2;
        }
    }

    /// A table of `buckets` buckets of four entries (at least one): tiny tables for tests.
    pub fn with_buckets(buckets: usize) -> PerftTable {
        PerftTable::try_with_buckets(buckets.max(1)).expect("a small table can be allocated")
    }

    fn try_with_buckets(buckets: usize) -> Option<PerftTable> {
        let words = Words::zeroed(buckets.checked_mul(BUCKET_WORDS)?)?;
        Some(PerftTable { words, buckets })
    }

    /// Empties the table (a table must be emptied before it serves another game's
    /// positions: in Chess960 the same castling rights may belong to other rooks).
    pub fn clear(&self) {
        self.words.clear();
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets * BUCKET_BYTES
    }

    /// Size in whole megabytes.
    pub fn megabytes(&self) -> usize {
        self.bytes() / (1024 * 1024)
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

    /// The stored count of the entry `k`, if there is one.
    #[inline]
    pub fn probe(&self, k: EntryKey) -> Option<u64> {
        let base = self.bucket(k.key);
        for e in 0..BUCKET_ENTRIES {
            let check = self.words[base + 2 * e].load(Relaxed);
            let data = self.words[base + 2 * e + 1].load(Relaxed);
            if check ^ data == k.key && data & TAG_MASK == k.tag {
                return Some(data >> TAG_BITS);
            }
        }
        None
    }

    /// Stores the count of the entry `k` (a count too big for an entry is not stored).
    #[inline]
    pub fn store(&self, k: EntryKey, count: u64) {
        if count > MAX_STORED_COUNT {
            return;
        }
        let base = self.bucket(k.key);
        // The smallest count goes (an empty entry counts as 0).
        let mut slot = 0;
        let mut smallest = u64::MAX;
        for e in 0..BUCKET_ENTRIES {
            let check = self.words[base + 2 * e].load(Relaxed);
            let data = self.words[base + 2 * e + 1].load(Relaxed);
            if check ^ data == k.key && data & TAG_MASK == k.tag {
                return; // already there (another thread counted it too)
            }
            let count = data >> TAG_BITS;
            if count < smallest {
                smallest = count;
                slot = e;
            }
        }
        let data = pack(k, count);
        self.words[base + 2 * slot].store(k.key ^ data, Relaxed);
        self.words[base + 2 * slot + 1].store(data, Relaxed);
    }
}

/// Table use by one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    pub probes: u64,
    pub hits: u64,
}

impl TableStats {
    fn add(&mut self, other: TableStats) {
        self.probes += other.probes;
        self.hits += other.hits;
    }

    /// Hits per probe, from 0 to 1 (0 without probes).
    pub fn hit_rate(&self) -> f64 {
        if self.probes == 0 {
            0.0
        } else {
            self.hits as f64 / self.probes as f64
        }
    }
}

/// The result of `perft`.
#[derive(Clone, Debug)]
pub struct PerftReport {
    pub nodes: u64,
    /// The count under each root move, in the order the generator gives them.
    pub divide: Vec<(Move, u64)>,
    pub stats: TableStats,
}

/// Leaf nodes at `depth` (at most 255) plies below `pos`, through the table.
fn hashed(pos: &Position, depth: u32, table: &PerftTable, stats: &mut TableStats) -> u64 {
    match depth {
        0 => return 1,
        1 => return pos.count_legal_moves(),
        _ => {}
    }
    let k = EntryKey::new(pos, depth);
    stats.probes += 1;
    if let Some(count) = table.probe(k) {
        stats.hits += 1;
        return count;
    }
    let mut moves = MoveList::new();
    pos.generate::<_, true, true>(&mut moves);
    let mut nodes = 0;
    if depth == 2 {
        for &mv in moves.iter() {
            nodes += pos.after(mv).count_legal_moves();
        }
    } else if let Some((&first, rest)) = moves.split_first() {
        // Each child is made, and its bucket fetched, while the one before is counted.
        let mut child = pos.after(first);
        table.prefetch(child.key());
        for &mv in rest {
            let next = pos.after(mv);
            table.prefetch(next.key());
            nodes += hashed(&child, depth - 1, table, stats);
            child = next;
        }
        nodes += hashed(&child, depth - 1, table, stats);
    }
    table.store(k, nodes);
    nodes
}

/// Work items per thread wanted before the tree stops being expanded.
const ITEMS_PER_THREAD: usize = 64;
/// The tree is not expanded to where less than this depth would be left under each item.
const MIN_ITEM_DEPTH: u32 = 3;

struct Item {
    /// Index of the root move this position is under.
    root: usize,
    pos: Position,
}

/// perft of `pos` to `depth` with `threads` threads (at least 1) and, if given, a table
/// (not used beyond depth 255, which entries cannot hold). The counts are exact whatever
/// the table's size.
pub fn perft(
    pos: &Position,
    depth: u32,
    table: Option<&PerftTable>,
    threads: usize,
) -> PerftReport {
    let threads = threads.max(1);
    let table = table.filter(|_| depth <= MAX_DEPTH);
    let roots = pos.legal_moves();
    if depth == 0 {
        return PerftReport {
            nodes: 1,
            divide: Vec::new(),
            stats: TableStats::default(),
        };
    }
    let mut items: Vec<Item> = roots
        .iter()
        .enumerate()
        .map(|(root, &mv)| Item {
            root,
            pos: pos.after(mv),
        })
        .collect();
    let mut left = depth - 1;
    while items.len() < ITEMS_PER_THREAD * threads && left > MIN_ITEM_DEPTH {
        let mut next = Vec::with_capacity(items.len() * 32);
        for item in &items {
            for &mv in item.pos.legal_moves().iter() {
                next.push(Item {
                    root: item.root,
                    pos: item.pos.after(mv),
                });
            }
        }
        items = next;
        left -= 1;
    }

    let next = AtomicUsize::new(0);
    let work = || {
        let mut counts = vec![0u64; roots.len()];
        let mut stats = TableStats::default();
        while let Some(item) = items.get(next.fetch_add(1, Relaxed)) {
            counts[item.root] += match table {
                Some(table) => hashed(&item.pos, left, table, &mut stats),
                None => plain::perft(&item.pos, left),
            };
        }
        (counts, stats)
    };
    let results: Vec<(Vec<u64>, TableStats)> = if threads == 1 {
        vec![work()]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a perft thread panicked"))
                .collect()
        })
    };

    let mut counts = vec![0u64; roots.len()];
    let mut stats = TableStats::default();
    for (c, s) in results {
        for (total, n) in counts.iter_mut().zip(c) {
            *total += n;
        }
        stats.add(s);
    }
    let divide: Vec<(Move, u64)> = roots.iter().copied().zip(counts).collect();
    PerftReport {
        nodes: divide.iter().map(|&(_, n)| n).sum(),
        divide,
        stats,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

    #[test]
    fn a_table_of_one_bucket_still_counts_exactly() {
        let pos = Position::from_fen(KIWIPETE).unwrap();
        let table = PerftTable::with_buckets(1);
        assert_eq!(table.bytes(), 64);
        let report = perft(&pos, 4, Some(&table), 1);
        assert_eq!(report.nodes, 4_085_603);
        assert!(report.stats.probes > 0, "{:?}", report.stats);
        // And two threads fighting over it.
        let table = PerftTable::with_buckets(2);
        assert_eq!(perft(&pos, 4, Some(&table), 2).nodes, 4_085_603);
        let start = Position::startpos();
        assert_eq!(perft(&start, 5, Some(&table), 2).nodes, 4_865_609);
    }

    #[test]
    fn a_table_of_some_size_is_used() {
        // Transpositions take three plies, so the depth-2 nodes of perft 5 have them.
        let table = PerftTable::with_buckets(1024);
        let report = perft(&Position::startpos(), 5, Some(&table), 1);
        assert_eq!(report.nodes, 4_865_609);
        assert!(
            report.stats.hits * 10 > report.stats.probes,
            "{:?}",
            report.stats
        );
    }

    /// An entry key with fixed check bits.
    fn k(key: u64, depth: u32) -> EntryKey {
        EntryKey::from_parts(key, 0x5A, depth)
    }

    #[test]
    fn counts_of_other_depths_and_check_bits_are_not_taken() {
        let table = PerftTable::with_buckets(1);
        table.store(k(0x1234, 3), 8902);
        assert_eq!(table.probe(k(0x1234, 3)), Some(8902));
        assert_eq!(table.probe(k(0x1234, 2)), None);
        assert_eq!(table.probe(k(0x1234, 4)), None);
        assert_eq!(table.probe(k(0x1235, 3)), None);
        // The same key and depth with other check bits: another position.
        assert_eq!(table.probe(EntryKey::from_parts(0x1234, 0x5B, 3)), None);
        assert_eq!(table.probe(EntryKey::from_parts(0x1234, 0xA5, 3)), None);
    }

    #[test]
    fn check_bits_are_spread_over_positions() {
        let mut seen = [0u32; 256];
        let start = Position::startpos();
        for &a in start.legal_moves().iter() {
            let p1 = start.after(a);
            for &b in p1.legal_moves().iter() {
                let p2 = p1.after(b);
                for &c in p2.legal_moves().iter() {
                    let tag = EntryKey::new(&p2.after(c), 2).tag;
                    seen[(tag >> DEPTH_BITS) as usize] += 1;
                }
            }
        }
        // 8902 positions (5362 different) over 256 values: about 35 each if spread.
        let used = seen.iter().filter(|&&n| n > 0).count();
        let most = *seen.iter().max().unwrap();
        assert!(
            used > 240 && most < 100,
            "{used} values used, at most {most}"
        );
    }

    #[test]
    fn a_torn_entry_is_rejected() {
        // What two writers leave in the first entry of a one-bucket table, each alone.
        let (a, b) = (0xAAAA_0000_0000_0001, 0xBBBB_0000_0000_0002);
        let written = |key, count| {
            let table = PerftTable::with_buckets(1);
            table.store(k(key, 2), count);
            assert_eq!(table.probe(k(key, 2)), Some(count));
            (table.words[0].load(Relaxed), table.words[1].load(Relaxed))
        };
        let (a0, a1) = written(a, 400);
        let (b0, b1) = written(b, 500);
        // Their writes interleaved: one word from each. Neither key may find anything.
        let table = PerftTable::with_buckets(1);
        for (w0, w1) in [(a0, b1), (b0, a1)] {
            table.words[0].store(w0, Relaxed);
            table.words[1].store(w1, Relaxed);
            assert_eq!(table.probe(k(a, 2)), None);
            assert_eq!(table.probe(k(b, 2)), None);
        }
        // Whole again, it is found.
        table.words[1].store(b1, Relaxed);
        assert_eq!(table.probe(k(b, 2)), Some(500));
    }

    #[test]
    fn the_smallest_count_is_replaced() {
        let table = PerftTable::with_buckets(1);
        for (key, count) in [(1, 50), (2, 10), (3, 70), (4, 30)] {
            table.store(k(key, 2), count);
        }
        table.store(k(5, 2), 20);
        assert_eq!(table.probe(k(2, 2)), None);
        for (key, count) in [(1, 50), (3, 70), (4, 30), (5, 20)] {
            assert_eq!(table.probe(k(key, 2)), Some(count));
        }
        // Too big for an entry: not stored, nothing lost.
        table.store(k(6, 2), MAX_STORED_COUNT + 1);
        assert_eq!(table.probe(k(6, 2)), None);
        assert_eq!(table.probe(k(5, 2)), Some(20));
        table.clear();
        assert_eq!(table.probe(k(5, 2)), None);
    }

    #[test]
    fn threads_without_a_table_and_divide() {
        let pos = Position::from_fen(KIWIPETE).unwrap();
        let report = perft(&pos, 3, None, 2);
        assert_eq!(report.nodes, 97_862);
        assert_eq!(report.stats, TableStats::default());
        let expected = plain::divide(&pos, 3);
        assert_eq!(report.divide, expected);
        let table = PerftTable::with_buckets(16);
        for depth in 1..=4 {
            let report = perft(&pos, depth, Some(&table), 2);
            assert_eq!(report.divide, plain::divide(&pos, depth), "depth {depth}");
        }
    }
}
