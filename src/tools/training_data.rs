//! The binary training record: one position in 32 bytes, laid out as the community trainer
//! bullet reads it (its `ChessBoard`), so data Kestrel writes can be trained on elsewhere.
//!
//! Everything is from the side to move's view: when Black is to move the board is turned
//! (ranks mirrored, colours swapped), so the side to move always plays up the board as
//! "ours". Little-endian:
//!
//! | bytes | field                                                                         |
//! |-------|-------------------------------------------------------------------------------|
//! | 8     | occupancy (bit `i` = square `i` in the side to move's view)                   |
//! | 16    | a 4-bit code per occupied square, in occupancy order, low nibble first:       |
//! |       | `8 × theirs + role` (pawn 0 … king 5)                                         |
//! | 2     | score, centipawns, side to move's view (i16)                                  |
//! | 1     | result for the side to move: 0 loss, 1 draw, 2 win                            |
//! | 1     | our king's square (our view)                                                  |
//! | 1     | their king's square in their own view (the square mirrored again)             |
//! | 3     | unused, zero                                                                  |
//!
//! The record keeps what the network needs and nothing else: castling rights, the en-passant
//! square, the move counters and even which colour is to move are gone.

use crate::chess::{Color, Position, Role, Square};
use crate::game::GameResult;
use crate::nnue::format::{feature_index, feature_index_in, king_view, KingBuckets};
use std::fmt;
use std::io::{self, BufRead, Write};

pub const RECORD_BYTES: usize = 32;

/// How training positions are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DataFormat {
    /// `FEN | score | result` lines, White's view.
    Text,
    /// 32-byte records in bullet's `ChessBoard` layout, side to move's view.
    Bullet,
}

/// A position, its score and its game's result, as a 32-byte training record.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedPosition(pub [u8; RECORD_BYTES]);

/// One piece of a record: whose (from the side to move's view), what, and where (in the side
/// to move's view: our back rank is rank 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedPiece {
    pub theirs: bool,
    pub role: Role,
    pub square: Square,
}

/// The input features of a record, for each side's accumulator.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    /// Number of pieces (2 to 32): the length of each list.
    pub len: usize,
    /// Indices for the side to move's accumulator.
    pub ours: [u16; 32],
    /// Indices for the other side's accumulator, same pieces in the same order.
    pub theirs: [u16; 32],
}

impl PackedPosition {
    /// Packs `pos` with the search score (centipawns, White's view; clamped to what an i16
    /// holds) and the game's result.
    pub fn new(pos: &Position, white_score: i32, result: GameResult) -> PackedPosition {
        let us = pos.side_to_move();
        let mut occupancy = 0u64;
        // A piece's code by its square in our view; squares visited in ascending order below.
        let mut codes = [0u8; 64];
        for square in pos.occupied() {
            let piece = pos
                .piece_on(square)
                .expect("an occupied square has a piece");
            let ours_view = square.relative_to(us).index();
            occupancy |= 1 << ours_view;
            codes[ours_view] = 8 * u8::from(piece.color() != us) + piece.role().index() as u8;
        }
        let mut bytes = [0u8; RECORD_BYTES];
        bytes[..8].copy_from_slice(&occupancy.to_le_bytes());
        let mut occupied = occupancy;
        let mut i = 0;
        while occupied != 0 {
            let square = occupied.trailing_zeros() as usize;
            occupied &= occupied - 1;
            bytes[8 + i / 2] |= codes[square] << (4 * (i % 2));
            i += 1;
        }
        let white_score = white_score.clamp(-i16::MAX as i32, i16::MAX as i32);
        let (score, result) = match us {
            Color::White => (white_score, white_points(result)),
            Color::Black => (-white_score, 2 - white_points(result)),
        };
        bytes[24..26].copy_from_slice(&(score as i16).to_le_bytes());
        bytes[26] = result;
        bytes[27] = pos.king(us).relative_to(us).index() as u8;
        bytes[28] = pos.king(!us).relative_to(!us).index() as u8;
        PackedPosition(bytes)
    }

