//! Time management: turns our clock (`Clock`, which both protocols fill in: UCI from `go`,
//! xboard from `level`/`st`/`time` through `Clock::under`) into the three limits of the
//! WinBoard model driver, once per search.
//!
//! * `no_new_iteration`: past it, don't start another depth.
//! * `no_new_move`: past it, stop between root moves, unless the current iteration's best
//!   score has dropped well below the previous one (then keep looking for a rescue).
//! * `never_exceed`: past it, abort from the node poll, whatever the state.
//!
//! All three are measured from the start of the search (or, after a ponder hit, from the hit
//! for `never_exceed`). In `nps` mode the "clock" counts nodes: a second is `nps` nodes.

use std::time::{Duration, Instant};

/// A game's time control: xboard's `level` or `st` (UCI sends the clock itself).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeControl {
    /// `level MPS BASE INC`: `moves` per session (0 = the whole game), `base` per session,
    /// `increment` added after every move.
    Conventional {
        moves: u32,
        base: Duration,
        increment: Duration,
    },
    /// `st N`: at most this long for every move.
    PerMove(Duration),
}

impl Default for TimeControl {
    fn default() -> Self {
        // XBoard's default: 40 moves in 5 minutes.
        TimeControl::Conventional {
            moves: 40,
            base: Duration::from_secs(300),
            increment: Duration::ZERO,
        }
    }
}

/// The three limits, as durations from the start of the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeLimits {
    pub no_new_iteration: Duration,
    pub no_new_move: Duration,
    pub never_exceed: Duration,
    /// Whether the soft limits follow the search's stability. Not under `st`: time saved on
    /// one move is not banked for the next, so every move uses its share.
    pub adapts: bool,
}

impl TimeLimits {
    /// No limit at all (analysis, pondering before a hit, `sd`-only searches).
    pub const INFINITE: TimeLimits = TimeLimits {
        no_new_iteration: Duration::MAX,
        no_new_move: Duration::MAX,
        never_exceed: Duration::MAX,
        adapts: false,
    };

    /// Every limit `by` earlier (none below zero: a move is still searched to depth 1);
    /// no limit stays none.
    pub fn shortened_by(self, by: Duration) -> TimeLimits {
        let shorten = |d: Duration| {
            if d == Duration::MAX {
                d
            } else {
                d.saturating_sub(by)
            }
        };
        TimeLimits {
            no_new_iteration: shorten(self.no_new_iteration),
            no_new_move: shorten(self.no_new_move),
            never_exceed: shorten(self.never_exceed),
            adapts: self.adapts,
        }
    }
}

/// A scheduler's turn on a busy core, roughly: how long a runnable thread may wait for
/// each other runnable thread on its core.
const SCHEDULER_TURN: Duration = Duration::from_millis(3);

/// Kept back besides the move overhead when search threads outnumber the cores: each
/// thread then runs only in its turn, and once the deadline has passed the main thread
/// answers only after every other thread has had its turn and seen the stop (64 threads on
/// 2 cores beside a background process answered `go movetime 100` after 166-184 ms, with
/// 75 ms searched). Nothing when there are cores enough.
pub fn oversubscription_margin(threads: usize, cores: usize) -> Duration {
    let cores = cores.max(1);
    let extra = threads.saturating_sub(cores) as u32;
    SCHEDULER_TURN * extra / cores as u32
}

/// Kept back from every clock reading: pipe latency and GUI overhead are charged to us.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(50);

/// Guessed moves left in a game without a move count (sudden death or incremental). The
/// guess is short on purpose: a search seldom spends its whole target (a settled best move
/// stops it at a third to a half of it), so a short guess is what spends the clock.
const GUESSED_MOVES_TO_GO: u32 = 20;

/// Share of the increment added to each move's target: nearly all of it, since it comes back
/// with the move; the caps in `limits_for` keep it from being spent before it is received.
const INCREMENT_SHARE: f64 = 0.9;

/// The soft limits as shares of a move's target: no iteration starts past the first (an
/// iteration that starts takes longer than all before it together), and the root moves of
/// an iteration under way are searched up to the second. A move spends about its target.
const NO_NEW_ITERATION_SHARE: f64 = 0.8;
const NO_NEW_MOVE_SHARE: f64 = 1.5;

/// The soft limits' scale for a best move whose subtree took `share` of the search's nodes:
/// a move the search spent nearly everything on has no rival worth the time (0.74 at
/// 95%), one that took half has rivals that cost as much to refute (1.35 at 50%).
fn by_best_move_share(share: f64) -> f64 {
    (1.5 - share.clamp(0.0, 1.0)) * 1.35
}

