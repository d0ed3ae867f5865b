//! FEN parsing: never panics; whatever is accepted is a valid position that round-trips.
#![no_main]
use kestrel::chess::Position;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(pos) = Position::from_fen(&text) {
        pos.validate().expect("accepted FEN gives a valid position");
        let again = Position::from_fen(&pos.to_fen()).expect("printed FEN parses");
        assert!(again == pos, "round trip changed {text}");
        let _ = pos.legal_moves();
    }
});
