"""The jobs API's models: the request of POST /jobs, and the answers of POST /jobs and GET /jobs/{job_id}.

The positions a request names are read and checked by functions/common/jobs/positions.py; a finished
position's result holds the same AnalysisAnswer that POST /analyze answers (functions/common/api/models.py).
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator
from pydantic_core import PydanticCustomError

from functions.common.api.models import (
    AnalysisAnswer,
    OpeningAnswer,
    PositionFields,
    ReasonAnswer,
    RequestLimits,
    SearchLimits,
    Variant,
)
from functions.common.jobs.limits import MAX_POSITIONS, S3_WAY
from functions.common.jobs.s3.models import S3Progress, SourceFields

MAX_JOB_BODY_BYTES = 1024 * 1024
MAX_ID_CHARS = 100
DEFAULT_PAGE = 100
MAX_PAGE = 200

Status = Literal["queued", "running", "done", "done-with-failures"]


# --- the request (POST /jobs) ---------------------------------------------------------------------


class PositionIn(PositionFields):
    """One position of a job: a FEN string, or an object with a FEN and moves played from it."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"description": "or just the FEN, as a string"})

    id: str | None = Field(None, min_length=1, max_length=MAX_ID_CHARS,
                           description="your name for it, returned with its result (default: its index)")
    _bare: bool = PrivateAttr(False)  # given as a FEN string

    @model_validator(mode="wrap")
    @classmethod
    def _from_fen(cls, value, handler):
        """A plain string is the FEN. (Not a `str | PositionIn` union: its errors would name both branches.)"""
        if isinstance(value, str):
            item = handler({"fen": value})
            item._bare = True
            return item
        if not isinstance(value, dict | PositionIn):
            raise ValueError("expected a FEN string or an object {id, fen, moves}")
        return handler(value)


class JobSource(SourceFields):
    """Where a job's positions are: exactly one of the three, or an S3 object (`source`, jobs/s3/models.py)."""

    positions: list[PositionIn] | None = Field(
        None, min_length=1, json_schema_extra={"maxItems": MAX_POSITIONS},
        description="FEN strings, or {id, fen, moves} objects", examples=[["8/8/8/8/8/5k2/8/4K2R w K - 0 1"]])
    epd: str | None = Field(None, min_length=1, description="EPD text, one position a line (`id` opcode kept)")
    pgn: str | None = Field(None, min_length=1, description="PGN text: every position of every game is analysed")

    @field_validator("positions", mode="before")
    @classmethod
    def _at_most(cls, value):
        """Counted before the items are read; the 422 names the way without the limit (issue 69.3)."""
        if isinstance(value, list) and len(value) > MAX_POSITIONS:
            raise PydanticCustomError("too_many_positions", "{n} positions; the limit is {limit} per job in the "
                                      "body: {way}", {"n": len(value), "limit": MAX_POSITIONS, "way": S3_WAY})
        return value

    def sources(self):
        return [name for name in ("positions", "epd", "pgn", "source") if getattr(self, name) is not None]


class JobRequest(RequestLimits, JobSource):  # the sources' fields first (models.AnalyzeParams says why)
    """POST /jobs: the positions (exactly one of `positions`, `epd`, `pgn`) and the analysis options."""

    model_config = ConfigDict(extra="forbid", strict=True)

    review: bool = Field(False, description="with `pgn`: review the games (GET /jobs/{job_id}/pgn answers them "
                                            "annotated, GET /jobs/{job_id} a summary per game, with its "
                                            "puzzles)")
    puzzles: bool = Field(False, description="with `source` and format pgn: find the games' puzzles too "
                                             "(<job_id>/puzzles.jsonl; a small search per mistake or blunder, "
                                             "so off unless asked). A review (`review` with `pgn`) always has "
                                             "them")
    variant: Variant = Field("standard", description="the rules of every position: standard chess, or Chess960 "
                                                     "(castling rights in X-FEN or Shredder-FEN, castling moves "
                                                     "king-to-rook in UCI: e1h1). In `pgn`, the rules of the games "
                                                     "without a Variant tag: a game's own tag wins")


# --- answers --------------------------------------------------------------------------------------


class NotQueued(BaseModel):
    index: int
    reason: str


class JobAccepted(BaseModel):
    job_id: str
    status: Status
    total: int = Field(description="positions in the job")
    queued: int = Field(description="positions sent to the queue")
    not_queued: list[NotQueued] = Field(description="positions the queue refused; they are recorded as failed")
    url: str = Field(description="GET it for the status and the results")