/// The share of the nodes below the best move, once the search is deep enough for it to
/// mean something (the first iterations take a few hundred nodes each).
pub fn best_move_share(depth: u32, best_move_nodes: u64, nodes: u64) -> Option<f64> {
    (depth >= 6 && nodes > 0).then(|| best_move_nodes as f64 / nodes as f64)
}

/// Part of a clock that may be spent: all but the safety margin, or half of a clock that
/// is nearly gone.
#[cfg(test)]
fn spendable(left: Duration) -> Duration {
    spendable_with(left, SAFETY_MARGIN)
}

/// `spendable` with the margin (the move overhead) given.
fn spendable_with(left: Duration, margin: Duration) -> Duration {
    if left > margin * 2 {
        left - margin
    } else {
        left / 2
    }
}

/// Our clock for one move, as both protocols fill it in: UCI from `go wtime … movestogo …
/// movetime`, xboard from `level`/`st` and `time` (`Clock::under`). The limits are computed
/// from this alone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    /// Time left on our clock; `None` if the GUI never said.
    pub time_left: Option<Duration>,
    /// Added to our clock after each of our moves.
    pub increment: Duration,
    /// Our moves until the clock is refilled, this one included; `None`: the rest of the
    /// game.
    pub moves_to_go: Option<u32>,
    /// What the clock is refilled with at a control, where known (xboard's `level` base): a
    /// tenth of it is kept in reserve. Unknown (UCI), the time left stands for it.
    pub control_time: Option<Duration>,
    /// A time set for this move instead of a share of the clock.
    pub move_time: Option<MoveTime>,
}

/// A time set for one move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MoveTime {
    /// Search this long (UCI `movetime`): the GUI asked for the time, not for a limit.
    Exactly(Duration),
    /// At most this long (xboard `st`), and less when the search settles early.
    AtMost(Duration),
}

impl Clock {
    /// The clock of a game under the time control `control` with `time_left` on it (`None`
    /// if the GUI never said), `moves_made` of our moves into the game.
    pub fn under(control: TimeControl, time_left: Option<Duration>, moves_made: u32) -> Clock {
        let clock = Clock {
            time_left,
            increment: Duration::ZERO,
            moves_to_go: None,
            control_time: None,
            move_time: None,
        };
        match control {
            TimeControl::PerMove(d) => Clock {
                move_time: Some(MoveTime::AtMost(d)),
                ..clock
            },
            TimeControl::Conventional {
                moves,
                base,
                increment,
            } => Clock {
                increment,
                moves_to_go: (moves > 0).then(|| moves - (moves_made % moves)),
                control_time: Some(base),
                ..clock
            },
        }
    }
}

impl Default for Clock {
    /// XBoard's default time control, before the GUI says anything.
    fn default() -> Clock {
        Clock::under(TimeControl::default(), None, 0)
    }
}

/// The limits for one move under the time control `tc` with `time_left` on the clock,
/// `moves_made` moves in, keeping `SAFETY_MARGIN` back (the tests' shorthand for an xboard
/// clock).
#[cfg(test)]
fn compute_limits(tc: TimeControl, time_left: Option<Duration>, moves_made: u32) -> TimeLimits {
    limits_for(&Clock::under(tc, time_left, moves_made), SAFETY_MARGIN)
}

