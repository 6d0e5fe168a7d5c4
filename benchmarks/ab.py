"""A/B self-play at a fixed node budget per move: does a parameter setting play better?

    .venv/bin/python benchmarks/ab.py --a Mobility=0 [--b ...] --games 200 --nodes 20000 [--record NAME]

A and B are the same build with different engine/params.py settings (UCI options, KIBITZ_TUNING=1),
played by benchmarks/match.py's game pairs from the 2-move book. Fixed nodes make games independent
of machine load and measure the knowledge a setting adds, not its cost in speed (the bench nps shows
that). --record adds the row to the terms table of docs/strength.md.
"""

import argparse
import pathlib
import sys

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from benchmarks.common import ROOT, table
from benchmarks.match import Limits, Match, Player, kibitz_command, parse_options


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", nargs="*", default=[], help="NAME=VALUE settings for A")
    ap.add_argument("--b", nargs="*", default=[], help="NAME=VALUE settings for B (default: the defaults)")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--record", default=None, help="a row name for the 'Evaluation and search terms' table")
    args = ap.parse_args()
    command, cwd = kibitz_command(ROOT)
    a = Player("A", command, parse_options(args.a), cwd=cwd)
    b = Player("B", command, parse_options(args.b), cwd=cwd)
    match = Match(a, b, Limits(nodes=args.nodes), args.games, args.workers,
                  log=lambda s: print(s, file=sys.stderr, flush=True)).run()
    w, d, lost = match.wdl()
    e, lo, hi = match.penta.elo_interval()
    a_text = " ".join(args.a) or "defaults"
    b_text = " ".join(args.b) or "defaults"
    print(f"A ({a_text}) vs B ({b_text}): {match.summary()}  ({args.nodes} nodes/move)")
    if args.record:
        record_term([args.record, a_text, b_text, f"{len(match.scores)} @ {args.nodes} nodes", f"+{w} ={d} -{lost}",
                     f"{e:+.0f} [{lo:+.0f}, {hi:+.0f}]"])


def record_term(row):
    """Add a row to the terms table in docs/strength.md."""
    doc = ROOT / "docs" / "strength.md"
    header = ["term", "A", "B", "games", "W/D/L (A)", "Elo A - B [95%]"]
    text = doc.read_text() if doc.exists() else ""
    rows = []
    marker = "<!-- terms -->"
    if marker in text:
        block = text.split(marker)[1]
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.splitlines()
                if line.startswith("|") and not line.startswith("|--") and not line.startswith("| term")]
    rows = [r for r in rows if r[0] != row[0]] + [row]
    new_block = f"{marker}\n{table(header, rows)}\n{marker}"
    if marker in text:
        parts = text.split(marker)
        text = parts[0] + new_block + parts[2]
    else:
        text = text.rstrip("\n") + "\n\n" + new_block + "\n"
    doc.write_text(text)


if __name__ == "__main__":
    main()
