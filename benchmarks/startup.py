"""Cold start of the engine: fresh processes, import + table build, and `uci` -> `uciok`.

    .venv/bin/python -m benchmarks.startup [--runs 20] [--record]

Goals (engine core issue): import of the compiled engine plus table build <= 150 ms; the UCI program
answers `uciok` within 0.5 s of starting.
"""

import argparse
import statistics
import subprocess
import sys
import time

from benchmarks.common import ROOT, record, table

PROBE = (
    "import time; t0 = time.perf_counter(); import engine.native as n; "
    "print((time.perf_counter() - t0) * 1000, n.TABLE_BUILD_MS, n.BACKEND)"
)


def import_times(runs):
    total, tables = [], []
    for _ in range(runs):
        out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, check=True)
        ms, tab, backend = out.stdout.split()
        assert backend == "aot", "benchmark the compiled module: run `make build` first"
        total.append(float(ms))
        tables.append(float(tab))
    return total, tables


def uciok_times(runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "engine.uci"], cwd=ROOT, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, bufsize=1)
        proc.stdin.write("uci\n")
        proc.stdin.flush()
        for line in proc.stdout:
            if line.strip() == "uciok":
                break
        times.append((time.perf_counter() - t0) * 1000)
        proc.stdin.write("quit\n")
        proc.stdin.flush()
        proc.wait(timeout=10)
    return times


def summary(values):
    values = sorted(values)
    return f"{statistics.median(values):.1f}", f"{values[int(0.9 * (len(values) - 1))]:.1f}", f"{values[-1]:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    total, tables = import_times(args.runs)
    uci = uciok_times(args.runs)
    rows = [
        ["import engine (numpy + compiled module) + table build", *summary(total), "150"],
        ["  of which: table build", *summary(tables), "-"],
        ["process start -> `uciok` (python -m engine.uci)", *summary(uci), "500"],
    ]
    out = table(["fresh process, ms", "median", "p90", "max", "goal"], rows)
    print(out)
    if args.record:
        record("Start-up", out + f"\n\n{args.runs} fresh processes each.", "python -m benchmarks.startup --record")


if __name__ == "__main__":
    main()