/// The limits for one move on `clock`, keeping `safety_margin` back from every reading of
/// it. Without a clock or a move time there is no limit.
pub fn limits_for(clock: &Clock, safety_margin: Duration) -> TimeLimits {
    let margin = |left| spendable_with(left, safety_margin);
    if let Some(move_time) = clock.move_time {
        let (MoveTime::Exactly(per_move) | MoveTime::AtMost(per_move)) = move_time;
        let mut hard = per_move.saturating_sub(safety_margin.min(per_move / 4));
        if let Some(left) = clock.time_left {
            hard = hard.min(margin(left));
        }
        let no_new_iteration = match move_time {
            MoveTime::Exactly(_) => hard,
            MoveTime::AtMost(_) => hard.mul_f64(0.6),
        };
        return TimeLimits {
            no_new_iteration,
            no_new_move: hard,
            never_exceed: hard,
            adapts: false,
        };
    }
    let Some(left) = clock.time_left.or(clock.control_time) else {
        return TimeLimits::INFINITE;
    };
    let usable = margin(left);
    let moves_to_go = clock
        .moves_to_go
        .filter(|&n| n > 0)
        .unwrap_or(GUESSED_MOVES_TO_GO);
    if moves_to_go == 1 {
        // The last move before the control: the clock is refilled after it, so
        // half of what may be spent goes to this move, however settled the search
        // looks (a ponder hit's flying start counts towards it), and never more
        // than 60%, so a pipe's hiccup still finds time on the clock.
        return TimeLimits {
            no_new_iteration: usable / 2,
            no_new_move: usable / 2,
            never_exceed: usable.mul_f64(0.6),
            adapts: false,
        };
    }
    // A tenth of the control is kept in reserve, so the clock never runs down to a
    // pipe's hiccup from a forfeit (before a control, or at the increment's pace).
    // Our share is of what lies above the reserve (a small share of the clock once
    // below it), plus most of the increment we get back for moving; the caps below
    // keep the increment from being spent before it is received.
    let reserve = clock.control_time.unwrap_or(left) / 10;
    let above_reserve = usable.saturating_sub(reserve) / moves_to_go;
    let mut target =
        above_reserve.max(usable / (3 * moves_to_go)) + clock.increment.mul_f64(INCREMENT_SHARE);
    // Hard cap: a few targets, never more than a third of the clock.
    let never_exceed = (target * 4).min(usable.mul_f64(0.35));
    target = target.min(never_exceed);
    TimeLimits {
        no_new_iteration: target.mul_f64(NO_NEW_ITERATION_SHARE),
        no_new_move: target.mul_f64(NO_NEW_MOVE_SHARE).min(never_exceed),
        never_exceed,
        adapts: true,
    }
}

/// Measures elapsed "time" for a search: wall clock, or nodes when the GUI set `nps`.
#[derive(Clone, Copy, Debug)]
pub struct SearchClock {
    start: Instant,
    /// When the engine's own clock began (a ponder hit moves it forward).
    own_clock_start: Instant,
    nps: Option<u64>,
    /// Nodes already searched when the own clock began (for `nps` mode after a ponder hit).
    nodes_at_own_start: u64,
    limits: TimeLimits,
    /// The soft limits scale by this: above 1 when the best move keeps changing or the
    /// score falls, below 1 when the same move has stood for many iterations.
    soft_scale: f64,
    /// The best move (as bits) and score of the last iteration, and for how many
    /// iterations in a row that move has been the best.
    last_best: Option<(u16, i32)>,
    stable_iterations: u32,
}

impl SearchClock {
    pub fn new(limits: TimeLimits, nps: Option<u64>) -> SearchClock {
        let now = Instant::now();
        SearchClock {
            start: now,
            own_clock_start: now,
            nps,
            nodes_at_own_start: 0,
            limits,
            soft_scale: 1.0,
            last_best: None,
            stable_iterations: 0,
        }
    }

    /// An iteration (or a new best move within one) found `best` with `score`, its subtree
    /// having taken `best_move_share` of the nodes so far (if the search is deep enough for
    /// the share to say anything): adjust the soft limits to how settled the search looks.
    pub fn note_best(&mut self, best: u16, score: i32, best_move_share: Option<f64>) {
        let mut score_scale = 1.0;
        if let Some((last, last_score)) = self.last_best {
            self.stable_iterations = if last == best {
                self.stable_iterations + 1
            } else {
                0
            };
            if score < last_score - 30 {
                score_scale = 1.3;
            }
        }
        self.last_best = Some((best, score));
        const BY_STABILITY: [f64; 5] = [1.6, 1.25, 1.0, 0.85, 0.7];
        self.soft_scale = BY_STABILITY[(self.stable_iterations as usize).min(4)]
            * score_scale
            * best_move_share.map_or(1.0, by_best_move_share);
    }

    fn soft(&self, limit: Duration) -> Duration {
        if limit == Duration::MAX || !self.limits.adapts {
            return limit;
        }
        limit.mul_f64(self.soft_scale).min(self.limits.never_exceed)
    }

    /// A ponder hit: from now on the limits count; time already pondered counts towards the
    /// soft limits (the "flying start"), the hard limit runs from now.
    pub fn ponder_hit(&mut self, limits: TimeLimits, nodes: u64) {
        self.own_clock_start = Instant::now();
        self.nodes_at_own_start = nodes;
        self.limits = limits;
    }

    /// Time since the search started, in wall time or in node-time.
    pub fn elapsed(&self, nodes: u64) -> Duration {
        match self.nps {
            Some(nps) => Duration::from_secs_f64(nodes as f64 / nps.max(1) as f64),
            None => self.start.elapsed(),
        }
    }

