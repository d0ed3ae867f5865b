#!/usr/bin/env python3
"""An independent UCI client (python-chess) against Kestrel.

Plays games of Kestrel against itself with clocks that run down (one side pondering, so
ponder hits and misses happen), a Chess960 game, and depth-limited analyses; fails on any
illegal move, loss on time, bad PV, or warning python-chess logs about the engine's output.
Usage: uci_client.py PATH_TO_KESTREL
"""

import logging
import sys
import time

import chess
import chess.engine

CHESS960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
# A Chess960 position whose only legal move is castling with the king on g1 and the rook on
# h1 (the king stays, the rook goes to f1): every other king square is attacked and the
# rook and pawn are blocked. The engine must write the castling as the protocol wants it.
CASTLE_ONLY_960 = "2k5/8/b7/8/8/7p/r6P/6KR w H - 0 1"


class FailOnWarnings(logging.Handler):
    """Collects every warning or error python-chess logs (unexpected output etc.)."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(self.format(record))


def play_game(white, black, board, clock, max_plies, ponder_side=None):
    """Plays with clocks (base, increment) in seconds that run down by the time each move
    took as seen from here; a move that takes longer than the clock is a loss."""
    engines = {chess.WHITE: white, chess.BLACK: black}
    clocks = {chess.WHITE: clock[0], chess.BLACK: clock[0]}
    game = object()
    plies = 0
    while not board.is_game_over(claim_draw=True) and plies < max_plies:
        side = board.turn
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
            white_inc=clock[1], black_inc=clock[1])
        start = time.monotonic()
        result = engines[side].play(board, limit, game=game, ponder=(side == ponder_side))
        used = time.monotonic() - start
        if used >= clocks[side]:
            raise AssertionError("lost on time: %.3f s used with %.3f s left in %s"
                                 % (used, clocks[side], board.fen()))
        clocks[side] += clock[1] - used
        if result.move is None or result.move not in board.legal_moves:
            raise AssertionError("bad move %s in %s" % (result.move, board.fen()))
        if result.ponder is not None:
            after = board.copy()
            after.push(result.move)
            if result.ponder not in after.legal_moves:
                raise AssertionError("illegal ponder move %s in %s" % (result.ponder, after.fen()))
        board.push(result.move)
        plies += 1
    return plies, clocks


def check_pv(board, info):
    pv = info.get("pv")
    assert pv, "no pv in %r" % info
    test = board.copy()
    for move in pv:
        assert move in test.legal_moves, "illegal pv move %s in %s" % (move, test.fen())
        test.push(move)
    assert "score" in info, info


def main():
    path = sys.argv[1]
    handler = FailOnWarnings()
    logging.getLogger("chess.engine").addHandler(handler)

    a = chess.engine.SimpleEngine.popen_uci(path)
    b = chess.engine.SimpleEngine.popen_uci(path)
    games = 0
    try:
        assert a.id.get("name", "").startswith("Kestrel"), a.id
        for name in ("Hash", "Threads", "Ponder", "MoveOverhead", "MultiPV", "UCI_Chess960",
                     "Clear Hash"):
            assert name in a.options, (name, list(a.options))
        a.configure({"Hash": 16, "MoveOverhead": 30})
        b.configure({"Hash": 16})
        for white, black, ponder_side in ((a, b, chess.WHITE), (b, a, chess.BLACK)):
            board = chess.Board()
            plies, clocks = play_game(white, black, board, (2.0, 0.03), 50, ponder_side)
            games += 1
            print("game %d: %d plies, %s, clocks left %.2f / %.2f s"
                  % (games, plies, board.result(claim_draw=True),
                     clocks[chess.WHITE], clocks[chess.BLACK]))
            assert plies < 20 or min(clocks.values()) < 2.0, clocks
        board = chess.Board(CHESS960, chess960=True)
        plies, _ = play_game(a, b, board, (2.0, 0.03), 40)
        games += 1
        print("game %d (960): %d plies, %s" % (games, plies, board.result(claim_draw=True)))
        # Chess960 where the engine must castle (its only legal move).
        board = chess.Board(CASTLE_ONLY_960, chess960=True)
        plies, _ = play_game(a, b, board, (3.0, 0.05), 20)
        games += 1
        start = chess.Board(CASTLE_ONLY_960, chess960=True)
        assert start.is_castling(board.move_stack[0]), board.move_stack[:1]
        print("game %d (960, castles first): %d plies, %s" % (games, plies, board.result(claim_draw=True)))

        for fen in (chess.STARTING_FEN,
                    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"):
            board = chess.Board(fen)
            info = a.analyse(board, chess.engine.Limit(depth=6))
            check_pv(board, info)
            assert info.get("depth") == 6, info
        board = chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
        info = a.analyse(board, chess.engine.Limit(depth=4))
        check_pv(board, info)
        assert info["score"].relative.mate() == 1, info
        assert info["pv"][0] == chess.Move.from_uci("d1d8"), info
        # MultiPV: python-chess sets the option itself and returns the lines best first.
        board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
        infos = a.analyse(board, chess.engine.Limit(depth=5), multipv=3)
        assert [i.get("multipv") for i in infos] == [1, 2, 3], infos
        for info in infos:
            check_pv(board, info)
        assert len({i["pv"][0] for i in infos}) == 3, infos
        assert infos[0]["pv"][0] == chess.Move.from_uci("h5f7"), infos
        scores = [i["score"].relative for i in infos]
        assert scores == sorted(scores, reverse=True), scores
        with a.analysis(chess.Board(), chess.engine.Limit(depth=5)) as analysis:
            depths = [i.get("depth") for i in analysis if "depth" in i]
        assert set(range(1, 6)) <= set(depths), depths
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
