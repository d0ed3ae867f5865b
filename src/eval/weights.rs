//! Evaluation weights in centipawns, `s(middlegame, endgame)`, White's view of White's
//! pieces (Black's squares are mirrored). Written by `params::weights_source`: a tuner
//! may regenerate this file; the layout and the meaning of each entry are in
//! `params.rs`.

use super::{s, Score};

/// Piece values by role (pawn, knight, bishop, rook, queen, king).
pub const MATERIAL: [Score; 6] = [
    s(  74,   95), s( 405,  346), s( 406,  365), s( 548,  616), s(1214, 1035), s(   0,    0),
];

/// Piece-square tables by role, squares a1..h8 from the owner's side (rank 1 first).
pub const PSQT: [[Score; 64]; 6] = [
    [
        s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
        s(  -7,   32), s(  -6,    9), s(   0,    9), s( -18,   45), s(  -8,   13), s(  18,   18), s(   8,    8), s( -12,    7),
        s(  -1,   21), s( -14,   17), s(  -5,   15), s(  -6,   18), s(   8,   20), s(   2,   15), s( -14,   20), s(   0,    8),
        s(  13,   18), s(   5,    9), s(   4,   12), s(  18,    1), s(  31,   -4), s(  15,   11), s(  -2,   17), s(  -3,    9),
        s(  17,   29), s(  10,   20), s(  17,   15), s(   2,   18), s(  25,   16), s(   6,   22), s(   8,   29), s(  16,   19),
        s(  49,   19), s(  43,   49), s(  50,   66), s(  20,   44), s(  30,   38), s(  32,   40), s(  40,   12), s(  52,   32),
        s(  44,   45), s(  54,   49), s(  33,   84), s(  40,  105), s(  55,  115), s(  68,   80), s(  55,   93), s(  67,   35),
        s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0), s(   0,    0),
    ],
    [
        s( -50,  -17), s( -24,  -35), s( -45,    8), s(   2,  -11), s(   6,  -31), s( -21,  -18), s( -16,  -27), s(  -8,  -14),
        s( -83,   -5), s( -27,  -13), s( -14,  -33), s(   9,  -14), s( -12,   10), s(  10,  -12), s(  -6,   -4), s( -17,    1),
        s( -42,  -32), s( -27,    2), s(  -8,    1), s( -20,   26), s(  32,   -6), s(  -6,    2), s(  -7,   -9), s( -22,  -18),
        s(  -6,  -16), s( -32,  -18), s(   2,    2), s(  -6,   14), s(  14,   11), s(   2,    1), s(  -7,  -17), s( -11,  -17),
        s( -11,  -15), s(  -4,  -33), s( -11,   10), s(  27,   16), s(  15,   19), s(   4,   15), s(  -4,  -23), s(  11,   -4),
        s( -44,  -11), s( -14,    9), s(  -7,   26), s(  12,    5), s(   6,    5), s(  10,    2), s(   7,    3), s( -30,  -30),
        s( -15,  -22), s( -34,   -8), s(  -2,  -13), s(  11,   10), s( -25,    5), s(   7,  -15), s( -48,   -3), s( -34,  -22),
        s( -93,  -30), s( -34,  -33), s( -12,   -8), s( -20,   -7), s( -27,  -23), s( -28,   -7), s( -36,  -37), s( -31,  -19),
    ],
    [
        s( -41,  -12), s( -16,   -3), s( -18,   13), s(  -7,    3), s( -25,   -5), s( -16,   -3), s(   8,   -6), s(  11,  -27),
        s( -13,  -10), s(  12,  -31), s(  -3,   -4), s(   2,    1), s(  10,   -6), s(  11,   -8), s(  23,  -11), s( -10,  -20),
        s( -16,   -8), s(  -1,   -8), s(  21,    0), s(  -4,   16), s(   3,    6), s(  22,  -12), s(   7,    0), s(   8,  -42),
        s(   4,  -22), s(   9,  -23), s(  -9,    4), s(  14,   -4), s(  24,    4), s(  -7,   12), s( -24,   19), s( -11,  -27),
        s(  -9,    3), s(  -8,    9), s(   4,    5), s(  45,  -12), s(  36,  -12), s(  10,   10), s(  -7,    8), s(  -9,  -13),
        s( -11,   -4), s(  -2,    4), s( -23,   -2), s(  29,    1), s(  -2,    2), s(  27,   -4), s(   8,    5), s( -13,   -1),
        s( -26,    8), s( -20,  -11), s( -25,   24), s( -27,    5), s( -12,   11), s( -29,  -12), s( -25,  -10), s( -50,   -5),
        s( -34,   -2), s( -26,   -8), s( -15,    2), s( -14,   -8), s( -27,    7), s( -27,  -22), s( -24,  -51), s( -20,  -26),
    ],
    [
        s(  -5,    4), s(   7,  -15), s(   5,   -7), s(  23,  -19), s(  11,  -20), s(   9,  -12), s( -26,    7), s( -29,    6),
        s( -12,   -1), s(  -4,   -2), s(   3,    4), s(   8,   -4), s(   6,   -8), s(  -9,  -17), s(  10,  -12), s( -51,    3),
        s( -13,   11), s(  -4,    5), s(  -3,   -4), s(   7,   -3), s(  13,  -10), s(  -6,   -7), s( -12,   26), s( -49,    7),
        s( -10,    4), s(  24,   10), s(   5,   -1), s(   0,    1), s(   0,  -15), s( -26,   -3), s(  18,  -10), s( -23,    9),
        s( -12,   13), s(   3,    8), s(  -2,    5), s(  34,   -3), s(  -1,    2), s(  -1,    2), s(   5,   -3), s(   1,    5),
        s(   8,    8), s(  21,   11), s(  54,  -17), s(  23,   -1), s(  46,   -4), s(  38,    7), s(  28,   -5), s(  11,    4),
        s( -15,   23), s(   1,   19), s(  -3,    8), s(  11,    3), s(  17,    2), s(  19,   14), s(  25,    3), s(   1,    9),
        s(  14,   13), s(  12,   14), s(  21,   15), s(  11,   17), s(   2,   21), s(  21,   21), s(  18,   25), s(   0,   18),
    ],
    [
        s(   9,  -25), s( -10,  -36), s(  11,  -52), s(   7,  -31), s(  18,  -37), s( -27,  -47), s( -46,  -23), s( -16,  -21),
        s( -16,  -27), s(   0,  -19), s(   0,   -3), s(  -1,  -16), s(   9,  -26), s(  31,  -41), s(  -3,  -40), s( -54,  -29),
        s( -38,  -16), s( -14,    7), s(  22,  -20), s( -17,    5), s(   3,    3), s(   0,    9), s(  17,    0), s(  -4,  -14),
        s( -23,   12), s( -14,    8), s(   5,   10), s(   3,   22), s(   9,   27), s(  -1,  -18), s(  -9,   10), s(   6,  -24),
        s( -20,   -2), s( -20,    7), s( -16,   19), s(  13,    1), s(  15,   -2), s(  -6,    2), s(  -4,    7), s(   9,  -13),
        s(   0,    6), s(  17,    4), s( -12,   24), s(   2,    5), s(   7,    4), s(  11,    9), s(  39,   22), s(  21,    9),
        s( -29,   -8), s( -23,    4), s(   9,   11), s(   8,    9), s(  26,    5), s(  20,   -3), s(  15,   17), s(  29,  -12),
        s( -10,  -18), s(  -5,  -17), s(   7,  -13), s(  -1,  -10), s(  14,   -4), s(   6,  -11), s(  16,    2), s(  43,    2),
    ],
    [
        s( -26,  -45), s(   4,  -32), s( -12,  -34), s( -35,  -23), s(  -5,  -39), s( -54,  -18), s(  -5,  -25), s(  -3,  -41),
        s( -20,  -23), s( -18,  -28), s( -19,  -16), s( -25,  -17), s( -26,  -10), s(  -9,  -13), s( -21,   -7), s( -10,  -21),
        s( -59,  -36), s( -19,  -27), s( -25,  -21), s( -54,  -20), s( -43,  -12), s( -37,   -8), s(  -1,  -26), s(  -8,  -32),
        s( -61,  -34), s( -62,   -7), s( -63,  -10), s( -80,    0), s( -69,  -11), s( -55,   -7), s( -39,  -12), s( -47,  -19),
        s( -83,  -25), s( -62,   23), s( -77,    5), s( -81,    7), s( -84,   -1), s( -58,   18), s( -60,   12), s( -62,  -34),
        s( -95,  -19), s( -95,    3), s(-106,    8), s( -94,   12), s( -98,   -6), s( -97,   24), s( -87,   13), s(-103,  -30),
        s(-115,  -19), s(-121,    1), s(-119,   19), s(-117,  -13), s(-111,   17), s(-114,   26), s(-112,   28), s(-123,  -59),
        s(-143,  -34), s(-136,   -8), s(-134,  -29), s(-137,  -37), s(-139,  -23), s(-132,    3), s(-130,   -7), s(-145,  -62),
    ],
];

