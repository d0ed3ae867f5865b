//! The engine's options, in one table that both protocols render (`uci`'s `option name …`,
//! xboard's `feature option="…"`) and parse (`setoption`, `option NAME=VALUE`). Adding an
//! option is one row here: its name, kind and range are the same in both protocols, and
//! where a protocol has a name or a default of its own the row says so.

use super::Engine;
use crate::search::strength::{DEFAULT_ELO, FULL_STRENGTH_ELO, MIN_ELO};
use crate::search::tt::{DEFAULT_HASH_MB, MAX_HASH_MB};
use crate::search::{DEFAULT_SYZYGY_PROBE_DEPTH, MAX_SYZYGY_PROBE_DEPTH, MAX_THREADS};
use std::time::Duration;

/// The longest Move Overhead, in milliseconds.
pub const MAX_MOVE_OVERHEAD_MS: i64 = 5000;
/// The most MultiPV lines.
pub const MAX_MULTI_PV: i64 = 256;
/// The highest resign threshold, in centipawns.
pub const MAX_RESIGN_THRESHOLD: i64 = 10_000;

/// What kind of value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A whole number from `min` to `max`, in `unit` (for messages; may be empty).
    Spin {
        min: i64,
        max: i64,
        unit: &'static str,
    },
    /// On or off.
    Check,
    /// Free text.
    Text,
    /// A file name (xboard shows a file chooser; UCI has only strings).
    File,
    /// An action without a value.
    Button,
}

/// A value as the table holds it (defaults), so that rows can be constants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefaultValue {
    Int(i64),
    Bool(bool),
    Text(&'static str),
    /// A button has none.
    None,
}

/// A value sent by a GUI, checked against the option's kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Text(String),
    Press,
}

/// How one protocol offers an option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// As an option under the row's name.
    Option,
    /// As an option under a name of the protocol's own.
    Named(&'static str),
    /// Through a command of the protocol's own instead (xboard `memory`, `cores`, `hard`,
    /// `egtpath`, `variant`): not in the option list, set by the same `apply`.
    Command(&'static str),
    /// Not at all.
    No,
}

/// One row of the table.
#[derive(Clone)]
pub struct EngineOption {
    /// The name (UCI's, which xboard shares unless `xboard` names its own): one word where
    /// the name is Kestrel's own, so that every client can set it (python-chess reads an
    /// xboard option's name up to the first space).
    pub name: &'static str,
    /// Earlier names, still accepted in either protocol (a GUI or a tester's configuration
    /// may have saved them), never announced.
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub default: DefaultValue,
    /// xboard's default where it differs from `default` (e.g. the book: xboard `Book` is on,
    /// UCI `OwnBook` off, as each protocol's GUIs expect).
    pub xboard_default: Option<DefaultValue>,
    pub uci: Offer,
    pub xboard: Offer,
    /// Sets the option on the engine: the lines to show (what was loaded or skipped), or why
    /// the value was refused, the engine then being as it was.
    pub apply: fn(&mut Engine, Value) -> Result<Vec<String>, String>,
}

impl EngineOption {
    /// The name `protocol` shows it under, if it shows it as an option.
    pub fn name_in(&self, protocol: Protocol) -> Option<&'static str> {
        match self.offer(protocol) {
            Offer::Option => Some(self.name),
            Offer::Named(name) => Some(name),
            Offer::Command(_) | Offer::No => None,
        }
    }

    pub fn offer(&self, protocol: Protocol) -> Offer {
        match protocol {
            Protocol::Uci => self.uci,
            Protocol::Xboard => self.xboard,
        }
    }

    /// The default `protocol` announces.
    pub fn default_in(&self, protocol: Protocol) -> DefaultValue {
        match protocol {
            Protocol::Uci => self.default,
            Protocol::Xboard => self.xboard_default.unwrap_or(self.default),
        }
    }

    /// Checks `text` against the kind: numbers in range, checks as `true`/`false` (any case)
    /// or `1`/`0`, text as given. `None` (no value sent) is only right for a button.
    pub fn parse(&self, protocol: Protocol, text: Option<&str>) -> Result<Value, String> {
        let name = self.name_in(protocol).unwrap_or(self.name);
        let text = text.map(str::trim);
        match self.kind {
            Kind::Spin { min, max, unit } => text
                .and_then(|t| t.parse::<i64>().ok())
                .filter(|n| (min..=max).contains(n))
                .map(Value::Int)
                .ok_or_else(|| format!("{name} must be {min}-{max}{unit}")),
            Kind::Check => {
                let on = match text.map(str::to_ascii_lowercase).as_deref() {
                    Some("true" | "1") => Some(true),
                    Some("false" | "0") => Some(false),
                    _ => None,
                };
                on.map(Value::Bool)
                    .ok_or_else(|| format!("{name} must be true or false"))
            }
            Kind::Text | Kind::File => Ok(Value::Text(text.unwrap_or("").to_string())),
            Kind::Button => Ok(Value::Press),
        }
    }
}

