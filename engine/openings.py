"""Opening names by position: ECO code and name from lichess-org/chess-openings (CC0 1.0), matched by
the position a game reaches, not by its move order, so that transpositions are found.

    named(board)                          # Opening(eco, name) of this very position, or None
    of_game(start_fen, moves)             # the last named position the game passed through (and its ply)

The table is engine/openings.tsv.gz (`epd TAB eco TAB name`, 3807 positions, made by
engine/openings_gen.py from the data set's a.tsv .. e.tsv), read once on first use (~10 ms). The key is
the FEN's first four fields with the en-passant square only when a capture there is legal, as
engine.board.Board.fen() writes it and as the data set's own EPDs are. A game is named as Lichess
suggests: by the last position along it that has a name. Standard chess only: a Chess960 position has
none.
"""

import dataclasses
import gzip
import pathlib

TABLE = pathlib.Path(__file__).with_name("openings.tsv.gz")


@dataclasses.dataclass(frozen=True)
class Opening:
    eco: str  # "B90"
    name: str  # "Sicilian Defense: Najdorf Variation"
    ply: int | None = None  # of_game(): the ply after which the game stood in the named position (0: the start)


_table = None


def table():
    """{epd: (eco, name)}, read once."""
    global _table
    if _table is None:
        with gzip.open(TABLE, "rt", encoding="utf-8") as f:
            rows = (line.rstrip("\n").split("\t") for line in f)
            _table = {key: (eco, name) for key, eco, name in rows}
    return _table


def key(board):
    return " ".join(board.fen().split()[:4])


def named(board):
    """The Opening of the position on `board` (an engine.board.Board), or None."""
    if board.chess960:
        return None
    found = table().get(key(board))
    return Opening(*found) if found else None


def of_game(start_fen, moves, chess960=False):
    """The Opening of the last named position the game from start_fen through `moves` (UCI) passed
    through, its ply set; None when none has a name."""
    from engine.board import Board

    if chess960:
        return None
    board = Board(start_fen, capacity=len(moves) + 64)
    last = named(board)
    last = dataclasses.replace(last, ply=0) if last else None
    for ply, move in enumerate(moves, 1):
        board.push_uci(move)
        found = named(board)
        if found:
            last = dataclasses.replace(found, ply=ply)
    return last
