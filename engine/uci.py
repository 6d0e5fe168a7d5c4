"""UCI front end: python -m engine.uci [bench [depth]]

Speaks the Universal Chess Interface on stdin/stdout; searches run in a thread so `stop` and
`isready` are answered at once. UCI_Chess960 (an option, off by default) takes castling rights in
X-FEN or Shredder-FEN and writes castling king-to-rook (e1h1) both ways. Besides the standard
commands: `go perft N` (per-move counts and `Nodes searched`, as Stockfish prints them), `d` (board,
FEN, key, backend) and `bench [depth]`.
With KIBITZ_TUNING=1 the evaluation and search weights of engine/params.py are UCI options too.
"""

import os
import sys
import threading
import time

import numpy as np

from engine import NAME, __version__, analyse, bench, native, wdl
from engine.board import Board, IllegalMoveError
from engine.fen import STARTPOS, FenError, square_name
from engine.game_memory import GameMemory
from engine.layout import MAX_MULTIPV
from engine.limits import DEFAULT_HASH_MB, MAX_HASH_MB, MAX_THREADS
from engine.nnue import DEFAULT_NET
from engine.params import PARAMS
from engine.stop_signal import StopSignal
from engine.tt_pool import buckets, reserve_hash

AUTHOR = "the Kibitz team"
TUNING = os.environ.get("KIBITZ_TUNING") == "1"

GO_INT_ARGS = ("wtime", "btime", "winc", "binc", "movestogo", "depth", "nodes", "movetime", "mate")