    fn own_elapsed(&self, nodes: u64) -> Duration {
        match self.nps {
            Some(nps) => Duration::from_secs_f64(
                nodes.saturating_sub(self.nodes_at_own_start) as f64 / nps.max(1) as f64,
            ),
            None => self.own_clock_start.elapsed(),
        }
    }

    pub fn past_no_new_iteration(&self, nodes: u64) -> bool {
        self.elapsed(nodes) >= self.soft(self.limits.no_new_iteration)
    }

    pub fn past_no_new_move(&self, nodes: u64) -> bool {
        self.elapsed(nodes) >= self.soft(self.limits.no_new_move)
    }

    /// The wall-clock instant of the hard limit, for threads that cannot ask the clock
    /// through the search hook (helpers); `None` without one, or when nodes are the clock.
    pub fn hard_deadline(&self) -> Option<Instant> {
        if self.nps.is_some() || self.limits.never_exceed == Duration::MAX {
            return None;
        }
        self.own_clock_start.checked_add(self.limits.never_exceed)
    }

    /// When a search that ended early should answer to look as if it thought: `share` of
    /// the soft target from the start, never past the hard limit; `None` without a wall-clock
    /// limit (no clock, or nodes as the clock).
    pub fn paced_until(&self, share: f64) -> Option<Instant> {
        let limits = &self.limits;
        if self.nps.is_some() || limits.never_exceed == Duration::MAX {
            return None;
        }
        let hard = self.own_clock_start.checked_add(limits.never_exceed)?;
        let paced = self.start.checked_add(limits.no_new_move.mul_f64(share))?;
        Some(paced.min(hard))
    }