    /// Parses a text data line, `FEN | score | result` (score and result from White's view,
    /// the result `1.0`, `0.5` or `0.0`).
    pub fn parse_line(line: &str) -> Result<PackedPosition, String> {
        let (pos, score, result) = split_line(line)?;
        let result = match result {
            "1.0" | "1" | "[1.0]" => GameResult::WhiteWins,
            "0.5" | "1/2" | "[0.5]" => GameResult::Draw,
            "0.0" | "0" | "[0.0]" => GameResult::BlackWins,
            other => return Err(format!("bad result {other:?} (1.0, 0.5 or 0.0 expected)")),
        };
        Ok(PackedPosition::new(&pos, score, result))
    }

    pub fn from_bytes(bytes: [u8; RECORD_BYTES]) -> PackedPosition {
        PackedPosition(bytes)
    }

    pub fn as_bytes(&self) -> &[u8; RECORD_BYTES] {
        &self.0
    }

    /// The occupied squares, in the side to move's view.
    pub fn occupancy(&self) -> u64 {
        u64::from_le_bytes(self.0[..8].try_into().unwrap())
    }

    /// The search score, centipawns, side to move's view.
    pub fn score(&self) -> i16 {
        i16::from_le_bytes([self.0[24], self.0[25]])
    }

    /// The game's result for the side to move: 0 lost, 1 drawn, 2 won.
    pub fn result(&self) -> u8 {
        self.0[26]
    }

    /// Checks what a reader relies on: 2 to 32 pieces with valid codes, one king each, the
    /// king squares matching, a result of 0 to 2.
    pub fn validate(&self) -> Result<(), String> {
        let count = self.occupancy().count_ones();
        if !(2..=32).contains(&count) {
            return Err(format!("{count} pieces"));
        }
        let mut kings = [None, None];
        for i in 0..count as usize {
            let code = (self.0[8 + i / 2] >> (4 * (i % 2))) & 0xF;
            if code & 7 > 5 {
                return Err(format!("bad piece code {code}"));
            }
        }
        for piece in self.pieces() {
            if piece.role == Role::King {
                let side = usize::from(piece.theirs);
                if kings[side].is_some() {
                    return Err("two kings of one side".to_string());
                }
                kings[side] = Some(piece.square);
            }
        }
        let (Some(ours), Some(theirs)) = (kings[0], kings[1]) else {
            return Err("a king is missing".to_string());
        };
        if ours.index() != self.0[27] as usize || theirs.flip_rank().index() != self.0[28] as usize
        {
            return Err("the king squares do not match the board".to_string());
        }
        if self.result() > 2 {
            return Err(format!("bad result {}", self.result()));
        }
        Ok(())
    }

