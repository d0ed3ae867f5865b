//! Lazy SMP: helper threads search the main thread's root beside it, sharing only the
//! transposition table, and stop with it. The main thread's move is the one played; the
//! helpers share the caller's limits and count their nodes into its reports.

use super::{SearchHook, SearchInfo, SearchParams, SearchResult, Searcher, POLL_INTERVAL};
use crate::chess::{Move, Position};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Instant;

/// Nodes between two polls of every thread when there are helpers: more often, as with
/// more threads than cores each thread runs only in its turn, and a stopped search waits
/// for the main thread to see the deadline and for every helper to see the stop.
const THREADED_POLL_INTERVAL: u64 = 128;
const _: () = assert!(THREADED_POLL_INTERVAL.is_power_of_two());

impl Searcher {
    /// Waits for the last search's helper threads to end and takes their workers back.
    pub(super) fn settle(&mut self) {
        for thread in self.running.drain(..) {
            let helper = thread.join().expect("a search thread failed");
            self.helpers.push(helper);
        }
    }

    /// The search proper: the main thread, and the helpers beside it until it is done.
    pub(super) fn search_threads(
        &mut self,
        root: &Position,
        params: &SearchParams,
        hook: &mut dyn SearchHook,
    ) -> SearchResult {
        if self.helpers.is_empty() {
            self.main.poll_interval = POLL_INTERVAL;
            return self.main.search(root, params, hook);
        }
        self.main.poll_interval = THREADED_POLL_INTERVAL;
        let shared = Arc::new(SharedSearch {
            stop: AtomicBool::new(false),
            released: AtomicBool::new(false),
            deadline: SharedDeadline::new(hook.deadline()),
            node_budget: AtomicU64::new(hook.node_budget().unwrap_or(u64::MAX)),
            main_nodes: AtomicU64::new(0),
            helper_nodes: AtomicU64::new(0),
        });
        // Helpers search single-PV: they only fill the table, and the table serves every
        // line the main thread searches.
        let helper_params = Arc::new(SearchParams {
            stop_on_mate: false,
            instant_single_reply: false,
            multi_pv: 1,
            ..params.clone()
        });
        // Each helper owns its worker while it searches and hands it back when it ends;
        // the main thread does not wait for that before its result goes out (with more
        // threads than cores, the last helper may see the stop only after a while).
        // `settle` takes the workers back before anything else touches them.
        let mut waiting = Vec::with_capacity(self.helpers.len());
        for mut helper in self.helpers.drain(..) {
            let (shared, helper_params, root) =
                (Arc::clone(&shared), Arc::clone(&helper_params), *root);
            let handle = std::thread::Builder::new()
                .name("search-helper".into())
                .spawn(move || {
                    // The helpers wait until the main thread has finished depth 1: with more
                    // threads than cores they would otherwise delay the one search whose
                    // move is played.
                    while !shared.released.load(SeqCst) {
                        std::thread::park();
                    }
                    if !shared.stop.load(Relaxed) {
                        helper.poll_interval = THREADED_POLL_INTERVAL;
                        let mut hook = HelperHook {
                            shared: &shared,
                            published: 0,
                        };
                        helper.search(&root, &helper_params, &mut hook);
                        hook.publish(helper.nodes);
                    }
                    helper
                })
                .expect("cannot start a search thread");
            waiting.push(handle.thread().clone());
            self.running.push(handle);
        }
        let mut hook = MainHook {
            inner: hook,
            shared: &shared,
            waiting: &waiting,
        };
        let mut result = self.main.search(root, params, &mut hook);
        shared.stop.store(true, Relaxed);
        hook.release_helpers();
        result.nodes += shared.helper_nodes.load(Relaxed);
        result.tbhits = self.main.tb.hits();
        result
    }
}

/// The wall-clock deadline of a search, shared with the helper threads: nanoseconds from
/// `epoch`, `u64::MAX` for none.
struct SharedDeadline {
    epoch: Instant,
    at: AtomicU64,
}

impl SharedDeadline {
    fn new(deadline: Option<Instant>) -> SharedDeadline {
        let shared = SharedDeadline {
            epoch: Instant::now(),
            at: AtomicU64::new(u64::MAX),
        };
        shared.set(deadline);
        shared
    }

    fn set(&self, deadline: Option<Instant>) {
        let at = deadline.map_or(u64::MAX, |d| {
            d.saturating_duration_since(self.epoch)
                .as_nanos()
                .min(u64::MAX as u128 - 1) as u64
        });
        self.at.store(at, Relaxed);
    }

    fn passed(&self) -> bool {
        let at = self.at.load(Relaxed);
        at != u64::MAX && self.epoch.elapsed().as_nanos() >= at as u128
    }
}

/// What the threads of one search share.
struct SharedSearch {
    /// The search is over (the main thread is done, or a helper saw the deadline pass).
    stop: AtomicBool,
    /// The helpers may start (depth 1 is done, or the search is over).
    released: AtomicBool,
    deadline: SharedDeadline,
    /// The most nodes all threads may search (`u64::MAX`: no limit).
    node_budget: AtomicU64,
    /// Nodes the main thread had searched at its last poll.
    main_nodes: AtomicU64,
    /// Nodes the helpers have searched so far.
    helper_nodes: AtomicU64,
}

impl SharedSearch {
    /// Whether the budget of nodes is spent, as far as the counts published show.
    fn budget_spent(&self) -> bool {
        let budget = self.node_budget.load(Relaxed);
        budget != u64::MAX
            && self.main_nodes.load(Relaxed) + self.helper_nodes.load(Relaxed) >= budget
    }
}