class JobResult(BaseModel):
    index: int = Field(description="the position's place in the request, from 0")
    id: str
    status: Literal["done", "failed"]
    fen: str = Field(description="the FEN as submitted (the position analysed is analysis.fen, after the moves)")
    analysis: AnalysisAnswer | None = Field(description="as POST /analyze answers it; null when failed")
    error: str | None = Field(description="why the position could not be analysed; null when done")


class SideAccuracy(BaseModel):
    white: float | None = Field(description="null when none of the side's moves could be judged")
    black: float | None


class SideAcpl(BaseModel):
    white: int | None
    black: int | None


class Judgements(BaseModel):
    inaccuracy: int = Field(description="Lichess's marks: moves that lost 0.1 to 0.2 of its winning chances "
                                        "(-1..1) (?!)")
    mistake: int = Field(description="0.2 to 0.3 (?)")
    blunder: int = Field(description="0.3 or more (??); a mate let in or let go is marked by Lichess's mate rules")


class FlaggedMove(BaseModel):
    ply: int = Field(description="from 0, the game's first move")
    move: str = Field(description="numbered SAN, e.g. 6... Nf6")
    judgement: Literal["inaccuracy", "mistake", "blunder"]
    comment: str = Field(description="Lichess's words: Inaccuracy, Mistake, Blunder, or Checkmate is now "
                                     "unavoidable / Lost forced checkmate sequence for a mate let in / let go")
    best: str | None = Field(description="the search's move in SAN")
    reason: ReasonAnswer | None = Field(None, description="why the move is marked, from the best line before it "
                                                          "and the opponent's line after it (engine/coach)")


class PuzzleAnswer(BaseModel):
    """A position of the game where the player to move had one clearly winning or saving move and played
    another (engine/puzzles.py, docs/review.md)."""

    ply: int = Field(description="from 0: the move played instead of the solution")
    fen: str = Field(description="the position the solver moves in")
    solution: list[str] = Field(description="UCI: the solver's move, the reply, ...; ends on the solver's move")
    solution_san: list[str]
    themes: list[str] = Field(description="Lichess theme names: mateInN/mate, crushing/advantage/equality, "
                                          "defensiveMove, and the marked move's reason's")
    played: str = Field(description="UCI: the move the game went on with")
    played_san: str
    before_fen: str | None = Field(None, description="the position before the opponent's move that led here "
                                                     "(Lichess's puzzle FEN); null at the game's first move")
    before_move: str | None = Field(None, description="that move, UCI (Lichess's Moves start with it)")


class GameSummary(BaseModel):
    """A reviewed game: engine/review.py's figures (docs/review.md)."""

    game: int = Field(description="the game's number in the PGN, from 1")
    white: str
    black: str
    result: str
    plies: int
    judged: int = Field(description="moves judged (both positions around them analysed; not the move that mates)")
    accuracy: SideAccuracy = Field(description="percent, one decimal: Lichess's game accuracy (its win% from "
                                               "centipawns, per-move accuracy, volatility-weighted and harmonic "
                                               "means)")
    acpl: SideAcpl = Field(description="average centipawn loss (Lichess's: scores clamped to +-1000)")
    judgements: dict[Literal["white", "black"], Judgements]
    flagged: list[FlaggedMove] = Field(description="the inaccuracies, mistakes and blunders, in order")
    win_chances: list[float | None] = Field(description="White's win% in each position by Lichess's formula from "
                                                        "centipawns (not the W/D/L model's), from the start; null "
                                                        "where the analysis failed")
    opening: OpeningAnswer | None = Field(None, description="the last named position the game passed through "
                                                            "(lichess-org/chess-openings, by position: "
                                                            "transpositions too); null when none has a name")
    puzzles: list[PuzzleAnswer] = Field([], description="the game's puzzles: its mistakes and blunders where one "
                                                        "move was far better than the second (engine/puzzles.py)")


class JobState(BaseModel):
    job_id: str
    status: Status
    total: int
    done: int
    failed: int
    created_at: str
    started_at: str | None
    updated_at: str | None
    options: SearchLimits
    review: bool = Field(description="submitted with review: true")
    games: list[GameSummary] | None = Field(description="a review's summary per game, once every position is "
                                                        "finished; else null")
    results: list[JobResult] = Field(description="finished positions in index order, one page")
    next_after: int | None = Field(description="more results may follow: GET again with ?after=<this>")
    s3: S3Progress | None = Field(None, description="a job read from S3: its source, chunks, failures and output "
                                                    "(its results are there, not in `results`)")


def job_status(total, done, failed, started):
    if done + failed >= total:
        return "done" if failed == 0 else "done-with-failures"
    return "running" if started or done or failed else "queued"
