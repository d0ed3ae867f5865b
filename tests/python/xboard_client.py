#!/usr/bin/env python3
"""An independent xboard client (python-chess) against Kestrel.

Plays complete games (standard and Chess960, fixed time and with clocks that run down),
runs analyses, and fails on any illegal move, protocol error, loss on time, result claim
that is not what the board says, or warning python-chess logs about the engine's output.
Usage: xboard_client.py PATH_TO_KESTREL
"""

import logging
import sys
import time

import chess
import chess.engine

OPENINGS = [
    chess.STARTING_FEN,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/2N5/PPP2PPP/R1BQKB1R b KQkq - 2 5",
]
CHESS960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
# A Chess960 position whose only legal move is castling with the king on g1 and the rook on
# h1 (the king stays, the rook goes to f1): every other king square is attacked and the
# rook and pawn are blocked. The engine must write the castling as the protocol wants it.
CASTLE_ONLY_960 = "2k5/8/b7/8/8/7p/r6P/6KR w H - 0 1"


# Two warnings python-chess gives for behaviour the xboard spec asks of us: it refuses the
# `sigterm=0` feature (which XBoard needs), and on cancelling an analysis it sends `.` but
# does not read the `stat01:` answer the spec prescribes.
EXPECTED_WARNINGS = ("Rejecting feature sigterm=0", "Unexpected engine output: 'stat01: ")


class FailOnWarnings(logging.Handler):
    """Collects every other warning or error python-chess logs (unexpected output etc.)."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        text = self.format(record)
        if not any(w in text for w in EXPECTED_WARNINGS):
            self.records.append(text)


class EngineOutput(logging.Handler):
    """Every line each engine writes, from python-chess's debug log, per engine."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.lines = {}

    def emit(self, record):
        text = record.getMessage()
        if ": >> " in text:
            who, line = text.split(": >> ", 1)
            self.lines.setdefault(who, []).append(line)

    def take(self, engine):
        """The lines `engine` wrote since the last call."""
        return self.lines.pop(str(engine.protocol), [])


RESULTS = ("1-0", "0-1", "1/2-1/2")


def expected_claim(board):
    """The result the engine that just moved must claim, or None: the rules' own endings
    (mate, stalemate, dead material, fivefold, 75 moves), a threefold repetition or 50 moves
    that have happened.  A repetition that only the next move could make is nobody's claim."""
    outcome = board.outcome(claim_draw=False)
    if outcome is not None:
        return outcome.result()
    if board.is_repetition(3) or board.halfmove_clock >= 100:
        return "1/2-1/2"
    return None


def play_game(white, black, board, output, move_time=None, clock=None, max_plies=100):
    """Plays until the board says the game is over (claims included) or `max_plies`.
    With `clock` = (base, increment) in seconds, each side's clock runs down by the time
    its move took as seen from here (python-chess's own overhead included, as a GUI sees
    it) plus the increment, and a move that takes longer than the clock is a loss."""
    engines = {chess.WHITE: white, chess.BLACK: black}
    clocks = None
    if clock is not None:
        clocks = {chess.WHITE: clock[0], chess.BLACK: clock[0]}
    game = object()
    plies = 0
    for e in engines.values():
        output.take(e)
    while not board.is_game_over(claim_draw=True) and plies < max_plies:
        side = board.turn
        engine = engines[side]
        if clocks is None:
            limit = chess.engine.Limit(time=move_time)
        else:
            limit = chess.engine.Limit(
                white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                white_inc=clock[1], black_inc=clock[1])
        start = time.monotonic()
        result = engine.play(board, limit, game=game)
        used = time.monotonic() - start
        if clocks is not None:
            if used >= clocks[side]:
                raise AssertionError("lost on time: %.3f s used with %.3f s left in %s"
                                     % (used, clocks[side], board.fen()))
            clocks[side] += clock[1] - used
        if result.move is None or result.resigned:
            raise AssertionError("no move (resigned: %s) in %s" % (result.resigned, board.fen()))
        if result.move not in board.legal_moves:
            raise AssertionError("illegal move %s in %s" % (result.move, board.fen()))
        board.push(result.move)
        plies += 1
        words = [line.split() for line in output.take(engine)]
        claims = [w[0] for w in words if w and w[0] in RESULTS]
        want = expected_claim(board)
        if claims != ([want] if want else []):
            raise AssertionError("claims %s after %s, the board says %s (%s)"
                                 % (claims, result.move, want, board.fen()))
    return plies, clocks


