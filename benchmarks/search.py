"""Search benchmarks: bench signature and speed, deadline adherence, WAC and STS solving.

    .venv/bin/python benchmarks/search.py bench            # `bench` in a fresh process: nodes, nps
    .venv/bin/python benchmarks/search.py nps              # start position, 1 s
    .venv/bin/python benchmarks/search.py deadline [--n 240]   # overshoot of movetimes 50 ms .. 2 s
    .venv/bin/python benchmarks/search.py wac [--ms 1000]  # Win At Chess, 300 positions
    .venv/bin/python benchmarks/search.py sts [--ms 200]   # Strategic Test Suite, 1500 positions
    add --record to write the table into docs/benchmarks.md

Goals (search issue): bench >= 1.5 M nodes/s; overshoot p99 <= 20 ms and max <= 50 ms; WAC >= 285/300.
"""

import argparse
import math
import random
import re
import statistics
import subprocess
import sys
import time

import chess

if __package__ in (None, ""):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
from benchmarks.common import DATA, ROOT, record, table


def run_bench(args):
    out = subprocess.run([sys.executable, "-m", "engine.uci", "bench"], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    nodes = int(re.search(r"Nodes searched: (\d+)", out).group(1))
    nps = int(re.search(r"Nodes/second: (\d+)", out).group(1))
    from engine.bench import BENCH_DEPTH, POSITIONS

    rows = [[f"{len(POSITIONS)} positions, depth {BENCH_DEPTH}", f"{nodes:,}", f"{nps / 1e6:.2f}", "1.50"]]
    return table(["bench", "nodes (signature)", "M nodes/s", "goal"], rows)


def run_nps(args):
    from engine import analyse

    rows = []
    for name, fen in (("start position", chess.STARTING_FEN),
                      ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")):
        r = analyse(fen, movetime_ms=1000)
        rows.append([name, r.depth, r.seldepth, f"{r.nodes:,}", f"{r.nps / 1e6:.2f}", r.backend])
    return table(["1 s search", "depth", "seldepth", "nodes", "M nodes/s", "backend"], rows)


def positions(n, seed=11):
    """Varied positions: opening-book positions and WAC middlegames."""
    book = [line.strip() for line in (DATA / "openings_uho_6mvs.epd").read_text().splitlines() if line.strip()]
    wac = [" ".join(line.split()[:4]) + " 0 1" for line in (DATA / "wac.epd").read_text().splitlines()]
    rng = random.Random(seed)
    return [rng.choice(book if i % 2 else wac) for i in range(n)]


def run_deadline(args):
    from engine import analyse

    rng = random.Random(5)
    over = []
    for fen in positions(args.n):
        asked = round(math.exp(rng.uniform(math.log(50), math.log(2000))))
        t0 = time.perf_counter()
        r = analyse(fen, movetime_ms=asked)
        took = (time.perf_counter() - t0) * 1000
        assert r.best_move in {m.uci() for m in chess.Board(fen).legal_moves}
        over.append(took - asked)
    over.sort()
    q = lambda p: over[min(len(over) - 1, int(p * len(over)))]
    rows = [[len(over), "50 .. 2000 (log-uniform)", f"{statistics.median(over):+.1f}", f"{q(0.99):+.1f}",
             f"{over[-1]:+.1f}", "p99 <= 20, max <= 50"]]
    return table(["searches", "movetime, ms", "overshoot p50, ms", "p99", "max", "goal"], rows)


def solve_suite(name, ms):
    from engine import analyse
    from engine.epd import parse_epd

    solved = total = points = 0
    for line in (DATA / name).read_text().splitlines():
        if not line.strip():
            continue
        fen, ops = parse_epd(line)
        board = chess.Board(fen)
        r = analyse(fen, movetime_ms=ms)
        move = chess.Move.from_uci(r.best_move)
        if "c9" in ops:  # STS: points per move, best = 10
            scores = dict(zip(ops["c9"].split(), (int(x) for x in ops["c8"].split()), strict=True))
            points += scores.get(r.best_move, 0)
        best = {board.parse_san(s) for s in ops.get("bm", "").split()}
        avoid = {board.parse_san(s) for s in ops.get("am", "").split()}
        solved += (move in best) if best else (move not in avoid)
        total += 1
    return solved, total, points


def run_wac(args):
    solved, total, _ = solve_suite("wac.epd", args.ms)
    return table(["suite", "time per position", "solved", "goal"],
                 [["WAC (Win At Chess)", f"{args.ms} ms", f"{solved}/{total}", "285/300"]])


def run_sts(args):
    solved, total, points = solve_suite("sts.epd", args.ms)
    return table(["suite", "time per position", "best move found", "STS points"],
                 [["STS 1-15", f"{args.ms} ms", f"{solved}/{total}", f"{points}/{10 * total}"]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["bench", "nps", "deadline", "wac", "sts"])
    ap.add_argument("--n", type=int, default=240, help="searches for the deadline test")
    ap.add_argument("--ms", type=int, default=None, help="movetime per position (wac: 1000, sts: 200)")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    if args.ms is None:
        args.ms = 200 if args.what == "sts" else 1000
    out = globals()["run_" + args.what](args)
    print(out)
    if args.record:
        titles = {"bench": "Search speed: bench", "nps": "Search speed: 1 s", "deadline": "Deadline adherence",
                  "wac": "WAC", "sts": "STS"}
        record(titles[args.what], out, f"python benchmarks/search.py {' '.join(sys.argv[1:]).replace(' --record', '')}"
               " --record")


if __name__ == "__main__":
    main()
