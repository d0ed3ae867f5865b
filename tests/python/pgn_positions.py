"""The training positions of a cutechess-cli PGN, read independently with python-chess.

Usage: pgn_positions.py GAMES.pgn [PLAYER]

Prints one line per position `kestrel convert GAMES.pgn OUT --format text [--player PLAYER]`
should write, in the same order: `FEN | score | result`, the score in centipawns and the
result (1.0, 0.5, 0.0), both from White's view. A position is one a chosen player (every
player, or those whose name contains PLAYER, any case) moved from with a centipawn score
in the comment after the move (`+0.35/12 0.1s`; not `book`, not a mate `+M5/...`), not in
check, the move no capture or promotion; a position already printed is not printed again.
Games without a result or with moves that do not read are skipped. The last line is
`# games G positions P`.
"""

import sys

import chess
import chess.pgn

RESULTS = {"1-0": "1.0", "1/2-1/2": "0.5", "0-1": "0.0"}


def centipawns(comment):
    """The score at the start of a comment, or None (book, mate, no score)."""
    words = comment.strip().replace(",", " ").split()
    if not words or "/" not in words[0]:
        return None
    score, depth = words[0].split("/", 1)
    if not depth.isdigit() or "M" in score:
        return None
    try:
        return int(round(float(score) * 100))
    except ValueError:
        return None


def main():
    path = sys.argv[1]
    player = sys.argv[2].lower() if len(sys.argv) > 2 else None
    seen = set()
    games = positions = 0
    with open(path, encoding="utf-8") as pgn:
        while True:
            game = chess.pgn.read_game(pgn)
            if game is None:
                break
            games += 1
            result = RESULTS.get(game.headers.get("Result", "*"))
            if result is None or game.errors:
                continue
            chosen = {
                color: player is None or player in game.headers.get(name, "").lower()
                for color, name in ((chess.WHITE, "White"), (chess.BLACK, "Black"))
            }
            board = game.board()
            for node in game.mainline():
                move = node.move
                score = centipawns(node.comment)
                if (
                    chosen[board.turn]
                    and score is not None
                    and not board.is_check()
                    and not board.is_capture(move)
                    and move.promotion is None
                ):
                    ep = board.ep_square if board.has_legal_en_passant() else None
                    key = (board.board_fen(), board.turn, board.castling_rights, ep)
                    if key not in seen:
                        seen.add(key)
                        white_score = score if board.turn == chess.WHITE else -score
                        print(f"{board.fen()} | {white_score} | {result}")
                        positions += 1
                board.push(move)
    print(f"# games {games} positions {positions}")


if __name__ == "__main__":
    main()