/// Knight mobility by the number of safe squares attacked (0-8).
pub const MOBILITY_KNIGHT: [Score; 9] = [
    s( -32,  -27), s( -10,  -37), s(   3,    1), s(   9,   16), s(  19,   20), s(  26,   31), s(  33,   24), s(  31,   16),
    s(  63,  -16),
];

/// Bishop mobility (0-13).
pub const MOBILITY_BISHOP: [Score; 14] = [
    s( -29,  -34), s(  -9,  -24), s(   2,  -18), s(  10,    2), s(  18,   17), s(  19,   25), s(  29,   25), s(  27,   37),
    s(  25,   39), s(  36,   40), s(  48,   34), s(  43,   27), s(  38,   47), s(  51,   13),
];

/// Rook mobility (0-14).
pub const MOBILITY_ROOK: [Score; 15] = [
    s( -31,  -15), s(  -3,  -24), s(  -1,   -3), s(   7,   10), s(   8,   24), s(  12,   23), s(  14,   32), s(  12,   41),
    s(  13,   46), s(  16,   47), s(  17,   50), s(  19,   58), s(  18,   57), s(  39,   56), s(  56,   43),
];

/// Queen mobility (0-27).
pub const MOBILITY_QUEEN: [Score; 28] = [
    s(  -2,  -33), s(  12,  -39), s(   1,  -33), s(   2,  -14), s(  11,  -43), s(  17,   -5), s(  14,   25), s(  13,   48),
    s(  15,   46), s(  13,   52), s(  14,   68), s(  16,   67), s(  14,   77), s(  16,   80), s(  21,   88), s(  16,   90),
    s(  20,   82), s(  28,   72), s(  41,   71), s(  47,   56), s(  56,   34), s(  60,   12), s(  43,   15), s(  28,  -37),
    s(  11,  -18), s(   7,  -26), s(  22,   39), s(  16,   23),
];

