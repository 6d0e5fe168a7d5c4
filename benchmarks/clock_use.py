"""How each side of a match spent its clock: seconds a move by move number, and the clock left.

    .venv/bin/python -m benchmarks.clock_use benchmarks/journals/m-sf2600-r100.jsonl.gz [MORE ...] [--record]

Reads the [%clk]s benchmarks/match.py writes after each move (the clock after the move and its
increment), so a move's time is the clock before it plus the increment minus the clock after it. Side A
is Kibitz in every match against Stockfish; in self-play it is the engine with the change. The
increment is read from the journal's settings (`limits`, as "10+0.1").
"""

import argparse
import re
import statistics

from benchmarks.common import read_journal, record, table

CLOCK = re.compile(r"\[%clk (\d+):(\d+):(\d+(?:\.\d+)?)\]")
RANGES = ((0, 10), (10, 20), (20, 30), (30, 40), (40, 60), (60, 80), (80, 1000))
AFTER_MOVE = 30  # the clock left after this move: how much of the base time the opening and middlegame got


def read(journal):
    """(base s, increment s, [pair entries]) of one journal played on a clock."""
    settings, pairs = read_journal(journal)
    limits = settings.get("limits", "")
    try:
        # match.py writes "10+0.1" or, for adjudicated games, "10+0.1, adjudicated"
        base, inc = (float(x) for x in limits.split(",")[0].split("+"))
    except ValueError:
        raise SystemExit(f"{journal}: played at {limits!r}, not on a clock (BASE+INC)") from None
    return base, inc, pairs


def games(journal):
    """(base s, increment s, [(a_is_white, [clock after each ply, s])]) of one journal's finished games."""
    base, inc, pairs = read(journal)
    out = []
    for pair in pairs:
        for pgn in pair["pgn"]:
            clocks = [int(h) * 3600 + int(m) * 60 + float(s) for h, m, s in CLOCK.findall(pgn)]
            if clocks:
                out.append(('[White "A"]' in pgn, clocks))
    return base, inc, out


def spent(base, inc, clocks):
    """Seconds each move of one side took, from that side's clocks after its moves."""
    before = base
    times = []
    for after in clocks:
        times.append(before + inc - after)
        before = after
    return times


def report(journals):
    per = {"A": {r: [] for r in RANGES}, "B": {r: [] for r in RANGES}}
    left = {"A": [], "B": []}
    after = {"A": [], "B": []}  # clock after move AFTER_MOVE, in games that reached it
    n = 0
    for journal in journals:
        base, inc, played = games(journal)
        for a_white, clocks in played:
            n += 1
            sides = {"A": clocks[0::2] if a_white else clocks[1::2], "B": clocks[1::2] if a_white else clocks[0::2]}
            for side, own in sides.items():
                for move, t in enumerate(spent(base, inc, own)):
                    for lo, hi in RANGES:
                        if lo <= move < hi:
                            per[side][(lo, hi)].append(t)
                if own:
                    left[side].append(own[-1])
                if len(own) >= AFTER_MOVE:
                    after[side].append(own[AFTER_MOVE - 1])
    rows = []
    for lo, hi in RANGES:
        a, b = per["A"][(lo, hi)], per["B"][(lo, hi)]
        name = f"moves {lo + 1}-{hi}" if hi < 1000 else f"moves {lo + 1}-"
        rows.append([name, f"{statistics.mean(a):.3f}" if a else "-", f"{statistics.mean(b):.3f}" if b else "-",
                     len(a)])
    rows.append([f"clock left after move {AFTER_MOVE}, median (s)", _median(after["A"]), _median(after["B"]),
                 len(after["A"])])
    rows.append(["clock left at the game's end, median (s)", _median(left["A"]), _median(left["B"]), n])
    return table(["seconds a move, mean", "A", "B", "moves of A (games)"], rows), n


def _median(values):
    return f"{statistics.median(values):.2f}" if values else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("journals", nargs="+", help="benchmarks/match.py journals of games on a clock")
    ap.add_argument("--record", action="store_true", help="write the table to docs/benchmarks.md")
    args = ap.parse_args()
    text, n = report(args.journals)
    body = f"{text}\n\nFrom {n} games of {', '.join(args.journals)}."
    print(body)
    if args.record:
        record("Clock use", body, "python -m benchmarks.clock_use " + " ".join(args.journals) + " --record")


if __name__ == "__main__":
    main()
