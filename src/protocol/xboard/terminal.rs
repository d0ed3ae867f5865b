//! Conveniences for a person at the terminal: `help`, `d`, `moves`, `eval`. They only add
//! replies to commands no GUI sends, so nothing a GUI relies on changes.

use crate::chess::{Color, File, Move, Position, Rank, Square};
use crate::engine::NetEval;
use crate::eval::breakdown;
use crate::search::strength::{FULL_STRENGTH_ELO, MIN_ELO};

/// Every command with a one-line description, for `help`.
pub const HELP: &[(&str, &str)] = &[
    ("xboard", "enter xboard mode (a GUI sends this first)"),
    (
        "protover N",
        "protocol version; Kestrel answers with its features",
    ),
    (
        "new",
        "new game from the start position; Kestrel plays Black",
    ),
    ("variant V", "normal or fischerandom (Chess960)"),
    ("setboard FEN", "set up a position"),
    (
        "edit",
        "legacy board set-up mode: Pa4, xa4, #, c, . (any other command leaves it)",
    ),
    (
        "force",
        "Kestrel stops playing either side; moves are just recorded",
    ),
    ("go", "Kestrel plays the side to move and starts thinking"),
    ("playother", "Kestrel plays the side not to move"),
    (
        "white / black",
        "protocol 1: Kestrel plays the other colour",
    ),
    (
        "e2e4 / usermove e2e4",
        "make a move (coordinates, O-O, or SAN like Nf3, exd5, e8=Q)",
    ),
    ("?", "move now"),
    (
        "undo / remove",
        "take back one move / one move of each side",
    ),
    (
        "level MPS BASE INC",
        "time control: moves per session, minutes (or m:ss), increment s",
    ),
    ("st N", "at most N seconds per move"),
    ("sd N", "search at most N plies deep"),
    ("nps N", "count N nodes as one second (0 = off)"),
    ("time N / otim N", "own / opponent's clock in centiseconds"),
    ("hard / easy", "pondering on / off"),
    ("post / nopost", "show / hide thinking output"),
    (
        "analyze",
        "analyse the position until exit; '.' shows progress",
    ),
    (
        "exclude M / include M",
        "leave a root move out of the analysis / take it back ('all')",
    ),
    ("hint", "the move Kestrel expects you to play"),
    (
        "bk",
        "the opening book's moves here, with weights (option BookFile)",
    ),
    ("draw", "offer a draw"),
    ("result R {why}", "the game is over"),
    (
        "ping N",
        "answered with pong N when everything before it is done",
    ),
    ("memory MB / cores N", "hash size / threads"),
    (
        "option NAME=VALUE",
        "set an option by the name XBoard shows (every option is in the README's table)",
    ),
    (
        "elo N / elo off / elo",
        "play at strength N ({elo range}) / at full strength / show it",
    ),
    (
        "setscore S D",
        "take S (centipawns, White's view) as the score here up to depth D",
    ),
    ("pause / resume", "stop and restart thinking and clocks"),
    (
        "d",
        "show the board, FEN, castling, en passant, key and last move",
    ),
    ("moves", "list the legal moves in SAN and coordinates"),
    ("eval", "static evaluation by term, from White's side"),
    (
        "tb",
        "Syzygy tables: wdl W (-2 lost .. 2 won) dtz D (plies to zeroing) and best moves",
    ),
    (
        "egtpath syzygy DIR",
        "load Syzygy tables from DIR (several: separated by ':', ';' on Windows)",
    ),
    ("fen", "print the FEN"),
    (
        "perft N / divide N",
        "count leaf nodes to depth N / per root move",
    ),
    (
        "bench [DEPTH]",
        "search the fixed bench positions; prints total nodes and nps",
    ),
    (
        "test FILE [SECONDS]",
        "run an EPD test suite (bm/am) on this engine",
    ),
    ("help", "this list"),
    ("quit", "leave"),
];

pub fn help_lines() -> Vec<String> {
    let width = HELP.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    HELP.iter()
        .map(|(cmd, what)| {
            // The strength's range is the option's, written here from its one definition.
            let range = format!("{MIN_ELO} up to full strength, {FULL_STRENGTH_ELO}");
            let what = what.replace("{elo range}", &range);
            format!("{cmd:<width$}  {what}")
        })
        .collect()
}

