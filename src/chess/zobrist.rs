//! Zobrist hashing keys, generated at compile time from a fixed seed.

use super::types::{File, Piece, Square};
use crate::rng::splitmix;

pub(crate) struct Keys {
    pieces: [[u64; 64]; 12],
    castling: [u64; 16],
    en_passant: [u64; 8],
    side: u64,
}

const fn make_keys() -> Keys {
    let mut keys = Keys {
        pieces: [[0; 64]; 12],
        castling: [0; 16],
        en_passant: [0; 8],
        side: 0,
    };
    let mut state = 0x4B65_7374_7265_6C21; // "Kestrel!"
    let mut p = 0;
    while p < 12 {
        let mut sq = 0;
        while sq < 64 {
            let (s, v) = splitmix(state);
            state = s;
            keys.pieces[p][sq] = v;
            sq += 1;
        }
        p += 1;
    }
    // Castling keys are per single right, combined by XOR, so a rights set's key is the XOR
    // of its members.
    let mut single = [0u64; 4];
    let mut i = 0;
    while i < 4 {
        let (s, v) = splitmix(state);
        state = s;
        single[i] = v;
        i += 1;
    }
    let mut mask = 0;
    while mask < 16 {
        let mut k = 0;
        let mut bit = 0;
        while bit < 4 {
            if mask & (1 << bit) != 0 {
                k ^= single[bit];
            }
            bit += 1;
        }
        keys.castling[mask] = k;
        mask += 1;
    }
    let mut f = 0;
    while f < 8 {
        let (s, v) = splitmix(state);
        state = s;
        keys.en_passant[f] = v;
        f += 1;
    }
    keys.side = splitmix(state).1;
    keys
}

static KEYS: Keys = make_keys();

#[inline(always)]
pub fn piece(piece: Piece, sq: Square) -> u64 {
    KEYS.pieces[piece.index()][sq.index()]
}

/// Key of a castling-rights set (bit mask, see `CastlingRights`).
#[inline(always)]
pub fn castling(rights_bits: u8) -> u64 {
    KEYS.castling[rights_bits as usize & 15]
}

#[inline(always)]
pub fn en_passant(file: File) -> u64 {
    KEYS.en_passant[file.index()]
}

/// XORed in when Black is to move.
#[inline(always)]
pub fn side() -> u64 {
    KEYS.side
}