/// The main thread's view of the caller's hook: node counts include the helpers', and the
/// caller's deadline is handed on to the helpers, any of which may end the search by it.
struct MainHook<'a> {
    inner: &'a mut dyn SearchHook,
    shared: &'a SharedSearch,
    /// The helper threads, parked until released.
    waiting: &'a [std::thread::Thread],
}

impl MainHook<'_> {
    fn release_helpers(&self) {
        if !self.shared.released.swap(true, SeqCst) {
            for thread in self.waiting {
                thread.unpark();
            }
        }
    }

    fn total(&self, nodes: u64) -> u64 {
        nodes + self.shared.helper_nodes.load(Relaxed)
    }

    /// Hands the caller's current limits and the main thread's `nodes` on; whether a
    /// helper has seen a limit pass.
    fn share_limits(&mut self, nodes: u64) -> bool {
        let shared = self.shared;
        shared.deadline.set(self.inner.deadline());
        let budget = self.inner.node_budget().unwrap_or(u64::MAX);
        shared.node_budget.store(budget, Relaxed);
        shared.main_nodes.store(nodes, Relaxed);
        shared.stop.load(Relaxed)
    }
}

impl SearchHook for MainHook<'_> {
    fn poll(&mut self, nodes: u64) -> bool {
        let total = self.total(nodes);
        let stop = self.inner.poll(total);
        self.share_limits(nodes) || stop
    }
    fn may_start_iteration(&mut self, depth: u32, nodes: u64) -> bool {
        let total = self.total(nodes);
        self.inner.may_start_iteration(depth, total) && !self.share_limits(nodes)
    }
    fn may_search_next_root_move(&mut self, nodes: u64, score_dropped: bool) -> bool {
        let total = self.total(nodes);
        self.inner.may_search_next_root_move(total, score_dropped) && !self.share_limits(nodes)
    }
    fn report(&mut self, info: &SearchInfo) {
        let main_nodes = info.nodes;
        let mut info = info.clone();
        info.nodes = self.total(info.nodes);
        self.inner.report(&info);
        // The first report can make limits (there is a move to play now), and lets the
        // helpers start.
        self.share_limits(main_nodes);
        self.release_helpers();
    }
    fn root_move(&mut self, index: usize, count: usize, mv: Move) {
        self.inner.root_move(index, count, mv);
    }
}

/// A helper thread's hook: it stops when the main thread is done or the deadline has
/// passed (then it stops the main thread too), and publishes its node count for the main
/// thread's reports.
struct HelperHook<'a> {
    shared: &'a SharedSearch,
    published: u64,
}

impl HelperHook<'_> {
    fn publish(&mut self, nodes: u64) {
        self.shared
            .helper_nodes
            .fetch_add(nodes.saturating_sub(self.published), Relaxed);
        self.published = self.published.max(nodes);
    }
}

impl SearchHook for HelperHook<'_> {
    fn poll(&mut self, nodes: u64) -> bool {
        self.publish(nodes);
        if self.shared.deadline.passed() || self.shared.budget_spent() {
            self.shared.stop.store(true, Relaxed);
        }
        self.shared.stop.load(Relaxed)
    }
    fn may_start_iteration(&mut self, _depth: u32, _nodes: u64) -> bool {
        !self.shared.stop.load(Relaxed)
    }
    fn may_search_next_root_move(&mut self, _nodes: u64, _dropped: bool) -> bool {
        !self.shared.stop.load(Relaxed)
    }
    fn report(&mut self, _info: &SearchInfo) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{FixedLimits, MAX_THREADS};

    #[test]
    fn helper_threads_search_beside_the_main_one_and_stop_with_it() {
        let pos = Position::startpos();
        let mut searcher = Searcher::new(8);
        searcher.set_threads(3);
        assert_eq!(searcher.threads(), 3);
        let params = SearchParams {
            max_depth: Some(8),
            ..Default::default()
        };
        // The helpers start after depth 1, and a depth-8 search is over in milliseconds:
        // on a loaded machine they might not run before it ends. The main thread pauses at
        // each later report, so they get their turn however busy the cores are.
        struct PausingReports(FixedLimits);
        impl SearchHook for PausingReports {
            fn poll(&mut self, nodes: u64) -> bool {
                self.0.poll(nodes)
            }
            fn may_start_iteration(&mut self, depth: u32, nodes: u64) -> bool {
                self.0.may_start_iteration(depth, nodes)
            }
            fn may_search_next_root_move(&mut self, nodes: u64, dropped: bool) -> bool {
                self.0.may_search_next_root_move(nodes, dropped)
            }
            fn report(&mut self, info: &SearchInfo) {
                self.0.report(info);
                if info.depth >= 2 {
                    std::thread::sleep(std::time::Duration::from_millis(30));
                }
            }
        }
        let mut limits = PausingReports(FixedLimits::new(None, None));
        let r = searcher.search(&pos, &params, &mut limits);
        assert!(pos.is_legal(r.best.unwrap()));
        assert_eq!(r.depth, 8);
        // The helpers did work too, and it is counted.
        let main_nodes = limits.0.reports.last().unwrap().1.nodes;
        assert!(r.nodes > searcher.main.nodes, "{} nodes", r.nodes);
        assert!(main_nodes >= searcher.main.nodes);
        searcher.set_threads(1);
        assert_eq!(searcher.threads(), 1);
        searcher.set_threads(100_000);
        assert_eq!(searcher.threads(), MAX_THREADS);
    }
}