    pub fn past_never_exceed(&self, nodes: u64) -> bool {
        self.own_elapsed(nodes) >= self.limits.never_exceed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clock filled in the UCI way (time left, increment, moves to go, no control time)
    /// gets the limits a conventional control whose base is the time left would give:
    /// what UCI clocks were turned into before there was one clock for both protocols.
    #[test]
    fn a_uci_clock_is_a_control_whose_base_is_the_time_left() {
        let ms = Duration::from_millis;
        for left in [ms(80), ms(900), ms(5_000), ms(60_000), ms(600_000)] {
            for inc in [ms(0), ms(20), ms(1_000)] {
                for moves_to_go in [None, Some(1), Some(2), Some(25)] {
                    let clock = Clock {
                        time_left: Some(left),
                        increment: inc,
                        moves_to_go,
                        control_time: None,
                        move_time: None,
                    };
                    let control = TimeControl::Conventional {
                        moves: moves_to_go.unwrap_or(0),
                        base: left,
                        increment: inc,
                    };
                    assert_eq!(
                        limits_for(&clock, SAFETY_MARGIN),
                        compute_limits(control, Some(left), 0),
                        "{left:?} {inc:?} {moves_to_go:?}"
                    );
                }
            }
            let exactly = Clock {
                move_time: Some(MoveTime::Exactly(ms(500))),
                ..Clock::under(TimeControl::default(), Some(left), 0)
            };
            let mut at_most = exactly;
            at_most.move_time = Some(MoveTime::AtMost(ms(500)));
            let (exactly, at_most) = (
                limits_for(&exactly, SAFETY_MARGIN),
                limits_for(&at_most, SAFETY_MARGIN),
            );
            assert_eq!(
                exactly.never_exceed,
                compute_limits(TimeControl::PerMove(ms(500)), Some(left), 0).never_exceed
            );
            assert_eq!(
                (exactly.no_new_iteration, at_most.never_exceed),
                (exactly.never_exceed, exactly.never_exceed)
            );
        }
        let nothing = Clock {
            time_left: None,
            control_time: None,
            ..Clock::default()
        };
        assert_eq!(limits_for(&nothing, SAFETY_MARGIN), TimeLimits::INFINITE);
    }

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    fn level(moves: u32, base: f64, inc: f64) -> TimeControl {
        TimeControl::Conventional {
            moves,
            base: secs(base),
            increment: secs(inc),
        }
    }

    /// Every limit is ordered and never past what the clock allows, less the margin.
    /// The time a move is meant to take on average, read back from its soft limits.
    fn target(l: TimeLimits) -> Duration {
        l.no_new_iteration.div_f64(NO_NEW_ITERATION_SHARE)
    }

    fn check_sane(l: TimeLimits, left: Duration) {
        assert!(l.no_new_iteration <= l.no_new_move, "{l:?}");
        assert!(l.no_new_move <= l.never_exceed, "{l:?}");
        assert!(
            l.never_exceed <= spendable(left),
            "{l:?} with {left:?} left"
        );
        assert!(
            spendable(left) >= left.saturating_sub(SAFETY_MARGIN.max(left / 2)),
            "{left:?}"
        );
    }

    #[test]
    fn classical_40_moves_in_5_minutes() {
        let tc = level(40, 300.0, 0.0);
        // Fresh clock: a target of 300/40 = 7.5 s per move, less the reserve's share.
        let l = compute_limits(tc, Some(secs(300.0)), 0);
        check_sane(l, secs(300.0));
        assert!(target(l) > secs(6.0) && target(l) < secs(8.0), "{l:?}");
        // 39 moves made, 10 s left: the last move before the control may use more of it,
        // but not all: the clock never falls to a hiccup from a forfeit.
        let l = compute_limits(tc, Some(secs(10.0)), 39);
        check_sane(l, secs(10.0));
        assert!(
            l.never_exceed > secs(3.0) && l.never_exceed <= secs(6.0),
            "{l:?}"
        );
        // 40 moves in 20 s played out at the target: the clock stays above the reserve
        // until the last few moves, and near a second at the control.
        let tc20 = level(40, 20.0, 0.0);
        let mut left = secs(20.0);
        for made in 0..40 {
            let l = compute_limits(tc20, Some(left), made);
            check_sane(l, left);
            left -= target(l);
        }
        assert!(left > secs(0.8), "{left:?} left at the control");
        // Every move at its latest soft limit still reaches the control with time left.
        let mut left = secs(20.0);
        for made in 0..40 {
            let l = compute_limits(tc20, Some(left), made);
            left -= l.no_new_move;
        }
        assert!(left > secs(0.3), "{left:?} left at the control");
        // After the control (move 41), a new session of 40 moves starts.
        let l = compute_limits(tc, Some(secs(200.0)), 40);
        assert!(target(l) < secs(6.0), "{l:?}");
        // Nearly out: 0.2 s for 20 moves.
        let l = compute_limits(tc, Some(secs(0.2)), 20);
        check_sane(l, secs(0.2));
        assert!(l.never_exceed < secs(0.1), "{l:?}");
    }

    #[test]
    fn classical_40_moves_in_30_seconds() {
        let tc = level(40, 30.0, 0.0);
        let l = compute_limits(tc, Some(secs(30.0)), 0);
        check_sane(l, secs(30.0));
        assert!(target(l) > secs(0.6) && target(l) < secs(0.8), "{l:?}");
        let l = compute_limits(tc, Some(secs(1.0)), 30);
        check_sane(l, secs(1.0));
        assert!(l.no_new_move < secs(0.2), "{l:?}");
    }

    #[test]
    fn incremental_2_plus_12() {
        let tc = level(0, 120.0, 12.0);
        let l = compute_limits(tc, Some(secs(120.0)), 0);
        check_sane(l, secs(120.0));
        // (120 - 12)/20 + 0.9*12 = 16.2 s.
        assert!(target(l) > secs(15.5) && target(l) < secs(17.0), "{l:?}");
        // Low on time, the increment is not counted on: never more than the clock.
        let l = compute_limits(tc, Some(secs(5.0)), 30);
        check_sane(l, secs(5.0));
        assert!(l.never_exceed < secs(2.0), "{l:?}");
    }

    #[test]
    fn incremental_30_seconds_plus_a_tenth() {
        let tc = level(0, 30.0, 0.1);
        let l = compute_limits(tc, Some(secs(30.0)), 0);
        check_sane(l, secs(30.0));
        // (30 - 3)/20 + 0.09 = 1.44 s.
        assert!(target(l) > secs(1.3) && target(l) < secs(1.6), "{l:?}");
        // 5+0.05 played out at the target for 150 moves: the clock settles above a
        // quarter of a second (a tenth of the control in reserve).
        let tc5 = level(0, 5.0, 0.05);
        let mut left = secs(5.0);
        for made in 0..150 {
            let l = compute_limits(tc5, Some(left), made);
            check_sane(l, left);
            left = left - target(l) + secs(0.05);
        }
        assert!(left > secs(0.25), "{left:?} left");
        // Every move at its latest soft limit: the clock runs low but never out.
        let mut left = secs(5.0);
        for made in 0..150 {
            let l = compute_limits(tc5, Some(left), made);
            check_sane(l, left);
            left = left - l.no_new_move + secs(0.05);
        }
        assert!(left > secs(0.05), "{left:?} left");
        // 0.15 s left, 0.1 s increment: the increment is not spent ahead of receiving it.
        let l = compute_limits(tc, Some(secs(0.15)), 50);
        check_sane(l, secs(0.15));
        assert!(l.never_exceed < secs(0.06), "{l:?}");
    }

    #[test]
    fn sudden_death_one_minute() {
        let tc = level(0, 60.0, 0.0);
        let l = compute_limits(tc, Some(secs(60.0)), 0);
        check_sane(l, secs(60.0));
        // (60 - 6)/20 = 2.7 s.
        assert!(target(l) > secs(2.5) && target(l) < secs(2.9), "{l:?}");
        let l = compute_limits(tc, Some(secs(3.0)), 60);
        check_sane(l, secs(3.0));
        assert!(l.no_new_move <= secs(0.1), "{l:?}");
        // Clock already at zero: all limits zero, the engine moves at once.
        let l = compute_limits(tc, Some(Duration::ZERO), 60);
        assert_eq!(l.never_exceed, Duration::ZERO);
    }

    #[test]
    fn fixed_time_per_move_st_2() {
        let tc = TimeControl::PerMove(secs(2.0));
        let l = compute_limits(tc, None, 0);
        assert_eq!(l.never_exceed, secs(2.0) - SAFETY_MARGIN);
        assert_eq!(l.no_new_move, l.never_exceed);
        assert!(l.no_new_iteration < l.no_new_move);
        // A clock shorter than the per-move time wins.
        let l = compute_limits(tc, Some(secs(1.0)), 10);
        check_sane(l, secs(1.0));
    }

    #[test]
    fn threads_beyond_the_cores_shorten_every_limit_by_their_turns() {
        assert_eq!(oversubscription_margin(1, 2), Duration::ZERO);
        assert_eq!(oversubscription_margin(2, 2), Duration::ZERO);
        assert_eq!(oversubscription_margin(8, 0), secs(0.021));
        assert_eq!(oversubscription_margin(64, 2), secs(0.093));
        let clock = Clock {
            move_time: Some(MoveTime::Exactly(secs(0.1))),
            ..Clock::default()
        };
        let l = limits_for(&clock, SAFETY_MARGIN);
        let short = l.shortened_by(oversubscription_margin(64, 2));
        assert_eq!(short.never_exceed, Duration::ZERO);
        assert_eq!(short.no_new_move, Duration::ZERO);
        let l = limits_for(
            &Clock::under(TimeControl::PerMove(secs(10.0)), Some(secs(2.0)), 0),
            SAFETY_MARGIN,
        );
        let short = l.shortened_by(secs(0.093));
        assert_eq!(short.never_exceed, l.never_exceed - secs(0.093));
        assert_eq!(short.no_new_iteration, l.no_new_iteration - secs(0.093));
        assert_eq!(
            TimeLimits::INFINITE.shortened_by(secs(1.0)),
            TimeLimits::INFINITE
        );
    }

    #[test]
    fn uci_movetime_is_searched_to_its_end() {
        // `go movetime 500`: every limit is the move time less the overhead, whether or not
        // the search has settled (st's 60% for a new iteration would stop at 270 ms).
        let move_time = |per_move: Duration, time_left: Option<Duration>| {
            let clock = Clock {
                time_left,
                move_time: Some(MoveTime::Exactly(per_move)),
                ..Clock::default()
            };
            limits_for(&clock, SAFETY_MARGIN)
        };
        let l = move_time(secs(0.5), None);
        assert_eq!(l.never_exceed, secs(0.45));
        assert_eq!(l.no_new_iteration, l.never_exceed);
        assert_eq!(l.no_new_move, l.never_exceed);
        assert!(!l.adapts);
        let mut clock = SearchClock::new(l, Some(1000));
        for _ in 0..6 {
            clock.note_best(1, 5, None);
        }
        assert!(!clock.past_no_new_iteration(440));
        // A short move time keeps three quarters of it; a clock shorter still wins.
        let l = move_time(secs(0.1), None);
        assert_eq!(l.no_new_iteration, secs(0.075));
        let l = move_time(secs(5.0), Some(secs(1.0)));
        check_sane(l, secs(1.0));
    }

    #[test]
    fn the_last_move_before_the_control_gets_half_the_clock() {
        // 39 moves made of 40, 2 s left: at least 40% of the clock goes to this move
        // whatever the search's stability, at most 60%.
        let tc = level(40, 30.0, 0.0);
        let l = compute_limits(tc, Some(secs(2.0)), 39);
        check_sane(l, secs(2.0));
        assert!(!l.adapts, "{l:?}");
        assert!(l.no_new_iteration >= secs(0.8), "{l:?}");
        assert!(l.never_exceed <= secs(1.2), "{l:?}");
        // One move earlier it is an ordinary move: about a share of the clock.
        let l = compute_limits(tc, Some(secs(2.0)), 38);
        assert!(l.no_new_iteration < secs(0.5), "{l:?}");
    }

    #[test]
    fn nps_mode_counts_nodes_as_time() {
        let tc = TimeControl::PerMove(secs(1.0));
        let limits = compute_limits(tc, None, 0);
        let clock = SearchClock::new(limits, Some(10_000));
        // 10k nodes per second: 5,000 nodes is half a second, 9,999 is just short of the cap.
        assert_eq!(clock.elapsed(5_000), secs(0.5));
        assert!(!clock.past_never_exceed(9_000));
        assert!(clock.past_never_exceed(10_000));
        assert!(clock.past_no_new_iteration(6_000));
    }

    #[test]
    fn soft_limits_follow_the_stability_of_the_best_move() {
        let limits = TimeLimits {
            no_new_iteration: secs(1.0),
            no_new_move: secs(2.0),
            never_exceed: secs(3.0),
            adapts: true,
        };
        // 1000 nodes per second, so nodes read as milliseconds.
        let mut clock = SearchClock::new(limits, Some(1000));
        clock.note_best(1, 0, None);
        // The same move for many iterations: stop starting iterations early.
        for _ in 0..6 {
            clock.note_best(1, 5, None);
        }
        assert!(clock.past_no_new_iteration(800));
        // The best move changes: spend longer, but never past the hard limit.
        clock.note_best(2, 5, None);
        assert!(!clock.past_no_new_iteration(1500));
        assert!(clock.past_no_new_move(3000));
        // The score falls as well: longer still.
        clock.note_best(3, -100, None);
        assert!(!clock.past_no_new_iteration(2000));
    }

    #[test]
    fn st_limits_ignore_the_stability_of_the_best_move() {
        let limits = compute_limits(TimeControl::PerMove(secs(1.0)), None, 0);
        let mut clock = SearchClock::new(limits, Some(1000));
        for _ in 0..6 {
            clock.note_best(1, 5, None);
        }
        // A settled best move does not stop the search early: the second is not banked.
        assert!(!clock.past_no_new_iteration(500));
        assert!(clock.past_no_new_iteration(600));
    }

    #[test]
    fn ponder_hit_restarts_the_hard_limit_only() {
        let limits = TimeLimits {
            no_new_iteration: secs(0.5),
            no_new_move: secs(1.0),
            never_exceed: secs(2.0),
            adapts: true,
        };
        let mut clock = SearchClock::new(TimeLimits::INFINITE, Some(1000));
        assert!(!clock.past_never_exceed(1_000_000));
        // Pondered 3 s worth of nodes, then the hit.
        clock.ponder_hit(limits, 3000);
        assert!(
            clock.past_no_new_move(3000),
            "pondered time counts for the soft limits"
        );
        assert!(
            !clock.past_never_exceed(3000),
            "the hard limit starts at the hit"
        );
        assert!(clock.past_never_exceed(5000));
    }
}

/// Each rule at its edges: a clock nearly gone, a short fixed time, the soft limit's steps
/// with a stable best move and a falling score, a paced answer against the hard limit.
#[cfg(test)]
mod edge_tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_nearly_gone_clock_is_halved_never_overspent() {
        // At most twice the margin left: half of it, so there is still something to search
        // with and never more than the clock (nor a subtraction below zero).
        for left in [1, 10, 40, 49, 50, 51, 80, 99, 100] {
            assert_eq!(spendable(ms(left)), ms(left) / 2, "{left} ms left");
        }
        // Above it: all but the margin.
        assert_eq!(spendable(ms(101)), ms(51));
        assert_eq!(spendable(ms(1000)), ms(950));
        // Through compute_limits: a sudden-death clock at 40 ms still moves within it.
        let tc = TimeControl::Conventional {
            moves: 0,
            base: Duration::from_secs(60),
            increment: Duration::ZERO,
        };
        let l = compute_limits(tc, Some(ms(40)), 60);
        assert!(l.never_exceed <= ms(20), "{l:?}");
    }

