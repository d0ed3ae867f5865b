//! Property tests: the parsers never panic on any input, and random command sequences fed
//! to the protocol driver never panic, move exactly when the engine is on move (after `go`,
//! `playother` and a reply, a user move, `undo`, `setboard`...) and never otherwise, never
//! produce an illegal move, and leave exactly the position that replaying the accepted
//! moves gives.

use crossbeam_channel::unbounded;
use kestrel::chess::{Position, STARTPOS_FEN};
use kestrel::game::Game;
use kestrel::protocol::xboard::XboardSession;
use proptest::prelude::*;
use std::io::Write;
use std::sync::mpsc;
use std::time::Duration;

const FENS: [&str; 5] = [
    STARTPOS_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn fen_parser_never_panics(s in "\\PC{0,100}") {
        let _ = Position::from_fen(&s);
    }

    #[test]
    fn fen_parser_never_panics_on_fen_like_text(
        s in "[pnbrqkPNBRQK1-9/]{0,70} [wbx-] [KQkqA-Ha-h-]{0,5} [a-h1-8-]{1,2}( [0-9-]{1,4}){0,3}"
    ) {
        if let Ok(pos) = Position::from_fen(&s) {
            // Whatever is accepted is a valid position that prints and reparses identically.
            prop_assert!(pos.validate().is_ok());
            prop_assert_eq!(Position::from_fen(&pos.to_fen()).unwrap(), pos);
        }
    }

    #[test]
    fn move_parsers_never_panic(fen in 0..FENS.len(), s in "\\PC{0,12}") {
        let pos = Position::from_fen(FENS[fen]).unwrap();
        if let Ok(m) = pos.parse_move(&s) {
            prop_assert!(pos.is_legal(m));
        }
        let _ = pos.parse_san(&s);
        let _ = pos.parse_coordinate(&s);
    }
}

/// A writer that sends each completed line down a channel.
struct LineSender {
    buf: Vec<u8>,
    tx: mpsc::Sender<String>,
}

impl Write for LineSender {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        for &b in data {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.buf).into_owned();
                self.buf.clear();
                let _ = self.tx.send(line);
            } else {
                self.buf.push(b);
            }
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[derive(Clone, Debug)]
enum Action {
    /// The n-th legal move (modulo), in coordinates or SAN.
    LegalMove(usize, bool),
    /// Some text shaped like a move, usually illegal.
    RandomMove(String),
    Undo,
    Remove,
    New,
    Force,
    Go,
    PlayOther,
    SetBoard(usize),
    BadSetBoard(String),
    Garbage(String),
    Hard,
    Easy,
    MoveNow,
    Analyze,
    Exit,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        6 => (any::<usize>(), any::<bool>()).prop_map(|(n, san)| Action::LegalMove(n, san)),
        2 => "[a-h][1-8][a-h][1-8][qnrb]?".prop_map(Action::RandomMove),
        1 => Just(Action::Undo),
        1 => Just(Action::Remove),
        1 => Just(Action::New),
        1 => Just(Action::Force),
        2 => Just(Action::Go),
        1 => Just(Action::PlayOther),
        1 => (0..FENS.len()).prop_map(Action::SetBoard),
        1 => "[a-z0-9/ ]{0,30}".prop_map(Action::BadSetBoard),
        1 => "[a-z?.!0-9 ]{1,12}".prop_map(|s| Action::Garbage(format!("zz{s}"))),
        1 => Just(Action::Hard),
        1 => Just(Action::Easy),
        1 => Just(Action::MoveNow),
        1 => Just(Action::Analyze),
        1 => Just(Action::Exit),
    ]
}

/// What the driver's state should be, kept by the test from the commands it sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    White,
    Black,
}

fn side_to_move(game: &Game) -> Side {
    match game.position().side_to_move() {
        kestrel::chess::Color::White => Side::White,
        kestrel::chess::Color::Black => Side::Black,
    }
}

