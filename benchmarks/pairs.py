"""Two matches on the same openings, pair by pair: did the second score more than the first?

    .venv/bin/python -m benchmarks.pairs NEW.jsonl OLD.jsonl

Two ladder runs with the same --seed play the same openings, each twice with colours reversed (a pair).
Comparing them pair by pair takes out the openings' own spread, which an interval on each run alone
keeps: the difference of the two runs' points, how many pairs scored better, worse or the same, a sign
test on those, and a normal interval on the mean difference a pair. Only pairs both runs finished, from
the same opening position, count.
"""

import argparse
import math
import re

from benchmarks.common import read_journal

FEN = re.compile(r'\[FEN "([^"]*)"\]')


def load(journal):
    """{pair number: (opening FEN or None, side A's points in the pair)} of one benchmarks/match.py journal."""
    pairs = {}
    for entry in read_journal(journal)[1]:
        fen = FEN.search(entry["pgn"][0]) if entry.get("pgn") else None
        pairs[entry["pair"]] = (fen.group(1) if fen else None, sum(entry["scores"]))
    return pairs


def compare(new, old):
    """A dict of the comparison of two load()s over the pairs both have from the same opening."""
    both = sorted(set(new) & set(old))
    common = [k for k in both if new[k][0] == old[k][0]]
    diffs = [new[k][1] - old[k][1] for k in common]
    n = len(diffs)
    better, worse = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    mean = sum(diffs) / n if n else 0.0
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n else 0.0
    return {
        "pairs": n,
        "other_opening": len(both) - n,
        "new_points": sum(new[k][1] for k in common),
        "old_points": sum(old[k][1] for k in common),
        "better": better,
        "worse": worse,
        "same": n - better - worse,
        "sign_p": sign_test(better, worse),
        # a pair is two games: its mean difference / 2 is the difference in score per game
        "score_diff": (mean / 2, (mean - half) / 2, (mean + half) / 2),
    }


def sign_test(better, worse):
    """Two-sided p of a sign test: how likely a split at least this uneven is if neither run is better."""
    n = better + worse
    if n == 0:
        return 1.0
    k = min(better, worse)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("new", help="a benchmarks/match.py journal")
    ap.add_argument("old", help="another, played with the same --seed")
    args = ap.parse_args()
    c = compare(load(args.new), load(args.old))
    if not c["pairs"]:
        raise SystemExit(f"{args.new} and {args.old} have no finished pair from the same opening")
    diff, lo, hi = (100 * x for x in c["score_diff"])
    print(f"{c['pairs']} pairs from the same openings: {c['new_points']:g} points against {c['old_points']:g}; "
          f"better in {c['better']}, worse in {c['worse']}, the same in {c['same']} (sign test p = {c['sign_p']:.2f}); "
          f"score a game {diff:+.1f} points of percent [{lo:+.1f}, {hi:+.1f}]")
    if c["other_opening"]:
        print(f"({c['other_opening']} pairs with the same number started from other openings and were left out)")


if __name__ == "__main__":
    main()