    #[test]
    fn a_short_fixed_time_keeps_back_at_most_a_quarter() {
        // `st` / `movetime` of 100 ms: the margin would take half of it; a quarter at most.
        let l = compute_limits(TimeControl::PerMove(ms(100)), None, 0);
        assert!(l.never_exceed >= ms(75), "{l:?}");
        assert!(l.never_exceed < ms(100), "{l:?}");
        // A long one keeps the whole margin back.
        let l = compute_limits(TimeControl::PerMove(ms(1000)), None, 0);
        assert_eq!(l.never_exceed, ms(1000) - SAFETY_MARGIN);
    }

    /// A clock at 1000 nodes a second (nodes read as milliseconds) with a 1 s soft limit.
    fn adapting_clock() -> SearchClock {
        let limits = TimeLimits {
            no_new_iteration: Duration::from_secs(1),
            no_new_move: Duration::from_secs(2),
            never_exceed: Duration::from_secs(4),
            adapts: true,
        };
        SearchClock::new(limits, Some(1000))
    }

    /// The soft limit now stands between `low` and `high` milliseconds.
    fn soft_limit_between(clock: &SearchClock, low: u64, high: u64, what: &str) {
        assert!(
            !clock.past_no_new_iteration(low),
            "{what}: past at {low} ms"
        );
        assert!(
            clock.past_no_new_iteration(high),
            "{what}: not past at {high} ms"
        );
    }