class UciSession:
    def __init__(self, out=sys.stdout):
        self.out = out
        self.lock = threading.Lock()
        self.board = Board()
        self.hash_mb = DEFAULT_HASH_MB
        self.multipv = 1
        self.threads = 1
        self.show_wdl = False  # UCI_ShowWDL: `wdl W D L` in info lines (engine/wdl.py)
        self.tablebases = True  # Tablebases: positions of up to four pieces answered from the endgame tables
        self.chess960 = False  # UCI_Chess960: X-FEN/Shredder-FEN castling, castling moves king-to-rook (e1h1)
        self.params = {}
        self.stop = StopSignal()
        self.thread = None
        self.game = GameMemory()  # what the moves of a game keep (the table: KeepTable; histories: KeepHistory)

    def send(self, text):
        with self.lock:
            self.out.write(text + "\n")
            self.out.flush()

    def handle(self, line):
        """Handle one command line (COMMANDS says who does what); returns False when the session should end."""
        parts = line.split()
        if not parts:
            return True
        command = COMMANDS.get(parts[0])
        if command is None:
            self.send(f"info string unknown command: {line.strip()}")
            return True
        return command(self, parts[1:]) is not False

    # --- commands ------------------------------------------------------------------------------
    def cmd_uci(self, args):
        self.send(f"id name {NAME} {__version__}")
        self.send(f"id author {AUTHOR}")
        self.send(f"option name Hash type spin default {DEFAULT_HASH_MB} min 1 max {MAX_HASH_MB}")
        self.send(f"option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}")
        self.send(f"option name Threads type spin default 1 min 1 max {MAX_THREADS}")
        self.send(f"option name EvalFile type string default {DEFAULT_NET.name}")
        self.send("option name UCI_ShowWDL type check default false")
        self.send("option name UCI_Chess960 type check default false")
        self.send("option name Tablebases type check default true")
        if TUNING:
            for name, default, low, high in PARAMS:
                self.send(f"option name {name} type spin default {default} min {low} max {high}")
        self.send("uciok")

    def cmd_isready(self, args):
        # The time for slow set-up, as UCI intends: the table of the Hash size is faulted in now, so the
        # first `go` does not pay for fresh memory (~2.6 ms a MB here) out of its movetime.
        if self.thread is None or not self.thread.is_alive():
            if self.game.n != buckets(self.hash_mb):
                self.game.release_table()  # the game's table is not of the Hash size: back to the pool
            if self.game.table is None:
                reserve_hash(self.hash_mb)
        self.send("readyok")

    def cmd_ucinewgame(self, args):
        self.wait()
        self.board = Board(chess960=self.chess960)
        self.game.close()

    def cmd_quit(self, args):
        self.halt()
        return False

    def cmd_stop(self, args):
        self.halt()

    def cmd_ponderhit(self, args):
        self.halt()  # pondering is not offered; a stray ponderhit ends the search with its best move

    def cmd_setoption(self, args):
        text = " ".join(args)
        if not text.startswith("name ") or " value " not in text + " ":
            self.send(f"info string error: setoption needs 'name <id> value <x>', got {text!r}")
            return
        name, _, value = text[5:].partition(" value ")
        name = name.strip()
        if name.lower() == "evalfile":
            self.load_net(value.strip())
            return
        if name.lower() in ("uci_showwdl", "uci_chess960", "tablebases"):
            if value.strip().lower() not in ("true", "false"):
                self.send(f"info string error: option {name} needs true or false, got {value.strip()!r}")
                return
            on = value.strip().lower() == "true"
            if name.lower() == "uci_showwdl":
                self.show_wdl = on
            elif name.lower() == "tablebases":
                self.tablebases = on
            else:
                self.wait()
                self.chess960 = on
                self.board.chess960 = on  # how castling is written from now on
            return
        try:
            number = int(value.strip())
        except ValueError:
            self.send(f"info string error: option {name} needs a whole number, got {value.strip()!r}")
            return
        lname = name.lower()
        if lname == "hash":
            self.hash_mb = min(max(number, 1), MAX_HASH_MB)
        elif lname == "multipv":
            self.multipv = min(max(number, 1), MAX_MULTIPV)
        elif lname == "threads":
            self.threads = min(max(number, 1), MAX_THREADS)
        elif TUNING and name in {p[0] for p in PARAMS}:
            self.params[name] = number
        else:
            self.send(f"info string error: unknown option {name!r}")

    def load_net(self, path):
        """EvalFile: the learned evaluation from another net file, for this process (comparing nets)."""
        from engine import nnue

        self.wait()
        try:
            native.NET = nnue.load(path)
        except (OSError, nnue.NetError) as e:
            self.send(f"info string error: EvalFile {path!r}: {e}")
            return
        self.game.close()  # the table's evaluations are the old net's
        self.send(f"info string EvalFile {path}")

    def cmd_position(self, args):
        self.wait()
        try:
            fen, moves = self.parse_position(args)
            board = Board.from_moves(fen, moves, chess960=self.chess960)
        except (FenError, IllegalMoveError, ValueError) as e:
            self.send(f"info string error: {e}")
            return
        self.board = board

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
            return STARTPOS, moves
        if spec[0] == "fen" and len(spec) > 1:
            return " ".join(spec[1:]), moves
        raise ValueError(f"position needs 'startpos' or 'fen <FEN>', got {' '.join(spec)!r}")

    def cmd_go(self, args):
        self.wait()
        if args[:1] == ["perft"]:
            try:
                depth = int(args[1])
            except (IndexError, ValueError):
                self.send("info string error: go perft needs a depth, e.g. go perft 5")
                return
            self.perft(depth)
            return
        try:
            limits = parse_go(args)
        except ValueError as e:
            self.send(f"info string error: {e}")
            return
        self.stop.clear()
        self.thread = threading.Thread(target=self.search, args=(limits,), daemon=True)
        self.thread.start()

    def search(self, limits):
        try:
            result = analyse(board=self.board, multipv=self.multipv, hash_mb=self.hash_mb, threads=self.threads,
                             stop=self.stop, on_info=self.info, claim_draws=False, params=self.params, game=self.game,
                             tablebases=self.tablebases, **limits)
        except Exception as e:  # report, and still answer with a move so the GUI is not left waiting
            self.send(f"info string error: search failed: {e!r}")
            legal = self.board.legal_moves()
            self.send(f"bestmove {self.board.uci(legal[0]) if legal else '(none)'}")
            return
        if result.best_move is None:
            self.send(f"info depth 0 score {result.score.uci()}")
            self.send(f"info string {result.terminal}")
            self.send("bestmove (none)")
            return
        self.send(f"bestmove {result.best_move}" + (f" ponder {result.ponder}" if result.ponder else ""))

    def info(self, r):
        material = wdl.material(r.fen) if self.show_wdl else 0
        for line in r.lines:
            shown = " wdl {} {} {}".format(*wdl.wdl(line.score, material)) if self.show_wdl else ""
            self.send(
                f"info depth {line.depth} seldepth {line.seldepth} multipv {line.multipv} score {line.score.uci()}"
                f"{shown} nodes {r.nodes} nps {r.nps} hashfull {r.hashfull} tbhits {r.tbhits} time {r.time_ms} "
                f"pv {' '.join(line.pv)}"
            )

    def wait(self):
        """Let a running search finish (UCI says `go` ends before the next position or go)."""
        if self.thread is not None:
            self.thread.join()
            self.thread = None

    def halt(self):
        self.stop.set()
        self.wait()

    def perft(self, depth):
        t0 = time.perf_counter()
        counts = divide(self.board, depth)
        for move, count in counts:
            self.send(f"{self.board.uci(move)}: {count}")
        total = sum(c for _, c in counts)
        ms = (time.perf_counter() - t0) * 1000
        self.send("")
        self.send(f"Nodes searched: {total}")
        self.send(f"info string perft {depth} took {ms:.0f} ms ({total / max(ms, 1e-3) / 1000:.1f} Mnps)")

    def cmd_bench(self, args):
        self.wait()
        depth = int(args[0]) if args and args[0].isdigit() else bench.BENCH_DEPTH
        nodes, seconds = bench.run(depth, report=self.send)
        self.send(f"Nodes searched: {nodes}")
        self.send(f"Nodes/second: {int(nodes / seconds)}")

    def cmd_d(self, args):
        self.wait()
        b = self.board
        self.send(b.diagram())
        self.send("")
        self.send(f"Fen: {b.fen()}")
        self.send(f"Key: {b.key:016X}")
        chk = b.checkers()
        self.send("Checkers: " + " ".join(square_name(sq) for sq in range(64) if chk >> sq & 1))
        self.send(f"info string backend {native.BACKEND} (tables built in {native.TABLE_BUILD_MS:.1f} ms)")


