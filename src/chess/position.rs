//! The position: where the pieces stand, who moves, castling, en passant, the clocks, and an
//! incrementally kept Zobrist key. Moves are played copy-make: copy the position (it is small
//! and `Copy`) and call `play` on the copy; there is no unmake.

use super::attacks::{
    between, bishop_attacks, king_attacks, knight_attacks, line, pawn_attacks, queen_attacks,
    rook_attacks,
};
use super::bitboard::Bitboard;
use super::castling::{CastlingRights, CastlingSide};
use super::moves::{Move, MoveKind};
use super::types::{Color, Piece, Role, Square};
use super::zobrist;

/// Where the side to move's pieces would check the enemy king from, and which of them
/// would check by moving out of the way (see [`Position::check_squares`]).
#[derive(Clone, Copy, Debug)]
pub struct CheckSquares {
    /// By role, pawn to queen: the squares from which a piece of that role attacks the king.
    by_role: [Bitboard; 5],
    /// Our pieces that alone stand between one of our sliders and the enemy king.
    discoverers: Bitboard,
    king: Square,
}

#[derive(Clone, Copy)]
pub struct Position {
    by_role: [Bitboard; 6],
    by_color: [Bitboard; 2],
    /// The role on each square: the move picker, SEE and `play` ask it for nearly every
    /// move, and a byte read beats scanning six bitboards (64 more bytes to copy a move).
    roles: [Option<Role>; 64],
    key: u64,
    /// Pieces of the side not to move that give check to the side to move.
    checkers: Bitboard,
    /// Pieces of the side to move that alone shield their king from an enemy slider.
    pinned: Bitboard,
    side: Color,
    castling: CastlingRights,
    /// The rook each castling right belongs to, by `CastlingRights::index`.
    castle_rooks: [Square; 4],
    /// Per right, as 8-bit back-rank masks: the squares that must be empty, and the squares
    /// the king crosses (its destination included). Fixed while the right is held, so they
    /// are worked out once at set-up rather than on every move generation.
    castle_masks: [[u8; 2]; 4],
    /// Rook squares of the rights still held, to notice cheaply when a move touches one.
    castle_rook_squares: Bitboard,
    /// Set only when a legal en-passant capture exists, so equal positions hash equal.
    ep_square: Option<Square>,
    halfmove_clock: u16,
    fullmove_number: u16,
    chess960: bool,
}

impl Position {
    /// The standard starting position.
    pub fn startpos() -> Position {
        Position::from_fen(super::fen::STARTPOS_FEN).expect("start position FEN is valid")
    }

    /// An empty board, White to move; for building positions square by square (FEN, edit).
    pub(crate) fn empty() -> Position {
        Position {
            by_role: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            roles: [None; 64],
            key: 0,
            checkers: Bitboard::EMPTY,
            pinned: Bitboard::EMPTY,
            side: Color::White,
            castling: CastlingRights::NONE,
            castle_rooks: [Square::H1, Square::A1, Square::H8, Square::A8],
            castle_masks: [[0; 2]; 4],
            castle_rook_squares: Bitboard::EMPTY,
            ep_square: None,
            halfmove_clock: 0,
            fullmove_number: 1,
            chess960: false,
        }
    }

