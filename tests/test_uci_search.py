"""The UCI program searching: go with limits, stop, info lines, bestmove/ponder, and python-chess as a client."""

import subprocess
import sys
import time

import chess
import chess.engine

from tests.conftest import ROOT

UCI = [sys.executable, "-m", "engine.uci"]


class Engine:
    """A UCI engine subprocess driven line by line."""

    def __init__(self):
        self.proc = subprocess.Popen(UCI, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix, timeout=30):
        lines = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline().rstrip("\n")
            lines.append(line)
            if line.startswith(prefix):
                return lines
        raise TimeoutError(f"no {prefix!r} within {timeout} s: {lines[-5:]}")

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def test_go_depth_prints_info_per_iteration_and_bestmove():
    e = Engine()
    e.send("position startpos moves e2e4")
    e.send("go depth 8")
    lines = e.until("bestmove")
    e.close()
    infos = [line for line in lines if line.startswith("info depth")]
    assert [int(line.split()[2]) for line in infos] == list(range(1, 9))
    for word in ("seldepth", "multipv", "score", "nodes", "nps", "hashfull", "time", "pv"):
        assert f" {word} " in infos[-1]
    best = lines[-1].split()
    assert best[0] == "bestmove" and chess.Move.from_uci(best[1]) in chess.Board(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    assert best[2] == "ponder"


def test_stop_ends_go_infinite_and_isready_answers_while_searching():
    e = Engine()
    e.send("position startpos")
    e.send("go infinite")
    time.sleep(0.5)
    e.send("isready")
    assert e.until("readyok", timeout=2)[-1] == "readyok"
    t0 = time.monotonic()
    e.send("stop")
    lines = e.until("bestmove", timeout=2)
    assert time.monotonic() - t0 < 1.0
    assert lines[-1].split()[1] in {m.uci() for m in chess.Board().legal_moves}
    e.close()


def test_go_movetime_and_clock_limits():
    e = Engine()
    e.send("position startpos")
    t0 = time.monotonic()
    e.send("go movetime 300")
    e.until("bestmove", timeout=5)
    assert time.monotonic() - t0 < 0.6
    e.send("go wtime 2000 btime 2000 winc 0 binc 0")
    t0 = time.monotonic()
    e.until("bestmove", timeout=5)
    assert time.monotonic() - t0 < 1.0  # a few per cent of a 2 s clock
    e.send("go nodes 5000")
    lines = e.until("bestmove")
    assert lines[-1].startswith("bestmove ")
    e.close()


def test_multipv_option_and_checkmated_root():
    e = Engine()
    e.send("setoption name MultiPV value 3")
    e.send("position startpos")
    e.send("go depth 5")
    lines = e.until("bestmove")
    assert {line.split(" multipv ")[1].split()[0] for line in lines if " depth 5 " in line} == {"1", "2", "3"}
    e.send("position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
    e.send("go depth 5")
    assert e.until("bestmove")[-1] == "bestmove (none)"
    e.close()


def test_python_chess_drives_the_engine():
    engine = chess.engine.SimpleEngine.popen_uci(UCI, cwd=ROOT)
    try:
        assert engine.id["name"].startswith("Kibitz")
        board = chess.Board()
        for _ in range(6):
            result = engine.play(board, chess.engine.Limit(time=0.05))
            assert result.move in board.legal_moves
            board.push(result.move)
        infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=2)
        assert len(infos) == 2 and all(info["pv"][0] in board.legal_moves for info in infos)
        engine.configure({"Hash": 8})
        mate = engine.analyse(chess.Board("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"), chess.engine.Limit(depth=4))
        assert mate["score"].relative == chess.engine.Mate(1)
    finally:
        engine.quit()


def test_isready_faults_the_hash_table_in_before_the_first_go():
    import io

    from engine import tt_pool
    from engine.uci import UciSession

    tt_pool._spare = None
    session = UciSession(out=io.StringIO())
    session.handle("setoption name Hash value 2")
    session.handle("isready")
    table, used = tt_pool._spare
    assert table.nbytes == 2 * 1024 * 1024 and used == 0
    session.handle("setoption name Hash value 1")  # a smaller table fits in the one there is
    session.handle("isready")
    assert tt_pool._spare[0] is table
    assert session.out.getvalue().count("readyok") == 2