/// The two protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Uci,
    Xboard,
}

/// The options in the order the protocols list them.
pub static OPTIONS: &[EngineOption] = &[
    EngineOption {
        name: "Hash",
        aliases: &[],
        kind: Kind::Spin {
            min: 1,
            max: MAX_HASH_MB as i64,
            unit: " MB",
        },
        default: DefaultValue::Int(DEFAULT_HASH_MB as i64),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Command("memory"),
        apply: |engine, value| {
            engine.set_hash_mb(int(&value) as usize)?;
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "Threads",
        aliases: &[],
        kind: Kind::Spin {
            min: 1,
            max: MAX_THREADS as i64,
            unit: "",
        },
        default: DefaultValue::Int(1),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Command("cores"),
        apply: |engine, value| {
            engine.set_threads(int(&value) as usize);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "Ponder",
        aliases: &[],
        kind: Kind::Check,
        default: DefaultValue::Bool(false),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Command("hard"),
        apply: |engine, value| {
            engine.ponder = boolean(&value);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "ResignThreshold",
        aliases: &["Resign Threshold"],
        kind: Kind::Spin {
            min: 0,
            max: MAX_RESIGN_THRESHOLD,
            unit: "",
        },
        default: DefaultValue::Int(0),
        xboard_default: None,
        uci: Offer::No,
        xboard: Offer::Option,
        apply: |engine, value| {
            engine.resign_threshold = int(&value) as i32;
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "DrawOffers",
        aliases: &["Draw Offers"],
        kind: Kind::Check,
        default: DefaultValue::Bool(true),
        xboard_default: None,
        uci: Offer::No,
        xboard: Offer::Option,
        apply: |engine, value| {
            engine.draw_offers = boolean(&value);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "MoveOverhead",
        aliases: &["Move Overhead"],
        kind: Kind::Spin {
            min: 0,
            max: MAX_MOVE_OVERHEAD_MS,
            unit: " ms",
        },
        default: DefaultValue::Int(super::time::SAFETY_MARGIN.as_millis() as i64),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Option,
        apply: |engine, value| {
            engine.move_overhead = Duration::from_millis(int(&value) as u64);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "MultiPV",
        aliases: &[],
        kind: Kind::Spin {
            min: 1,
            max: MAX_MULTI_PV,
            unit: "",
        },
        default: DefaultValue::Int(1),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Option,
        apply: |engine, value| {
            engine.multi_pv = int(&value) as usize;
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "UCI_Chess960",
        aliases: &[],
        kind: Kind::Check,
        default: DefaultValue::Bool(false),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Command("variant fischerandom"),
        apply: |engine, value| {
            engine.chess960 = boolean(&value);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "LogFile",
        aliases: &["Log File"],
        kind: Kind::Text,
        default: DefaultValue::Text("off"),
        xboard_default: None,
        uci: Offer::No,
        xboard: Offer::Option,
        apply: |engine, value| {
            let path = text(&value);
            let path = (!path.is_empty() && path != "off").then(|| std::path::Path::new(path));
            engine
                .io
                .transcript
                .open(path)
                .map(|_| Vec::new())
                .map_err(|e| format!("cannot open log file: {e}"))
        },
    },
    EngineOption {
        name: "OwnBook",
        aliases: &[],
        kind: Kind::Check,
        default: DefaultValue::Bool(false),
        // A book file set in XBoard's dialog is a book meant to be used.
        xboard_default: Some(DefaultValue::Bool(true)),
        uci: Offer::Option,
        xboard: Offer::Named("Book"),
        apply: |engine, value| {
            engine.use_book = boolean(&value);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "BookFile",
        aliases: &["Book File"],
        kind: Kind::File,
        default: DefaultValue::Text(""),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Option,
        apply: |engine, value| {
            // `<empty>` is how UCI writes the empty default.
            let path = match text(&value) {
                "<empty>" => "",
                path => path,
            };
            engine.set_book_file(path).map(|_| Vec::new())
        },
    },
    EngineOption {
        name: "Clear Hash",
        aliases: &[],
        kind: Kind::Button,
        default: DefaultValue::None,
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::No,
        apply: |engine, _| {
            engine.clear_hash();
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "SyzygyPath",
        aliases: &[],
        kind: Kind::Text,
        default: DefaultValue::Text(""),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Command("egtpath syzygy"),
        apply: |engine, value| {
            engine
                .set_syzygy_path(text(&value))
                .map_err(|e| format!("{e}; playing without tables"))
        },
    },
    EngineOption {
        name: "SyzygyProbeDepth",
        aliases: &[],
        kind: Kind::Spin {
            min: 1,
            max: MAX_SYZYGY_PROBE_DEPTH as i64,
            unit: "",
        },
        default: DefaultValue::Int(DEFAULT_SYZYGY_PROBE_DEPTH as i64),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Option,
        apply: |engine, value| {
            engine.set_syzygy_probe_depth(int(&value) as i32);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "EvalFile",
        aliases: &[],
        kind: Kind::File,
        default: DefaultValue::Text(super::EMBEDDED_NET_NAME),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Option,
        apply: |engine, value| engine.set_eval_file(text(&value)),
    },
    EngineOption {
        name: "UseNNUE",
        aliases: &[],
        kind: Kind::Check,
        default: DefaultValue::Bool(true),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Option,
        apply: |engine, value| Ok(engine.set_use_nnue(boolean(&value))),
    },
    EngineOption {
        name: "UCI_ShowWDL",
        aliases: &[],
        kind: Kind::Check,
        default: DefaultValue::Bool(false),
        xboard_default: None,
        uci: Offer::Option,
        // xboard's thinking output has no place for it.
        xboard: Offer::No,
        apply: |engine, value| {
            engine.show_wdl = boolean(&value);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "UCI_LimitStrength",
        aliases: &["Limit Strength"],
        kind: Kind::Check,
        default: DefaultValue::Bool(false),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Named("LimitStrength"),
        apply: |engine, value| {
            engine.limit_strength = boolean(&value);
            Ok(Vec::new())
        },
    },
    EngineOption {
        name: "UCI_Elo",
        aliases: &[],
        kind: Kind::Spin {
            min: MIN_ELO,
            max: FULL_STRENGTH_ELO,
            unit: "",
        },
        default: DefaultValue::Int(DEFAULT_ELO),
        xboard_default: None,
        uci: Offer::Option,
        xboard: Offer::Named("Elo"),
        apply: |engine, value| {
            engine.elo = int(&value);
            Ok(Vec::new())
        },
    },
];

fn int(value: &Value) -> i64 {
    match value {
        Value::Int(n) => *n,
        other => unreachable!("a spin option was given {other:?}"),
    }
}

fn boolean(value: &Value) -> bool {
    match value {
        Value::Bool(on) => *on,
        other => unreachable!("a check option was given {other:?}"),
    }
}

fn text(value: &Value) -> &str {
    match value {
        Value::Text(text) => text,
        other => unreachable!("a text option was given {other:?}"),
    }
}

/// The option `protocol` shows as `name` (any case: GUIs and people differ).
pub fn find(
    options: &'static [EngineOption],
    protocol: Protocol,
    name: &str,
) -> Option<&'static EngineOption> {
    let name = name.trim();
    let is = |n: &str| n.eq_ignore_ascii_case(name);
    options.iter().find(|o| {
        o.name_in(protocol)
            .is_some_and(|n| is(n) || o.aliases.iter().any(|a| is(a)))
    })
}

impl Engine {
    /// Sets the option `protocol` calls `name` to `text`: the lines to show, or why not.
    pub fn set_option(
        &mut self,
        protocol: Protocol,
        name: &str,
        text: Option<&str>,
    ) -> Result<Vec<String>, OptionError> {
        #[cfg(feature = "tune")]
        if find(OPTIONS, protocol, name).is_none() {
            if let Some(result) = set_search_param(name, text) {
                return result;
            }
        }
        self.set_option_in(OPTIONS, protocol, name, text)
    }

    /// `set_option` in the table `options`.
    pub fn set_option_in(
        &mut self,
        options: &'static [EngineOption],
        protocol: Protocol,
        name: &str,
        text: Option<&str>,
    ) -> Result<Vec<String>, OptionError> {
        let option = find(options, protocol, name).ok_or(OptionError::Unknown)?;
        let value = option
            .parse(protocol, text)
            .map_err(OptionError::BadValue)?;
        (option.apply)(self, value).map_err(OptionError::Refused)
    }
}

impl Engine {
    /// Sets every option whose default in `protocol` is not the engine's own (UCI's).
    pub fn take_defaults_of(&mut self, protocol: Protocol) {
        for option in OPTIONS {
            let default = option.default_in(protocol);
            if default != option.default {
                let value = match default {
                    DefaultValue::Int(n) => Value::Int(n),
                    DefaultValue::Bool(on) => Value::Bool(on),
                    DefaultValue::Text(text) => Value::Text(text.to_string()),
                    DefaultValue::None => Value::Press,
                };
                if let Err(e) = (option.apply)(self, value) {
                    log::warn!("the {protocol:?} default of {}: {e}", option.name);
                }
            }
        }
    }
}

/// A tuning build's search parameter `name` set to `text`; `None` if there is no such
/// parameter.
#[cfg(feature = "tune")]
fn set_search_param(name: &str, text: Option<&str>) -> Option<Result<Vec<String>, OptionError>> {
    use crate::search::params::{self, PARAMS};
    let param = PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))?;
    let result = text
        .and_then(|t| t.trim().parse::<i32>().ok())
        .ok_or_else(|| format!("{} needs a whole number", param.name))
        .and_then(|value| params::set(param.name, value))
        .map(|_| Vec::new())
        .map_err(OptionError::BadValue);
    Some(result)
}

/// The `option` lines of a tuning build's search parameters (UCI spins).
pub fn search_param_lines() -> Vec<String> {
    if !cfg!(feature = "tune") {
        return Vec::new();
    }
    crate::search::params::PARAMS
        .iter()
        .map(|p| {
            format!(
                "option name {} type spin default {} min {} max {}",
                p.name, p.default, p.min, p.max
            )
        })
        .collect()
}

/// Why an option was not set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// No option of that name.
    Unknown,
    /// The value is not of the option's kind or out of its range.
    BadValue(String),
    /// The value was of the right kind but could not be used (a file that does not open).
    Refused(String),
}
