//! The net file: what `kestrel train` writes, what the engine embeds and what `EvalFile` loads.
//!
//! Little-endian throughout:
//!
//! | bytes        | field                                                                  |
//! |--------------|------------------------------------------------------------------------|
//! | 4            | magic `KNUE`                                                           |
//! | u32          | format version (1, 2 or 3)                                             |
//! | u32          | inputs: 768 × K, K the king buckets (1 before version 3)               |
//! | u32          | hidden neurons per perspective, N (a multiple of 16, at most 2048)     |
//! | u32          | activation: 0 = CReLU, 1 = SCReLU                                      |
//! | i32 × 3      | QA (accumulator scale), QB (output weight scale), eval scale (cp)      |
//! | u32          | versions 2 and 3: output buckets, B (1 to 16); version 1 has one       |
//! | u32          | version 3 only: king buckets, K (1 to 16)                              |
//! | u8 × 32      | version 3 only: the king bucket of each square of files a-d (a1, b1, …)|
//! | i16 × 768K·N | feature weights, feature-major: the N weights of feature 0 first      |
//! | i16 × N      | hidden biases                                                          |
//! | i16 × B·2N   | output weights, bucket by bucket: the side to move's half, the other's |
//! | i32 × B      | output biases (scaled by QA·QB)                                        |
//! | u64          | FNV-1a 64 of every byte before it                                      |
//!
//! The output buckets are material buckets: a position with `p` pieces (kings included) is
//! read by bucket [`output_bucket`]`(p, B)`, so an endgame weighs the hidden layer its own
//! way. A net with one bucket is written as version 1, byte for byte as before buckets.
//!
//! Version 3 adds king buckets: each view reads one of K sets of 768 inputs, chosen by where
//! its own king stands, and sees the board turned across its middle (files a-h) whenever that
//! king stands on files e-h, so that the king is always on files a-d. A king on the queen's
//! side and one castled short then read the same weights with the board mirrored, and the
//! data of both teaches one set. The layout (which bucket each of the 32 squares of files
//! a-d belongs to, in the view's own orientation) is in the file.
//!
//! The net is a perspective net: each side's accumulator sees the board from that side
//! ([`feature_index`]), and the output reads the side to move's first. In floating point,
//! `h = act(W·x + b)` with `act` = clamp(·, 0, 1) (squared for SCReLU), the output
//! `o = w·[h_us, h_them] + c`, and the evaluation `o × scale` centipawns for the side to move.
//! Quantised, W and b are × QA, w is × QB and c is × QA·QB.

use crate::chess::{Color, Role, Square};
use std::fmt;

/// Features per perspective and king bucket: colour (ours, theirs) × role × square.
pub const INPUTS: usize = 768;
/// Most king buckets a file may declare.
pub const MAX_KING_BUCKETS: usize = 16;
/// Largest hidden layer a file may declare.
pub const MAX_HIDDEN: usize = 2048;
pub const MAGIC: [u8; 4] = *b"KNUE";
/// The newest format version, the one with king buckets.
pub const VERSION: u32 = 3;
/// Most output buckets a file may declare.
pub const MAX_OUTPUT_BUCKETS: usize = 16;
const HEADER_BYTES_V1: usize = 32;
const HEADER_BYTES_V2: usize = 36;
const HEADER_BYTES_V3: usize = 72;

/// Which of a net's input sets a view reads, by the square of that view's own king, and
/// the mirroring that brings the king to files a-d (version 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KingBuckets {
    /// Buckets, 1 to `MAX_KING_BUCKETS`.
    pub count: usize,
    /// The bucket of each square of files a-d in the view's orientation, a1, b1, c1, d1,
    /// a2, …: index `4 × rank + file`.
    pub layout: [u8; 32],
}

/// How one view reads the board: where its input set starts and whether its files are
/// turned (7) or not (0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KingView {
    pub offset: usize,
    pub flip: usize,
}

