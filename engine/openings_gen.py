"""Make engine/openings.tsv.gz, the opening names engine/openings.py reads, from lichess-org/chess-openings
(CC0 1.0: https://github.com/lichess-org/chess-openings, its a.tsv .. e.tsv: eco, name, pgn).

    .venv/bin/python -m engine.openings_gen DIR      # DIR holds a.tsv .. e.tsv

Each line's moves are played out (engine.san.parse_san) and the position they reach is written as its
EPD key (the FEN's first four fields, the en-passant square only when a capture there is legal, as
Lichess's own dist/ writes it): `epd TAB eco TAB name`, sorted by key. Where several lines reach one
position, the shortest line's name is kept (the first of equal length, in a..e order): Lichess gives
every name a unique shortest line, and the longer entries are there for transpositions. The gzip
stream has no timestamp, so the same input makes the same bytes. Not shipped to Lambda (plain Python,
but a build step, like engine/build.py).
"""

import gzip
import pathlib
import re
import sys

from engine.board import Board
from engine.san import parse_san

OUT = pathlib.Path(__file__).with_name("openings.tsv.gz")
_NUMBER = re.compile(r"^\d+\.+$")


def epd(board):
    return " ".join(board.fen().split()[:4])


def entries(directory):
    """(epd, eco, name, plies) of every line of a.tsv .. e.tsv, in file order."""
    for letter in "abcde":
        rows = (pathlib.Path(directory) / f"{letter}.tsv").read_text(encoding="utf-8").splitlines()
        for row in rows[1:]:  # the header: eco, name, pgn
            eco, name, pgn = row.split("\t")
            board = Board()
            sans = [t for t in pgn.split() if not _NUMBER.match(t)]
            for san in sans:
                board.push(parse_san(board, san))
            yield epd(board), eco, name, len(sans)


def table(directory):
    """{epd: (eco, name)}: the shortest line's name for each position."""
    best = {}
    for key, eco, name, plies in entries(directory):
        if key not in best or plies < best[key][0]:
            best[key] = (plies, eco, name)
    return {key: (eco, name) for key, (_, eco, name) in best.items()}


def write(found, out=OUT):
    text = "".join(f"{key}\t{eco}\t{name}\n" for key, (eco, name) in sorted(found.items()))
    with open(out, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
        z.write(text.encode("utf-8"))


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        sys.exit("usage: python -m engine.openings_gen DIR   (DIR: lichess-org/chess-openings' a.tsv .. e.tsv)")
    found = table(args[0])
    write(found)
    print(f"{OUT}: {len(found)} positions, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
