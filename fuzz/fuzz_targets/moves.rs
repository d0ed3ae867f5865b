//! Move text (coordinates and SAN) against a few positions: never panics, and anything
//! accepted is legal and reads back from its own notation.
#![no_main]
use kestrel::chess::Position;
use libfuzzer_sys::fuzz_target;

const FENS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2kr3r/8/8/8/8/8/8/R3K2R w KQ - 0 1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let pos = Position::from_fen(FENS[which as usize % FENS.len()]).unwrap();
    let text = String::from_utf8_lossy(rest);
    for parsed in [
        pos.parse_move(&text),
        pos.parse_san(&text),
        pos.parse_coordinate(&text),
    ] {
        if let Ok(m) = parsed {
            assert!(pos.is_legal(m), "accepted illegal {text}");
            assert_eq!(pos.parse_san(&pos.san(m)), Ok(m));
            assert_eq!(pos.parse_coordinate(&pos.coordinate(m)), Ok(m));
        }
    }
});