    /// The pieces, in occupancy order. Codes are taken as written: call on validated records.
    pub fn pieces(&self) -> impl Iterator<Item = PackedPiece> + '_ {
        let mut occupied = self.occupancy();
        let mut i = 0;
        std::iter::from_fn(move || {
            if occupied == 0 {
                return None;
            }
            let square = occupied.trailing_zeros() as u8;
            occupied &= occupied - 1;
            let code = (self.0[8 + i / 2] >> (4 * (i % 2))) & 0xF;
            i += 1;
            Some(PackedPiece {
                theirs: code & 8 != 0,
                role: Role::ALL[(code & 7).min(5) as usize],
                square: Square::new(square),
            })
        })
    }

    /// The feature indices of both accumulators (`nnue::format::feature_index`): the side to
    /// move's, which sees the record as it is, and the other side's, which sees it turned.
    #[inline]
    pub fn features(&self) -> Features {
        self.features_turned(false)
    }

    /// The features of the record, or with `mirror_files` of its mirror image across the
    /// board's middle (a-file to h-file): the same position for the net, which sees no
    /// castling rights, so training on both halves what it must learn from the data.
    #[inline]
    pub fn features_turned(&self, mirror_files: bool) -> Features {
        self.features_in(mirror_files, None)
    }

    /// [`features_turned`](Self::features_turned) for a net with `kings` buckets: each
    /// view's indices in the input set of its own king, turned when that king stands on
    /// files e-h (`nnue::format::feature_index_in`).
    #[inline]
    pub fn features_in(&self, mirror_files: bool, kings: Option<&KingBuckets>) -> Features {
        let files = if mirror_files { 7 } else { 0 };
        // The kings' squares in the side to move's view.
        let mut king = [0u16; 2];
        let mut features = Features {
            len: 0,
            ours: [0; 32],
            theirs: [0; 32],
        };
        let mut occupied = self.occupancy();
        let mut i = 0;
        while occupied != 0 && i < 32 {
            let square = occupied.trailing_zeros() as u16 ^ files;
            occupied &= occupied - 1;
            let code = u16::from((self.0[8 + i / 2] >> (4 * (i % 2))) & 0xF);
            let (theirs, role) = (code >> 3, (code & 7).min(5));
            features.ours[i] = theirs * 384 + role * 64 + square;
            features.theirs[i] = (1 - theirs) * 384 + role * 64 + (square ^ 56);
            if role == 5 {
                king[theirs as usize] = square;
            }
            i += 1;
        }
        features.len = i;
        if let Some(kings) = kings {
            // Our view sees our king where the record has it, theirs sees theirs turned.
            let ours = kings.view_from(Square::new(king[0] as u8));
            let theirs = kings.view_from(Square::new((king[1] ^ 56) as u8));
            for f in &mut features.ours[..i] {
                *f = (ours.offset + (*f as usize ^ ours.flip)) as u16;
            }
            for f in &mut features.theirs[..i] {
                *f = (theirs.offset + (*f as usize ^ theirs.flip)) as u16;
            }
        }
        features
    }
}

/// The fields of a text data line, `FEN | score | result`: the position, the score in
/// centipawns and the result as written (each reader has its own result forms).
pub fn split_line(line: &str) -> Result<(Position, i32, &str), String> {
    let mut fields = line.split('|').map(str::trim);
    let (Some(fen), Some(score), Some(result), None) =
        (fields.next(), fields.next(), fields.next(), fields.next())
    else {
        return Err("expected `FEN | score | result`".to_string());
    };
    let pos = Position::from_fen(fen).map_err(|e| format!("bad FEN: {e}"))?;
    let score: i32 = score
        .parse()
        .map_err(|_| format!("bad score `{score}` (an integer in centipawns)"))?;
    Ok((pos, score, result))
}

/// What a conversion did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConvertReport {
    pub lines: u64,
    pub records: u64,
    /// Blank lines and `#` comments.
    pub skipped_comments: u64,
    /// Line numbers (from 1) and reasons of the lines that could not be read; the first few.
    pub errors: Vec<(u64, String)>,
    pub malformed: u64,
}

/// Reported malformed lines, at most; the rest are only counted.
const ERRORS_KEPT: usize = 20;

/// Packs text data (`FEN | score | result` lines) into records, skipping blank lines,
/// comments and lines that do not parse (reported by line number).
pub fn convert_text(input: &mut dyn BufRead, out: &mut dyn Write) -> io::Result<ConvertReport> {
    let mut report = ConvertReport::default();
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            break;
        }
        report.lines += 1;
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') {
            report.skipped_comments += 1;
            continue;
        }
        match PackedPosition::parse_line(text) {
            Ok(record) => {
                out.write_all(record.as_bytes())?;
                report.records += 1;
            }
            Err(e) => {
                report.malformed += 1;
                if report.errors.len() < ERRORS_KEPT {
                    report.errors.push((report.lines, e));
                }
            }
        }
    }
    out.flush()?;
    Ok(report)
}

/// White's points in the record's units: 2 a win, 1 a draw, 0 a loss.
fn white_points(result: GameResult) -> u8 {
    match result {
        GameResult::WhiteWins => 2,
        GameResult::Draw => 1,
        GameResult::BlackWins => 0,
    }
}