/// Each pawn with another own pawn ahead of it on its file.
pub const PAWN_DOUBLED: Score = s(  -5,   -4);

/// Each pawn with no own pawn on the files next to it.
pub const PAWN_ISOLATED: Score = s(  -7,  -18);

/// Each pawn that no own pawn can defend and whose stop square an enemy pawn controls.
pub const PAWN_BACKWARD: Score = s(  -3,  -14);

/// Each pawn with an own pawn beside it, by relative rank.
pub const PAWN_PHALANX: [Score; 8] = [
    s(   0,    0), s(   8,   -1), s(   9,   -2), s(  11,   11), s(  28,   43), s(  72,   54), s(  53,   89), s(   0,    0),
];

/// Each own pawn defending a pawn, by the defended pawn's relative rank.
pub const PAWN_SUPPORTED: [Score; 8] = [
    s(   0,    0), s(   0,    0), s(  21,    0), s(  16,   -7), s(  19,    8), s(  31,   51), s(  62,   10), s(   0,    0),
];

/// Passed pawns by relative rank.
pub const PASSED_RANK: [Score; 8] = [
    s(   0,    0), s(  39,   33), s(   6,   46), s( -14,   63), s(  76,   51), s( 100,   42), s( 106,   66), s(   0,    0),
];

/// Passed pawns whose stop square is occupied, by relative rank.
pub const PASSED_BLOCKED: [Score; 8] = [
    s(   0,    0), s( -27,    3), s(   8,   -6), s( -31,   -6), s( -27,  -13), s( -42,   -1), s( -31,  -54), s(   0,    0),
];

/// Passed pawns whose path to promotion is empty and not attacked, by relative rank.
pub const PASSED_FREE_PATH: [Score; 8] = [
    s(   0,    0), s(   0,   19), s( -21,    9), s( -52,   28), s(  -4,   25), s(  35,   53), s(  38,   72), s(   0,    0),
];

/// Times the own king's distance to the stop square, by relative rank.
pub const PASSED_OWN_KING_DISTANCE: [Score; 8] = [
    s(   0,    0), s(  -2,   -4), s(  13,  -15), s(  16,  -19), s(  -3,  -15), s(  -1,  -16), s( -15,   -7), s(   0,    0),
];

/// Times the enemy king's distance to the stop square, by relative rank.
pub const PASSED_THEIR_KING_DISTANCE: [Score; 8] = [
    s(   0,    0), s(  -2,    2), s( -13,   10), s( -13,   19), s(  -4,   26), s( -13,   42), s(  32,   37), s(   0,    0),
];

/// A passed pawn the enemy king cannot catch when the enemy has only pawns.
pub const PASSED_UNSTOPPABLE: Score = s(  -1,  290);

/// Two bishops or more.
pub const BISHOP_PAIR: Score = s(  40,   72);

/// A knight on ranks 4-6 defended by a pawn and beyond the reach of enemy pawns.
pub const KNIGHT_OUTPOST: Score = s(  23,   28);

