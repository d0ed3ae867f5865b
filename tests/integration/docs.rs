//! The documentation against the engine: every option the engine announces has a row in the
//! README's options table with the same default and range, and every command the terminal
//! `help` lists is described in docs/xboard.md.

use crate::options::{uci_options, xboard_options};
use kestrel::protocol::xboard::terminal::HELP;
use std::collections::BTreeMap;

fn read(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A row of the README's options table.
#[derive(Debug)]
struct Row {
    default: String,
    range: String,
}

/// The rows between the table's markers, by the option's name (the first cell's first
/// `code` span).
fn readme_options() -> BTreeMap<String, Row> {
    let readme = read("README.md");
    let (_, rest) = readme
        .split_once("<!-- options:begin -->")
        .expect("README.md has <!-- options:begin -->");
    let (table, _) = rest
        .split_once("<!-- options:end -->")
        .expect("README.md has <!-- options:end -->");
    let mut rows = BTreeMap::new();
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        assert!(cells.len() >= 5, "a row of four cells: {line}");
        let name = cells[1].split('`').nth(1).expect(line).to_string();
        let unquote = |cell: &str| cell.trim_matches('`').to_string();
        let row = Row {
            default: unquote(cells[2]),
            range: unquote(cells[3]),
        };
        assert!(rows.insert(name, row).is_none(), "a second row: {line}");
    }
    rows
}

/// The README's default of an option, in the terms of `Announced` (an empty text as "").
fn default_of(row: &Row) -> String {
    match row.default.as_str() {
        "<empty>" | "-" => String::new(),
        d => d.to_string(),
    }
}

#[test]
fn the_readme_lists_every_option_with_its_default_and_range() {
    let rows = readme_options();
    let uci = uci_options();
    let xboard = xboard_options();
    assert!(uci.len() >= 10, "{uci:?}");
    let mut checked = 0;
    for (name, announced) in uci
        .iter()
        .chain(xboard.iter().filter(|(n, _)| !uci.contains_key(*n)))
    {
        let row = rows
            .get(name)
            .unwrap_or_else(|| panic!("option {name} has no row in README.md's options table"));
        if announced.kind != "button" {
            assert_eq!(
                default_of(row),
                announced.default,
                "README.md's default of {name}"
            );
        }
        if let Some((min, max)) = announced.range {
            assert_eq!(
                row.range,
                format!("{min}-{max}"),
                "README.md's range of {name}"
            );
        }
        checked += 1;
    }
    assert_eq!(
        checked,
        uci.len() + xboard.keys().filter(|n| !uci.contains_key(*n)).count()
    );
}

#[test]
fn docs_xboard_describes_every_command_of_the_terminal_help() {
    let doc = read("docs/xboard.md");
    for (commands, _) in HELP {
        // "memory MB / cores N": each alternative's first word is a command.
        for alternative in commands.split(" / ") {
            let word = alternative.split_whitespace().next().unwrap();
            assert!(
                doc.contains(&format!("`{word}")),
                "docs/xboard.md does not describe `{word}` (help: {commands})"
            );
        }
    }
}