/// The features of `pos` straight from the position, by the net format's own index: what a
/// record's features must equal.
pub fn position_features(pos: &Position, view: Color) -> Vec<u16> {
    let mut features: Vec<u16> = pos
        .occupied()
        .map(|square| {
            let piece = pos.piece_on(square).unwrap();
            feature_index(view, piece.color(), piece.role(), square) as u16
        })
        .collect();
    features.sort_unstable();
    features
}

/// [`position_features`] for a net with `kings` buckets (`nnue::format::feature_index_in`).
pub fn position_features_in(pos: &Position, view: Color, kings: &KingBuckets) -> Vec<u16> {
    let inputs = king_view(Some(kings), view, pos.king(view));
    let mut features: Vec<u16> = pos
        .occupied()
        .map(|square| {
            let piece = pos.piece_on(square).unwrap();
            feature_index_in(inputs, view, piece.color(), piece.role(), square) as u16
        })
        .collect();
    features.sort_unstable();
    features
}

impl fmt::Debug for PackedPosition {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "PackedPosition {{ occupancy: {:#018x}, score: {}, result: {}, bytes: {:02x?} }}",
            self.occupancy(),
            self.score(),
            self.result(),
            self.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bulletformat::{BulletFormat, ChessBoard};

    /// Positions from the test suites with their children: both sides to move, castling
    /// rights, en-passant squares, promotions, few and many pieces.
    fn sample_positions() -> Vec<Position> {
        let mut positions = Vec::new();
        for suite in [
            include_str!("../../tests/data/perft.epd"),
            include_str!("../../tests/data/wac.epd"),
            include_str!("../../tests/data/openings-sample.epd"),
        ] {
            for line in suite.lines().take(120) {
                let fields: Vec<&str> = line.split_whitespace().take(4).collect();
                if fields.len() < 4 {
                    continue;
                }
                let Ok(pos) = Position::from_fen(&fields.join(" ")) else {
                    continue;
                };
                positions.push(pos);
                for &mv in pos.legal_moves().iter().step_by(7) {
                    positions.push(pos.after(mv));
                }
            }
        }
        positions
    }

    /// A score and result for position `i`, covering every result and both signs.
    fn label(i: usize) -> (i32, GameResult, &'static str) {
        let score = (i as i32 * 7919) % 3001 - 1500;
        match i % 3 {
            0 => (score, GameResult::WhiteWins, "1.0"),
            1 => (score, GameResult::Draw, "0.5"),
            _ => (score, GameResult::BlackWins, "0.0"),
        }
    }

    fn crate_bytes(board: &ChessBoard) -> [u8; RECORD_BYTES] {
        ChessBoard::as_bytes_slice(std::slice::from_ref(board))
            .try_into()
            .unwrap()
    }

    #[test]
    fn records_are_byte_for_byte_bullets_chess_board() {
        let positions = sample_positions();
        assert!(positions.len() > 500, "{}", positions.len());
        let black = positions
            .iter()
            .filter(|p| p.side_to_move() == Color::Black)
            .count();
        assert!(black > 100, "{black} positions with Black to move");
        assert!(positions.iter().any(|p| p.ep_square().is_some()));
        assert!(positions.iter().any(|p| p.castling() != Default::default()));
        for (i, pos) in positions.iter().enumerate() {
            let (score, result, result_text) = label(i);
            let line = format!("{} | {score} | {result_text}", pos.to_fen());
            let theirs: ChessBoard = line.parse().unwrap();
            let ours = PackedPosition::new(pos, score, result);
            assert_eq!(ours.as_bytes(), &crate_bytes(&theirs), "{line}");
            assert_eq!(PackedPosition::parse_line(&line), Ok(ours), "{line}");
            ours.validate().unwrap();
        }
    }

