"""A game collection for the S3 batch benchmark: games played by the engine at a tiny node count from the
balanced openings of openings_uho_6mvs.epd, written as PGN (each game a [FEN] start; the engine's own
moves, so every one is legal). Deterministic for a given --positions: the same file every time.

    .venv/bin/python benchmarks/s3_games.py --positions 10000 -o /tmp/games.pgn
"""

import argparse
import pathlib
import sys

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from benchmarks.common import DATA

NODES = 64  # a move in ~1 ms: the games need to be legal and varied, not good
MAX_PLIES = 80


def openings():
    for line in (DATA / "openings_uho_6mvs.epd").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4:
            yield " ".join(fields[:4]) + " 0 1"


def game(fen):
    """(moves, result) of a game the engine plays against itself from fen."""
    import engine

    moves = []
    while len(moves) < MAX_PLIES:
        found = engine.analyse(fen, moves, nodes=NODES)
        if found.best_move is None:  # checkmate, stalemate or a draw by rule
            side = fen.split()[1] if len(moves) % 2 == 0 else ("b" if fen.split()[1] == "w" else "w")
            result = ("0-1" if side == "w" else "1-0") if found.terminal == "checkmate" else "1/2-1/2"
            return moves, result
        moves.append(found.best_move)
    return moves, "*"


def collection(positions):
    """PGN text of whole games with at least `positions` positions (plies + 1 each) in all, and its count."""
    from engine.pgn import write_game

    texts, total = [], 0
    for n, fen in enumerate(openings(), 1):
        moves, result = game(fen)
        texts.append(write_game(fen, moves, {"Event": "Kibitz S3 benchmark", "Round": str(n), "White": "Kibitz",
                                             "Black": "Kibitz"}, result))
        total += len(moves) + 1
        if total >= positions:
            return "\n".join(texts), total
    raise SystemExit(f"the openings give only {total} positions")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=10_000)
    p.add_argument("-o", "--output", required=True)
    args = p.parse_args()
    text, total = collection(args.positions)
    pathlib.Path(args.output).write_text(text)
    print(f"{args.output}: {text.count('[Event ')} games, {total} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
