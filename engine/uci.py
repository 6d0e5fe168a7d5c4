"""UCI front end: python -m engine.uci

Speaks the Universal Chess Interface on stdin/stdout. Besides the standard commands it knows
`go perft N` (per-move counts and `Nodes searched`, as Stockfish prints them) and `d` (board, FEN,
key, and which backend the core runs on).
"""

import sys
import time

import numpy as np

from engine import native
from engine.board import Board, IllegalMoveError
from engine.fen import STARTPOS, FenError, square_name
from engine.moves import to_uci

ENGINE_NAME = "Kibitz"
ENGINE_VERSION = "0.1.0"
AUTHOR = "the Kibitz team"


class UciSession:
    def __init__(self, out=sys.stdout):
        self.out = out
        self.board = Board()

    def send(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def handle(self, line):
        """Handle one command line; returns False when the session should end."""
        parts = line.split()
        if not parts:
            return True
        cmd, args = parts[0], parts[1:]
        handler = getattr(self, "cmd_" + cmd, None)
        if handler is None:
            self.send(f"info string unknown command: {line.strip()}")
            return True
        return handler(args) is not False

    # --- commands ------------------------------------------------------------------------------
    def cmd_uci(self, args):
        self.send(f"id name {ENGINE_NAME} {ENGINE_VERSION}")
        self.send(f"id author {AUTHOR}")
        self.send("uciok")

    def cmd_isready(self, args):
        self.send("readyok")

    def cmd_ucinewgame(self, args):
        self.board = Board()

    def cmd_quit(self, args):
        return False

    def cmd_position(self, args):
        try:
            self.board = self.parse_position(args)
        except (FenError, IllegalMoveError, ValueError) as e:
            self.send(f"info string error: {e}")

    @staticmethod
    def parse_position(args):
        if not args:
            raise ValueError("position needs 'startpos' or 'fen <FEN>'")
        if "moves" in args:
            i = args.index("moves")
            spec, moves = args[:i], args[i + 1:]
        else:
            spec, moves = args, []
        if spec[0] == "startpos" and len(spec) == 1:
            fen = STARTPOS
        elif spec[0] == "fen" and len(spec) > 1:
            fen = " ".join(spec[1:])
        else:
            raise ValueError(f"position needs 'startpos' or 'fen <FEN>', got {' '.join(spec)!r}")
        board = Board(fen, capacity=max(512, len(moves) + 64))
        for text in moves:
            board.push_uci(text)
        return board

    def cmd_go(self, args):
        if args[:1] == ["perft"]:
            try:
                depth = int(args[1])
            except (IndexError, ValueError):
                self.send("info string error: go perft needs a depth, e.g. go perft 5")
                return
            self.perft(depth)
            return
        self.send("info string error: searching arrives with the search issue; use go perft N")

    def perft(self, depth):
        t0 = time.perf_counter()
        counts = divide(self.board, depth)
        for move, count in counts:
            self.send(f"{to_uci(move)}: {count}")
        total = sum(c for _, c in counts)
        ms = (time.perf_counter() - t0) * 1000
        self.send("")
        self.send(f"Nodes searched: {total}")
        self.send(f"info string perft {depth} took {ms:.0f} ms ({total / max(ms, 1e-3) / 1000:.1f} Mnps)")

    def cmd_d(self, args):
        b = self.board
        self.send(b.diagram())
        self.send("")
        self.send(f"Fen: {b.fen()}")
        self.send(f"Key: {b.key:016X}")
        chk = b.checkers()
        self.send("Checkers: " + " ".join(square_name(sq) for sq in range(64) if chk >> sq & 1))
        self.send(f"info string backend {native.BACKEND} (tables built in {native.TABLE_BUILD_MS:.1f} ms)")


def divide(board, depth):
    """[(move, leaf count)] for each legal root move, in generation order."""
    moves = np.zeros(256, np.int32)
    counts = np.zeros(256, np.int64)
    n = native.core.divide(native.TABLES, *board.arrays, max(depth, 1), moves, counts)
    return [(int(moves[i]), int(counts[i])) for i in range(n)]


def perft(board, depth):
    return int(native.core.perft(native.TABLES, *board.arrays, depth))


def main():
    session = UciSession()
    for line in sys.stdin:
        if not session.handle(line):
            break


if __name__ == "__main__":
    main()
