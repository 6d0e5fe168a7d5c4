"""What explain and threats cost (issue 68.2): the reasons' time beyond the search, and the threat
search's share of the budget.

    .venv/bin/python -m benchmarks.coach [--positions 300] [--nodes 20000] [--multipv 3]
                                        [--threat-positions 40] [--movetime-ms 500]

explain  Win At Chess (benchmarks/data/wac.epd): each position searched to --nodes with --multipv lines,
         then engine/coached.py explained() timed alone (plain Python: walking every line, static
         exchange at its end): p50, p90, p99, max in ms.
threats  the first --threat-positions of them, engine.analyse(movetime_ms=..., threats=True): the main
         search's time, the threat search's, and the whole call's against the movetime (the threat's
         fifth comes out of the main search's budget, so the call should end near movetime_ms).
"""

import argparse
import time

import engine
from benchmarks.common import DATA
from engine import coached


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def row(name, values):
    return f"{name:28} p50 {pct(values, 0.5):7.1f}  p90 {pct(values, 0.9):7.1f}  p99 {pct(values, 0.99):7.1f}  " \
           f"max {max(values):7.1f}"


def positions():
    for line in (DATA / "wac.epd").read_text().splitlines():
        if line.strip():
            yield " ".join(line.split()[:4]) + " 0 1"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=300)
    p.add_argument("--nodes", type=int, default=20_000)
    p.add_argument("--multipv", type=int, default=3)
    p.add_argument("--threat-positions", type=int, default=40)
    p.add_argument("--movetime-ms", type=int, default=500)
    args = p.parse_args(argv)
    fens = list(positions())
    engine.analyse(fens[0], depth=2)  # load the engine outside the timings
    costs, kinds = [], {}
    for fen in fens[:args.positions]:
        found = engine.analyse(fen, nodes=args.nodes, multipv=args.multipv)
        t = time.perf_counter()
        done = coached.explained(found)
        costs.append((time.perf_counter() - t) * 1000)
        kinds[done.reason.kind] = kinds.get(done.reason.kind, 0) + 1
    if costs:
        print(f"explain: {len(costs)} positions, multipv {args.multipv}, {args.nodes} nodes each")
        print(row("reasons, ms an answer", costs))
        print("  best line's kinds: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda x: -x[1])))
    main_ms, threat_ms, total_ms, share = [], [], [], []
    for fen in fens[:args.threat_positions]:
        t = time.perf_counter()
        found = engine.analyse(fen, movetime_ms=args.movetime_ms, threats=True)
        total = (time.perf_counter() - t) * 1000
        total_ms.append(total)
        main_ms.append(found.time_ms)
        if found.threat is not None:
            threat_ms.append(found.threat.time_ms)
            share.append(100 * found.threat.time_ms / args.movetime_ms)
    print(f"threats: {len(total_ms)} positions at movetime {args.movetime_ms} ms ({len(threat_ms)} with a threat)")
    print(row("main search, ms", main_ms))
    print(row("threat search, ms", threat_ms))
    print(row("whole call, ms", total_ms))
    print(row("threat, % of the movetime", share))
    print(row("call over movetime, ms", [t - args.movetime_ms for t in total_ms]))


if __name__ == "__main__":
    main()