impl KingBuckets {
    /// The layouts `kestrel train --king-buckets` offers, by count. 1: mirroring alone.
    /// 2: the king on its first rank or not. 4: on the first rank by the corner (files a-b,
    /// where a castled king stands) or the centre (c-d, where an uncastled one does), on the
    /// second rank, or beyond. 8: the first two ranks by corner and centre, ranks 3-4, and
    /// the rest, each by corner and centre.
    pub fn preset(count: usize) -> Option<KingBuckets> {
        let bucket_of = |rank: usize, file: usize| -> usize {
            let centre = (file >= 2) as usize;
            match count {
                1 => 0,
                2 => (rank > 0) as usize,
                4 => match rank {
                    0 => centre,
                    1 => 2,
                    _ => 3,
                },
                8 => 2 * [0, 1, 2, 2, 3, 3, 3, 3][rank] + centre,
                _ => unreachable!(),
            }
        };
        if ![1, 2, 4, 8].contains(&count) {
            return None;
        }
        let mut layout = [0u8; 32];
        for (i, b) in layout.iter_mut().enumerate() {
            *b = bucket_of(i / 4, i % 4) as u8;
        }
        Some(KingBuckets { count, layout })
    }

    /// The view of a side whose king stands on `king`, seen from that side (its back rank
    /// is rank 1).
    #[inline(always)]
    pub fn view_from(&self, king: Square) -> KingView {
        let k = king.index();
        let flip = if k & 7 >= 4 { 7 } else { 0 };
        let k = k ^ flip;
        KingView {
            offset: INPUTS * self.layout[4 * (k >> 3) + (k & 7)] as usize,
            flip,
        }
    }
}

/// The view of `view`'s accumulator when its king stands on `king` (in board
/// orientation): the first input set, unturned, for a net without king buckets.
#[inline(always)]
pub fn king_view(buckets: Option<&KingBuckets>, view: Color, king: Square) -> KingView {
    match buckets {
        None => KingView::default(),
        Some(b) => b.view_from(king.relative_to(view)),
    }
}

/// [`feature_index`] in the input set and orientation of `king`. (The flip turns the
/// square's file: 384 and 64 are multiples of 8, so the xor touches the file bits alone.)
#[inline(always)]
pub fn feature_index_in(
    king: KingView,
    view: Color,
    color: Color,
    role: Role,
    square: Square,
) -> usize {
    king.offset + (feature_index(view, color, role, square) ^ king.flip)
}

/// The hidden layer's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// clamp(x, 0, 1)
    CReLU,
    /// clamp(x, 0, 1)²
    SCReLU,
}

/// A net as stored: quantised weights and the scales that turn its output into centipawns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetFile {
    pub hidden: usize,
    /// Output buckets (1 to `MAX_OUTPUT_BUCKETS`), chosen by the count of pieces.
    pub output_buckets: usize,
    /// King buckets (version 3); `None`: one input set, never mirrored.
    pub king_buckets: Option<KingBuckets>,
    pub activation: Activation,
    pub qa: i32,
    pub qb: i32,
    pub scale: i32,
    /// `inputs × hidden` (`inputs` = `INPUTS` × king buckets), feature-major.
    pub feature_weights: Vec<i16>,
    pub feature_bias: Vec<i16>,
    /// `output_buckets × 2 × hidden`: for each bucket, the side to move's half first.
    pub output_weights: Vec<i16>,
    /// One per bucket.
    pub output_bias: Vec<i32>,
}

/// Why bytes are not a net Kestrel can use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetError {
    TooShort { len: usize },
    BadMagic,
    UnsupportedVersion(u32),
    WrongInputs(u32),
    BadHidden(u32),
    BadActivation(u32),
    BadOutputBuckets(u32),
    BadKingBuckets(String),
    BadScales { qa: i32, qb: i32, scale: i32 },
    WrongLength { expected: usize, found: usize },
    BadChecksum,
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            NetError::TooShort { len } => {
                write!(f, "{len} bytes is too short for a net file (not a Kestrel net?)")
            }
            NetError::BadMagic => write!(f, "not a Kestrel net file (it does not start with KNUE)"),
            NetError::UnsupportedVersion(v) => {
                write!(f, "net format version {v}; this build reads versions 1 to {VERSION}")
            }
            NetError::WrongInputs(n) => write!(f, "the net has {n} inputs; Kestrel's have {INPUTS}"),
            NetError::BadHidden(n) => write!(
                f,
                "the net's hidden layer has {n} neurons; it must be a multiple of 16 from 16 to {MAX_HIDDEN}"
            ),
            NetError::BadActivation(a) => write!(f, "unknown activation {a} (0 CReLU, 1 SCReLU)"),
            NetError::BadOutputBuckets(b) => write!(
                f,
                "the net has {b} output buckets; it must have 1 to {MAX_OUTPUT_BUCKETS}"
            ),
            NetError::BadKingBuckets(why) => write!(f, "bad king buckets: {why}"),
            NetError::BadScales { qa, qb, scale } => write!(
                f,
                "bad scales QA {qa}, QB {qb}, eval scale {scale} (QA 1-255, QB 1-1024, scale 1-10000)"
            ),
            NetError::WrongLength { expected, found } => write!(
                f,
                "the file is {found} bytes; a net of this shape is {expected} (truncated or damaged?)"
            ),
            NetError::BadChecksum => write!(f, "the net's checksum does not match (damaged file?)"),
        }
    }
}