    #[test]
    fn the_head_start_data_packs_as_bullet_packs_it() {
        let sample = include_str!("../../tests/data/selfplay-sample.txt");
        let mut black = 0;
        for line in sample.lines() {
            let theirs: ChessBoard = line.parse().unwrap();
            let ours = PackedPosition::parse_line(line).unwrap();
            assert_eq!(ours.as_bytes(), &crate_bytes(&theirs), "{line}");
            black += usize::from(line.contains(" b "));
        }
        assert!(sample.lines().count() >= 200 && black >= 50);
    }

    #[test]
    fn placement_score_and_result_read_back_through_bulletformat() {
        for (i, pos) in sample_positions().iter().enumerate() {
            let (score, result, _) = label(i);
            let record = PackedPosition::new(pos, score, result);
            let board: ChessBoard = crate_board(&record);
            let us = pos.side_to_move();
            // The crate's pieces, turned back to the board as it is, equal the position's.
            let mut placement: Vec<(Color, Role, Square)> = board
                .into_iter()
                .map(|(code, square)| {
                    let color = if code & 8 == 0 { us } else { !us };
                    let square = Square::new(square).relative_to(us);
                    (color, Role::ALL[code as usize & 7], square)
                })
                .collect();
            placement.sort_by_key(|p| p.2.index());
            let expected: Vec<(Color, Role, Square)> = pos
                .occupied()
                .map(|sq| {
                    let piece = pos.piece_on(sq).unwrap();
                    (piece.color(), piece.role(), sq)
                })
                .collect();
            assert_eq!(placement, expected, "{}", pos.to_fen());
            // Side to move: the crate's king square is the side to move's king, turned.
            assert_eq!(
                board.our_ksq() as usize,
                pos.king(us).relative_to(us).index()
            );
            // Score and result, turned back to White's view.
            let sign = if us == Color::White { 1 } else { -1 };
            assert_eq!(i32::from(board.score()) * sign, score);
            let white_result = if us == Color::White {
                board.result()
            } else {
                1.0 - board.result()
            };
            let expected = match result {
                GameResult::WhiteWins => 1.0,
                GameResult::Draw => 0.5,
                GameResult::BlackWins => 0.0,
            };
            assert_eq!(white_result, expected);
        }
    }

    /// The crate's record from our bytes (its layout is `repr(C)`, 32 bytes, no padding).
    fn crate_board(record: &PackedPosition) -> ChessBoard {
        let b = record.as_bytes();
        ChessBoard {
            occ: u64::from_le_bytes(b[..8].try_into().unwrap()),
            pcs: b[8..24].try_into().unwrap(),
            score: i16::from_le_bytes([b[24], b[25]]),
            result: b[26],
            ksq: b[27],
            opp_ksq: b[28],
            extra: [b[29], b[30], b[31]],
        }
    }

    #[test]
    fn record_features_are_the_net_formats_features_for_both_sides() {
        for (i, pos) in sample_positions().iter().enumerate() {
            let (score, result, _) = label(i);
            let f = PackedPosition::new(pos, score, result).features();
            let us = pos.side_to_move();
            let mut ours = f.ours[..f.len].to_vec();
            let mut theirs = f.theirs[..f.len].to_vec();
            ours.sort_unstable();
            theirs.sort_unstable();
            assert_eq!(ours, position_features(pos, us), "{}", pos.to_fen());
            assert_eq!(theirs, position_features(pos, !us), "{}", pos.to_fen());
        }
    }

    #[test]
    fn king_bucketed_record_features_are_the_net_formats_for_both_sides() {
        for count in [1, 4, 8] {
            let kings = KingBuckets::preset(count).unwrap();
            let mut sets = std::collections::HashSet::new();
            for (i, pos) in sample_positions().iter().enumerate() {
                let (score, result, _) = label(i);
                let record = PackedPosition::new(pos, score, result);
                let us = pos.side_to_move();
                for mirror in [false, true] {
                    let f = record.features_in(mirror, Some(&kings));
                    let mut ours = f.ours[..f.len].to_vec();
                    let mut theirs = f.theirs[..f.len].to_vec();
                    ours.sort_unstable();
                    theirs.sort_unstable();
                    // Turning the board's files changes nothing: the kings turn it back.
                    let fen = pos.to_fen();
                    assert_eq!(ours, position_features_in(pos, us, &kings), "{fen}");
                    assert_eq!(theirs, position_features_in(pos, !us, &kings), "{fen}");
                    sets.extend(ours.iter().chain(&theirs).map(|&x| x as usize / 768));
                }
            }
            // The sample reaches every bucket.
            assert_eq!(sets.len(), count, "{count} buckets");
        }
    }

