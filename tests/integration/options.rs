//! The options both protocols announce come from one table: read from the real binary's `uci`
//! and `protover 2` replies, an option both protocols show has the same type and range in
//! both, and its defaults differ only where the table says so.

use crate::common;

use common::Engine;
use kestrel::engine::options::{Kind, Offer, Protocol, OPTIONS};
use std::collections::BTreeMap;

/// An announced option: its type as UCI calls it (`spin`, `check`, `string`, `button`), its
/// default as text (checks as `true`/`false`, an empty string as ""), and its range.
#[derive(Debug, PartialEq)]
pub struct Announced {
    pub kind: String,
    pub default: String,
    pub range: Option<(i64, i64)>,
}

/// `option name N type T [default D] [min A max B]` lines, by name.
pub fn uci_options() -> BTreeMap<String, Announced> {
    let mut e = Engine::start();
    let lines = e.uci_handshake();
    let mut options = BTreeMap::new();
    for line in lines.iter().filter_map(|l| l.strip_prefix("option name ")) {
        let (name, rest) = line.split_once(" type ").expect(line);
        let mut words = rest.split(' ');
        let kind = words.next().unwrap().to_string();
        let rest: Vec<&str> = words.collect();
        let after = |key: &str| {
            rest.iter()
                .position(|w| *w == key)
                .map(|i| {
                    rest[i + 1..]
                        .iter()
                        .take_while(|w| !["min", "max"].contains(w))
                })
                .map(|ws| ws.copied().collect::<Vec<_>>().join(" "))
        };
        let default = match after("default").unwrap_or_default().as_str() {
            "<empty>" => String::new(),
            d => d.to_string(),
        };
        let range = after("min").map(|min| {
            let max = after("max").expect(line);
            (min.parse().unwrap(), max.parse().unwrap())
        });
        options.insert(
            name.to_string(),
            Announced {
                kind,
                default,
                range,
            },
        );
    }
    options
}

/// `feature option="N -T [D] [A B]"` lines, by name, in UCI's terms.
pub fn xboard_options() -> BTreeMap<String, Announced> {
    let mut e = Engine::start();
    let lines = e.handshake();
    let mut options = BTreeMap::new();
    for line in lines
        .iter()
        .filter_map(|l| l.strip_prefix("feature option=\""))
    {
        let body = line.strip_suffix('"').expect(line);
        let (name, rest) = body.split_once(" -").expect(line);
        let (control, value) = rest.split_once(' ').unwrap_or((rest, ""));
        let (kind, default, range) = match control {
            "spin" => {
                let v: Vec<i64> = value.split(' ').map(|w| w.parse().unwrap()).collect();
                assert_eq!(v.len(), 3, "{line}");
                ("spin", v[0].to_string(), Some((v[1], v[2])))
            }
            "check" => {
                let on = match value {
                    "1" => "true",
                    "0" => "false",
                    other => panic!("{line}: check default {other}"),
                };
                ("check", on.to_string(), None)
            }
            "string" | "file" | "path" => ("string", value.to_string(), None),
            "button" | "save" => ("button", String::new(), None),
            other => panic!("{line}: unknown control {other}"),
        };
        options.insert(
            name.to_string(),
            Announced {
                kind: kind.to_string(),
                default,
                range,
            },
        );
    }
    options
}

#[test]
fn options_shared_by_both_protocols_agree_in_type_range_and_default() {
    let uci = uci_options();
    let xboard = xboard_options();
    assert!(uci.len() >= 10 && xboard.len() >= 6, "{uci:?} {xboard:?}");
    let mut shared = 0;
    for option in OPTIONS {
        let names = (
            option.name_in(Protocol::Uci),
            option.name_in(Protocol::Xboard),
        );
        // Every option the table offers as one is announced, under its name.
        for (name, announced) in [(names.0, &uci), (names.1, &xboard)] {
            if let Some(name) = name {
                assert!(announced.contains_key(name), "{name} not announced");
            }
        }
        let (Some(uci_name), Some(xboard_name)) = names else {
            continue;
        };
        shared += 1;
        let (u, x) = (&uci[uci_name], &xboard[xboard_name]);
        assert_eq!(u.kind, x.kind, "{uci_name} / {xboard_name}");
        assert_eq!(u.range, x.range, "{uci_name} / {xboard_name}");
        if u.default != x.default {
            assert!(
                option.xboard_default.is_some(),
                "{uci_name}: default {} in UCI, {} in xboard, and the table does not say so",
                u.default,
                x.default
            );
        }
    }
    assert!(shared >= 5, "only {shared} options shared");
    // Nothing is announced that is not in the table.
    for name in uci.keys() {
        assert!(
            OPTIONS
                .iter()
                .any(|o| o.name_in(Protocol::Uci) == Some(name)),
            "UCI announces {name}, which is not in the table"
        );
    }
    for name in xboard.keys() {
        assert!(
            OPTIONS
                .iter()
                .any(|o| o.name_in(Protocol::Xboard) == Some(name)),
            "xboard announces {name}, which is not in the table"
        );
    }
}

