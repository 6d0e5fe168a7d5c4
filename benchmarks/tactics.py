"""Tactics at the API's conditions: test suites solved at a movetime, Kibitz as AnalyzeFunction answers
(a fresh table, one thread) beside full Stockfish 15.1 at the same time (one thread, its defaults).

    python -m benchmarks.tactics [--set tune|check|all] [--ms 1000] [--net LABEL=PATH[,NAME=VALUE...]] [--record]

Two sets, so that what is tuned on one is judged on the other:
  tune    ECM, Pascutto's 183-position selection (ecm_gcp.epd)
  check   Arasan 2024 (200), BT2630 (30), LCT II (35): 265 positions
A position is solved when the move is one of its `bm` (or none of its `am`). With several --net, each
position is searched by each in turn. Stockfish's answers are kept in --cache (outside the repository), so
a second run costs only Kibitz's time. Timed: run it with the machine otherwise idle.
"""

import argparse
import json
import pathlib
import re
import sys
import time

import chess
import chess.engine

from benchmarks.answers import api_search, net_spec
from benchmarks.common import ROOT, cpu_times, find_engine, record, steal_since, table

SUITES = ROOT / "benchmarks" / "data"
SETS = {"tune": ("ecm_gcp.epd",), "check": ("arasan2024.epd", "bt2630.epd", "lct2.epd")}
SETS["all"] = SETS["tune"] + SETS["check"]


def suite(name):
    """[(id, FEN, {best moves}, {moves to avoid})] of an EPD suite, moves as UCI."""
    from engine.epd import parse_epd

    out = []
    for line in (SUITES / name).read_text().splitlines():
        if not line.strip():
            continue
        fen, ops = parse_epd(line)
        board = chess.Board(fen)
        best = {board.parse_san(s).uci() for s in ops.get("bm", "").split()}
        avoid = {board.parse_san(s).uci() for s in ops.get("am", "").split()}
        out.append((ops.get("id", f"{name}:{len(out) + 1}").strip('"'), fen, best, avoid))
    return out


def solved(move, best, avoid):
    return move in best if best else move not in avoid


class Stockfish:
    """Full Stockfish at a movetime, one thread, its answers kept between runs."""

    def __init__(self, ms, cache_path):
        path = find_engine("stockfish")
        if path is None:
            raise SystemExit("tactics: no stockfish (apt-get install stockfish)")
        self.path, self.ms, self.engine = path, ms, None
        self.cache_path = pathlib.Path(cache_path)
        self.cache = json.loads(self.cache_path.read_text()) if self.cache_path.exists() else {}

    def move(self, fen):
        key = f"{fen}|{self.ms}"
        if key not in self.cache:
            if self.engine is None:
                self.engine = chess.engine.SimpleEngine.popen_uci(self.path)
                self.engine.configure({"Threads": 1})
            self.engine.configure({"Clear Hash": None})  # a fresh table, as Kibitz's
            result = self.engine.play(chess.Board(fen), chess.engine.Limit(time=self.ms / 1000))
            self.cache[key] = result.move.uci()
        return self.cache[key]

    def close(self):
        if self.engine is not None:
            self.engine.quit()
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        self.cache_path.write_text(json.dumps(self.cache))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=sorted(SETS), default="all")
    ap.add_argument("--ms", type=int, default=1000, help="movetime of each answer (the API's default is 1000)")
    ap.add_argument("--net", action="append", default=[], metavar="LABEL=PATH[,NAME=VALUE...]",
                    help="answer with this net and these search parameters (repeat to compare; default: the "
                         "shipped net)")
    ap.add_argument("--nodes", type=int, default=None,
                    help="Kibitz searches this many nodes instead of --ms: the same answers every run, for tuning "
                         "(implies --no-stockfish)")
    ap.add_argument("--no-stockfish", action="store_true", help="Kibitz only")
    ap.add_argument("--cache", default="/tmp/kibitz-tactics-stockfish.json", help="Stockfish's answers, kept")
    ap.add_argument("--record", action="store_true", help="write the table to docs/benchmarks.md")
    args = ap.parse_args(argv)

    from engine import native, nnue

    nets = []
    for spec in args.net or [f"shipped={nnue.DEFAULT_NET}"]:
        label, path, params = net_spec(spec)
        try:
            nets.append((label, nnue.load(path), path, params))
        except (OSError, nnue.NetError) as e:
            raise SystemExit(f"tactics: --net {spec!r}: {e}") from None
    names = SETS[args.set]
    positions = [(name, *p) for name in names for p in suite(name)]
    sf = None if args.no_stockfish or args.nodes else Stockfish(args.ms, args.cache)
    got = {label: {name: 0 for name in names} for label, *_ in nets}
    got_sf = {name: 0 for name in names}
    misses = {label: [] for label, *_ in nets}
    start, t0 = cpu_times(), time.monotonic()
    try:
        for i, (name, pid, fen, best, avoid) in enumerate(positions):
            if sf is not None:
                got_sf[name] += solved(sf.move(fen), best, avoid)
            for label, net, _, params in nets:
                native.NET = net
                move = api_search(fen, args.ms, params, args.nodes)[0]
                ok = solved(move, best, avoid)
                got[label][name] += ok
                if not ok:
                    misses[label].append(pid)
            if (i + 1) % 25 == 0:
                print(f"tactics: {i + 1}/{len(positions)} positions, {time.monotonic() - t0:.0f} s", file=sys.stderr,
                      flush=True)
    finally:
        if sf is not None:
            sf.close()
    counts = {name: sum(1 for p in positions if p[0] == name) for name in names}
    total = sum(counts.values())
    limit = f"solved at {args.nodes:,} nodes" if args.nodes else f"solved at {args.ms} ms"
    head = [limit] + [f"{n.removesuffix('.epd')} ({counts[n]})" for n in names] + [f"all ({total})"]
    if sf is not None:
        head.append("of Stockfish's")
    body = []
    sf_total = sum(got_sf.values())
    for (label, _, path, params), (_, per) in zip(nets, got.items(), strict=True):
        name = ", ".join([pathlib.Path(path).name] + [f"{k}={v}" for k, v in params.items()])
        row = [f"Kibitz {label} ({name})"] + [per[n] for n in names] + [sum(per.values())]
        if sf is not None:
            row.append(f"{sum(per.values()) / max(sf_total, 1):.2f}x")
        body.append(row)
    if sf is not None:
        body.append(["Stockfish 15.1, full strength"] + [got_sf[n] for n in names] + [sf_total, "1.00x"])
    out = table(head, body)
    out += (f"\n\nKibitz as AnalyzeFunction (a fresh table sized by common/analysis/budget.py at 1769 MB, one "
            f"thread); Stockfish with one thread, its default hash, cleared before each position. Set "
            f"`{args.set}`. {steal_since(start)}.")
    for label, *_ in nets:
        out += f"\n\n{label} missed: " + ", ".join(misses[label])
    print(out)
    if args.record:
        command = "python -m benchmarks.tactics " + " ".join(argv if argv is not None else sys.argv[1:])
        record("Tactics at the API's conditions", out, re.sub(r" ?--record", "", command))


if __name__ == "__main__":
    main()