    #[test]
    fn mirrored_features_are_those_of_the_mirrored_position() {
        let mut checked = 0;
        for (i, pos) in sample_positions().iter().enumerate() {
            let (score, result, _) = label(i);
            let fen = pos.to_fen();
            let fields: Vec<&str> = fen.split(' ').collect();
            let placement: Vec<String> = fields[0]
                .split('/')
                .map(|rank| rank.chars().rev().collect())
                .collect();
            let mirrored = format!("{} {} - - 0 1", placement.join("/"), fields[1]);
            let Ok(mirror) = Position::from_fen(&mirrored) else {
                continue;
            };
            let sorted = |f: Features| {
                let (mut a, mut b) = (f.ours[..f.len].to_vec(), f.theirs[..f.len].to_vec());
                a.sort_unstable();
                b.sort_unstable();
                (a, b)
            };
            let turned = PackedPosition::new(pos, score, result).features_turned(true);
            let direct = PackedPosition::new(&mirror, score, result).features();
            assert_eq!(sorted(turned), sorted(direct), "{fen}");
            checked += 1;
        }
        assert!(checked > 100, "only {checked} positions checked");
    }

    #[test]
    fn scores_beyond_an_i16_are_clamped_and_bad_lines_say_why() {
        let start = Position::startpos();
        let record = PackedPosition::new(&start, 100_000, GameResult::Draw);
        assert_eq!(record.score(), i16::MAX);
        let black = start.after(start.legal_moves()[0]);
        let record = PackedPosition::new(&black, 100_000, GameResult::WhiteWins);
        assert_eq!((record.score(), record.result()), (-i16::MAX, 0));
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        for (line, why) in [
            (format!("{fen} | 20"), "expected"),
            (format!("{fen} | x | 0.5"), "bad score"),
            (format!("{fen} | 20 | 2"), "bad result"),
            ("8/8/8/8 w - - | 0 | 0.5".to_string(), "bad FEN"),
        ] {
            let error = PackedPosition::parse_line(&line).unwrap_err();
            assert!(error.contains(why), "{line}: {error}");
        }
    }

    #[test]
    fn conversion_packs_each_line_and_reports_the_bad_ones() {
        let text = "# a comment\n\
            4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900 | 1.0\n\
            \n\
            4k3/8/8/8/8/8/8/3QK3 w - - 0 1 | 900\n\
            q3k3/8/8/8/8/8/8/4K3 b - - 0 1 | -900 | 0.0\n";
        let mut out = Vec::new();
        let report = convert_text(&mut text.as_bytes(), &mut out).unwrap();
        assert_eq!(
            (
                report.lines,
                report.records,
                report.skipped_comments,
                report.malformed
            ),
            (5, 2, 2, 1)
        );
        assert_eq!(report.errors[0].0, 4);
        let lines: Vec<&str> = text.lines().filter(|l| l.ends_with(".0")).collect();
        assert_eq!(out.len(), 64);
        for (line, record) in lines.iter().zip(out.chunks_exact(32)) {
            assert_eq!(record, PackedPosition::parse_line(line).unwrap().as_bytes());
        }
    }

    #[test]
    fn validation_catches_damaged_records() {
        let good = PackedPosition::new(&Position::startpos(), 0, GameResult::Draw);
        good.validate().unwrap();
        let mut bad = good;
        bad.0[27] ^= 1;
        assert!(bad.validate().is_err());
        let mut bad = good;
        bad.0[26] = 3;
        assert!(bad.validate().is_err());
        let mut bad = good;
        bad.0[8] = 0x77;
        assert!(bad.validate().is_err());
    }
}
