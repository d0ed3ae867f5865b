//! The transposition table: search results keyed by Zobrist key, shared by every search
//! thread without locks.
//!
//! The table is an array of 64-byte buckets of four entries. An entry is two words: the key
//! XOR the data, and the data (move 16 bits, score 16, depth 8, bound 2, generation 6, static
//! evaluation 16). A reader accepts an entry only if the two words it loaded XOR to the key
//! it looks for, so a read that races with a write (a torn entry) is rejected instead of
//! giving one position's data to another.

use crate::chess::Move;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

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

#[inline(always)]
fn pack(mv: Move, score: i32, depth: i32, bound: Bound, generation: u8, eval: i32) -> u64 {
    let score = score.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let eval = eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16 as u64;
    let depth = depth.clamp(0, 255) as u64;
    let flags = (bound as u8 | (generation << 2)) as u64;
    mv.bits() as u64 | score << 16 | depth << 32 | flags << 40 | eval << 48
}

#[inline(always)]
fn depth_of(data: u64) -> i32 {
    ((data >> 32) & 255) as i32
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
/// Refuse absurd sizes (`memory 100000`): this many megabytes at most.
pub const MAX_HASH_MB: usize = 4096;

/// Tables are aligned to 2 MB so the OS can back them with huge pages: a probe then costs
/// one cache miss instead of a cache miss and a page-table walk.
const TABLE_ALIGN: usize = 2 * 1024 * 1024;

/// The table's memory: zeroed words, aligned for huge pages, freed the way they were
/// allocated. Also the memory of the perft table (`crate::hashperft`).
pub(crate) struct Words {
    ptr: std::ptr::NonNull<AtomicU64>,
    layout: std::alloc::Layout,
    /// A big table is mapped from the OS (zero pages, faulted in on first touch), and a
    /// background thread faults its pages in ahead of the search.
    mapped: Option<Prefault>,
}

/// The thread that faults a mapped table's pages in, and its stop flag.
struct Prefault {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

// SAFETY: the words are atomics, which any thread may read and write through `&`.
unsafe impl Send for Words {}
unsafe impl Sync for Words {}

/// The first word of `key`'s bucket in a table of `buckets` 64-byte buckets: the key is
/// mapped onto the table without a division (Lemire's multiply-shift).
#[inline(always)]
pub(crate) fn bucket_start(key: u64, buckets: usize) -> usize {
    ((key as u128 * buckets as u128) >> 64) as usize * BUCKET_WORDS
}

impl Words {
    /// Asks the processor to fetch the cache line of word `index` now, to be read soon.
    #[inline(always)]
    pub(crate) fn prefetch(&self, index: usize) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch is only a hint, and callers pass an index inside the table.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.as_ptr().add(index) as *const i8);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = index;
    }

    /// Sets every word to zero, in place. Writing zeros over pages already touched costs a
    /// few milliseconds per 64 MB; a fresh allocation would cost nothing here but make the
    /// next search take a page fault for each page it reaches (a quarter of the time of a
    /// 0.2 s search with 64 MB). Large tables are written by several threads.
    pub(crate) fn clear(&self) {
        split_across_cores(self.len(), ZEROING_RUN_BYTES / 8, |run| {
            for word in &self[run] {
                word.store(0, Relaxed);
            }
        });
    }

    /// `count` zeroed words, or None if the memory cannot be had. The huge-page advice
    /// comes before the pages are first touched (`alloc_zeroed` at this alignment would
    /// write its zeros first, faulting every page in small), so they are faulted in as huge
    /// pages where the OS has them: random probes of a big table cost less (the perft
    /// table: about 30% less time for perft 7 with 1 GB; the search: about 2% more nodes
    /// in WAC at 0.2 s a position with 64 MB), for more time spent here (the OS may compact
    /// memory to find huge pages).
    ///
    /// Tables of `MAPPED_BYTES` or more are mapped from the OS instead (on Linux): their
    /// pages read as zeros until first touched, so the table is there at once, and a
    /// background thread faults them in (as huge pages where the OS has them) without
    /// changing what the search may have written meanwhile. `memory 4096` then answers the
    /// next `ping` in milliseconds instead of the seconds that touching 4 GB takes.
    pub(crate) fn zeroed(count: usize) -> Option<Words> {
        let bytes = count.checked_mul(8)?;
        let layout = std::alloc::Layout::from_size_align(bytes, TABLE_ALIGN).ok()?;
        if bytes >= MAPPED_BYTES {
            if let Some(words) = Words::mapped(layout) {
                return Some(words);
            }
        }
        // SAFETY: the layout has a non-zero size (count >= 1).
        let ptr = unsafe { std::alloc::alloc(layout) } as *mut AtomicU64;
        let ptr = std::ptr::NonNull::new(ptr)?;
        advise_huge_pages(ptr.as_ptr() as *mut u8, bytes);
        // The first write faults each page in, and the OS zeroes it then: for a big table
        // that is most of the time taken here (4 GB: seconds), so large tables are written
        // by several threads, each over whole huge pages.
        let start = ptr.as_ptr() as usize;
        split_across_cores(bytes, ZEROING_RUN_BYTES, |run| {
            // SAFETY: `run` lies inside the allocation, and zero bytes are valid atomics.
            unsafe { std::ptr::write_bytes((start + run.start) as *mut u8, 0, run.len()) }
        });
        Some(Words {
            ptr,
            layout,
            mapped: None,
        })
    }

    #[cfg(target_os = "linux")]
    fn mapped(layout: std::alloc::Layout) -> Option<Words> {
        let bytes = layout.size();
        // SAFETY: an anonymous private mapping of `bytes` bytes, checked for failure.
        let ptr = unsafe {
            os::mmap(
                std::ptr::null_mut(),
                bytes,
                os::PROT_READ_WRITE,
                os::MAP_PRIVATE_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr as isize == -1 || ptr.is_null() || !(ptr as usize).is_multiple_of(8) {
            return None;
        }
        let ptr = std::ptr::NonNull::new(ptr as *mut AtomicU64)?;
        advise_huge_pages(ptr.as_ptr() as *mut u8, bytes);
        let stop = Arc::new(AtomicBool::new(false));
        let start = ptr.as_ptr() as usize;
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("hash-prefault".into())
                .spawn(move || {
                    let mut at = 0;
                    while at < bytes && !stop.load(Relaxed) {
                        let len = PREFAULT_CHUNK.min(bytes - at);
                        // SAFETY: the range lies inside the mapping, which outlives this
                        // thread (`Drop` stops and joins it before unmapping). Populating
                        // keeps the contents of pages already written.
                        let ok = unsafe {
                            os::madvise((start + at) as *mut u8, len, os::MADV_POPULATE_WRITE)
                        } == 0;
                        if !ok {
                            break; // an older kernel: the search faults the pages in
                        }
                        at += len;
                    }
                })
                .ok()
        };
        Some(Words {
            ptr,
            layout,
            mapped: Some(Prefault { stop, thread }),
        })
    }

    #[cfg(not(target_os = "linux"))]
    fn mapped(_layout: std::alloc::Layout) -> Option<Words> {
        None
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];
    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: the allocation holds `layout.size() / 8` initialised (zeroed) atomics.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.layout.size() / 8) }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        match self.mapped.take() {
            None => {
                // SAFETY: allocated in `zeroed` with this very layout.
                unsafe { std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, self.layout) }
            }
            #[allow(unused_mut)]
            Some(mut prefault) => {
                prefault.stop.store(true, Relaxed);
                if let Some(thread) = prefault.thread.take() {
                    let _ = thread.join();
                }
                #[cfg(target_os = "linux")]
                // SAFETY: mapped in `Words::mapped` with this size; nothing uses it now.
                unsafe {
                    os::munmap(self.ptr.as_ptr() as *mut u8, self.layout.size());
                }
            }
        }
    }
}

