//! Evaluation weights in centipawns, `s(middlegame, endgame)`, White's view of White's
//! pieces (Black's squares are mirrored). Written by `params::weights_source`: a tuner
//! may regenerate this file; the layout and the meaning of each entry are in
//! `params.rs`.

use super::{s, Score};

/// Piece values by role (pawn, knight, bishop, rook, queen, king).
pub const MATERIAL: [Score; 6] = [
    s( 100,  125), s( 320,  300), s( 335,  320), s( 480,  530), s( 960, 1000), s(   0,    0),
];

/// Piece-square tables by role, squares a1..h8 from the owner's side (rank 1 first).
pub const PSQT: [[Score; 64]; 6] = [
    [
        s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(   2,    6), s(   2,    6), s(   6,    6), s(  12,    6), s(  12,    6), s(   6,    6), s(   2,    6), s(   2,    6),
        s(   6,   14), s(   6,   14), s(  10,   14), s(  16,   14), s(  16,   14), s(  10,   14), s(   6,   14), s(   6,   14),
        s(  14,   28), s(  14,   28), s(  18,   28), s(  24,   28), s(  24,   28), s(  18,   28), s(  14,   28), s(  14,   28),
        s(  26,   50), s(  26,   50), s(  30,   50), s(  36,   50), s(  36,   50), s(  30,   50), s(  26,   50), s(  26,   50),
        s(  45,   85), s(  45,   85), s(  49,   85), s(  55,   85), s(  55,   85), s(  49,   85), s(  45,   85), s(  45,   85),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
    ],
    [
        s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16),
        s( -26,  -16), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -26,  -16),
        s( -26,  -16), s( -14,   -8), s(  -2,    0), s(  -2,    0), s(  -2,    0), s(  -2,    0), s( -14,   -8), s( -26,  -16),
        s( -26,  -16), s( -14,   -8), s(  -2,    0), s(  10,    8), s(  10,    8), s(  -2,    0), s( -14,   -8), s( -26,  -16),
        s( -26,  -16), s( -14,   -8), s(  -2,    0), s(  10,    8), s(  10,    8), s(  -2,    0), s( -14,   -8), s( -26,  -16),
        s( -26,  -16), s( -14,   -8), s(  -2,    0), s(  -2,    0), s(  -2,    0), s(  -2,    0), s( -14,   -8), s( -26,  -16),
        s( -26,  -16), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -14,   -8), s( -26,  -16),
        s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16), s( -26,  -16),
    ],
    [
        s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10),
        s( -12,  -10), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s( -12,  -10),
        s( -12,  -10), s(  -6,   -5), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(  -6,   -5), s( -12,  -10),
        s( -12,  -10), s(  -6,   -5), s(   0,    0), s(   6,    5), s(   6,    5), s(   0,    0), s(  -6,   -5), s( -12,  -10),
        s( -12,  -10), s(  -6,   -5), s(   0,    0), s(   6,    5), s(   6,    5), s(   0,    0), s(  -6,   -5), s( -12,  -10),
        s( -12,  -10), s(  -6,   -5), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(  -6,   -5), s( -12,  -10),
        s( -12,  -10), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s(  -6,   -5), s( -12,  -10),
        s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10), s( -12,  -10),
    ],
    [
        s(   0,    0), s(   0,    0), s(   0,    0), s(   4,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   4,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   4,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   4,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   4,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   4,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(  18,   12), s(  18,   12), s(  18,   12), s(  22,   12), s(  22,   12), s(  18,   12), s(  18,   12), s(  18,   12),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   4,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0),
    ],
    [
        s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12),
        s(  -6,  -12), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -6,  -12),
        s(  -6,  -12), s(  -3,   -6), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(  -3,   -6), s(  -6,  -12),
        s(  -6,  -12), s(  -3,   -6), s(   0,    0), s(   3,    6), s(   3,    6), s(   0,    0), s(  -3,   -6), s(  -6,  -12),
        s(  -6,  -12), s(  -3,   -6), s(   0,    0), s(   3,    6), s(   3,    6), s(   0,    0), s(  -3,   -6), s(  -6,  -12),
        s(  -6,  -12), s(  -3,   -6), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(  -3,   -6), s(  -6,  -12),
        s(  -6,  -12), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -3,   -6), s(  -6,  -12),
        s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12), s(  -6,  -12),
    ],
    [
        s(  20,  -24), s(  20,  -24), s(  20,  -24), s(   0,  -24), s(   0,  -24), s(   0,  -24), s(  20,  -24), s(  20,  -24),
        s( -20,  -24), s( -20,  -12), s( -20,  -12), s( -20,  -12), s( -20,  -12), s( -20,  -12), s( -20,  -12), s( -20,  -24),
        s( -40,  -24), s( -40,  -12), s( -40,    0), s( -40,    0), s( -40,    0), s( -40,    0), s( -40,  -12), s( -40,  -24),
        s( -60,  -24), s( -60,  -12), s( -60,    0), s( -60,   12), s( -60,   12), s( -60,    0), s( -60,  -12), s( -60,  -24),
        s( -80,  -24), s( -80,  -12), s( -80,    0), s( -80,   12), s( -80,   12), s( -80,    0), s( -80,  -12), s( -80,  -24),
        s(-100,  -24), s(-100,  -12), s(-100,    0), s(-100,    0), s(-100,    0), s(-100,    0), s(-100,  -12), s(-100,  -24),
        s(-120,  -24), s(-120,  -12), s(-120,  -12), s(-120,  -12), s(-120,  -12), s(-120,  -12), s(-120,  -12), s(-120,  -24),
        s(-140,  -24), s(-140,  -24), s(-140,  -24), s(-140,  -24), s(-140,  -24), s(-140,  -24), s(-140,  -24), s(-140,  -24),
    ],
];

