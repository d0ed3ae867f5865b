//! The protocol driver fed an arbitrary byte stream of commands, with a tiny search budget:
//! it must never panic or hang. `sd 1` goes before every line so searches stay short, except
//! before an edit-mode line while the input is in edit mode (`sd` would end edit mode); the
//! terminal commands that are slow by design (perft, divide, bench, test) and the LogFile
//! option (it writes files) are left out.
#![no_main]
use kestrel::protocol::xboard::XboardSession;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (tx, rx) = crossbeam_channel::unbounded();
    let text = String::from_utf8_lossy(data);
    // Whether the lines so far left the engine in legacy edit mode (roughly: `edit` enters
    // it, `.` or any line that is not an edit command leaves it).
    let mut editing = false;
    for line in text.split('\n').take(200) {
        let word = line.split_whitespace().next().unwrap_or("");
        if matches!(word, "perft" | "divide" | "bench" | "test") || line.contains("LogFile") {
            continue;
        }
        // Big tables are allowed (up to 4 GB) but would trip libFuzzer's malloc limit.
        let big_table = word == "memory"
            && line
                .split_whitespace()
                .nth(1)
                .and_then(|mb| mb.parse::<u64>().ok())
                .is_some_and(|mb| mb > 64);
        if big_table {
            continue;
        }
        let edit_command = is_edit_command(line.trim());
        if !(editing && edit_command) {
            tx.send("sd 1".to_string()).unwrap();
        }
        editing = match line.trim() {
            "edit" => true,
            "." => false,
            _ => editing && edit_command,
        };
        tx.send(line.to_string()).unwrap();
    }
    tx.send("quit".to_string()).unwrap();
    drop(tx);
    // A 1 MB table: allocating the default 64 MB (zeroed by the sanitizer's allocator) on
    // every run made the target ~100 runs/s.
    let mut driver = XboardSession::with_hash_mb(rx, Box::new(std::io::sink()), 1);
    driver.run();
});

/// `#`, `c`, `.`, or a piece letter (or `x`) and a square: what edit mode takes.
fn is_edit_command(line: &str) -> bool {
    let b = line.as_bytes();
    matches!(line, "#" | "c" | "C" | ".")
        || (b.len() == 3
            && b[0].is_ascii_alphabetic()
            && (b'a'..=b'h').contains(&b[1])
            && (b'1'..=b'8').contains(&b[2]))
}