/// A bishop on such an outpost.
pub const BISHOP_OUTPOST: Score = s(   8,   16);

/// A rook on a file without pawns.
pub const ROOK_OPEN_FILE: Score = s(  41,   -2);

/// A rook on a file with enemy pawns only.
pub const ROOK_HALF_OPEN_FILE: Score = s(  24,  -10);

/// A rook on the seventh rank with the enemy king on the eighth or enemy pawns on the seventh.
pub const ROOK_SEVENTH: Score = s(  40,    2);

/// A queen on a file without pawns.
pub const QUEEN_OPEN_FILE: Score = s( -11,   -2);

/// A queen on a file with enemy pawns only.
pub const QUEEN_HALF_OPEN_FILE: Score = s(   1,    6);

/// Enemy pieces attacked by pawns, by the victim's role.
pub const THREAT_BY_PAWN: [Score; 6] = [
    s(   0,    0), s(  84,   28), s(  72,   64), s(  72,   38), s(  48,   24), s(   0,    0),
];

/// Weak enemy pieces (not pawn-defended) and rooks and queens attacked by knights or bishops, by victim.
pub const THREAT_BY_MINOR: [Score; 6] = [
    s(  -2,   28), s(  21,   18), s(  29,   21), s(  70,   17), s(  51,   39), s(   0,    0),
];

/// Weak enemy pieces and queens attacked by rooks, by victim.
pub const THREAT_BY_ROOK: [Score; 6] = [
    s(  -4,   33), s(  10,   41), s(  19,   35), s(  -6,   11), s(  48,   39), s(   0,    0),
];

/// Enemy pieces (not pawns) attacked and not defended at all.
pub const HANGING: Score = s(  21,    7);

/// Per file at and beside the king: the relative rank of the nearest own pawn ahead.
pub const KING_SHIELD: [Score; 8] = [
    s(   0,    0), s(  21,  -11), s(  23,   -8), s(  -7,    0), s(   6,   -5), s( -17,    1), s(  28,  -10), s(   0,    0),
];

/// Per file at and beside the king: the relative rank of the nearest enemy pawn ahead.
pub const KING_STORM: [Score; 8] = [
    s(   0,    0), s(   4,   14), s( -14,    8), s(  -1,    2), s(   3,   -4), s(  16,   -8), s(  14,   -3), s(   0,    0),
];

/// Per file at and beside the king without pawns.
pub const KING_OPEN_FILE: Score = s( -25,    1);

/// Per file at and beside the king with enemy pawns only.
pub const KING_HALF_OPEN_FILE: Score = s( -19,   17);

/// Bonus for the attacker, indexed by the attack units on the enemy king (see weights.rs).
pub const KING_DANGER: [Score; 64] = [
    s(   0,    0), s(   6,   -6), s( -40,    3), s(   4,   -8), s(  -7,   -3), s(  12,   -7), s(   4,   22), s(   7,   14),
    s(  29,    5), s(  19,   18), s(  22,   27), s(  24,   36), s(  43,   10), s(  55,   -3), s(  75,   -4), s(  96,    1),
    s( 115,  -18), s( 132,   -2), s( 137,    9), s( 155,   31), s( 171,   38), s( 201,   39), s( 195,   30), s( 220,   38),
    s( 245,   34), s( 250,   25), s( 283,   32), s( 308,   35), s( 318,   30), s( 344,   32), s( 363,   30), s( 382,   31),
    s( 409,   32), s( 435,   33), s( 462,   34), s( 490,   35), s( 518,   36), s( 548,   37), s( 577,   38), s( 608,   39),
    s( 640,   40), s( 672,   41), s( 705,   42), s( 739,   43), s( 774,   44), s( 810,   45), s( 846,   46), s( 883,   47),
    s( 900,   48), s( 900,   49), s( 900,   50), s( 900,   51), s( 900,   52), s( 900,   53), s( 900,   54), s( 900,   55),
    s( 900,   56), s( 900,   57), s( 900,   58), s( 900,   59), s( 900,   60), s( 900,   61), s( 900,   62), s( 900,   63),
];

/// For the side to move.
pub const TEMPO: Score = s(  19,    7);

// Index weights: they choose the entry of KING_DANGER, so the linear trace cannot tune
// them; they are kept as they are when the file is rewritten.

/// Attack units per piece (by role) attacking the enemy king zone.
pub const KING_ATTACKER_UNITS: [i32; 6] = [0, 2, 2, 3, 5, 0];

/// Attack units per attack of a king-zone square.
pub const KING_ZONE_ATTACK_UNITS: i32 = 1;

/// Attack units for a safe check by each role.
pub const KING_SAFE_CHECK_UNITS: [i32; 6] = [0, 4, 3, 5, 6, 0];
