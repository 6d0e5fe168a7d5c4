"""What an analysis returns: plain, frozen dataclasses with no engine internals.

Scores are from the side to move, in centipawns (`cp`) or moves to mate (`mate`, positive when the
side to move mates, negative when it is mated; `mate == 0` means it is checkmated now).
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Score:
    cp: int | None = None
    mate: int | None = None

    def for_white(self, side_to_move):
        """The same score from White's point of view (side_to_move: "white" or "black")."""
        if side_to_move == "white":
            return self
        return Score(cp=None if self.cp is None else -self.cp, mate=None if self.mate is None else -self.mate)

    def uci(self):
        return f"mate {self.mate}" if self.mate is not None else f"cp {self.cp}"


@dataclass(frozen=True)
class Line:
    """One principal variation (multipv > 1 gives several, best first)."""

    multipv: int
    score: Score
    pv: tuple  # UCI moves
    depth: int
    seldepth: int
    reason: object = None  # engine.coach.Reason of this line, with analyse(explain=True); else None


@dataclass(frozen=True)
class Threat:
    """What the opponent would play if it were their turn (analyse(threats=True), engine/coached.py): the best
    move of the null-move position, its score from the opponent's side, its line and the coach's reason."""

    move: str  # UCI
    san: str
    score: Score  # from the opponent's side (the side to move of the null-move position)
    pv: tuple
    pv_san: tuple
    depth: int
    nodes: int
    time_ms: int
    reason: object = None  # engine.coach.Reason


@dataclass(frozen=True)
class Analysis:
    fen: str  # the position analysed (after any `moves`)
    side_to_move: str  # "white" or "black"
    best_move: str | None  # UCI; None when the game is over (see `terminal`)
    ponder: str | None  # the expected reply, when the PV has one
    score: Score
    depth: int
    seldepth: int
    nodes: int
    time_ms: int
    nps: int
    hashfull: int  # permille of the transposition table in use
    pv: tuple  # UCI moves of the best line
    lines: tuple = field(default_factory=tuple)  # Line per multipv, best first
    terminal: str | None = None  # why the game is over (engine.game_over.REASONS); None while it goes on
    backend: str = ""  # "aot" or "jit"
    chess960: bool = False  # a Chess960 position: castling in the moves is king-to-rook (e1h1)
    # A position within the endgame tables (engine/tablebase.py, docs/tablebases.md): {"category": "win" |
    # "draw" | "loss", "dtm": signed moves to mate (absent for a draw), "best": the UCI moves that keep it,
    # "best_san": the same in SAN}
    tablebase: dict | None = None
    tbhits: int = 0  # table probes this answer made
    reason: object = None  # the best line's engine.coach.Reason (analyse(explain=True)); else None
    threat: Threat | None = None  # analyse(threats=True): None when refused (in check) or not asked
