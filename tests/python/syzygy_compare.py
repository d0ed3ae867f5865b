#!/usr/bin/env python3
"""Compares Kestrel's Syzygy probes with python-chess's own prober.

Usage: syzygy_compare.py KESTREL TABLE_DIR [COUNT] [SEED]

Draws COUNT random legal positions (side to move not giving check, no castling, no en
passant, halfmove clock 0) of the materials whose tables are in TABLE_DIR, sets each up in
a Kestrel session (`setboard`) and asks `tb`, which answers `wdl W dtz D ...`. W must equal
`chess.syzygy.Tablebase.probe_wdl` and D `probe_dtz`. Prints `ok: N positions` or the
first differences and exits non-zero.
"""

import os
import random
import subprocess
import sys

import chess
import chess.syzygy


def materials(table_dir):
    """The material signatures (`KBNvK`) with both a WDL and a DTZ table in the directory."""
    names = set()
    for f in os.listdir(table_dir):
        stem, ext = os.path.splitext(f)
        if ext == ".rtbw" and os.path.exists(os.path.join(table_dir, stem + ".rtbz")):
            names.add(stem)
    return sorted(names)


PIECES = {"K": chess.KING, "Q": chess.QUEEN, "R": chess.ROOK, "B": chess.BISHOP,
          "N": chess.KNIGHT, "P": chess.PAWN}


def random_position(rng, material):
    """A random legal position with `material` (either side may own the first half)."""
    strong, weak = material.split("v")
    colors = [chess.WHITE, chess.BLACK]
    rng.shuffle(colors)
    while True:
        board = chess.Board(None)
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        for side, color in ((strong, colors[0]), (weak, colors[1])):
            for letter in side:
                piece = PIECES[letter]
                empty = [s for s in chess.SQUARES if board.piece_at(s) is None
                         and not (piece == chess.PAWN and chess.square_rank(s) in (0, 7))]
                board.set_piece_at(rng.choice(empty), chess.Piece(piece, color))
        if board.is_valid():
            return board


def main():
    kestrel, table_dir = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = random.Random(seed)
    mats = materials(table_dir)
    if not mats:
        print(f"no tables in {table_dir}")
        return 1
    boards = [random_position(rng, rng.choice(mats)) for _ in range(count)]

    script = ["xboard", "protover 2", "force", f"egtpath syzygy {table_dir}"]
    for i, board in enumerate(boards):
        script += [f"setboard {board.fen()}", "tb", f"ping {i}"]
    script.append("quit")
    run = subprocess.run([kestrel], input="\n".join(script) + "\n", capture_output=True,
                         text=True, timeout=300)
    answers = {}
    current = []
    for line in run.stdout.splitlines():
        if line.startswith("wdl ") or line.startswith("Error") or line.startswith("tellusererror"):
            current.append(line)
        elif line.startswith("pong "):
            answers[int(line.split()[1])] = current
            current = []
    failures = []
    wins = 0
    with chess.syzygy.open_tablebase(table_dir) as tables:
        for i, board in enumerate(boards):
            want_wdl = tables.probe_wdl(board)
            want_dtz = tables.probe_dtz(board)
            wins += want_wdl > 0
            got = answers.get(i, [])
            if len(got) != 1 or not got[0].startswith("wdl "):
                failures.append(f"{board.fen()}: answer {got}")
                continue
            words = got[0].split()
            wdl, dtz = int(words[1]), int(words[3])
            if (wdl, dtz) != (want_wdl, want_dtz):
                failures.append(f"{board.fen()}: kestrel wdl {wdl} dtz {dtz}, "
                                f"python-chess wdl {want_wdl} dtz {want_dtz}")
    if failures:
        print(f"{len(failures)} of {count} positions differ:")
        for f in failures[:20]:
            print("  " + f)
        return 1
    print(f"ok: {count} positions ({len(mats)} materials, {wins} won for the side to move)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
