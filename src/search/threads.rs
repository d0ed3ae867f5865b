//! Lazy SMP: helper threads search the main thread's root beside it, sharing only the
//! transposition table, and stop with it. The main thread's move is the one played; the
//! helpers share the caller's limits and count their nodes into its reports.
//!
//! The helper threads live as long as the `Threads` setting: each owns its worker and
//! runs the jobs the searcher sends it, in order. Starting 256 threads for every move, and
//! waiting for the last move's helpers before the next search, cost up to 150 ms each on
//! a loaded two-core machine, which a 200 ms clock cannot pay.

use super::{SearchHook, SearchInfo, SearchParams, SearchResult, Searcher, Worker, POLL_INTERVAL};
use crate::chess::{Move, Position};
use crossbeam_channel::{Receiver, Sender};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// Nodes between two polls of every thread when there are helpers: more often, as with
/// more threads than cores each thread runs only in its turn, and a stopped search waits
/// for the main thread to see the deadline and for every helper to see the stop.
const THREADED_POLL_INTERVAL: u64 = 128;
const _: () = assert!(THREADED_POLL_INTERVAL.is_power_of_two());

/// What a helper thread is asked to do with its worker.
type Job = Box<dyn FnOnce(&mut Worker) + Send>;

/// A helper thread and the way to its jobs. Dropping it ends the thread after the jobs
/// already sent.
pub(super) struct Helper {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Helper {
    pub(super) fn start(mut worker: Worker) -> Helper {
        let (jobs, inbox): (Sender<Job>, Receiver<Job>) = crossbeam_channel::unbounded();
        let thread = std::thread::Builder::new()
            .name("search-helper".into())
            .spawn(move || {
                for job in inbox {
                    job(&mut worker);
                }
            })
            .expect("cannot start a search thread");
        Helper {
            jobs: Some(jobs),
            thread: Some(thread),
        }
    }

    fn send(&self, job: Job) {
        let jobs = self.jobs.as_ref().expect("a live helper has its inbox");
        jobs.send(job).expect("a search thread failed");
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            // A helper that panicked has already said why; the searcher goes on without it.
            let _ = thread.join();
        }
    }
}

impl Searcher {
    /// Runs `job` on every helper's worker once the jobs before it are done, and gives
    /// back what it returned, in the helpers' order.
    pub(super) fn on_helpers<T: Send + 'static>(
        &mut self,
        job: impl FnOnce(&mut Worker) -> T + Clone + Send + 'static,
    ) -> Vec<T> {
        let (answers, answered) = crossbeam_channel::bounded(self.helpers.len());
        for (index, helper) in self.helpers.iter().enumerate() {
            let (job, answers) = (job.clone(), answers.clone());
            helper.send(Box::new(move |worker| {
                let _ = answers.send((index, job(worker)));
            }));
        }
        drop(answers);
        let mut got: Vec<(usize, T)> = answered.iter().collect();
        assert_eq!(got.len(), self.helpers.len(), "a search thread failed");
        got.sort_by_key(|&(index, _)| index);
        got.into_iter().map(|(_, answer)| answer).collect()
    }

    /// Waits until the last search's helpers have stopped.
    pub(super) fn settle(&mut self) {
        self.on_helpers(|_| ());
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
        let mut hook = MainHook {
            inner: hook,
            shared: &shared,
            helpers: &self.helpers,
            root: *root,
            helper_params,
            released: false,
        };
        let mut result = self.main.search(root, params, &mut hook);
        shared.stop.store(true, Relaxed);
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
    shared: &'a Arc<SharedSearch>,
    helpers: &'a [Helper],
    root: Position,
    helper_params: Arc<SearchParams>,
    /// Whether the helpers have been sent this search.
    released: bool,
}

impl MainHook<'_> {
    /// Sends the helpers this search, once the main thread starts depth 2: a search that
    /// ends with depth 1 (a low clock, more threads than cores) wakes no helper, and with
    /// more threads than cores they would otherwise delay the one search whose move is
    /// played. The main thread does not wait for them to stop before its result goes out
    /// (the last helper may see the stop only after a while), nor for the last search's
    /// helpers to stop before it starts: a helper still in the last search takes this one
    /// up when it is done.
    fn release_helpers(&mut self) {
        if std::mem::replace(&mut self.released, true) {
            return;
        }
        for helper in self.helpers {
            let (shared, params, root) = (
                Arc::clone(self.shared),
                Arc::clone(&self.helper_params),
                self.root,
            );
            helper.send(Box::new(move |helper: &mut Worker| {
                if !shared.stop.load(Relaxed) {
                    helper.poll_interval = THREADED_POLL_INTERVAL;
                    let mut hook = HelperHook {
                        shared: &shared,
                        published: 0,
                    };
                    helper.search(&root, &params, &mut hook);
                    hook.publish(helper.nodes);
                }
            }));
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
        let go_on = self.inner.may_start_iteration(depth, total) && !self.share_limits(nodes);
        if go_on && depth >= 2 {
            self.release_helpers();
        }
        go_on
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
        // The first report can make limits (there is a move to play now).
        self.share_limits(main_nodes);
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