def main():
    path = sys.argv[1]
    handler = FailOnWarnings()
    output = EngineOutput()
    logging.getLogger("chess.engine").addHandler(handler)
    logging.getLogger("chess.engine").addHandler(output)
    logging.getLogger("chess.engine").setLevel(logging.DEBUG)

    a = chess.engine.SimpleEngine.popen_xboard(path)
    b = chess.engine.SimpleEngine.popen_xboard(path)
    assert a.id.get("name", "").startswith("Kestrel"), a.id
    games = 0
    try:
        for fen in OPENINGS:
            board = chess.Board(fen)
            plies, _ = play_game(a, b, board, output, move_time=0.02)
            games += 1
            print("game %d: %d plies, %s" % (games, plies, board.result(claim_draw=True)))
        # With clocks and increments that run down, as a match would: 2 s + 0.03 s.
        board = chess.Board()
        plies, clocks = play_game(b, a, board, output, clock=(2.0, 0.03), max_plies=60)
        games += 1
        print("game %d (clock): %d plies, %s, clocks left %.2f / %.2f s"
              % (games, plies, board.result(claim_draw=True), clocks[chess.WHITE], clocks[chess.BLACK]))
        # The clocks did run down: 30 moves a side at 0.03 s increment cannot all be free.
        assert plies < 20 or min(clocks.values()) < 2.0, clocks
        # Queen against king: a game the board ends (mate, or a draw if it goes wrong), so
        # the claim after the last move is checked too.
        board = chess.Board("7k/8/8/8/8/8/8/K5Q1 w - - 0 1")
        plies, _ = play_game(a, b, board, output, move_time=0.02, max_plies=120)
        games += 1
        print("game %d (KQK): %d plies, %s" % (games, plies, board.result(claim_draw=True)))
        assert board.is_game_over(claim_draw=True), board.fen()
        # Chess960.
        board = chess.Board(CHESS960, chess960=True)
        plies, _ = play_game(a, b, board, output, move_time=0.02, max_plies=80)
        games += 1
        print("game %d (960): %d plies, %s" % (games, plies, board.result(claim_draw=True)))
        # Chess960 where the engine must castle (its only legal move).
        board = chess.Board(CASTLE_ONLY_960, chess960=True)
        plies, _ = play_game(a, b, board, output, move_time=0.02, max_plies=20)
        games += 1
        start = chess.Board(CASTLE_ONLY_960, chess960=True)
        assert start.is_castling(board.move_stack[0]), board.move_stack[:1]
        print("game %d (960, castles first): %d plies, %s" % (games, plies, board.result(claim_draw=True)))

        # Analyses: depth-limited and streamed, with legal PVs and scores.
        for fen in OPENINGS + ["6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"]:
            board = chess.Board(fen)
            info = a.analyse(board, chess.engine.Limit(depth=6))
            pv = info.get("pv")
            assert pv, "no pv in %r" % info
            test = board.copy()
            for move in pv:
                assert move in test.legal_moves, "illegal pv move %s in %s" % (move, test.fen())
                test.push(move)
            assert "score" in info, info
        board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
        info = a.analyse(board, chess.engine.Limit(depth=4))
        assert info["score"].relative.mate() == 1, info
        assert info["pv"][0] == chess.Move.from_uci("d1d8"), info
        # Streamed analysis: depth after depth, to the limit (a depth limit rather than a
        # time one, so that a busy machine cannot make it fail).
        with a.analysis(chess.Board(), chess.engine.Limit(depth=5)) as analysis:
            depths = [i.get("depth") for i in analysis if "depth" in i]
        assert depths == sorted(depths) and set(range(1, 6)) <= set(depths), depths
        # Limited strength, set through the options python-chess reads from the features
        # (one-word names: it reads a name up to its first space). At the lowest setting a
        # move is searched with a couple of thousand nodes, where half a second at full
        # strength searches hundreds of thousands.
        assert a.options["LimitStrength"].type == "check", a.options["LimitStrength"]
        assert a.options["Elo"].type == "spin", a.options["Elo"]
        a.configure({"LimitStrength": True, "Elo": a.options["Elo"].min})
        board = chess.Board(OPENINGS[0])
        result = a.play(board, chess.engine.Limit(time=0.5), info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves, result
        nodes = result.info.get("nodes", 0)
        assert 0 < nodes < 20000, "limited at %d: %r" % (a.options["Elo"].min, result.info)
        print("limited: %d nodes at Elo %d" % (nodes, a.options["Elo"].min))
        a.configure({"LimitStrength": False})
    finally:
        a.quit()
        b.quit()
    if handler.records:
        print("python-chess complained:")
        for r in handler.records:
            print("  " + r)
        return 1
    print("ok: %d games, analyses fine, no warnings" % games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