    // ----- reading the position -----

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline(always)]
    pub fn pieces(&self, color: Color, role: Role) -> Bitboard {
        self.by_color[color.index()] & self.by_role[role.index()]
    }

    #[inline(always)]
    pub fn role_bb(&self, role: Role) -> Bitboard {
        self.by_role[role.index()]
    }

    #[inline(always)]
    pub fn color_bb(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline(always)]
    pub fn role_on(&self, sq: Square) -> Option<Role> {
        self.roles[sq.index()]
    }

    #[inline(always)]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        let role = self.role_on(sq)?;
        let color = if self.by_color[0].contains(sq) {
            Color::White
        } else {
            Color::Black
        };
        Some(Piece::new(color, role))
    }

    #[inline(always)]
    pub fn king(&self, color: Color) -> Square {
        self.pieces(color, Role::King).first()
    }

    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    #[inline(always)]
    pub fn checkers(&self) -> Bitboard {
        self.checkers
    }

    #[inline(always)]
    pub fn in_check(&self) -> bool {
        self.checkers.non_empty()
    }

    #[inline(always)]
    pub fn castling(&self) -> CastlingRights {
        self.castling
    }

    /// The rook square of a castling right (meaningful while the right is held).
    #[inline(always)]
    pub fn castle_rook(&self, color: Color, side: CastlingSide) -> Square {
        self.castle_rooks[CastlingRights::index(color, side)]
    }

    #[inline(always)]
    pub fn ep_square(&self) -> Option<Square> {
        self.ep_square
    }

    #[inline(always)]
    pub fn halfmove_clock(&self) -> u16 {
        self.halfmove_clock
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove_number
    }

    /// Whether castling is written and read the Chess960 way.
    #[inline(always)]
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    pub fn set_chess960(&mut self, on: bool) {
        self.chess960 = on;
    }

    /// Pieces of either colour attacking `sq`, given the occupancy `occupied`.
    #[inline(always)]
    pub fn attackers_to(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let rq = self.by_role[Role::Rook.index()] | self.by_role[Role::Queen.index()];
        let bq = self.by_role[Role::Bishop.index()] | self.by_role[Role::Queen.index()];
        (rook_attacks(sq, occupied) & rq)
            | (bishop_attacks(sq, occupied) & bq)
            | (knight_attacks(sq) & self.by_role[Role::Knight.index()])
            | (king_attacks(sq) & self.by_role[Role::King.index()])
            | (pawn_attacks(Color::White, sq) & self.pieces(Color::Black, Role::Pawn))
            | (pawn_attacks(Color::Black, sq) & self.pieces(Color::White, Role::Pawn))
    }

    /// Whether any piece of `by` attacks `sq` with the occupancy `occupied`. Branch-free:
    /// it is called for every king step in move generation.
    #[inline(always)]
    pub fn is_attacked(&self, sq: Square, by: Color, occupied: Bitboard) -> bool {
        let queens = self.by_role[Role::Queen.index()];
        let attackers = (knight_attacks(sq) & self.by_role[Role::Knight.index()])
            | (pawn_attacks(!by, sq) & self.by_role[Role::Pawn.index()])
            | (king_attacks(sq) & self.by_role[Role::King.index()])
            | (rook_attacks(sq, occupied) & (self.by_role[Role::Rook.index()] | queens))
            | (bishop_attacks(sq, occupied) & (self.by_role[Role::Bishop.index()] | queens));
        (attackers & self.by_color[by.index()]).non_empty()
    }

    /// Squares attacked by `role` of `color` standing on `sq` (pawns: captures only).
    #[inline(always)]
    pub fn attacks_from(role: Role, color: Color, sq: Square, occupied: Bitboard) -> Bitboard {
        match role {
            Role::Pawn => pawn_attacks(color, sq),
            Role::Knight => knight_attacks(sq),
            Role::Bishop => bishop_attacks(sq, occupied),
            Role::Rook => rook_attacks(sq, occupied),
            Role::Queen => queen_attacks(sq, occupied),
            Role::King => king_attacks(sq),
        }
    }

    // ----- changing the position -----

    #[inline(always)]
    fn put(&mut self, piece: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.by_role[piece.role().index()] |= bb;
        self.by_color[piece.color().index()] |= bb;
        self.roles[sq.index()] = Some(piece.role());
        self.key ^= zobrist::piece(piece, sq);
    }

    #[inline(always)]
    fn remove(&mut self, piece: Piece, sq: Square) {
        let bb = Bitboard::from_square(sq);
        self.by_role[piece.role().index()] ^= bb;
        self.by_color[piece.color().index()] ^= bb;
        self.roles[sq.index()] = None;
        self.key ^= zobrist::piece(piece, sq);
    }

    #[inline(always)]
    fn shift(&mut self, piece: Piece, from: Square, to: Square) {
        let bb = Bitboard::from_square(from) | Bitboard::from_square(to);
        self.by_role[piece.role().index()] ^= bb;
        self.by_color[piece.color().index()] ^= bb;
        self.roles[from.index()] = None;
        self.roles[to.index()] = Some(piece.role());
        self.key ^= zobrist::piece(piece, from) ^ zobrist::piece(piece, to);
    }

    /// Puts a piece on an empty square (for FEN and board set-up; no legality checks).
    pub(crate) fn set_up_piece(&mut self, piece: Piece, sq: Square) {
        debug_assert!(self.role_on(sq).is_none());
        self.put(piece, sq);
    }

    pub(crate) fn set_up_state(
        &mut self,
        side: Color,
        castling: CastlingRights,
        castle_rooks: [Square; 4],
        ep_candidate: Option<Square>,
        halfmove_clock: u16,
        fullmove_number: u16,
    ) {
        self.side = side;
        self.castling = castling;
        self.castle_rooks = castle_rooks;
        for color in Color::ALL {
            for side in CastlingSide::BOTH {
                if castling.has(color, side) {
                    let (empty, path) = self.castling_path(color, side);
                    let rank = color.back_rank().index() * 8;
                    self.castle_masks[CastlingRights::index(color, side)] =
                        [(empty.0 >> rank) as u8, (path.0 >> rank) as u8];
                }
            }
        }
        self.refresh_castle_rook_squares();
        self.halfmove_clock = halfmove_clock;
        self.fullmove_number = fullmove_number.max(1);
        self.ep_square = None;
        self.refresh_checkers();
        if let Some(ep) = ep_candidate {
            // The double-pushed pawn passed over `ep` from the square behind it: both empty.
            let origin = if side == Color::White {
                ep.offset(8)
            } else {
                ep.offset(-8)
            };
            if self.role_on(ep).is_none()
                && self.role_on(origin).is_none()
                && self.ep_capture_exists(ep)
            {
                self.ep_square = Some(ep);
            }
        }
        self.key = self.compute_key();
    }

    /// Checkers and pins of the side to move, from one look along the lines out of its king:
    /// an enemy slider with nothing between gives check, with one of our pieces between pins it.
    #[inline(always)]
    fn refresh_checkers(&mut self) {
        let us = self.side;
        let king = self.king(us);
        let ours = self.color_bb(us);
        let theirs = self.color_bb(!us);
        let occupied = ours | theirs;
        let queens = self.by_role[Role::Queen.index()];
        let snipers = ((rook_attacks(king, theirs) & (self.by_role[Role::Rook.index()] | queens))
            | (bishop_attacks(king, theirs) & (self.by_role[Role::Bishop.index()] | queens)))
            & theirs;
        let checkers = ((knight_attacks(king) & self.by_role[Role::Knight.index()])
            | (pawn_attacks(us, king) & self.by_role[Role::Pawn.index()]))
            & theirs;
        let (open, lone_blockers) = lines_to(king, snipers, occupied);
        self.checkers = checkers | open;
        self.pinned = lone_blockers & ours;
    }

    /// Our pieces pinned to our king: those that alone stand between it and an enemy slider.
    #[inline(always)]
    pub fn pinned(&self) -> Bitboard {
        self.pinned
    }

    /// Plays a legal move on this position. The move must come from this position's legal
    /// move list (or pass `is_legal`); anything else corrupts the position.
    #[inline]
    pub fn play(&mut self, mv: Move) {
        let us = self.side;
        let them = !us;
        let from = mv.from();
        let to = mv.to();
        // SAFETY-free fast path: a legal move always starts on one of our pieces.
        let role = match self.role_on(from) {
            Some(r) => r,
            None => {
                debug_assert!(false, "play: no piece on {from} for {mv:?}");
                return;
            }
        };
        let moving = Piece::new(us, role);

        self.key ^= zobrist::side();
        if let Some(ep) = self.ep_square.take() {
            self.key ^= zobrist::en_passant(ep.file());
        }
        self.halfmove_clock += 1;
        let old_rights = self.castling;

        match mv.kind() {
            MoveKind::Castle => {
                let side = castling_side(from, to);
                let rook = Piece::new(us, Role::Rook);
                self.remove(moving, from);
                self.remove(rook, to);
                self.put(moving, side.king_to(us));
                self.put(rook, side.rook_to(us));
                self.castling.remove_color(us);
            }
            kind => {
                if let Some(captured) = self.role_on(to) {
                    self.remove(Piece::new(them, captured), to);
                    self.halfmove_clock = 0;
                }
                match kind {
                    MoveKind::Promotion(promoted) => {
                        self.remove(moving, from);
                        self.put(Piece::new(us, promoted), to);
                    }
                    _ => self.shift(moving, from, to),
                }
                if role == Role::Pawn {
                    self.halfmove_clock = 0;
                    let forward: i8 = if us == Color::White { 8 } else { -8 };
                    if kind == MoveKind::EnPassant {
                        self.remove(Piece::new(them, Role::Pawn), to.offset(-forward));
                    } else if to.index() ^ from.index() == 16 {
                        // Double push: note the square only if the opponent can take there.
                        let ep = from.offset(forward);
                        if (pawn_attacks(us, ep) & self.pieces(them, Role::Pawn)).non_empty() {
                            self.ep_square = Some(ep);
                        }
                    }
                } else if role == Role::King {
                    self.castling.remove_color(us);
                }
                let touched = Bitboard::from_square(from) | Bitboard::from_square(to);
                if (touched & self.castle_rook_squares).non_empty() {
                    self.castling = self.rights_after_touching(self.castling, from, to);
                }
            }
        }

        if self.castling != old_rights {
            self.key ^=
                zobrist::castling(old_rights.bits()) ^ zobrist::castling(self.castling.bits());
            self.refresh_castle_rook_squares();
        }
        if us == Color::Black {
            self.fullmove_number += 1;
        }
        self.side = them;
        self.refresh_checkers();
        if let Some(ep) = self.ep_square {
            // Keep it only if a capture there is legal (a pin or check may forbid it).
            if self.ep_capture_exists(ep) {
                self.key ^= zobrist::en_passant(ep.file());
            } else {
                self.ep_square = None;
            }
        }
        // Debug builds recompute everything redundant after every move.
        #[cfg(debug_assertions)]
        if let Err(e) = self.validate() {
            panic!("position corrupt after {mv:?}: {e}");
        }
    }

    /// Rights left after a move from or to these squares (a rook moved or was taken).
    #[inline(always)]
    fn rights_after_touching(
        &self,
        mut rights: CastlingRights,
        a: Square,
        b: Square,
    ) -> CastlingRights {
        for color in Color::ALL {
            for side in CastlingSide::BOTH {
                let rook = self.castle_rook(color, side);
                if rook == a || rook == b {
                    rights.remove(color, side);
                }
            }
        }
        rights
    }

    fn refresh_castle_rook_squares(&mut self) {
        let mut squares = Bitboard::EMPTY;
        for color in Color::ALL {
            for side in CastlingSide::BOTH {
                if self.castling.has(color, side) {
                    squares = squares.with(self.castle_rook(color, side));
                }
            }
        }
        self.castle_rook_squares = squares;
    }

    /// The squares that must be empty for a castling, and the squares the king crosses
    /// (destination included), as bitboards; the right must be held.
    #[inline(always)]
    pub(crate) fn castle_masks(&self, color: Color, side: CastlingSide) -> (Bitboard, Bitboard) {
        let [empty, path] = self.castle_masks[CastlingRights::index(color, side)];
        let rank = color.back_rank().index() * 8;
        (
            Bitboard((empty as u64) << rank),
            Bitboard((path as u64) << rank),
        )
    }

    /// Passes the move to the opponent (for null-move pruning). Not legal when in check.
    pub fn play_null(&mut self) {
        debug_assert!(!self.in_check());
        self.key ^= zobrist::side();
        if let Some(ep) = self.ep_square.take() {
            self.key ^= zobrist::en_passant(ep.file());
        }
        self.halfmove_clock += 1;
        if self.side == Color::Black {
            self.fullmove_number += 1;
        }
        self.side = !self.side;
        self.refresh_checkers();
    }

    /// The key of the position after the legal move `mv`, without making it: the same as
    /// `self.after(mv).key()` except after a double push that gives the opponent an en
    /// passant capture (that square's key is left out). For prefetching the hash table's
    /// entry before the move is made, so that the memory is on its way during `play`.
    #[inline(always)]
    pub fn key_after(&self, mv: Move) -> u64 {
        let us = self.side;
        let (from, to) = (mv.from(), mv.to());
        let Some(role) = self.role_on(from) else {
            return self.key;
        };
        let moving = Piece::new(us, role);
        let mut key = self.key ^ zobrist::side();
        if let Some(ep) = self.ep_square {
            key ^= zobrist::en_passant(ep.file());
        }
        let mut rights = self.castling;
        match mv.kind() {
            MoveKind::Castle => {
                let side = castling_side(from, to);
                let rook = Piece::new(us, Role::Rook);
                key ^= zobrist::piece(moving, from) ^ zobrist::piece(moving, side.king_to(us));
                key ^= zobrist::piece(rook, to) ^ zobrist::piece(rook, side.rook_to(us));
                rights.remove_color(us);
            }
            kind => {
                if let Some(captured) = self.role_on(to) {
                    key ^= zobrist::piece(Piece::new(!us, captured), to);
                }
                let placed = match kind {
                    MoveKind::Promotion(promoted) => Piece::new(us, promoted),
                    _ => moving,
                };
                key ^= zobrist::piece(moving, from) ^ zobrist::piece(placed, to);
                if kind == MoveKind::EnPassant {
                    let behind = to.offset(if us == Color::White { -8 } else { 8 });
                    key ^= zobrist::piece(Piece::new(!us, Role::Pawn), behind);
                }
                if role == Role::King {
                    rights.remove_color(us);
                }
                let touched = Bitboard::from_square(from) | Bitboard::from_square(to);
                if (touched & self.castle_rook_squares).non_empty() {
                    rights = self.rights_after_touching(rights, from, to);
                }
            }
        }
        if rights != self.castling {
            key ^= zobrist::castling(self.castling.bits()) ^ zobrist::castling(rights.bits());
        }
        key
    }

    /// The position after `mv` (copy-make).
    #[inline(always)]
    pub fn after(&self, mv: Move) -> Position {
        let mut next = *self;
        next.play(mv);
        next
    }

    /// Whether the side to move could legally capture en passant onto `ep`.
    pub(crate) fn ep_capture_exists(&self, ep: Square) -> bool {
        let us = self.side;
        let capturers = pawn_attacks(!us, ep) & self.pieces(us, Role::Pawn);
        capturers
            .into_iter()
            .any(|from| self.ep_capture_is_legal(from, ep))
    }

    /// Whether our pawn on `from` taking en passant onto `ep` leaves our king safe. Done by
    /// trying it on the bitboards: en passant removes two pieces from a line at once, which
    /// ordinary pin logic does not see.
    #[inline]
    pub(crate) fn ep_capture_is_legal(&self, from: Square, ep: Square) -> bool {
        let us = self.side;
        let them = !us;
        let victim = if us == Color::White {
            ep.offset(-8)
        } else {
            ep.offset(8)
        };
        if !self.pieces(them, Role::Pawn).contains(victim) {
            return false;
        }
        let occupied =
            (self.occupied() ^ Bitboard::from_square(from) ^ Bitboard::from_square(victim))
                | Bitboard::from_square(ep);
        let king = self.king(us);
        let attackers = self.attackers_to(king, occupied)
            & self.color_bb(them)
            & !Bitboard::from_square(victim);
        attackers.is_empty()
    }

    /// The Zobrist key computed from scratch (the incremental one must always equal it).
    pub fn compute_key(&self) -> u64 {
        let mut key = 0;
        for sq in self.occupied() {
            key ^= zobrist::piece(self.piece_on(sq).unwrap(), sq);
        }
        if self.side == Color::Black {
            key ^= zobrist::side();
        }
        key ^= zobrist::castling(self.castling.bits());
        if let Some(ep) = self.ep_square {
            key ^= zobrist::en_passant(ep.file());
        }
        key
    }

    /// Checks the redundant parts of the position against each other: bitboards against the
    /// mailbox, the key against a recomputation, the checkers. For tests and debug builds.
    pub fn validate(&self) -> Result<(), String> {
        let mut all = Bitboard::EMPTY;
        for role in Role::ALL {
            let bb = self.by_role[role.index()];
            if (all & bb).non_empty() {
                return Err(format!("{} bitboard overlaps another", role.name()));
            }
            all |= bb;
        }
        if all != self.occupied() || (self.by_color[0] & self.by_color[1]).non_empty() {
            return Err("colour and role bitboards disagree".into());
        }
        for sq in Square::all() {
            let from_bb = Role::ALL
                .into_iter()
                .find(|r| self.by_role[r.index()].contains(sq));
            if from_bb != self.role_on(sq) {
                return Err(format!("role lookup disagrees with bitboards on {sq}"));
            }
        }
        for color in Color::ALL {
            if self.pieces(color, Role::King).count() != 1 {
                return Err(format!("{} has no single king", color.name()));
            }
        }
        if self.key != self.compute_key() {
            return Err("incremental Zobrist key differs from a recomputation".into());
        }
        let us = self.side;
        let checkers = self.attackers_to(self.king(us), self.occupied()) & self.color_bb(!us);
        if checkers != self.checkers {
            return Err("checkers are stale".into());
        }
        let mut fresh = *self;
        fresh.refresh_checkers();
        if fresh.pinned != self.pinned {
            return Err("pinned pieces are stale".into());
        }
        Ok(())
    }

    /// Whether the legal move `mv` checks the opponent, worked out on the bitboards without
    /// playing it (the search decides pruning before it makes a move).
    pub fn gives_check(&self, mv: Move) -> bool {
        let us = self.side;
        let them = !us;
        let king = self.king(them);
        let (from, to) = (mv.from(), mv.to());
        let mut occupied = self.occupied();
        let ours = self.color_bb(us);
        // Our pieces by role after the move, as far as a check on `king` can tell.
        let mut after = [
            self.by_role[0] & ours,
            self.by_role[1] & ours,
            self.by_role[2] & ours,
            self.by_role[3] & ours,
            self.by_role[4] & ours,
        ];
        match mv.kind() {
            MoveKind::Castle => {
                let side = castling_side(from, to);
                let rook_to = side.rook_to(us);
                occupied = occupied.without(from).without(to).with(side.king_to(us));
                occupied = occupied.with(rook_to);
                after[Role::Rook.index()] = after[Role::Rook.index()].without(to).with(rook_to);
            }
            kind => {
                let Some(role) = self.role_on(from) else {
                    return false;
                };
                occupied = occupied.without(from).with(to);
                if kind == MoveKind::EnPassant {
                    let victim = if us == Color::White {
                        to.offset(-8)
                    } else {
                        to.offset(8)
                    };
                    occupied = occupied.without(victim);
                }
                if role != Role::King {
                    let placed = mv.promotion_role().unwrap_or(role);
                    after[role.index()] = after[role.index()].without(from);
                    after[placed.index()] = after[placed.index()].with(to);
                }
            }
        }
        let queens = after[Role::Queen.index()];
        ((pawn_attacks(them, king) & after[Role::Pawn.index()])
            | (knight_attacks(king) & after[Role::Knight.index()])
            | (bishop_attacks(king, occupied) & (after[Role::Bishop.index()] | queens))
            | (rook_attacks(king, occupied) & (after[Role::Rook.index()] | queens)))
            .non_empty()
    }

    /// What [`Position::gives_check_with`] needs to know about the enemy king, worked out
    /// once for all the moves of a position.
    #[inline]
    pub fn check_squares(&self) -> CheckSquares {
        let us = self.side;
        let king = self.king(!us);
        let ours = self.color_bb(us);
        let occupied = self.occupied();
        let queens = self.by_role[Role::Queen.index()];
        let diagonal = bishop_attacks(king, occupied);
        let straight = rook_attacks(king, occupied);
        let snipers = ((rook_attacks(king, Bitboard::EMPTY)
            & (self.by_role[Role::Rook.index()] | queens))
            | (bishop_attacks(king, Bitboard::EMPTY)
                & (self.by_role[Role::Bishop.index()] | queens)))
            & ours;
        // No line of ours is open: the side that just moved is never in check.
        let (_, lone_blockers) = lines_to(king, snipers, occupied);
        let discoverers = lone_blockers & ours;
        CheckSquares {
            by_role: [
                pawn_attacks(!us, king),
                knight_attacks(king),
                diagonal,
                straight,
                diagonal | straight,
            ],
            discoverers,
            king,
        }
    }

    /// `gives_check` for a move of this position, faster with the position's
    /// [`CheckSquares`]: a plain move checks if it lands where its piece attacks the king, or
    /// leaves a line on which it alone shielded the king from one of our sliders. Castling,
    /// en passant and promotions change more than one line and take the general path.
    #[inline(always)]
    pub fn gives_check_with(&self, squares: &CheckSquares, mv: Move) -> bool {
        if mv.kind() != MoveKind::Normal {
            return self.gives_check(mv);
        }
        let (from, to) = (mv.from(), mv.to());
        if squares.discoverers.contains(from) && !line(from, squares.king).contains(to) {
            return true;
        }
        match self.role_on(from) {
            Some(Role::King) | None => false,
            Some(role) => squares.by_role[role.index()].contains(to),
        }
    }

    /// Whether the side to move has only its king and pawns (null-move pruning is unsafe).
    pub fn only_king_and_pawns(&self, color: Color) -> bool {
        (self.color_bb(color)
            & !self.by_role[Role::Pawn.index()]
            & !self.by_role[Role::King.index()])
        .is_empty()
    }

    /// Neither side can ever mate: K v K, K+minor v K, K+B v K+B with bishops on one colour.
    pub fn is_insufficient_material(&self) -> bool {
        let heavy = self.by_role[Role::Pawn.index()]
            | self.by_role[Role::Rook.index()]
            | self.by_role[Role::Queen.index()];
        if heavy.non_empty() {
            return false;
        }
        let minors = self.by_role[Role::Knight.index()] | self.by_role[Role::Bishop.index()];
        if minors.count() <= 1 {
            return true;
        }
        let bishops = self.by_role[Role::Bishop.index()];
        if self.by_role[Role::Knight.index()].is_empty() {
            return (bishops & Bitboard::DARK_SQUARES).is_empty()
                || (bishops & !Bitboard::DARK_SQUARES).is_empty();
        }
        false
    }

    /// Squares between king and its castling destination, plus rook path: must be empty.
    fn castling_path(&self, color: Color, side: CastlingSide) -> (Bitboard, Bitboard) {
        let king = self.king(color);
        let rook = self.castle_rook(color, side);
        let king_to = side.king_to(color);
        let rook_to = side.rook_to(color);
        let king_path = between(king, king_to) | Bitboard::from_square(king_to);
        let must_be_empty = (king_path | between(rook, rook_to) | Bitboard::from_square(rook_to))
            & !Bitboard::from_square(king)
            & !Bitboard::from_square(rook);
        (must_be_empty, king_path)
    }
}

