//! The chess clock of a game the tools play between UCI child processes: each
//! side's time left, the `go` command that hands both clocks to the side to move, and the
//! charge of a move's thinking time, which flags a side that went too far below zero. Both
//! `spsa --tc` and `calibrate` play on it.

use crate::chess::Color;
use crate::tools::calibrate::TimeControl;
use std::time::Duration;

/// Whole milliseconds, as UCI's `wtime`/`btime`/`winc`/`binc` take them (never negative).
fn millis(seconds: f64) -> u64 {
    (seconds * 1000.0).round().max(0.0) as u64
}

/// Both sides' clocks in one game under a time control.
#[derive(Clone, Copy, Debug)]
pub struct GameClock {
    control: TimeControl,
    /// Seconds a clock may run below zero before its side loses on time: a reply is read
    /// through pipes and threads, so its measured time runs a little long.
    margin: f64,
    /// Seconds left, White's then Black's.
    left: [f64; 2],
}

fn index(side: Color) -> usize {
    usize::from(side == Color::Black)
}

impl GameClock {
    /// The clocks at the start of a game: the base time each.
    pub fn new(control: TimeControl, margin: f64) -> GameClock {
        GameClock {
            control,
            margin,
            left: [control.base; 2],
        }
    }

    /// The `go` command for the side to move: both clocks and the increment.
    pub fn go(&self) -> String {
        let inc = millis(self.control.increment);
        format!(
            "go wtime {} btime {} winc {inc} binc {inc}",
            millis(self.left[0]),
            millis(self.left[1])
        )
    }

    /// How long `side` may think before the clock has certainly flagged it.
    pub fn allowed(&self, side: Color) -> Duration {
        Duration::from_secs_f64((self.left[index(side)] + self.margin).max(0.0))
    }

    /// Seconds left on `side`'s clock.
    pub fn left(&self, side: Color) -> f64 {
        self.left[index(side)]
    }

    /// Charges `side` the time its move took and, if it is still in time, adds the
    /// increment. False when the side lost on time (more than the margin below zero).
    pub fn charge(&mut self, side: Color, took: Duration) -> bool {
        let left = &mut self.left[index(side)];
        *left -= took.as_secs_f64();
        if *left < -self.margin {
            return false;
        }
        *left += self.control.increment;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn control(base: f64, increment: f64) -> TimeControl {
        TimeControl { base, increment }
    }

    #[test]
    fn go_hands_both_clocks_and_the_increment_in_milliseconds() {
        let mut clock = GameClock::new(control(2.0, 0.02), 0.1);
        assert_eq!(clock.go(), "go wtime 2000 btime 2000 winc 20 binc 20");
        assert!(clock.charge(Color::White, Duration::from_millis(300)));
        // White: 2.0 - 0.3 + 0.02; Black untouched until it moves.
        assert_eq!(clock.go(), "go wtime 1720 btime 2000 winc 20 binc 20");
        assert!(clock.charge(Color::Black, Duration::from_millis(1000)));
        assert_eq!(clock.go(), "go wtime 1720 btime 1020 winc 20 binc 20");
        assert!((clock.left(Color::Black) - 1.02).abs() < 1e-9);
    }

    #[test]
    fn a_side_flags_only_beyond_the_margin_and_gets_no_increment_then() {
        let mut clock = GameClock::new(control(1.0, 0.5), 0.1);
        // 0.05 s below zero is inside the margin: still in time, and the increment is added.
        assert!(clock.charge(Color::White, Duration::from_millis(1050)));
        assert!((clock.left(Color::White) - 0.45).abs() < 1e-9);
        // Black goes 0.15 s below zero: flagged.
        assert!(!clock.charge(Color::Black, Duration::from_millis(1150)));
        assert!(clock.left(Color::Black) < -0.1);
        // A negative clock is sent as 0, never as a negative number.
        assert_eq!(clock.go(), "go wtime 450 btime 0 winc 500 binc 500");
    }

    #[test]
    fn a_side_may_think_its_time_left_and_the_margin() {
        let mut clock = GameClock::new(control(1.0, 0.0), 0.25);
        assert_eq!(clock.allowed(Color::White), Duration::from_millis(1250));
        assert!(!clock.charge(Color::Black, Duration::from_millis(1300)));
        assert_eq!(clock.allowed(Color::Black), Duration::ZERO);
    }
}