/// Without the table: an option both protocols announce under one name has one type and one
/// range (what a person switching GUIs would see).
#[test]
fn an_option_of_one_name_is_the_same_option_in_both_protocols() {
    let uci = uci_options();
    let xboard = xboard_options();
    let mut both = 0;
    for (name, x) in &xboard {
        if let Some(u) = uci.get(name) {
            both += 1;
            assert_eq!((&u.kind, u.range), (&x.kind, x.range), "{name}");
        }
    }
    assert!(both >= 4, "{both} options under one name");
}

/// An option xboard sets by a command of its own (`memory`, `cores`) is one UCI shows as an
/// option, and the command is named in the table.
#[test]
fn xboard_commands_stand_for_uci_options() {
    let uci = uci_options();
    for name in ["Hash", "Threads", "Ponder", "SyzygyPath", "UCI_Chess960"] {
        let option = OPTIONS.iter().find(|o| o.name == name).unwrap();
        assert!(uci.contains_key(name), "{name}");
        assert!(
            matches!(option.xboard, Offer::Command(_)),
            "{name}: {:?}",
            option.xboard
        );
    }
}

/// Every name announced is one word (python-chess reads an xboard option's name up to its
/// first space), but for UCI's own `Clear Hash`; the names of earlier versions still set
/// their option in either protocol where it is offered (a bad value is refused in the
/// option's own name, so the alias reached it), and are not announced.
#[test]
fn names_are_one_word_and_earlier_names_still_work() {
    let (uci, xboard) = (uci_options(), xboard_options());
    for name in uci
        .keys()
        .filter(|n| *n != "Clear Hash")
        .chain(xboard.keys())
    {
        assert!(!name.contains(' '), "'{name}' has a space");
    }
    let mut aliases = 0;
    for option in OPTIONS.iter().filter(|o| !o.aliases.is_empty()) {
        for alias in option.aliases {
            assert!(!uci.contains_key(*alias) && !xboard.contains_key(*alias));
            aliases += 1;
            // A value the option refuses: a number out of every range, a file that is not.
            let (value, refused) = match option.kind {
                Kind::Text | Kind::File => ("/no/such/dir/file", "cannot open".to_string()),
                _ => ("99999", format!("{} must be", option.name)),
            };
            if option.name_in(Protocol::Uci).is_some() {
                let mut e = Engine::started_uci();
                e.send(&format!("setoption name {alias} value {value}"));
                let reply = e.next_line(common::SEC * 5).unwrap();
                assert!(reply.contains(&refused), "{alias}: {reply}");
            }
            if let Some(name) = option.name_in(Protocol::Xboard) {
                let mut e = Engine::started();
                e.allow_errors(true);
                e.send(&format!("option {alias}={value}"));
                let reply = e.next_line(common::SEC * 5).unwrap();
                let refused = refused.replace(option.name, name);
                assert!(reply.contains(&refused), "{alias}: {reply}");
            }
        }
    }
    assert!(aliases >= 6, "{aliases} earlier names");
}

/// Big machines: `Threads` reaches 1,024 and `Hash` 1 TB, and a `Hash` above what this
/// machine has free is refused with the old table kept, the engine playing on.
#[test]
fn big_machine_limits_are_offered_and_what_the_machine_lacks_is_refused() {
    let uci = uci_options();
    assert_eq!(uci["Threads"].range, Some((1, 1024)));
    assert_eq!(uci["Hash"].range, Some((1, 1 << 20)));
    let mut e = Engine::started_uci();
    e.allow_errors(true);
    e.send("setoption name Hash value 1048576");
    e.send("isready");
    let (_, before) = e.wait_for("readyok", common::SEC * 20, |l| l == "readyok");
    let free = before
        .iter()
        .find(|l| l.starts_with("info string error: Hash 1048576 MB is more than"))
        .unwrap_or_else(|| panic!("not refused: {before:?}"));
    assert!(free.ends_with("the table stays at 64 MB"), "{free}");
    e.allow_errors(false);
    e.send("position startpos moves e2e4 c7c5");
    e.send("go depth 6");
    let (best, _) = e.wait_for("bestmove", common::SEC * 20, |l| l.starts_with("bestmove "));
    assert_ne!(best, "bestmove 0000");
}
