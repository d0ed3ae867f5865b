//! The memory of the big hash tables: zeroed words aligned for huge pages, mapped from the OS
//! and faulted in by a background thread when large, cleared by several threads, and the
//! key-to-bucket mapping the tables share. It knows words, not entries: what a word holds
//! belongs to each table (`search::tt`, `tools::perft::hashed`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Tables are aligned to 2 MB so the OS can back them with huge pages: a probe then costs
/// one cache miss instead of a cache miss and a page-table walk.
const TABLE_ALIGN: usize = 2 * 1024 * 1024;

/// A table's memory: zeroed words, aligned for huge pages, freed the way they were
/// allocated. The memory of the transposition table (`crate::search::tt`) and of the perft
/// table (`crate::tools::perft::hashed`).
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

// SAFETY: the words are atomics, which any thread may read and write through `&`; the
// allocation is owned by `Words` alone and freed once, in `Drop`.
unsafe impl Send for Words {}
// SAFETY: as for `Send`: shared access only ever goes through the atomics.
unsafe impl Sync for Words {}

/// The bucket of `key` in a table of `buckets` buckets: the key is mapped onto the table
/// without a division (Lemire's multiply-shift).
#[inline(always)]
pub(crate) fn bucket_of(key: u64, buckets: usize) -> usize {
    ((key as u128 * buckets as u128) >> 64) as usize
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

/// The memory a new table could still be given, in bytes: the OS's estimate of what can be
/// allocated without swapping (Linux's `MemAvailable`), or less where the container's memory
/// limit is tighter. `None` where neither can be read (other systems): a failed allocation is
/// then the only check. A table asked for beyond this would push the machine into swap or
/// bring the OOM killer, as a mapped table is faulted in whole in the background.
pub(crate) fn available_bytes() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let free = read("/proc/meminfo").and_then(|text| mem_available(&text));
    // cgroup v2, then v1: the limit and the usage as the container sees them.
    let limited = [
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        (
            "/sys/fs/cgroup/memory/memory.limit_in_bytes",
            "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        ),
    ]
    .iter()
    .find_map(|(limit, usage)| {
        let limit = read(limit)?.trim().parse::<u64>().ok()?;
        let usage = read(usage)?.trim().parse::<u64>().ok()?;
        Some(limit.saturating_sub(usage))
    });
    match (free, limited) {
        (Some(free), Some(limited)) => Some(free.min(limited)),
        (free, limited) => free.or(limited),
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut fields = line.split_whitespace().skip(1);
    let amount: u64 = fields.next()?.parse().ok()?;
    match fields.next() {
        Some("kB") => amount.checked_mul(1024),
        None => Some(amount),
        Some(_) => None,
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn the_free_memory_is_read_from_meminfo_in_bytes() {
        let meminfo = "MemTotal:       24731648 kB\nMemFree:        20064256 kB\n\
                       MemAvailable:   24258312 kB\nBuffers:          123 kB\n";
        assert_eq!(mem_available(meminfo), Some(24_258_312 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: lots kB\n"), None);
        // This machine's own figure is there and plausible (more than 16 MB).
        #[cfg(target_os = "linux")]
        assert!(available_bytes().is_some_and(|b| b > 16 << 20));
    }

    #[test]
    fn a_cleared_table_is_all_zeros() {
        // 96 MB: more than one zeroing run.
        let words = Words::zeroed(96 * 1024 * 1024 / 8).unwrap();
        let len = words.len();
        for index in [0, len / 3, len / 2, len - 1] {
            words[index].store(u64::MAX, Relaxed);
        }
        words.clear();
        assert!(words.iter().all(|word| word.load(Relaxed) == 0));
    }

    #[test]
    fn a_big_table_is_mapped_zeroed_and_keeps_what_is_written_while_it_is_faulted_in() {
        // 512 MB: mapped, and faulted in by the background thread while we write.
        let words = Words::zeroed(512 * 1024 * 1024 / 8).unwrap();
        let len = words.len();
        let probes: Vec<usize> = (0..64).map(|i| i * (len / 64) + i).collect();
        assert!(probes.iter().all(|&i| words[i].load(Relaxed) == 0));
        for &index in &probes {
            words[index].store(index as u64 | 1, Relaxed);
        }
        // Let the background thread finish (dropping would only stop it early).
        if let Some(Prefault { thread, .. }) = &words.mapped {
            while thread.as_ref().is_some_and(|t| !t.is_finished()) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        for &index in &probes {
            assert_eq!(words[index].load(Relaxed), index as u64 | 1);
        }
        words.clear();
        assert!(probes.iter().all(|&i| words[i].load(Relaxed) == 0));
    }
}