    #[test]
    fn a_best_move_that_took_most_of_the_nodes_shortens_the_soft_limit() {
        let mut clock = adapting_clock();
        for _ in 0..3 {
            clock.note_best(7, 0, None);
        }
        soft_limit_between(&clock, 950, 1050, "the same move three times, no share");
        // 0.85 for the fourth time, times 0.74 for 95% of the nodes.
        clock.note_best(7, 0, Some(0.95));
        soft_limit_between(&clock, 580, 680, "95% of the nodes");
        // 0.7 for the fifth time, times 1.62 for 30% of the nodes.
        clock.note_best(7, 0, Some(0.3));
        soft_limit_between(&clock, 1080, 1190, "30% of the nodes");
    }

    #[test]
    fn the_best_move_share_waits_for_depth_and_nodes() {
        assert_eq!(best_move_share(5, 50, 100), None);
        assert_eq!(best_move_share(6, 0, 0), None);
        assert_eq!(best_move_share(6, 50, 100), Some(0.5));
    }

    #[test]
    fn each_iteration_with_the_same_best_move_shortens_the_soft_limit_a_step() {
        let mut clock = adapting_clock();
        clock.note_best(7, 0, None);
        soft_limit_between(&clock, 1550, 1650, "a new best move");
        for (low, high) in [
            (1200, 1300),
            (950, 1050),
            (800, 900),
            (650, 750),
            (650, 750),
        ] {
            clock.note_best(7, 0, None);
            soft_limit_between(&clock, low, high, "the same best move again");
        }
    }

