"""Perft speed: Kibitz's compiled module beside python-chess and Stockfish, in one run.

    .venv/bin/python -m benchmarks.perft [--record]

Bulk-counted perft of the start position to depth 6 and Kiwipete to depth 5. python-chess is far
too slow for those depths, so it runs two plies shallower; its rate is what is compared.
Stockfish (`apt-get install stockfish`) runs `go perft N` in the same invocation; its time is the
wall time from the command to its `Nodes searched` line.
"""

import argparse
import subprocess
import sys
import time

import chess

from benchmarks.common import find_engine, record, table

POSITIONS = [
    ("start position", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6, 119060324),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5, 193690690),
]


def kibitz_perft(fen, depth):
    from engine import native
    from engine.board import Board

    board = Board(fen)
    native.core.perft(native.TABLES, *board.arrays, 3)  # warm caches
    t0 = time.perf_counter()
    nodes = native.core.perft(native.TABLES, *board.arrays, depth)
    return nodes, time.perf_counter() - t0, native.BACKEND


def python_chess_perft(fen, depth):
    board = chess.Board(fen)

    def perft(d):
        if d == 1:
            return board.legal_moves.count()
        n = 0
        for m in board.legal_moves:
            board.push(m)
            n += perft(d - 1)
            board.pop()
        return n

    t0 = time.perf_counter()
    nodes = perft(depth)
    return nodes, time.perf_counter() - t0


def stockfish_perft(path, fen, depth):
    proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    proc.stdin.write(f"uci\nposition fen {fen}\nisready\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if line.strip() == "readyok":
            break
    t0 = time.perf_counter()
    proc.stdin.write(f"go perft {depth}\n")
    proc.stdin.flush()
    nodes = None
    for line in proc.stdout:
        if line.startswith("Nodes searched"):
            nodes = int(line.split(":")[1])
            break
    dt = time.perf_counter() - t0
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=10)
    return nodes, dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record", action="store_true", help="write the table into docs/benchmarks.md")
    args = ap.parse_args()
    stockfish = find_engine("stockfish")
    rows = []
    for name, fen, depth, expected in POSITIONS:
        nodes, dt, backend = kibitz_perft(fen, depth)
        assert nodes == expected, f"{name}: perft {depth} = {nodes}, expected {expected}"
        ours = nodes / dt / 1e6
        pc_nodes, pc_dt = python_chess_perft(fen, depth - 2)
        pc = pc_nodes / pc_dt / 1e6
        if stockfish:
            sf_nodes, sf_dt = stockfish_perft(stockfish, fen, depth)
            assert sf_nodes == expected
            sf = sf_nodes / sf_dt / 1e6
            sf_text, ratio = f"{sf:.1f}", f"{ours / sf:.2f}"
        else:
            sf_text, ratio = "not installed", "-"
        rows.append([name, depth, f"{nodes:,}", f"{ours:.1f} ({backend})", f"{pc:.3f} (depth {depth - 2})",
                     sf_text, ratio])
        print(f"{name}: done", file=sys.stderr)
    out = table(["position", "depth", "nodes", "Kibitz Mnps", "python-chess Mnps", "Stockfish 15.1 Mnps",
                 "Kibitz / Stockfish"], rows)
    print(out)
    if args.record:
        record("Perft", out + "\n\nSingle thread each, bulk counting at the leaves. Goal: Kibitz ≥ 0.25 × Stockfish.",
               "python -m benchmarks.perft --record")


if __name__ == "__main__":
    main()