/// Tables of this size or more are mapped from the OS and faulted in in the background.
const MAPPED_BYTES: usize = 256 * 1024 * 1024;

/// The background thread faults a mapped table in this much at a time, and checks between
/// chunks whether the table is being let go.
const PREFAULT_CHUNK: usize = 32 * 1024 * 1024;

/// The few system calls the tables use (Linux).
#[cfg(target_os = "linux")]
mod os {
    extern "C" {
        pub fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
        pub fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64)
            -> *mut u8;
        pub fn munmap(addr: *mut u8, len: usize) -> i32;
    }
    pub const MADV_HUGEPAGE: i32 = 14;
    /// Fault the range in, writable, keeping its contents (Linux 5.14 and later).
    pub const MADV_POPULATE_WRITE: i32 = 23;
    /// PROT_READ | PROT_WRITE.
    pub const PROT_READ_WRITE: i32 = 0x1 | 0x2;
    /// MAP_PRIVATE | MAP_ANONYMOUS.
    pub const MAP_PRIVATE_ANONYMOUS: i32 = 0x02 | 0x20;
}

#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    // SAFETY: the range is one live allocation; the advice is only a hint (failure is fine).
    unsafe {
        os::madvise(ptr, bytes, os::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}

/// Tables up to this size are zeroed by one thread; larger ones in runs of (a multiple of)
/// this size, one thread each. A multiple of `TABLE_ALIGN`, so no huge page is shared.
const ZEROING_RUN_BYTES: usize = 64 * 1024 * 1024;

/// Calls `work` on consecutive runs covering `0..len`, each run a multiple of `min_run`
/// long (but the last), one thread per run and no more runs than the machine has cores.
fn split_across_cores(len: usize, min_run: usize, work: impl Fn(std::ops::Range<usize>) + Sync) {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(len.div_ceil(min_run));
    if threads <= 1 {
        work(0..len);
        return;
    }
    let run = len.div_ceil(threads).next_multiple_of(min_run);
    let work = &work;
    std::thread::scope(|scope| {
        for start in (0..len).step_by(run) {
            scope.spawn(move || work(start..(start + run).min(len)));
        }
    });
}

impl TranspositionTable {
    /// A table of about `megabytes` MB (clamped to 1..=MAX_HASH_MB; if the memory cannot be
    /// had, smaller sizes are tried).
    pub fn new(megabytes: usize) -> TranspositionTable {
        let mut mb = megabytes.clamp(1, MAX_HASH_MB);
        loop {
            let buckets = mb * 1024 * 1024 / BUCKET_BYTES;
            if let Some(words) = Words::zeroed(buckets * BUCKET_WORDS) {
                return TranspositionTable {
                    words,
                    buckets,
                    generation: AtomicU64::new(0),
                    used: AtomicBool::new(false),
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

    /// Permille of the entries sampled that this search wrote (UCI `hashfull`).
    pub fn hashfull(&self) -> usize {
        let generation = self.generation.load(Relaxed) as u8;
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
        bucket_start(key, self.buckets)
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
        let generation = self.generation.load(Relaxed) as u8;
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
    fn the_zeroing_runs_cover_the_table_once() {
        for (len, min_run) in [(1, 64), (64, 64), (1000, 64), (4096, 64), (130, 1)] {
            let runs = std::sync::Mutex::new(Vec::new());
            split_across_cores(len, min_run, |run| runs.lock().unwrap().push(run));
            let mut runs = runs.into_inner().unwrap();
            runs.sort_by_key(|run| run.start);
            let mut next = 0;
            for run in &runs {
                assert_eq!(run.start, next, "{len} in runs of {min_run}: {runs:?}");
                assert_eq!(
                    run.start % min_run,
                    0,
                    "{len} in runs of {min_run}: {runs:?}"
                );
                next = run.end;
            }
            assert_eq!(next, len, "{len} in runs of {min_run}: {runs:?}");
        }
    }

    #[test]
    fn a_cleared_table_is_all_zeros() {
        // 96 MB: more than one zeroing run.
        let tt = TranspositionTable::new(96);
        let words = tt.words.len();
        tt.mark_used();
        for index in [0, words / 3, words / 2, words - 1] {
            tt.words[index].store(u64::MAX, Relaxed);
        }
        tt.clear();
        assert!(tt.words.iter().all(|word| word.load(Relaxed) == 0));
    }

    #[test]
    fn a_big_table_is_mapped_zeroed_and_keeps_what_is_written_while_it_is_faulted_in() {
        // 512 MB: mapped, and faulted in by the background thread while we write.
        let tt = TranspositionTable::new(512);
        let words = tt.words.len();
        let probes: Vec<usize> = (0..64).map(|i| i * (words / 64) + i).collect();
        assert!(probes.iter().all(|&i| tt.words[i].load(Relaxed) == 0));
        tt.mark_used();
        for &index in &probes {
            tt.words[index].store(index as u64 | 1, Relaxed);
        }
        // Let the background thread finish (dropping would only stop it early).
        if let Some(Prefault { thread, .. }) = &tt.words.mapped {
            while thread.as_ref().is_some_and(|t| !t.is_finished()) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        for &index in &probes {
            assert_eq!(tt.words[index].load(Relaxed), index as u64 | 1);
        }
        tt.clear();
        assert!(probes.iter().all(|&i| tt.words[i].load(Relaxed) == 0));
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
        assert_eq!(TranspositionTable::new(1 << 40).megabytes(), MAX_HASH_MB);
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
