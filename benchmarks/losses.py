"""Where side A's lost games went wrong: the move at which B's own score first reached a margin.

    .venv/bin/python -m benchmarks.losses benchmarks/journals/m-sf2600-netl.jsonl.gz [MORE ...] [--margin 1.5]

Reads the [%eval]s (the mover's search score, from White's side) and [%clk]s benchmarks/match.py writes
after each move. For each game A lost: the first move after which B's score for itself was at least the
margin, A's own score just before (did A see it coming?), and the seconds each side had spent by then.
Against Stockfish this says whether games are lost in the opening, where the two spend their clocks most
differently (benchmarks/clock_use.py), or later.
"""

import argparse
import io
import re
import statistics

import chess.pgn

from benchmarks import clock_use
from benchmarks.common import table

EVAL = re.compile(r"\[%eval (#)?(-?[\d.]+)\]")
PHASES = ((1, 20), (21, 40), (41, 1000))
MATE = 100.0  # a mate score, in pawns, for the comparisons
SAW_IT = -0.5  # A's own score at or below this: it knew it stood worse


def lost_games(journal):
    """(base s, increment s, [(a_is_white, [(mover_is_white, score from White's side or None, clock)])])
    of the games A lost in one journal."""
    base, inc, pairs = clock_use.read(journal)
    out = []
    for pair in pairs:
        for text in pair["pgn"]:
            game = chess.pgn.read_game(io.StringIO(text))
            a_white = game.headers.get("White") == "A"
            if game.headers.get("Result") != ("0-1" if a_white else "1-0"):
                continue
            plies = []
            for node in game.mainline():
                m = EVAL.search(node.comment)
                score = None
                if m:
                    score = (MATE if not m.group(2).startswith("-") else -MATE) if m.group(1) else float(m.group(2))
                clock = node.clock()
                plies.append((not node.turn(), score, clock))  # node.turn() is the side to move after it
            out.append((a_white, plies))
    return base, inc, out


def turning_point(base, inc, a_white, plies, margin):
    """(move number, A's score before it, A's seconds spent, B's seconds spent) at B's first score of at
    least `margin` for itself, or None if it never reached it."""
    a_score = None
    for i, (white_moved, score, _) in enumerate(plies):
        if score is None:
            continue
        own = score if white_moved else -score
        if white_moved == a_white:
            a_score = own
        elif own >= margin:
            played = plies[:i + 1]
            return (i // 2 + 1, a_score, _spent(base, inc, played, a_white), _spent(base, inc, played, not a_white))
    return None


def _spent(base, inc, plies, white):
    """Seconds one side's moves among `plies` took (benchmarks/clock_use.py's reading of the clocks)."""
    return sum(clock_use.spent(base, inc, [c for w, _, c in plies if w == white and c is not None]))


def report(journals, margin):
    points, n = [], 0
    for journal in journals:
        base, inc, lost = lost_games(journal)
        for a_white, plies in lost:
            n += 1
            points.append(turning_point(base, inc, a_white, plies, margin))
    rows = []
    for lo, hi in PHASES:
        at = [p for p in points if p and lo <= p[0] <= hi]
        known = [p[1] for p in at if p[1] is not None]
        rows.append([f"moves {lo}-{hi}" if hi < 1000 else f"moves {lo}-", len(at),
                     sum(s <= SAW_IT for s in known), _median(known), _median([p[2] for p in at]),
                     _median([p[3] for p in at])])
    rows.append(["never", sum(p is None for p in points), "", "", "", ""])
    head = [f"A's losses: B's own score first >= +{margin}", "games", f"A's own score <= {SAW_IT} then",
            "A's score then, median", "A's seconds spent by then, median", "B's, median"]
    return table(head, rows), n


def _median(values):
    return f"{statistics.median(values):.2f}" if values else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("journals", nargs="+", help="benchmarks/match.py journals of games on a clock")
    ap.add_argument("--margin", type=float, default=1.5, help="B's own score, in pawns, that marks the turn")
    args = ap.parse_args()
    text, n = report(args.journals, args.margin)
    print(f"{text}\n\nFrom {n} games A lost, in {', '.join(args.journals)}.")


if __name__ == "__main__":
    main()
