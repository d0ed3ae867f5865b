//! Time management: turns the time control and the clock into the three limits of the
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

/// What the GUI set with `level` or `st`.
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
}

impl TimeLimits {
    /// No limit at all (analysis, pondering before a hit, `sd`-only searches).
    pub const INFINITE: TimeLimits = TimeLimits {
        no_new_iteration: Duration::MAX,
        no_new_move: Duration::MAX,
        never_exceed: Duration::MAX,
    };
}

/// Kept back from every clock reading: pipe latency and GUI overhead are charged to us.
pub const SAFETY_MARGIN: Duration = Duration::from_millis(50);

/// Guessed moves left in a game without a move count (sudden death or incremental).
const GUESSED_MOVES_TO_GO: u32 = 30;

/// Computes the limits for one move.
///
/// * `time_left`: our clock (from `time`); `None` if the GUI never sent one.
/// * `moves_made`: moves we have played so far in this game (for `level 40 ...`).
pub fn compute_limits(tc: TimeControl, time_left: Option<Duration>, moves_made: u32) -> TimeLimits {
    let margin = |left: Duration| {
        // Keep a fixed margin, or 10% of a nearly empty clock if that is smaller.
        left.saturating_sub(SAFETY_MARGIN.min(left / 10))
    };
    match tc {
        TimeControl::PerMove(per_move) => {
            let mut hard = per_move.saturating_sub(SAFETY_MARGIN.min(per_move / 4));
            if let Some(left) = time_left {
                hard = hard.min(margin(left));
            }
            TimeLimits {
                no_new_iteration: hard.mul_f64(0.6),
                no_new_move: hard,
                never_exceed: hard,
            }
        }
        TimeControl::Conventional {
            moves,
            base,
            increment,
        } => {
            let left = time_left.unwrap_or(base);
            let usable = margin(left);
            let moves_to_go = if moves > 0 {
                moves - (moves_made % moves)
            } else {
                GUESSED_MOVES_TO_GO
            };
            // Our share of what is left, plus most of the increment we get back for moving.
            let mut target = usable / moves_to_go;
            if increment > Duration::ZERO && usable > increment * 2 {
                target += increment.mul_f64(0.75);
            }
            // Hard cap: a few targets, never more than a fraction of the clock (all of it,
            // less the margin, when this is the last move before the control).
            let cap_fraction = if moves_to_go <= 1 { 0.9 } else { 0.35 };
            let never_exceed = (target * 4).min(usable.mul_f64(cap_fraction));
            let target = target.min(never_exceed);
            TimeLimits {
                no_new_iteration: target.mul_f64(0.55),
                no_new_move: target,
                never_exceed,
            }
        }
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
        }
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
        self.elapsed(nodes) >= self.limits.no_new_iteration
    }

    pub fn past_no_new_move(&self, nodes: u64) -> bool {
        self.elapsed(nodes) >= self.limits.no_new_move
    }

    pub fn past_never_exceed(&self, nodes: u64) -> bool {
        self.own_elapsed(nodes) >= self.limits.never_exceed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn check_sane(l: TimeLimits, left: Duration) {
        assert!(l.no_new_iteration <= l.no_new_move, "{l:?}");
        assert!(l.no_new_move <= l.never_exceed, "{l:?}");
        let allowed = left.saturating_sub(SAFETY_MARGIN.min(left / 10));
        assert!(l.never_exceed <= allowed, "{l:?} with {left:?} left");
    }

    #[test]
    fn classical_40_moves_in_5_minutes() {
        let tc = level(40, 300.0, 0.0);
        // Fresh clock: about 300/40 = 7.5 s per move.
        let l = compute_limits(tc, Some(secs(300.0)), 0);
        check_sane(l, secs(300.0));
        assert!(
            l.no_new_move > secs(6.0) && l.no_new_move < secs(8.0),
            "{l:?}"
        );
        // 39 moves made, 10 s left: the last move before the control may use most of it.
        let l = compute_limits(tc, Some(secs(10.0)), 39);
        check_sane(l, secs(10.0));
        assert!(l.never_exceed > secs(8.0), "{l:?}");
        // After the control (move 41), a new session of 40 moves starts.
        let l = compute_limits(tc, Some(secs(200.0)), 40);
        assert!(l.no_new_move < secs(6.0), "{l:?}");
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
        assert!(
            l.no_new_move > secs(0.6) && l.no_new_move < secs(0.8),
            "{l:?}"
        );
        let l = compute_limits(tc, Some(secs(1.0)), 30);
        check_sane(l, secs(1.0));
        assert!(l.no_new_move < secs(0.2), "{l:?}");
    }

    #[test]
    fn incremental_2_plus_12() {
        let tc = level(0, 120.0, 12.0);
        let l = compute_limits(tc, Some(secs(120.0)), 0);
        check_sane(l, secs(120.0));
        // 120/30 + 0.75*12 = 13 s.
        assert!(
            l.no_new_move > secs(12.0) && l.no_new_move < secs(14.0),
            "{l:?}"
        );
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
        assert!(
            l.no_new_move > secs(1.0) && l.no_new_move < secs(1.2),
            "{l:?}"
        );
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
        assert!(
            l.no_new_move > secs(1.8) && l.no_new_move < secs(2.2),
            "{l:?}"
        );
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
    fn ponder_hit_restarts_the_hard_limit_only() {
        let limits = TimeLimits {
            no_new_iteration: secs(0.5),
            no_new_move: secs(1.0),
            never_exceed: secs(2.0),
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
