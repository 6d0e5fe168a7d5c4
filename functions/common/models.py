"""The analysis API's models: what a request and an answer are, for /analyze and for batch jobs.

AnalyzeFunction answers an `Analysis` per request; BatchFunction stores the same `Analysis` per
position of a job, built by the same `answer()`. Importing it imports the engine (its tables are
built once per process).
"""

import json
import os
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

import engine
from engine.layout import MAX_MULTIPV
from engine.limits import MAX_DEPTH

ENGINE_NAME = "Kibitz"
DEFAULT_MOVETIME_MS = 1000
# API Gateway gives up on the integration after 29 s; the search ends by 25 s, which leaves room for
# a cold start and the answer. The Lambda timeout (30 s) is a second, later guard.
MAX_MOVETIME_MS = 25_000
MAX_NODES = 10**12
MAX_MOVES = 1000  # a long game is 300 plies
MAX_FEN_CHARS = 128
MAX_BODY_BYTES = 16 * 1024
DEFAULT_SAFETY_MARGIN_MS = 1000
HASH_MB_PER_MB_MEMORY = 1 / 16  # "auto": at most the largest power of two under 1/16 of the function's memory,
HASH_KB_PER_MS = 32  # and no more than the budget can fill: ~2,000 nodes a ms, a 16-byte entry each

GameOver = Literal["checkmate", "stalemate", "insufficient material", "fifty-move rule", "threefold repetition"]

STARTPOS_EXAMPLE = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def split_moves(value):
    """Accept "e2e4 e7e5" or "e2e4,e7e5" as well as a list of UCI moves."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [move for item in value for move in re.split(r"[\s,]+", item) if move]
    return value


# --- requests -------------------------------------------------------------------------------------


def fen_field():
    return Field(min_length=1, max_length=MAX_FEN_CHARS, examples=[STARTPOS_EXAMPLE],
                 description="the position, as FEN (6 fields, or 4 with the clocks left out)")


def moves_field():
    return Field(default_factory=list, max_length=MAX_MOVES, examples=[["e2e4", "e7e5"]],
                 description="UCI moves played from `fen`, oldest first; the position analysed is "
                             "the one after them, and they count for repetition draws")


def movetime_field():
    return Field(DEFAULT_MOVETIME_MS, ge=1, le=MAX_MOVETIME_MS,
                 description="time to think, ms (cut to the Lambda's remaining time less a margin)")


def depth_field():
    return Field(None, ge=1, le=MAX_DEPTH, description="stop after this many plies")


def nodes_field():
    return Field(None, ge=1, le=MAX_NODES, description="stop after about this many nodes")


def multipv_field():
    return Field(1, ge=1, le=MAX_MULTIPV, description="how many best lines to report")


class SearchLimits(BaseModel):
    """How long to think. The search ends at whichever limit it reaches first; the time limit always applies."""

    model_config = ConfigDict(extra="forbid")

    movetime_ms: int = movetime_field()
    depth: int | None = depth_field()
    nodes: int | None = nodes_field()
    multipv: int = multipv_field()


class AnalyzeParams(BaseModel):
    """What to analyse and for how long. The search ends at whichever limit it reaches first;
    the time limit always applies."""

    model_config = ConfigDict(extra="forbid")

    fen: str = fen_field()
    moves: list[str] = moves_field()
    movetime_ms: int = movetime_field()
    depth: int | None = depth_field()
    nodes: int | None = nodes_field()
    multipv: int = multipv_field()

    @field_validator("moves", mode="before")
    @classmethod
    def _split_moves(cls, value):
        return split_moves(value)

    def limits(self):
        return SearchLimits(movetime_ms=self.movetime_ms, depth=self.depth, nodes=self.nodes, multipv=self.multipv)


class AnalyzeBody(AnalyzeParams):
    """POST /analyze: a JSON object. Types are strict (1000, not "1000")."""

    model_config = ConfigDict(extra="forbid", strict=True)


class AnalyzeQuery(AnalyzeParams):
    """GET /analyze: query parameters. In `fen`, '_' and '+' stand for spaces (URLs without encoding)."""

    @field_validator("fen", mode="before")
    @classmethod
    def _url_spaces(cls, value):
        return value.replace("_", " ").replace("+", " ") if isinstance(value, str) else value


# --- answers --------------------------------------------------------------------------------------


class Cp(BaseModel):
    cp: int = Field(description="centipawns")


class Mate(BaseModel):
    mate: int = Field(description="moves to mate: > 0 mates, < 0 gets mated, 0 is mated now")


Score = Cp | Mate


class Line(BaseModel):
    multipv: int = Field(description="1 for the best line, 2 for the next, ...")
    score: Score = Field(description="from the side to move")
    score_white: Score = Field(description="the same score from White's point of view")
    depth: int
    seldepth: int
    pv: list[str] = Field(description="the line in UCI")
    pv_san: list[str] = Field(description="the line in SAN")


class EngineInfo(BaseModel):
    name: str
    version: str
    backend: Literal["aot", "jit"] = Field(description="compiled ahead of time, or numba's JIT")


class Analysis(BaseModel):
    fen: str = Field(description="the position analysed (after `moves`)")
    side_to_move: Literal["white", "black"]
    game_over: GameOver | None = Field(description="why the game is over in this position; null while it goes on")
    result: Literal["1-0", "0-1", "1/2-1/2"] | None = Field(description="the game's result when it is over")
    best_move: str | None = Field(description="UCI; null when the game is over")
    best_move_san: str | None
    ponder: str | None = Field(description="the expected reply, UCI")
    ponder_san: str | None
    score: Score = Field(description="from the side to move")
    score_white: Score = Field(description="the same score from White's point of view")
    depth: int
    seldepth: int
    nodes: int
    nps: int
    time_ms: int = Field(description="search time")
    budget_ms: int = Field(description="the time limit the search was given")
    hash_mb: int = Field(description="transposition table size")
    hashfull: int = Field(description="permille of the transposition table in use")
    pv: list[str] = Field(description="principal variation, UCI")
    pv_san: list[str] = Field(description="principal variation, SAN")
    lines: list[Line] = Field(description="one per multipv, best first")
    engine: EngineInfo


class FieldError(BaseModel):
    field: str = Field(description='the request field at fault ("body" for the request as a whole)')
    reason: str


class ErrorBody(BaseModel):
    status: int
    message: str = Field(description="the first error, as one sentence")
    errors: list[FieldError]
    request_id: str = Field(description="quote it when reporting a problem: it is in the function's logs")


def error_responses(*codes):
    """OpenAPI `responses` entries for the error statuses a route can answer."""
    texts = {400: "unreadable request (not JSON, not an object)", 404: "no such resource", 413: "body too large",
             415: "body is not JSON", 422: "a field is missing, unknown, of the wrong type, out of range, or not "
                                           "a legal FEN / move", 503: "a service the function needs refused"}
    return {code: {"description": texts[code], "content": {"application/json": {"model": ErrorBody}}}
            for code in codes}


# --- errors and limits ----------------------------------------------------------------------------


class InputError(Exception):
    """A request the API refuses: answered with `status` and the field at fault (or several)."""

    def __init__(self, status, field, reason, more=()):
        super().__init__(f"{field}: {reason}")
        self.status, self.field, self.reason = status, field, reason
        self.errors = [{"field": field, "reason": reason}, *more]


def json_body_reader(max_bytes):
    """A resolver's JSON body reader that applies a size limit before parsing."""

    def read(text):
        if text is None:
            return None  # no body: validation answers "body: Field required"
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise InputError(413, "body", f"the body is {size} bytes; the limit is {max_bytes}")
        return json.loads(text)

    return read