/// Equal when the same pieces stand on the same squares with the same side to move, rights,
/// castling rooks (of rights held), en-passant square and clocks. Whether castling is written
/// the Chess960 way is notation, not position, and is not compared.
impl PartialEq for Position {
    fn eq(&self, other: &Position) -> bool {
        let rooks_match = Color::ALL.into_iter().all(|color| {
            CastlingSide::BOTH.into_iter().all(|side| {
                !self.castling.has(color, side)
                    || self.castle_rook(color, side) == other.castle_rook(color, side)
            })
        });
        self.by_role == other.by_role
            && self.by_color == other.by_color
            && self.side == other.side
            && self.castling == other.castling
            && rooks_match
            && self.ep_square == other.ep_square
            && self.halfmove_clock == other.halfmove_clock
            && self.fullmove_number == other.fullmove_number
    }
}

impl Eq for Position {}

impl Default for Position {
    fn default() -> Self {
        Position::startpos()
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", self.to_fen())
    }
}

/// The side a castling move (king takes rook) castles to: towards the rook.
#[inline(always)]
fn castling_side(king: Square, rook: Square) -> CastlingSide {
    if rook > king {
        CastlingSide::King
    } else {
        CastlingSide::Queen
    }
}

/// The lines from `king` to each of `snipers` (sliders on a line with it): the snipers
/// whose line is open (they check), and the pieces that alone block a line (pinned pieces,
/// or pieces whose move uncovers a check, depending on whose they are).
#[inline(always)]
fn lines_to(king: Square, snipers: Bitboard, occupied: Bitboard) -> (Bitboard, Bitboard) {
    let mut open = Bitboard::EMPTY;
    let mut lone_blockers = Bitboard::EMPTY;
    for sniper in snipers {
        let blockers = between(king, sniper) & occupied;
        if blockers.is_empty() {
            open |= Bitboard::from_square(sniper);
        } else if !blockers.has_several() {
            lone_blockers |= blockers;
        }
    }
    (open, lone_blockers)
}