/// The board as text, White at the bottom, with the details of the position.
pub fn board_lines(pos: &Position, last_move: Option<(Move, &Position)>) -> Vec<String> {
    let mut lines = vec!["  +-----------------+".to_string()];
    for rank in (0..8).rev() {
        let mut row = format!("{} |", rank + 1);
        for file in 0..8 {
            let sq = Square::from_coords(File(file), Rank(rank));
            row.push(' ');
            row.push(pos.piece_on(sq).map_or('.', |p| p.char()));
        }
        row.push_str(" |");
        lines.push(row);
    }
    lines.push("  +-----------------+".to_string());
    lines.push("    a b c d e f g h".to_string());
    lines.push(format!("FEN: {}", pos.to_fen()));
    let side = match pos.side_to_move() {
        Color::White => "White",
        Color::Black => "Black",
    };
    let fen = pos.to_fen();
    let fields: Vec<&str> = fen.split_whitespace().collect();
    let check = if pos.in_check() { " (in check)" } else { "" };
    lines.push(format!("Side to move: {side}{check}"));
    lines.push(format!(
        "Castling: {}   En passant: {}",
        fields[2], fields[3]
    ));
    lines.push(format!(
        "Halfmove clock: {}   Move number: {}",
        pos.halfmove_clock(),
        pos.fullmove_number()
    ));
    lines.push(format!("Key: {:016x}", pos.key()));
    let last = match last_move {
        Some((m, before)) => format!("{} ({})", before.san(m), before.coordinate(m)),
        None => "none".to_string(),
    };
    lines.push(format!("Last move: {last}"));
    lines
}

/// Legal moves in SAN with their coordinates.
pub fn move_lines(pos: &Position) -> Vec<String> {
    let moves = pos.legal_moves();
    let mut list: Vec<String> = moves
        .iter()
        .map(|&m| format!("{} ({})", pos.san(m), pos.coordinate(m)))
        .collect();
    list.sort();
    let mut lines = vec![format!("{} legal moves:", list.len())];
    for chunk in list.chunks(6) {
        lines.push(format!("  {}", chunk.join("  ")));
    }
    lines
}

/// `eval` (both protocols): the classical evaluation term by term (see
/// `eval::Breakdown::lines`), then, when a net is loaded, which net and its score.
pub fn eval_lines(pos: &Position, net: Option<&NetEval>) -> Vec<String> {
    let mut lines = breakdown(pos).lines();
    if let Some(net) = net {
        let (unused, plays) = if net.in_use {
            ("", "the score the search plays")
        } else {
            (
                "; not in use (UseNNUE is off)",
                "not played: the search plays the classical score",
            )
        };
        lines.push(format!(
            "{:<20} {}: {}, {:?}{unused}",
            "net", net.name, net.hidden, net.activation
        ));
        lines.push(format!(
            "{:<20}{:>9} side to move (centipawns), {plays}",
            "NNUE", net.score
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_shows_fen_and_pieces() {
        let pos = Position::startpos();
        let lines = board_lines(&pos, None);
        assert_eq!(lines[1], "8 | r n b q k b n r |");
        assert_eq!(lines[8], "1 | R N B Q K B N R |");
        assert!(lines.iter().any(|l| l == &format!("FEN: {}", pos.to_fen())));
        assert!(lines.iter().any(|l| l == "Last move: none"));
    }

    #[test]
    fn twenty_moves_at_the_start() {
        let lines = move_lines(&Position::startpos());
        assert_eq!(lines[0], "20 legal moves:");
        assert!(lines.iter().any(|l| l.contains("Nf3 (g1f3)")));
    }

    #[test]
    fn help_covers_every_terminal_command() {
        let text = help_lines().join("\n");
        for cmd in [
            "d ",
            "moves",
            "eval",
            "tb ",
            "perft",
            "bench",
            "test FILE",
            "ping N",
            "quit",
        ] {
            assert!(text.contains(cmd), "help lacks {cmd}");
        }
    }
}
