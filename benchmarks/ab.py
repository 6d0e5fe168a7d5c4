"""A/B self-play at a fixed node budget per move: does a parameter setting play better?

    .venv/bin/python benchmarks/ab.py --a Mobility=0 [--b ...] --games 200 --nodes 20000 [--record NAME]

A and B are the same build with different engine/params.py settings (UCI options, KIBITZ_TUNING=1).
Fixed nodes make games independent of machine load and measure the knowledge a term adds, not its
cost in speed (the bench nps shows that). Each opening of the 2-move book is played with both colours.
Prints W/D/L for A and the Elo difference with a 95% interval, like ../shared/tools/match.py.
"""

import argparse
import concurrent.futures
import math
import pathlib
import sys

import chess
import chess.engine

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from benchmarks.common import ROOT, table
from benchmarks.match import startpos_openings

KIBITZ = [str(ROOT / ".venv" / "bin" / "python"), "-m", "engine.uci"]


def options(pairs):
    out = {}
    for kv in pairs:
        k, v = kv.split("=", 1)
        out[k] = int(v)
    return out


def play(a_opts, b_opts, opening, a_white, nodes):
    engines = {}
    try:
        for side, opts in (("a", a_opts), ("b", b_opts)):
            e = chess.engine.SimpleEngine.popen_uci(KIBITZ, env={"KIBITZ_TUNING": "1", "PATH": "/usr/bin:/bin"})
            if opts:
                e.configure(opts)
            engines[side] = e
        board = chess.Board()
        for m in opening.split()[2:]:
            board.push_uci(m)
        white, black = (engines["a"], engines["b"]) if a_white else (engines["b"], engines["a"])
        while not board.is_game_over(claim_draw=True) and board.ply() < 400:
            mover = white if board.turn == chess.WHITE else black
            move = mover.play(board, chess.engine.Limit(nodes=nodes)).move
            if move not in board.legal_moves:
                raise RuntimeError(f"illegal move {move} in {board.fen()}")
            board.push(move)
        result = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "1/2-1/2"
    finally:
        for e in engines.values():
            e.quit()
    if result == "1/2-1/2":
        return 0.5
    return 1.0 if (result == "1-0") == a_white else 0.0


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", nargs="*", default=[], help="NAME=VALUE settings for A")
    ap.add_argument("--b", nargs="*", default=[], help="NAME=VALUE settings for B (default: the defaults)")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--record", default=None, help="a row name for the 'Evaluation and search terms' table")
    args = ap.parse_args()
    openings = startpos_openings().read_text().splitlines()
    a_opts, b_opts = options(args.a), options(args.b)
    jobs = [(openings[i // 2], i % 2 == 0) for i in range(args.games)]
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
        for i, s in enumerate(pool.map(lambda j: play(a_opts, b_opts, j[0], j[1], args.nodes), jobs)):
            results.append(s)
            if (i + 1) % 20 == 0:
                print(f"{i + 1}/{args.games}: {sum(results) / len(results):.3f}", file=sys.stderr, flush=True)
    n = len(results)
    w, d, lost = results.count(1.0), results.count(0.5), results.count(0.0)
    mean = sum(results) / n
    var = sum((x - mean) ** 2 for x in results) / max(n - 1, 1)
    se = math.sqrt(var / n)
    lo, hi = elo(mean - 1.96 * se), elo(mean + 1.96 * se)
    a_text = " ".join(args.a) or "defaults"
    b_text = " ".join(args.b) or "defaults"
    print(f"A ({a_text}) vs B ({b_text}): +{w} ={d} -{lost}  score {mean:.3f}  elo {elo(mean):+.0f} "
          f"[{lo:+.0f}, {hi:+.0f}]  ({n} games, {args.nodes} nodes/move)")
    if args.record:
        row = [args.record, a_text, b_text, f"{n} @ {args.nodes} nodes", f"+{w} ={d} -{lost}",
               f"{elo(mean):+.0f} [{lo:+.0f}, {hi:+.0f}]"]
        record_term(row)


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