/// Knight mobility by the number of safe squares attacked (0-8).
pub const MOBILITY_KNIGHT: [Score; 9] = [
    s( -35,  -45), s( -21,  -30), s(  -9,  -16), s(   1,   -5), s(  10,    5), s(  16,   12), s(  21,   17), s(  24,   20),
    s(  25,   22),
];

/// Bishop mobility (0-13).
pub const MOBILITY_BISHOP: [Score; 14] = [
    s( -30,  -40), s( -20,  -28), s( -10,  -17), s(  -1,   -7), s(   7,    2), s(  14,   11), s(  21,   18), s(  26,   24),
    s(  31,   29), s(  35,   34), s(  38,   37), s(  40,   40), s(  41,   41), s(  42,   42),
];

/// Rook mobility (0-14).
pub const MOBILITY_ROOK: [Score; 15] = [
    s( -22,  -40), s( -16,  -27), s( -10,  -14), s(  -4,   -3), s(   1,    8), s(   5,   17), s(   9,   26), s(  13,   33),
    s(  16,   40), s(  19,   45), s(  21,   50), s(  22,   53), s(  24,   56), s(  24,   57), s(  25,   58),
];

/// Queen mobility (0-27).
pub const MOBILITY_QUEEN: [Score; 28] = [
    s( -20,  -35), s( -17,  -29), s( -14,  -22), s( -10,  -16), s(  -7,   -9), s(  -4,   -3), s(  -1,    2), s(   1,    7),
    s(   4,   12), s(   6,   17), s(   8,   22), s(  11,   26), s(  13,   30), s(  15,   34), s(  16,   38), s(  18,   41),
    s(  20,   44), s(  21,   46), s(  22,   49), s(  23,   51), s(  24,   53), s(  25,   55), s(  26,   56), s(  26,   58),
    s(  27,   58), s(  27,   59), s(  27,   59), s(  28,   60),
];

/// Each pawn with another own pawn ahead of it on its file.
pub const PAWN_DOUBLED: Score = s( -10,  -25);

/// Each pawn with no own pawn on the files next to it.
pub const PAWN_ISOLATED: Score = s( -10,  -14);

/// Each pawn that no own pawn can defend and whose stop square an enemy pawn controls.
pub const PAWN_BACKWARD: Score = s(  -8,  -10);

/// Each pawn with an own pawn beside it, by relative rank.
pub const PAWN_PHALANX: [Score; 8] = [
    s(   0,    0), s(   3,    0), s(   6,    3), s(  10,    8), s(  20,   20), s(  35,   40), s(  50,   70), s(   0,    0),
];

/// Each own pawn defending a pawn, by the defended pawn's relative rank.
pub const PAWN_SUPPORTED: [Score; 8] = [
    s(   0,    0), s(   0,    0), s(   8,    4), s(  10,    7), s(  15,   15), s(  25,   30), s(  40,   50), s(   0,    0),
];

/// Passed pawns by relative rank.
pub const PASSED_RANK: [Score; 8] = [
    s(   0,    0), s(   0,    8), s(   0,   12), s(   8,   25), s(  25,   50), s(  50,   90), s(  80,  140), s(   0,    0),
];

/// Passed pawns whose stop square is occupied, by relative rank.
pub const PASSED_BLOCKED: [Score; 8] = [
    s(   0,    0), s(   0,    0), s(  -2,   -4), s(  -5,  -10), s( -10,  -20), s( -15,  -35), s( -20,  -50), s(   0,    0),
];

/// Passed pawns whose path to promotion is empty and not attacked, by relative rank.
pub const PASSED_FREE_PATH: [Score; 8] = [
    s(   0,    0), s(   0,    2), s(   2,    5), s(   5,   10), s(  10,   25), s(  20,   45), s(  30,   70), s(   0,    0),
];

/// Times the own king's distance to the stop square, by relative rank.
pub const PASSED_OWN_KING_DISTANCE: [Score; 8] = [
    s(   0,    0), s(   0,   -1), s(   0,   -2), s(   0,   -3), s(   0,   -5), s(   0,   -8), s(   0,  -10), s(   0,    0),
];

/// Times the enemy king's distance to the stop square, by relative rank.
pub const PASSED_THEIR_KING_DISTANCE: [Score; 8] = [
    s(   0,    0), s(   0,    2), s(   0,    4), s(   0,    6), s(   0,   12), s(   0,   18), s(   0,   22), s(   0,    0),
];

