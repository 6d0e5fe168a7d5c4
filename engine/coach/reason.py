"""A reason: what a line or a move does, as a structured object and the sentence made from it.

kind: what happens (KINDS); side: whom it concerns ("white" / "black", the side whose move or line it
is); pieces and squares: the pieces it names and where they stand, in the same order; moves / san: the
line that shows it, from the position the reason is about; material: the side's net material along
that line, in pawns; mate: moves to mate (positive: the side mates; negative: it is mated); themes:
puzzle themes the reason gives (Lichess's names where it has one: fork, pin, skewer, backRankMate,
mateIn2, hangingPiece, promotion, exchange).
"""

import dataclasses
import re

_PAWN_MOVE = re.compile(r"[a-h](x[a-h])?[1-8]\b")  # SAN of a pawn's move starts the text: keep its letter small

# kind -> what it says
KINDS = {
    # a line, for the side that plays it
    "mate": "mates",
    "mated": "is mated",
    "material": "wins material",
    "exchange": "wins the exchange",
    "fork": "a double attack that wins material",
    "pin": "a pin that wins the pinned piece",
    "skewer": "a skewer that wins the piece behind",
    "promotion": "promotes a pawn",
    "sacrifice": "gives up material the search thinks it gets back in play",
    "loses_material": "loses material along the line",
    "quiet": "no material changes hands along the line",
    # a move, for the side that played it (a review's flagged move)
    "allows_mate": "lets the opponent force mate",
    "misses_mate": "lets a forced mate go",
    "hangs": "the opponent's line wins material",
    "loses_exchange": "the opponent's line wins the exchange",
    "allows_fork": "the opponent's line forks",
    "allows_pin": "the opponent's line pins and wins",
    "allows_skewer": "the opponent's line skewers",
    "allows_promotion": "the opponent's line promotes",
    "threat_not_parried": "leaves a piece that was already attacked to be taken",
    "misses_material": "the best line wins material and the move does not",
    "misses_exchange": "the best line wins the exchange",
    "misses_fork": "the best line forks",
    "misses_pin": "the best line pins",
    "misses_skewer": "the best line skewers",
    "misses_promotion": "the best line promotes",
    "loses": "nothing simple: what it costs and the better move",
}


@dataclasses.dataclass(frozen=True)
class Reason:
    kind: str
    side: str
    text: str
    pieces: tuple = ()
    squares: tuple = ()
    moves: tuple = ()
    san: tuple = ()
    material: int | None = None
    mate: int | None = None
    themes: tuple = ()

    def to_dict(self):
        out = dataclasses.asdict(self)
        for name in ("pieces", "squares", "moves", "san", "themes"):
            out[name] = list(out[name])
        return out

    def sentence(self):
        """The text as a sentence: capital first letter (not a pawn's move: "e6 was better"), full stop."""
        t = self.text
        if not _PAWN_MOVE.match(t):
            t = t[:1].upper() + t[1:]
        return t.rstrip(".") + "."
