//! The commands that change a setting rather than the game: `option NAME=VALUE`, `elo`
//! (the strength setting), and `exclude`/`include` of root moves in analysis.

use super::Session;
use crate::engine::options::{OptionError, Protocol};

impl Session {
    /// `option NAME=VALUE`, through the engine's option table.
    pub(super) fn set_option(&mut self, name: &str, value: Option<&str>) {
        let command = match value {
            Some(v) => format!("option {name}={v}"),
            None => format!("option {name}"),
        };
        match self.engine.set_option(Protocol::Xboard, name, value) {
            Ok(lines) => {
                for line in lines {
                    self.send(&format!("# {line}"));
                }
            }
            Err(OptionError::Unknown) => self.send(&format!("Error (unknown option): {name}")),
            Err(OptionError::BadValue(why)) => self.send(&format!("Error ({why}): {command}")),
            // The value was right but could not be used (a file that does not open): the
            // person who chose it in the dialog should see why.
            Err(OptionError::Refused(why)) => self.send(&format!("tellusererror {why}")),
        }
    }

    /// `elo N` (the options `Elo` and `LimitStrength` at once), `elo off`, or `elo`: the
    /// setting, shown.
    pub(super) fn set_elo(&mut self, setting: &str) {
        match setting.trim() {
            "" => {}
            "off" => self.engine.limit_strength = false,
            elo => match self.engine.set_option(Protocol::Xboard, "Elo", Some(elo)) {
                Ok(_) => self.engine.limit_strength = true,
                Err(OptionError::BadValue(why) | OptionError::Refused(why)) => {
                    self.send(&format!("Error ({why}): elo {elo}"));
                    return;
                }
                Err(OptionError::Unknown) => unreachable!("Elo is in the option table"),
            },
        }
        let line = match self.engine.strength() {
            Some(s) => format!(
                "# Elo {}: {} nodes a move, choosing among {} lines at {:.0} cp",
                s.elo, s.nodes, s.candidates, s.temperature
            ),
            None if self.engine.limit_strength => {
                format!("# Elo {}: full strength", self.engine.elo)
            }
            None => "# full strength (elo off)".to_string(),
        };
        self.send(&line);
    }

    pub(super) fn exclude(&mut self, what: &str, exclude: bool) {
        let pos = *self.engine.game.position();
        if what == "all" {
            self.excluded = if exclude {
                pos.legal_moves().to_vec()
            } else {
                Vec::new()
            };
            return;
        }
        match pos.parse_move(what) {
            Ok(m) => {
                self.excluded.retain(|&e| e != m);
                if exclude {
                    self.excluded.push(m);
                }
            }
            Err(e) => self.send(&format!("Illegal move ({e}): {what}")),
        }
    }
}
