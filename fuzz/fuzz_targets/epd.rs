//! EPD lines: never panic; accepted entries hold legal best and avoid moves.
#![no_main]
use kestrel::tools::epd::parse_epd_line;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(entry) = parse_epd_line(&text) {
        for &m in entry.best_moves.iter().chain(&entry.avoid_moves) {
            assert!(entry.position.is_legal(m));
        }
    }
});
