"""One long-lived AnalyzeFunction process (issue 15): 10 000 warm requests, and its memory and overhead
at the end against the start.

    .venv/bin/python -m benchmarks.longlived [--record] [--requests 10000] [--movetime-ms 10]

AnalyzeFunction's handler runs in this process, as one warm Lambda container does (benchmarks/api.py's
Handler: the function as `kibitz invoke` runs it, engine.analyse() timed). The requests are a mix: POST
at movetime-ms (most), multipv 3, two threads, GET at depth 3, a finished game, and refused ones (a bad
FEN, an illegal move, a movetime over the cap, a body that is not JSON). Every window of 500 requests
reports the process's resident memory, the objects the collector tracks, the frozen ones (gc.freeze at
the end of init), the transposition table kept between searches (engine/tt_pool.py), and the handler's
overhead (its time less engine.analyse()'s). Growth is the last window against the second (the first is
warm-up: the tables' pages, the pool's first growth). Bounded by --requests; nothing leaves the process.
"""

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time

from benchmarks.api import Handler, pct, positions, post
from benchmarks.common import cpu_times, record, steal_since, table
from benchmarks.served import rss_mb
from kibitz.local.apigateway import proxy_event

COMMAND = "python -m benchmarks.longlived --record"
WINDOW = 500


def request(rng, fens, movetime_ms):
    """(kind, event, expected status) for one request of the mix."""
    fen = rng.choice(fens)
    draw = rng.random()
    if draw < 0.60:
        return "post", post({"fen": fen, "movetime_ms": movetime_ms}), 200
    if draw < 0.70:
        return "multipv 3", post({"fen": fen, "movetime_ms": movetime_ms, "multipv": 3}), 200
    if draw < 0.75:
        return "threads 2", post({"fen": fen, "movetime_ms": movetime_ms, "threads": 2}), 200
    if draw < 0.85:
        return "get depth 3", proxy_event("GET", "/analyze", "fen=" + fen.replace(" ", "_") + "&depth=3", {}), 200
    if draw < 0.87:
        return "finished game", post({"fen": "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1"}), 200
    bad = rng.choice([({"fen": fen.replace(" w ", " x ").replace(" b ", " x ")}, 422),
                      ({"fen": fen, "moves": ["a1a1"]}, 422), ({"fen": fen, "movetime_ms": 20000}, 422),
                      ("{not json", 400)])
    body, status = bad
    event = proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                        body if isinstance(body, str) else json.dumps(body))
    return "refused", event, status


def pool_mb():
    from engine import tt_pool

    spare = tt_pool._spare
    return spare[0].nbytes / 2**20 if spare is not None else 0.0


def python_growth(handler, fens, rng, movetime_ms, n=2000):
    """After the run, n more requests under tracemalloc: (net bytes Python allocated and kept, the file that
    kept most), which RSS cannot tell from the allocator's own slack."""
    import tracemalloc

    tracemalloc.start(4)
    for _ in range(200):  # tracemalloc's own tables first
        handler(request(rng, fens, movetime_ms)[1])
    gc.collect()
    before = tracemalloc.take_snapshot()
    for _ in range(n):
        handler(request(rng, fens, movetime_ms)[1])
    gc.collect()
    diff = tracemalloc.take_snapshot().compare_to(before, "filename")
    tracemalloc.stop()
    top = max(diff, key=lambda s: s.size_diff)
    where = top.traceback[0].filename.split("site-packages/")[-1]
    return sum(s.size_diff for s in diff), f"{where} {top.size_diff:+d} B"


def bench(n, movetime_ms, seed=15):
    handler = Handler()
    fens = positions(300)
    rng = random.Random(seed)
    windows, overheads, kinds = [], [], {}
    for i in range(1, n + 1):
        kind, event, expected = request(rng, fens, movetime_ms)
        response, ms = handler(event)
        assert response["statusCode"] == expected, (kind, response["statusCode"], response["body"][:300])
        overheads.append(ms - handler.search_ms)
        kinds[kind] = kinds.get(kind, 0) + 1
        if i % WINDOW == 0:
            windows.append({"upto": i, "rss": rss_mb(os.getpid()), "objects": len(gc.get_objects()),
                            "frozen": gc.get_freeze_count(), "pool": pool_mb(),
                            "median": statistics.median(overheads), "p99": pct(overheads, 0.99)})
            overheads = []
            print(windows[-1], file=sys.stderr, flush=True)
    return windows, kinds, python_growth(handler, fens, rng, movetime_ms)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the results into docs/benchmarks.md")
    ap.add_argument("--requests", type=int, default=10_000)
    ap.add_argument("--movetime-ms", type=int, default=10)
    args = ap.parse_args()
    started, load_before, t0 = cpu_times(), os.getloadavg(), time.perf_counter()
    windows, kinds, (kept, top) = bench(args.requests, args.movetime_ms)
    seconds = time.perf_counter() - t0
    shown = [w for k, w in enumerate(windows) if k < 3 or k % 4 == 3 or k == len(windows) - 1]
    rows = [[f"{w['upto'] - WINDOW + 1}-{w['upto']}", f"{w['rss']:.1f}", w["objects"], w["frozen"], f"{w['pool']:.0f}",
             f"{w['median']:.2f}", f"{w['p99']:.2f}"] for w in shown]
    base, last = windows[1] if len(windows) > 1 else windows[0], windows[-1]
    body = (f"AnalyzeFunction's handler in one process, {args.requests} warm requests in {seconds:.0f} s (movetime "
            f"{args.movetime_ms} ms; " + ", ".join(f"{k} {v}" for k, v in kinds.items()) + "). Per window of "
            f"{WINDOW} requests: resident memory, objects the collector tracks, objects frozen at init "
            f"(gc.freeze), the transposition table kept between searches, and the handler's overhead (its time "
            f"less engine.analyse()'s).\n\n"
            + table(["requests", "RSS, MB", "gc objects", "frozen", "TT pool, MB", "overhead median, ms",
                     "overhead p99, ms"], rows)
            + f"\n\nAt the end against the second window (after warm-up): RSS {last['rss'] - base['rss']:+.1f} MB, "
              f"gc objects {last['objects'] - base['objects']:+d}, frozen {last['frozen'] - base['frozen']:+d}, "
              f"overhead median {last['median'] - base['median']:+.2f} ms, p99 {last['p99'] - base['p99']:+.2f} ms. "
              f"Then 2000 more requests under tracemalloc: Python kept {kept / 1024:+.1f} KB net (most: {top}); what "
              f"RSS adds beyond that is the allocator's slack, not objects kept. "
              f"Load average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores, shared with a data "
              f"generation job and engine matches); {steal_since(started)}.")
    print(body)
    if args.record:
        record("Long-lived process: 10 000 warm requests", body, COMMAND)


if __name__ == "__main__":
    main()