# Every command and the method that answers it: UCI's, then the extras (`go perft N` is go's).
COMMANDS = {
    "uci": UciSession.cmd_uci,
    "isready": UciSession.cmd_isready,
    "setoption": UciSession.cmd_setoption,
    "ucinewgame": UciSession.cmd_ucinewgame,
    "position": UciSession.cmd_position,
    "go": UciSession.cmd_go,
    "stop": UciSession.cmd_stop,
    "ponderhit": UciSession.cmd_ponderhit,
    "quit": UciSession.cmd_quit,
    "d": UciSession.cmd_d,
    "bench": UciSession.cmd_bench,
}


def parse_go(args):
    """UCI `go` arguments -> analyse() keyword arguments."""
    limits = {}
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("infinite", "ponder"):
            limits["infinite"] = True
            i += 1
        elif word == "searchmoves":
            i += 1
            while i < len(args) and args[i] not in GO_INT_ARGS + ("infinite", "ponder"):
                i += 1
        elif word in GO_INT_ARGS:
            if i + 1 >= len(args):
                raise ValueError(f"go {word} needs a number")
            try:
                value = int(args[i + 1])
            except ValueError:
                raise ValueError(f"go {word} needs a whole number, got {args[i + 1]!r}") from None
            i += 2
            if word == "movetime":
                limits["movetime_ms"] = max(value, 1)
            elif word == "mate":
                limits["depth"] = max(2 * value + 1, 1)
            elif word in ("depth", "nodes", "movestogo"):
                limits[word] = max(value, 1)
            else:
                limits[word] = max(value, 0)
        else:
            raise ValueError(f"unknown go argument {word!r}")
    if not any(k in limits for k in ("movetime_ms", "depth", "nodes", "wtime", "btime", "infinite")):
        limits["infinite"] = True  # plain `go` searches until `stop`
    return limits


def divide(board, depth):
    """[(move, leaf count)] for each legal root move, in generation order."""
    moves = np.zeros(256, np.int32)
    counts = np.zeros(256, np.int64)
    n = native.core.divide(native.TABLES, *board.arrays, max(depth, 1), moves, counts)
    return [(int(moves[i]), int(counts[i])) for i in range(n)]


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    session = UciSession()
    if argv[:1] == ["bench"]:
        session.cmd_bench(argv[1:])
        return
    for line in sys.stdin:
        if not session.handle(line):
            break
    else:
        session.halt()


if __name__ == "__main__":
    main()