read_json_body = json_body_reader(MAX_BODY_BYTES)


def budget_ms(movetime_ms, remaining_ms):
    """The search deadline: the request's movetime, cut to what the Lambda has left less a margin."""
    margin = int(os.environ.get("KIBITZ_SAFETY_MARGIN_MS", DEFAULT_SAFETY_MARGIN_MS))
    return max(1, min(movetime_ms, remaining_ms - margin))


def hash_size_mb(budget_ms=None):
    """The transposition table for a search of budget_ms: KIBITZ_HASH_MB, or with "auto" a power of two
    sized from the function's memory and cut to what the budget can fill (memory a search never writes
    would only cost its first touch)."""
    value = os.environ.get("KIBITZ_HASH_MB", "auto")
    if value != "auto":
        return int(value)
    memory_mb = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1769"))
    cap = 1 << (max(1, int(memory_mb * HASH_MB_PER_MB_MEMORY)).bit_length() - 1)
    if budget_ms is None:
        return cap
    fill = max(1, -(-int(budget_ms) * HASH_KB_PER_MS // 1024))
    return min(cap, 1 << (fill - 1).bit_length())


# --- engine.result.Analysis -> Analysis -----------------------------------------------------------


def score(s):
    return Mate(mate=s.mate) if s.mate is not None else Cp(cp=s.cp)


def answer(found, budget, hash_mb):
    """engine.result.Analysis -> the API's Analysis, with SAN and White's view added."""
    from engine.san import line_san

    side = found.side_to_move
    lines = [Line(multipv=line.multipv, score=score(line.score), score_white=score(line.score.for_white(side)),
                  depth=line.depth, seldepth=line.seldepth, pv=list(line.pv), pv_san=line_san(found.fen, line.pv))
             for line in found.lines]
    pv_san = lines[0].pv_san if lines else []
    if found.ponder and found.pv[1:2] != (found.ponder,):  # the ponder move came from the hash table
        ponder_san = line_san(found.fen, [found.best_move, found.ponder])[1]
    else:
        ponder_san = pv_san[1] if found.ponder else None
    result = None
    if found.terminal == "checkmate":
        result = "0-1" if side == "white" else "1-0"
    elif found.terminal is not None:
        result = "1/2-1/2"
    return Analysis(
        fen=found.fen, side_to_move=side, game_over=found.terminal, result=result, best_move=found.best_move,
        best_move_san=pv_san[0] if pv_san else None, ponder=found.ponder, ponder_san=ponder_san,
        score=score(found.score), score_white=score(found.score.for_white(side)), depth=found.depth,
        seldepth=found.seldepth, nodes=found.nodes, nps=found.nps, time_ms=found.time_ms, budget_ms=budget,
        hash_mb=hash_mb, hashfull=found.hashfull, pv=list(found.pv), pv_san=pv_san, lines=lines,
        engine=EngineInfo(name=ENGINE_NAME, version=engine.__version__, backend=found.backend),
    )