impl std::error::Error for NetError {}

/// The input a piece of `color` and `role` on `square` sets in the accumulator of `view`:
/// our pieces first, then theirs, each by role and square, the board turned so that `view`
/// plays up the board.
#[inline(always)]
pub fn feature_index(view: Color, color: Color, role: Role, square: Square) -> usize {
    let theirs = (color != view) as usize;
    let square = square.relative_to(view).index();
    theirs * 384 + role.index() * 64 + square
}

/// The output bucket of a position with `pieces` pieces (kings included) in a net with
/// `buckets` buckets: the range 2-32 cut into equal parts.
#[inline(always)]
pub fn output_bucket(pieces: u32, buckets: usize) -> usize {
    (pieces.clamp(2, 32) - 2) as usize * buckets / 31
}

/// FNV-1a, 64 bits.
pub fn checksum(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The version a net of this shape is written as: 3 with king buckets, else 1 with one
/// output bucket (byte for byte as before buckets), else 2.
pub fn version_of(output_buckets: usize, king_buckets: Option<&KingBuckets>) -> u32 {
    match (king_buckets, output_buckets) {
        (Some(_), _) => 3,
        (None, 1) => 1,
        (None, _) => 2,
    }
}

fn header_bytes(version: u32) -> usize {
    match version {
        1 => HEADER_BYTES_V1,
        2 => HEADER_BYTES_V2,
        _ => HEADER_BYTES_V3,
    }
}

/// The file length of a net with `hidden` neurons, `output_buckets` buckets and
/// `king_buckets` (1 for none).
pub fn file_len(hidden: usize, output_buckets: usize, king_buckets: Option<&KingBuckets>) -> usize {
    let inputs = INPUTS * king_buckets.map_or(1, |k| k.count);
    let header = header_bytes(version_of(output_buckets, king_buckets));
    header + 2 * (inputs * hidden + hidden + output_buckets * 2 * hidden) + 4 * output_buckets + 8
}

/// What a net file's header declares: enough to know its length before reading the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub version: u32,
    pub hidden: usize,
    pub output_buckets: usize,
    pub king_buckets: Option<KingBuckets>,
    pub activation: Activation,
    pub qa: i32,
    pub qb: i32,
    pub scale: i32,
}

impl Header {
    /// The most bytes a header takes: read this many (or the whole file, if shorter) to
    /// check it.
    pub const MAX_BYTES: usize = HEADER_BYTES_V3;

    /// Reads and checks the header at the start of `bytes` (the file or its first
    /// `MAX_BYTES` bytes).
    pub fn parse(bytes: &[u8]) -> Result<Header, NetError> {
        if bytes.len() < HEADER_BYTES_V1 {
            return Err(NetError::TooShort { len: bytes.len() });
        }
        if bytes[..4] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
        let version = word(1);
        if !(1..=VERSION).contains(&version) {
            return Err(NetError::UnsupportedVersion(version));
        }
        if bytes.len() < header_bytes(version) {
            return Err(NetError::TooShort { len: bytes.len() });
        }
        let king_buckets = if version == 3 {
            let count = word(9) as usize;
            if !(1..=MAX_KING_BUCKETS).contains(&count) {
                return Err(NetError::BadKingBuckets(format!(
                    "{count} of them; a net has 1 to {MAX_KING_BUCKETS}"
                )));
            }
            let layout: [u8; 32] = bytes[40..72].try_into().unwrap();
            if let Some(&b) = layout.iter().find(|&&b| b as usize >= count) {
                return Err(NetError::BadKingBuckets(format!(
                    "the layout names bucket {b} of {count}"
                )));
            }
            Some(KingBuckets { count, layout })
        } else {
            None
        };
        if word(2) as usize != INPUTS * king_buckets.map_or(1, |k| k.count) {
            return Err(NetError::WrongInputs(word(2)));
        }
        let hidden = word(3);
        if hidden == 0 || hidden % 16 != 0 || hidden as usize > MAX_HIDDEN {
            return Err(NetError::BadHidden(hidden));
        }
        let activation = match word(4) {
            0 => Activation::CReLU,
            1 => Activation::SCReLU,
            a => return Err(NetError::BadActivation(a)),
        };
        let (qa, qb, scale) = (word(5) as i32, word(6) as i32, word(7) as i32);
        if !(1..=255).contains(&qa) || !(1..=1024).contains(&qb) || !(1..=10_000).contains(&scale) {
            return Err(NetError::BadScales { qa, qb, scale });
        }
        let output_buckets = match (version, word(8)) {
            (1, _) => 1,
            // One bucket without king buckets is written as version 1, so version 2
            // declares at least two.
            (3, 1) => 1,
            (_, b @ 2..) if b as usize <= MAX_OUTPUT_BUCKETS => b as usize,
            (_, b) => return Err(NetError::BadOutputBuckets(b)),
        };
        Ok(Header {
            version,
            hidden: hidden as usize,
            output_buckets,
            king_buckets,
            activation,
            qa,
            qb,
            scale,
        })
    }