    #[test]
    fn only_a_fall_of_more_than_30_centipawns_extends_the_soft_limit() {
        // Settled (scale 0.7), then a score that rises, a small fall, and a real fall, at a
        // losing score where a ratio would misjudge them.
        let mut clock = adapting_clock();
        for _ in 0..5 {
            clock.note_best(7, -300, None);
        }
        clock.note_best(7, -290, None);
        soft_limit_between(&clock, 650, 750, "a rise");
        clock.note_best(7, -310, None);
        soft_limit_between(&clock, 650, 750, "a fall of 20");
        clock.note_best(7, -400, None);
        soft_limit_between(&clock, 860, 960, "a fall of 90");
    }

    /// A limited search's pause ends at its share of the soft target, never past the hard
    /// limit, and there is none without a wall clock.
    #[test]
    fn a_paced_answer_stays_within_the_hard_limit() {
        let limits = TimeLimits {
            no_new_iteration: Duration::from_millis(550),
            no_new_move: Duration::from_millis(1000),
            never_exceed: Duration::from_millis(1500),
            adapts: true,
        };
        let clock = SearchClock::new(limits, None);
        let paced = clock.paced_until(0.5).unwrap() - clock.start;
        assert_eq!(paced, Duration::from_millis(500));
        let capped = clock.paced_until(2.0).unwrap() - clock.start;
        assert_eq!(capped, Duration::from_millis(1500));
        assert_eq!(SearchClock::new(limits, Some(1000)).paced_until(0.5), None);
        assert_eq!(
            SearchClock::new(TimeLimits::INFINITE, None).paced_until(0.5),
            None
        );
    }
}
