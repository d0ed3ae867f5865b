//! The xboard side of the shared search hook: what is answered at once while Kestrel
//! thinks, ponders or analyses, what waits behind the move, the ponder hit, and the
//! thinking output.

use super::{invalid_line, Session};
use crate::engine::{Abort, Engine, Front, Mode, Search};
use crate::protocol::xboard::commands::{format_score, thinking_line, Command, CommandError};
use crate::search::{Bound, SearchInfo};

/// The xboard side of the shared search hook: answers what can be answered at once,
/// queues the rest, and recognises the ponder hit.
impl Front for Session {
    fn engine(&mut self) -> &mut Engine {
        &mut self.engine
    }

    /// One line that arrived during the search.
    fn on_search_input(&mut self, search: &mut Search, line: String) {
        let parsed = if invalid_line(&line).is_some() {
            Err(CommandError::Unknown(String::new()))
        } else {
            Command::parse(&line)
        };
        match search.mode {
            Mode::Think => match parsed {
                Ok(Command::MoveNow) => search.stop(Abort::MoveNow),
                // Errors and harmless commands wait their turn behind the move.
                Err(_) => self.engine.io.pending.push_back(line),
                Ok(cmd) if cmd.is_harmless_during_search() => {
                    self.engine.io.pending.push_back(line)
                }
                Ok(_) => {
                    self.engine.io.pending.push_back(line);
                    search.stop(Abort::Command);
                }
            },
            Mode::Ponder { expected } => match parsed {
                Ok(Command::Move(text))
                    if expected.is_some()
                        && self.engine.game.position().parse_move(&text).ok() == expected =>
                {
                    // The hit move is not in the game yet: count it.
                    let moves_made = (self.engine.game.moves().len() as u32).div_ceil(2);
                    search.on_ponder_hit(self.limits(moves_made));
                }
                Ok(Command::MoveNow) | Ok(Command::Stat) => {}
                Ok(cmd) if cmd.is_harmless_during_search() => self.handle_harmless(cmd),
                Err(e) if invalid_line(&line).is_none() => self.send_error(&e),
                _ => {
                    self.engine.io.pending.push_back(line);
                    search.stop(Abort::Command);
                }
            },
            Mode::Analyze => match parsed {
                Ok(Command::Stat) => self.send_stat(search),
                Ok(Command::MoveNow) => {}
                Ok(cmd) if cmd.is_harmless_during_search() => self.handle_harmless(cmd),
                Err(e) if invalid_line(&line).is_none() => self.send_error(&e),
                _ => {
                    self.engine.io.pending.push_back(line);
                    search.stop(Abort::Command);
                }
            },
        }
    }

    fn on_report(&mut self, search: &Search, info: &SearchInfo) {
        if self.post || search.mode == Mode::Analyze {
            let mut pv = self.pv_text(&search.root, &info.pv);
            // A fail high or low shows as `!` or `?` after the move (the score is a bound),
            // a word of its own: clients that read the PV move by move (python-chess) stop
            // there and keep the move, where `Nf3!` would leave them no PV at all.
            let mark = match info.bound {
                Bound::Lower => " !",
                Bound::Upper => " ?",
                _ => "",
            };
            if !mark.is_empty() {
                let end = pv.find(' ').unwrap_or(pv.len());
                pv.insert_str(end, mark);
            }
            if self.thinking_header_due {
                self.thinking_header_due = false;
                self.send(THINKING_HEADER);
            }
            let line = thinking_line(
                info.depth,
                format_score(info.score, crate::search::wdl::material(&search.root)),
                search.clock.elapsed(info.nodes),
                info.nodes,
                info.seldepth,
                info.tbhits,
                &pv,
            );
            self.send(&line);
        }
    }
}

/// The columns of the thinking output, shown to a person above a search's first line.
const THINKING_HEADER: &str =
    "depth score(cp, side to move) time(1/100 s) nodes seldepth nps tbhits\tmoves";

impl Session {
    /// `.` in analysis: `stat01: time nodes depth moves-left total-moves current-move`.
    fn send_stat(&mut self, search: &Search) {
        let cs = search.clock.elapsed(search.nodes).as_millis() / 10;
        let left = search.root_count.saturating_sub(search.root_index + 1);
        let name = if search.root_move.is_none() {
            String::new()
        } else {
            format!(" {}", self.move_text(&search.root, search.root_move))
        };
        let line = format!(
            "stat01: {cs} {} {} {left} {}{name}",
            search.nodes, search.depth, search.root_count
        );
        self.send(&line);
    }
}