    /// The length of the whole file this header starts.
    pub fn file_len(&self) -> usize {
        file_len(self.hidden, self.output_buckets, self.king_buckets.as_ref())
    }

    /// Inputs per view: `INPUTS` for each king bucket.
    pub fn inputs(&self) -> usize {
        INPUTS * self.king_buckets.map_or(1, |k| k.count)
    }

    /// `found` bytes are right for this header's file.
    pub fn check_len(&self, found: usize) -> Result<(), NetError> {
        let expected = self.file_len();
        if found != expected {
            return Err(NetError::WrongLength { expected, found });
        }
        Ok(())
    }
}

impl NetFile {
    /// Reads and checks a net file.
    pub fn parse(bytes: &[u8]) -> Result<NetFile, NetError> {
        let header = Header::parse(bytes)?;
        header.check_len(bytes.len())?;
        let expected = header.file_len();
        let inputs = header.inputs();
        let Header {
            version,
            hidden,
            output_buckets,
            king_buckets,
            activation,
            qa,
            qb,
            scale,
        } = header;
        let (body, sum) = bytes.split_at(expected - 8);
        if checksum(body) != u64::from_le_bytes(sum.try_into().unwrap()) {
            return Err(NetError::BadChecksum);
        }
        let mut at = header_bytes(version);
        let mut i16s = |n: usize| -> Vec<i16> {
            let v = body[at..at + 2 * n]
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
            at += 2 * n;
            v
        };
        let feature_weights = i16s(inputs * hidden);
        let feature_bias = i16s(hidden);
        let output_weights = i16s(output_buckets * 2 * hidden);
        let output_bias = body[at..at + 4 * output_buckets]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        Ok(NetFile {
            hidden,
            output_buckets,
            king_buckets,
            activation,
            qa,
            qb,
            scale,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        })
    }

    /// Inputs per view: `INPUTS` for each king bucket.
    pub fn inputs(&self) -> usize {
        INPUTS * self.king_buckets.map_or(1, |k| k.count)
    }