fn other(side: Side) -> Side {
    match side {
        Side::White => Side::Black,
        Side::Black => Side::White,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn driver_survives_random_sessions_and_keeps_the_game(
        actions in proptest::collection::vec(action(), 1..40)
    ) {
        let (tx, rx) = unbounded();
        let (out_tx, out_rx) = mpsc::channel();
        let driver = std::thread::spawn(move || {
            XboardSession::new(rx, Box::new(LineSender { buf: Vec::new(), tx: out_tx })).run();
        });
        let mut ping = 0;
        // Sends `lines`, then a ping, and returns everything before the pong.
        let mut exchange = |lines: &[String]| -> Vec<String> {
            for l in lines {
                tx.send(l.clone()).unwrap();
            }
            ping += 1;
            tx.send(format!("ping {ping}")).unwrap();
            let want = format!("pong {ping}");
            let mut got = Vec::new();
            loop {
                let line = out_rx
                    .recv_timeout(Duration::from_secs(20))
                    .expect("driver stalled or died");
                if line == want {
                    return got;
                }
                got.push(line);
            }
        };
        exchange(&["xboard".into(), "protover 2".into(), "st 0.05".into(), "sd 3".into()]);

        let mut model = Game::default();
        // The side the engine plays (None: force mode), analysis mode, and whether the driver
        // has seen the game end (it claims the result and stops thinking until the position
        // changes): the xboard rules the driver follows, kept here independently.
        let mut engine: Option<Side> = Some(Side::Black);
        let mut analyzing = false;
        let mut over = false;
        // The last board set up was refused: moves, `go`, `playother`, `analyze`, `undo`
        // and `remove` are refused until `new` or a board set up that succeeds.
        let mut no_board = false;
        for a in &actions {
            let pos = *model.position();
            let legal = pos.legal_moves();
            let mut user_move = None;
            let lines: Vec<String> = match a {
                Action::LegalMove(n, san) => {
                    if legal.is_empty() {
                        continue;
                    }
                    let m = legal[n % legal.len()];
                    user_move = Some(m);
                    let text = if *san { pos.san(m) } else { pos.coordinate(m) };
                    vec![format!("usermove {text}")]
                }
                Action::RandomMove(s) => {
                    user_move = pos.parse_move(s).ok();
                    vec![format!("usermove {s}")]
                }
                Action::Undo => vec!["undo".into()],
                Action::Remove => vec!["remove".into()],
                Action::New => vec!["new".into(), "sd 3".into()],
                Action::Force => vec!["force".into()],
                Action::Go => vec!["go".into()],
                Action::PlayOther => vec!["playother".into()],
                Action::SetBoard(i) => vec![format!("setboard {}", FENS[*i])],
                Action::BadSetBoard(s) => vec![format!("setboard {s}")],
                Action::Garbage(s) => vec![s.clone()],
                Action::Hard => vec!["hard".into()],
                Action::Easy => vec!["easy".into()],
                Action::MoveNow => vec!["?".into()],
                Action::Analyze => vec!["analyze".into()],
                Action::Exit => vec!["exit".into()],
            };
            let out = exchange(&lines);
            let refused = out.iter().any(|l| l.starts_with("Illegal move") || l.starts_with("Error") || l.starts_with("tellusererror"));
            // The model follows what the driver accepted.
            let ended = |g: &Game| g.outcome().is_some();
            let needs_board = matches!(
                a,
                Action::LegalMove(..) | Action::RandomMove(_) | Action::Undo | Action::Remove
                    | Action::Go | Action::PlayOther | Action::Analyze
            );
            if no_board && needs_board {
                let played = out.iter().any(|l| l.starts_with("move "));
                prop_assert!(refused && !played, "{:?} with no board: {:?}", a, out);
                continue;
            }
            match a {
                Action::LegalMove(..) | Action::RandomMove(_) => {
                    if let Some(m) = user_move {
                        prop_assert!(!out.iter().any(|l| l.starts_with("Illegal move")), "legal move refused: {:?}", out);
                        model.play(m);
                        if engine.is_some() && !analyzing && ended(&model) {
                            over = true;
                        }
                    } else {
                        prop_assert!(out.iter().any(|l| l.starts_with("Illegal move") || l.starts_with("Error")), "illegal move accepted: {:?} {:?}", a, out);
                    }
                }
                Action::Undo => {
                    let undone = model.undo();
                    over &= !undone;
                }
                Action::Remove if model.moves().len() >= 2 => {
                    model.undo();
                    model.undo();
                    over = false;
                }
                Action::New => {
                    no_board = false;
                    model = Game::default();
                    engine = if analyzing { None } else { Some(Side::Black) };
                    over = false;
                }
                Action::Force => engine = None,
                Action::Go => {
                    // `go` leaves analysis mode and plays.
                    analyzing = false;
                    engine = Some(side_to_move(&model));
                    over |= ended(&model);
                }
                Action::PlayOther => engine = Some(other(side_to_move(&model))),
                Action::SetBoard(i) => {
                    no_board = false;
                    model = Game::new(Position::from_fen(FENS[*i]).unwrap());
                    over = false;
                }
                Action::BadSetBoard(s) if !refused => {
                    no_board = false;
                    model = Game::new(Position::from_fen(s).unwrap());
                    over = false;
                }
                // A position refused (a `setboard` with no FEN is a malformed command).
                Action::BadSetBoard(_) => {
                    no_board |= out.iter().any(|l| l.starts_with("tellusererror Illegal position"))
                }
                Action::Analyze => {
                    analyzing = true;
                    engine = None;
                }
                Action::Exit => analyzing = false,
                _ => {}
            }
            // The engine must move now if it plays the side to move, is not analysing and
            // the game is not over (a mated or stalemated side has no move: the driver claims
            // the result instead). The ping after the commands waits behind that move, so it
            // is in `out`; and after it the opponent is on move, so there is no second one.
            let mut expected_moves = 0;
            // With no board (the last set-up refused) it plays nothing until one is set.
            if engine == Some(side_to_move(&model)) && !analyzing && !over && !no_board {
                if model.position().legal_moves().is_empty() {
                    over = true;
                } else {
                    expected_moves = 1;
                }
            }
            let played: Vec<&str> = out.iter().filter_map(|l| l.strip_prefix("move ")).collect();
            prop_assert_eq!(
                played.len(),
                expected_moves,
                "after {:?} (engine {:?}, analysing {}, over {}) in {}: {:?}",
                a, engine, analyzing, over, model.position().to_fen(), out
            );
            // Every move the engine played is legal where it played it.
            for text in played {
                let m = model.position().parse_move(text);
                prop_assert!(m.is_ok(), "engine played illegal {} in {}", text, model.position().to_fen());
                model.play(m.unwrap());
                if ended(&model) {
                    over = true;
                }
            }
        }
        // Stop any search, then compare the driver's position with the model's.
        let out = exchange(&["exit".into(), "force".into(), "fen".into()]);
        let mut fen = None;
        for l in &out {
            if let Some(text) = l.strip_prefix("move ") {
                let m = model.position().parse_move(text);
                prop_assert!(m.is_ok(), "engine played illegal {}", text);
                model.play(m.unwrap());
            } else if l.contains('/') {
                fen = Some(l.clone());
            }
        }
        let expected = model.position().to_fen();
        prop_assert_eq!(fen.as_deref(), Some(expected.as_str()));
        tx.send("quit".into()).unwrap();
        driver.join().expect("driver thread panicked");
    }
}

/// One step of a make/unmake walk through a game.
#[derive(Clone, Debug)]
enum Step {
    /// Play the legal move with this index (modulo the number of legal moves).
    Play(usize),
    /// Take back the last move.
    Undo,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![3 => any::<usize>().prop_map(Step::Play), 1 => Just(Step::Undo)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Copy-make with undo: after any sequence of moves and takebacks, every redundant part
    /// of the position (bitboards, role lookup, Zobrist key, checkers, pins) agrees with a
    /// from-scratch recomputation, the position equals the one replayed from the start with
    /// the moves kept, and a takeback gives back exactly the position before the move.
    #[test]
    fn make_and_unmake_sequences_keep_the_position_exact(
        start in 0..FENS.len(),
        steps in prop::collection::vec(step(), 1..120),
    ) {
        let first = Position::from_fen(FENS[start]).unwrap();
        let mut game = Game::new(first);
        // What the position was before each move still on the board.
        let mut earlier: Vec<Position> = Vec::new();
        for step in steps {
            match step {
                Step::Play(i) => {
                    let moves = game.position().legal_moves();
                    if moves.is_empty() {
                        continue;
                    }
                    earlier.push(*game.position());
                    game.play(moves[i % moves.len()]);
                }
                Step::Undo => {
                    let before = earlier.pop();
                    prop_assert_eq!(game.undo(), before.is_some());
                    if let Some(before) = before {
                        prop_assert_eq!(*game.position(), before);
                    }
                }
            }
            let now = *game.position();
            if let Err(e) = now.validate() {
                return Err(TestCaseError::fail(format!("{}: {e}", now.to_fen())));
            }
            let mut replayed = first;
            for &m in game.moves() {
                prop_assert!(replayed.is_legal(m));
                replayed.play(m);
            }
            prop_assert_eq!(replayed, now);
            let reparsed = Position::from_fen(&now.to_fen()).unwrap();
            prop_assert_eq!(reparsed.key(), now.key());
            prop_assert_eq!(reparsed, now);
            // The repetition history is the keys of the earlier positions back to the last
            // capture or pawn move.
            let reach = (now.halfmove_clock() as usize).min(earlier.len());
            let expected: Vec<u64> =
                earlier[earlier.len() - reach..].iter().map(|p| p.key()).collect();
            prop_assert_eq!(game.history_keys(), expected);
        }
    }
}