/// A passed pawn the enemy king cannot catch when the enemy has only pawns.
pub const PASSED_UNSTOPPABLE: Score = s(   0,  300);

/// Two bishops or more.
pub const BISHOP_PAIR: Score = s(  30,   50);

/// A knight on ranks 4-6 defended by a pawn and beyond the reach of enemy pawns.
pub const KNIGHT_OUTPOST: Score = s(  25,   15);

/// A bishop on such an outpost.
pub const BISHOP_OUTPOST: Score = s(  15,    8);

/// A rook on a file without pawns.
pub const ROOK_OPEN_FILE: Score = s(  40,   15);

/// A rook on a file with enemy pawns only.
pub const ROOK_HALF_OPEN_FILE: Score = s(  18,    8);

/// A rook on the seventh rank with the enemy king on the eighth or enemy pawns on the seventh.
pub const ROOK_SEVENTH: Score = s(  20,   30);

/// A queen on a file without pawns.
pub const QUEEN_OPEN_FILE: Score = s(   5,    5);

/// A queen on a file with enemy pawns only.
pub const QUEEN_HALF_OPEN_FILE: Score = s(   3,    3);

/// Enemy pieces attacked by pawns, by the victim's role.
pub const THREAT_BY_PAWN: [Score; 6] = [
    s(   0,    0), s(  60,   40), s(  60,   40), s(  80,   40), s(  80,   40), s(   0,    0),
];

/// Weak enemy pieces (not pawn-defended) and rooks and queens attacked by knights or bishops, by victim.
pub const THREAT_BY_MINOR: [Score; 6] = [
    s(   5,   20), s(  25,   30), s(  25,   35), s(  50,   60), s(  50,   60), s(   0,    0),
];

/// Weak enemy pieces and queens attacked by rooks, by victim.
pub const THREAT_BY_ROOK: [Score; 6] = [
    s(   3,   20), s(  15,   30), s(  15,   30), s(   0,   15), s(  40,   40), s(   0,    0),
];

/// Enemy pieces (not pawns) attacked and not defended at all.
pub const HANGING: Score = s(  30,   20);

/// Per file at and beside the king: the relative rank of the nearest own pawn ahead.
pub const KING_SHIELD: [Score; 8] = [
    s(   0,    0), s(  22,    0), s(  14,    0), s(   4,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
];

/// Per file at and beside the king: the relative rank of the nearest enemy pawn ahead.
pub const KING_STORM: [Score; 8] = [
    s(   0,    0), s(  -5,    0), s( -25,    0), s( -15,    0), s(  -5,    0), s(   0,    0), s(   0,    0), s(   0,    0),
];

/// Per file at and beside the king without pawns.
pub const KING_OPEN_FILE: Score = s( -25,    0);

/// Per file at and beside the king with enemy pawns only.
pub const KING_HALF_OPEN_FILE: Score = s( -12,    0);

/// Bonus for the attacker, indexed by the attack units on the enemy king (see weights.rs).
pub const KING_DANGER: [Score; 64] = [
    s(   0,    0), s(   0,    1), s(   1,    2), s(   3,    3), s(   6,    4), s(  10,    5), s(  14,    6), s(  19,    7),
    s(  25,    8), s(  32,    9), s(  40,   10), s(  48,   11), s(  57,   12), s(  67,   13), s(  78,   14), s(  90,   15),
    s( 102,   16), s( 115,   17), s( 129,   18), s( 144,   19), s( 160,   20), s( 176,   21), s( 193,   22), s( 211,   23),
    s( 230,   24), s( 250,   25), s( 270,   26), s( 291,   27), s( 313,   28), s( 336,   29), s( 360,   30), s( 384,   31),
    s( 409,   32), s( 435,   33), s( 462,   34), s( 490,   35), s( 518,   36), s( 547,   37), s( 577,   38), s( 608,   39),
    s( 640,   40), s( 672,   41), s( 705,   42), s( 739,   43), s( 774,   44), s( 810,   45), s( 846,   46), s( 883,   47),
    s( 900,   48), s( 900,   49), s( 900,   50), s( 900,   51), s( 900,   52), s( 900,   53), s( 900,   54), s( 900,   55),
    s( 900,   56), s( 900,   57), s( 900,   58), s( 900,   59), s( 900,   60), s( 900,   61), s( 900,   62), s( 900,   63),
];

/// For the side to move.
pub const TEMPO: Score = s(  15,   10);

// Index weights: they choose the entry of KING_DANGER, so the linear trace cannot tune
// them; they are kept as they are when the file is rewritten.

/// Attack units per piece (by role) attacking the enemy king zone.
pub const KING_ATTACKER_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// Attack units per attack of a king-zone square.
pub const KING_ZONE_ATTACK_UNITS: i32 = 1;

/// Attack units for a safe check by each role.
pub const KING_SAFE_CHECK_UNITS: [i32; 6] = [0, 4, 3, 5, 6, 0];