    /// The file's bytes, checksum included, in the version its shape needs
    /// ([`version_of`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let buckets = self.output_buckets;
        let kings = self.king_buckets.as_ref();
        assert!((1..=MAX_OUTPUT_BUCKETS).contains(&buckets));
        assert!(kings.is_none_or(|k| (1..=MAX_KING_BUCKETS).contains(&k.count)));
        assert_eq!(self.feature_weights.len(), self.inputs() * self.hidden);
        assert_eq!(self.feature_bias.len(), self.hidden);
        assert_eq!(self.output_weights.len(), buckets * 2 * self.hidden);
        assert_eq!(self.output_bias.len(), buckets);
        let mut out = Vec::with_capacity(file_len(self.hidden, buckets, kings));
        out.extend_from_slice(&MAGIC);
        let activation = match self.activation {
            Activation::CReLU => 0u32,
            Activation::SCReLU => 1,
        };
        let version = version_of(buckets, kings);
        for w in [
            version,
            self.inputs() as u32,
            self.hidden as u32,
            activation,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for w in [self.qa, self.qb, self.scale] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        if version >= 2 {
            out.extend_from_slice(&(buckets as u32).to_le_bytes());
        }
        if let Some(k) = kings {
            out.extend_from_slice(&(k.count as u32).to_le_bytes());
            out.extend_from_slice(&k.layout);
        }
        for v in self
            .feature_weights
            .iter()
            .chain(&self.feature_bias)
            .chain(&self.output_weights)
        {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for b in &self.output_bias {
            out.extend_from_slice(&b.to_le_bytes());
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random_net(hidden: usize, output_buckets: usize, seed: u64) -> NetFile {
        random_king_net(hidden, output_buckets, None, seed)
    }

    fn random_king_net(
        hidden: usize,
        output_buckets: usize,
        king_buckets: Option<KingBuckets>,
        seed: u64,
    ) -> NetFile {
        let mut rng = Rng::new(seed);
        let mut v = |n: usize| (0..n).map(|_| rng.next_u64() as i16).collect::<Vec<_>>();
        let inputs = INPUTS * king_buckets.map_or(1, |k| k.count);
        NetFile {
            hidden,
            output_buckets,
            king_buckets,
            activation: Activation::SCReLU,
            qa: 255,
            qb: 64,
            scale: 400,
            feature_weights: v(inputs * hidden),
            feature_bias: v(hidden),
            output_weights: v(output_buckets * 2 * hidden),
            output_bias: (0..output_buckets as i32)
                .map(|b| b * 1000 - 12345)
                .collect(),
        }
    }

    #[test]
    fn a_net_reads_back_as_written() {
        for buckets in [1, 2, 8, MAX_OUTPUT_BUCKETS] {
            let net = random_net(32, buckets, 7);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), file_len(32, buckets, None));
            // One bucket keeps the first format, which builds before buckets read.
            let version = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
            assert_eq!(version, if buckets == 1 { 1 } else { 2 });
            assert_eq!(NetFile::parse(&bytes), Ok(net));
        }
        for (kings, buckets) in [(1, 1), (4, 1), (4, 8), (8, 8)] {
            let layout = KingBuckets::preset(kings).unwrap();
            let net = random_king_net(16, buckets, Some(layout), 11);
            let bytes = net.to_bytes();
            assert_eq!(bytes.len(), file_len(16, buckets, Some(&layout)));
            assert_eq!(
                bytes.len(),
                HEADER_BYTES_V3 + 2 * (768 * kings * 16 + 16 + buckets * 32) + 4 * buckets + 8
            );
            assert_eq!(u32::from_le_bytes(bytes[4..8].try_into().unwrap()), 3);
            assert_eq!(NetFile::parse(&bytes), Ok(net));
        }
    }

    /// `bytes` with byte `at` set to `value` and the checksum made right again.
    fn patched(mut bytes: Vec<u8>, at: usize, value: u8) -> Vec<u8> {
        bytes[at] = value;
        let body = bytes.len() - 8;
        let sum = checksum(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    #[test]
    fn a_bad_king_bucket_layout_is_refused() {
        let bytes = random_king_net(16, 2, KingBuckets::preset(4), 5).to_bytes();
        // A square of the layout names bucket 4 of 4.
        assert_eq!(
            NetFile::parse(&patched(bytes.clone(), 40 + 9, 4)),
            Err(NetError::BadKingBuckets(
                "the layout names bucket 4 of 4".to_string()
            ))
        );
        assert!(matches!(
            NetFile::parse(&patched(bytes.clone(), 36, 17)),
            Err(NetError::BadKingBuckets(_))
        ));
        // Eight buckets declared, the inputs and weights of four.
        assert_eq!(
            NetFile::parse(&patched(bytes, 36, 8)),
            Err(NetError::WrongInputs(768 * 4))
        );
    }

    #[test]
    fn the_preset_layouts_use_every_bucket_and_only_those() {
        for count in [1, 2, 4, 8] {
            let k = KingBuckets::preset(count).unwrap();
            let used: std::collections::BTreeSet<u8> = k.layout.iter().copied().collect();
            assert_eq!(used, (0..count as u8).collect(), "{count}");
        }
        assert_eq!(KingBuckets::preset(3), None);
        let four = KingBuckets::preset(4).unwrap();
        // a1-b1 the corner, c1-d1 the centre, rank 2, the rest.
        assert_eq!(&four.layout[..12], &[0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
    }

    #[test]
    fn a_king_on_the_kings_side_turns_the_board_and_black_sees_it_from_its_side() {
        let four = KingBuckets::preset(4).unwrap();
        let sq = |name: &str| {
            let b = name.as_bytes();
            Square::new((b[1] - b'1') * 8 + (b[0] - b'a'))
        };
        // White castled short (g1) reads as a king on b1: the corner bucket, turned.
        let g1 = king_view(Some(&four), Color::White, sq("g1"));
        assert_eq!(g1, KingView { offset: 0, flip: 7 });
        // Black's king on e8 is, from Black's side, a king on e1: d1 turned, the centre.
        let e8 = king_view(Some(&four), Color::Black, sq("e8"));
        assert_eq!(
            e8,
            KingView {
                offset: 768,
                flip: 7
            }
        );
        assert_eq!(
            king_view(Some(&four), Color::Black, sq("c7")).offset,
            2 * 768
        );
        assert_eq!(king_view(None, Color::White, sq("g1")), KingView::default());
        // The same piece in a mirrored view reads the mirrored square: h2 as a2.
        let h2 = feature_index_in(g1, Color::White, Color::White, Role::Pawn, sq("h2"));
        assert_eq!(
            h2,
            feature_index(Color::White, Color::White, Role::Pawn, sq("a2"))
        );
        // Mirror images read the same inputs from both views.
        for (king, piece) in [("g1", "f7"), ("b8", "h3"), ("e4", "a1")] {
            for view in [Color::White, Color::Black] {
                let turned = |name: &str| Square::new(sq(name).index() as u8 ^ 7);
                let a = king_view(Some(&four), view, sq(king));
                let b = king_view(Some(&four), view, turned(king));
                let fa = feature_index_in(a, view, Color::Black, Role::Knight, sq(piece));
                let fb = feature_index_in(b, view, Color::Black, Role::Knight, turned(piece));
                assert_eq!(fa, fb, "{king} {piece} {view:?}");
            }
        }
    }

    #[test]
    fn output_buckets_cut_the_piece_counts_into_equal_runs() {
        let eight: Vec<usize> = (2..=32).map(|p| output_bucket(p, 8)).collect();
        assert_eq!(eight.first(), Some(&0));
        assert_eq!(eight.last(), Some(&7));
        assert!(eight.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
        for b in 0..8 {
            let run = eight.iter().filter(|&&x| x == b).count();
            assert!((3..=4).contains(&run), "bucket {b}: {run} piece counts");
        }
        assert!((0..=40).all(|p| output_bucket(p, 1) == 0));
        assert_eq!(output_bucket(40, 8), 7);
    }

    #[test]
    fn a_bad_bucket_count_is_refused() {
        let bytes = patched(random_net(16, 2, 5).to_bytes(), 32, 17);
        assert_eq!(NetFile::parse(&bytes), Err(NetError::BadOutputBuckets(17)));
    }

    #[test]
    fn damaged_files_are_refused_with_the_reason() {
        let bytes = random_net(16, 1, 3).to_bytes();
        let mut flipped = bytes.clone();
        flipped[1000] ^= 1;
        assert_eq!(NetFile::parse(&flipped), Err(NetError::BadChecksum));
        assert_eq!(
            NetFile::parse(&bytes[..bytes.len() - 1]),
            Err(NetError::WrongLength {
                expected: bytes.len(),
                found: bytes.len() - 1
            })
        );
        assert_eq!(NetFile::parse(b"hello"), Err(NetError::TooShort { len: 5 }));
        let mut magic = bytes.clone();
        magic[0] = b'X';
        assert_eq!(NetFile::parse(&magic), Err(NetError::BadMagic));
        let mut hidden = bytes.clone();
        hidden[12] = 17;
        assert_eq!(NetFile::parse(&hidden), Err(NetError::BadHidden(17)));
    }

    #[test]
    fn each_view_sees_its_own_pieces_first_and_plays_up_the_board() {
        let e2 = Square::new(12);
        let e7 = Square::new(52);
        // A white pawn on e2 seen by White is the black pawn on e7 seen by Black.
        assert_eq!(
            feature_index(Color::White, Color::White, Role::Pawn, e2),
            feature_index(Color::Black, Color::Black, Role::Pawn, e7)
        );
        assert_eq!(
            feature_index(Color::White, Color::White, Role::Pawn, e2),
            12
        );
        assert_eq!(
            feature_index(Color::Black, Color::White, Role::King, e2),
            384 + 5 * 64 + 52
        );
    }
}
