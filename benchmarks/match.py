"""Matches against reference engines, through ../shared/tools/match.py.

    .venv/bin/python benchmarks/match.py fairymax --games 100 --tc 10+0.1 [--record]
    .venv/bin/python benchmarks/match.py stockfish --elo 2200 --games 100 --tc 10+0.1 [--record]
    .venv/bin/python benchmarks/match.py self --a-opt LmrBase=50 --games 200 --tc 5+0.05   (A/B of a parameter)

Openings: the 2-move book (tests/data/openings_noob_2moves.epd), rewritten as `startpos moves ...`
(Fairy-Max only takes that form) by walking four plies from the start position.
"""

import argparse
import pathlib
import random
import re
import subprocess
import sys

import chess

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from benchmarks.common import DATA, ROOT, TOOLS, find_engine, record

BOOK = DATA / "openings_noob_2moves.epd"
OPENINGS = ROOT / "build" / "openings_noob_2moves_startpos.txt"
KIBITZ = f"{ROOT / '.venv' / 'bin' / 'python'} -m engine.uci"


def startpos_openings():
    """The book as `startpos moves ...` lines (cached under build/)."""
    if OPENINGS.exists():
        return OPENINGS
    wanted = {" ".join(line.split()[:4]) for line in BOOK.read_text().splitlines() if line.strip()}
    found = {}
    board = chess.Board()

    def walk(moves, plies):
        if plies == 0:
            key = " ".join(board.fen().split()[:4])
            if key in wanted and key not in found:
                found[key] = "startpos moves " + " ".join(moves)
            return
        for m in list(board.legal_moves):
            board.push(m)
            walk(moves + [m.uci()], plies - 1)
            board.pop()

    walk([], 4)
    lines = sorted(found.values())
    random.Random(1).shuffle(lines)
    OPENINGS.parent.mkdir(exist_ok=True)
    OPENINGS.write_text("\n".join(lines) + "\n")
    return OPENINGS


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("opponent", choices=["fairymax", "stockfish", "self"])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--tc", default="10+0.1")
    ap.add_argument("--elo", type=int, default=2200, help="Stockfish UCI_Elo")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--a-opt", action="append", default=[], help="Kibitz option for side A (tuning params)")
    ap.add_argument("--b-opt", action="append", default=[], help="option for side B (self-play)")
    ap.add_argument("--b-cmd", default=None, help="engine command for B in self-play (default: this checkout)")
    ap.add_argument("--pgn", default=None)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()

    a = f"uci:env KIBITZ_TUNING=1 {KIBITZ}"
    b_opts = list(args.b_opt)
    if args.opponent == "fairymax":
        b = f"uci:{sys.executable} {TOOLS / 'xb2uci.py'} {find_engine('fairymax')}"
        label = "Fairy-Max 5.0b"
    elif args.opponent == "stockfish":
        b = f"uci:{find_engine('stockfish')}"
        b_opts += ["UCI_LimitStrength=true", f"UCI_Elo={args.elo}", "Threads=1", "Hash=16"]
        label = f"Stockfish 15.1, UCI_Elo {args.elo}"
    else:
        b = f"uci:env KIBITZ_TUNING=1 {args.b_cmd or KIBITZ}"
        label = "Kibitz (B: " + (", ".join(args.b_opt) or "defaults") + ")"
    cmd = [sys.executable, str(TOOLS / "match.py"), "--a", a, "--b", b, "--openings", str(startpos_openings()),
           "--games", str(args.games), "--tc", args.tc, "--concurrency", str(args.concurrency)]
    for o in args.a_opt:
        cmd += ["--a-opt", o]
    for o in b_opts:
        cmd += ["--b-opt", o]
    if args.pgn:
        cmd += ["--pgn", args.pgn]
    print(" ".join(cmd), file=sys.stderr)
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    sys.stderr.write(out.stderr[-2000:])
    print(out.stdout)
    summary = [line for line in out.stdout.splitlines() if line.startswith("A vs B")]
    problems = [line for line in out.stdout.splitlines() if line.startswith("PROBLEM")]
    if args.record and summary:
        m = re.search(r"\+(\d+) =(\d+) -(\d+)\s+score ([\d.]+)\s+elo ([+-]?\d+) \[([+-]?\d+), ([+-]?\d+)\]", summary[0])
        won, drawn, lost, score, elo, lo, hi = m.groups()
        from engine.bench import SIGNATURE

        games = int(won) + int(drawn) + int(lost)
        row = (f"| Kibitz (bench {SIGNATURE}) vs {label} | {args.tc} | {games} | +{won} ={drawn} -{lost} | "
               f"{float(score) * 100:.1f}% | {elo} [{lo}, {hi}] | {len(problems)} |")
        record_match(row, " ".join(["benchmarks/match.py"] + sys.argv[1:]))


def record_match(row, command):
    """Append a row to the Matches table in docs/benchmarks.md (keeping earlier rows)."""
    from benchmarks.common import DOC

    header = ("| match | time control | games | W/D/L (Kibitz) | score | Elo difference [95%] | problems |\n"
              "|---|---|---|---|---|---|---|")
    text = DOC.read_text() if DOC.exists() else ""
    existing = re.search(r"^## Matches\n.*?(?=^## |\Z)", text, re.S | re.M)
    rows = []
    if existing:
        rows = [line for line in existing.group(0).splitlines() if line.startswith("| Kibitz")]
    rows.append(row + f" <!-- {command} -->")
    record("Matches", header + "\n" + "\n".join(rows) + "\n\nOpenings: the 2-move book, each played with both "
           "colours. Games played two at a time on the two cores.", "python benchmarks/match.py ... --record")


if __name__ == "__main__":
    main()
