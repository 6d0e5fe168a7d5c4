"""The analysis API: POST /analyze and GET /analyze, behind API Gateway (REST), on AWS Lambda.

A thin adapter in the Powertools style: pydantic models say what a request and an answer are, the
resolver validates, `engine.analyse()` thinks. Importing this module imports the engine, which builds
its attack tables once per process (Lambda's init phase); every warm invocation reuses them.

Configuration (environment variables declared in template.yaml):
    KIBITZ_HASH_MB            transposition table per request, in MB ("auto": sized from the memory)
    KIBITZ_SAFETY_MARGIN_MS   time kept back from the Lambda deadline for answering (default 1000)
    CORS_ORIGIN               Access-Control-Allow-Origin (default "*")
    POWERTOOLS_*              service name, metrics namespace, log level (Powertools reads them)
"""

import json
import os
import re
from typing import Annotated, Literal

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler.api_gateway import APIGatewayRestResolver, CORSConfig, Response
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit
from pydantic import BaseModel, ConfigDict, Field, field_validator

import engine
from engine.analysis import MAX_DEPTH, analyse
from engine.board import IllegalMoveError
from engine.fen import FenError
from engine.layout import MAX_MULTIPV
from engine.san import line_san

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
HASH_MB_PER_MB_MEMORY = 1 / 16  # "auto": the largest power of two under 1/16 of the function's memory

GameOver = Literal["checkmate", "stalemate", "insufficient material", "fifty-move rule", "threefold repetition"]

# --- requests -------------------------------------------------------------------------------------

STARTPOS_EXAMPLE = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class AnalyzeParams(BaseModel):
    """What to analyse and for how long. The search ends at whichever limit it reaches first;
    the time limit always applies."""

    model_config = ConfigDict(extra="forbid")

    fen: str = Field(min_length=1, max_length=MAX_FEN_CHARS, examples=[STARTPOS_EXAMPLE],
                     description="the position, as FEN (6 fields, or 4 with the clocks left out)")
    moves: list[str] = Field(default_factory=list, max_length=MAX_MOVES, examples=[["e2e4", "e7e5"]],
                             description="UCI moves played from `fen`, oldest first; the position analysed is "
                                         "the one after them, and they count for repetition draws")
    movetime_ms: int = Field(DEFAULT_MOVETIME_MS, ge=1, le=MAX_MOVETIME_MS,
                             description="time to think, ms (cut to the Lambda's remaining time less a margin)")
    depth: int | None = Field(None, ge=1, le=MAX_DEPTH, description="stop after this many plies")
    nodes: int | None = Field(None, ge=1, le=MAX_NODES, description="stop after about this many nodes")
    multipv: int = Field(1, ge=1, le=MAX_MULTIPV, description="how many best lines to report")

    @field_validator("moves", mode="before")
    @classmethod
    def _split_moves(cls, value):
        """Accept "e2e4 e7e5" or "e2e4,e7e5" as well as a list."""
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return [move for item in value for move in re.split(r"[\s,]+", item) if move]
        return value


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


RESPONSES = {200: {"description": "the analysis", "content": {"application/json": {"model": Analysis}}}} | {
    code: {"description": text, "content": {"application/json": {"model": ErrorBody}}}
    for code, text in ((400, "unreadable request (not JSON, not an object)"), (413, "body too large"),
                       (415, "body is not JSON"), (422, "a field is missing, unknown, of the wrong type, "
                                                      "out of range, or not a legal FEN / move"))
}

# --- the function ---------------------------------------------------------------------------------


class InputError(Exception):
    """A request the API refuses: answered with `status` and the field at fault."""

    def __init__(self, status, field, reason):
        super().__init__(f"{field}: {reason}")
        self.status, self.field, self.reason = status, field, reason


def read_json_body(text):
    """The resolver's JSON body reader, with the size limit applied before parsing."""
    if text is None:
        return None  # no body: validation answers "body: Field required"
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BODY_BYTES:
        raise InputError(413, "body", f"the body is {size} bytes; the limit is {MAX_BODY_BYTES}")
    return json.loads(text)


logger = Logger()
tracer = Tracer(auto_patch=False)  # the function calls no AWS service: nothing to patch
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Kibitz"))
app = APIGatewayRestResolver(
    enable_validation=True,
    cors=CORSConfig(allow_origin=os.environ.get("CORS_ORIGIN", "*"), max_age=600),
    json_body_deserializer=read_json_body,
)
app.enable_swagger(path="/swagger", title="Kibitz analysis API", version=engine.__version__,
                   description="Best move, score and principal variation of a chess position. See README.md.")


@app.post("/analyze", summary="Analyse a position (JSON body)", responses=RESPONSES)
def analyze_post(request: Annotated[AnalyzeBody, Body()]) -> Analysis:
    return run(request)


@app.get("/analyze", summary="Analyse a position (query parameters)", responses=RESPONSES)
def analyze_get(request: Annotated[AnalyzeQuery, Query()]) -> Analysis:
    unknown = sorted(set(app.current_event.query_string_parameters or {}) - set(AnalyzeQuery.model_fields))
    if unknown:
        raise InputError(422, unknown[0], "unknown query parameter; expected one of "
                         + ", ".join(AnalyzeQuery.model_fields))
    return run(request)


@tracer.capture_method
def run(request):
    budget = budget_ms(request.movetime_ms)
    hash_mb = hash_size_mb()
    try:
        found = analyse(request.fen, request.moves, movetime_ms=budget, depth=request.depth, nodes=request.nodes,
                        multipv=request.multipv, hash_mb=hash_mb)
    except FenError as e:
        raise InputError(422, "fen", str(e)) from e
    except IllegalMoveError as e:
        raise InputError(422, "moves", str(e)) from e
    except OverflowError as e:  # engine.fen accepts clocks the board's int32 cannot hold
        raise InputError(422, "fen", "invalid FEN: the halfmove or fullmove number is too large") from e
    metrics.add_metric("Nodes", MetricUnit.Count, found.nodes)
    metrics.add_metric("NodesPerSecond", MetricUnit.CountPerSecond, found.nps)
    metrics.add_metric("Depth", MetricUnit.Count, found.depth)
    metrics.add_metric("SearchTime", MetricUnit.Milliseconds, found.time_ms)
    metrics.add_metric("Budget", MetricUnit.Milliseconds, budget)
    logger.info("analysed", extra={"fen": found.fen, "depth": found.depth, "nodes": found.nodes,
                                   "time_ms": found.time_ms, "budget_ms": budget, "game_over": found.terminal})
    return answer(found, budget, hash_mb)


def budget_ms(movetime_ms):
    """The search deadline: the request's movetime, cut to what the Lambda has left less a margin."""
    margin = int(os.environ.get("KIBITZ_SAFETY_MARGIN_MS", DEFAULT_SAFETY_MARGIN_MS))
    remaining = app.lambda_context.get_remaining_time_in_millis() - margin
    return max(1, min(movetime_ms, remaining))


def hash_size_mb():
    value = os.environ.get("KIBITZ_HASH_MB", "auto")
    if value != "auto":
        return int(value)
    memory_mb = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1769"))
    return 1 << (max(1, int(memory_mb * HASH_MB_PER_MB_MEMORY)).bit_length() - 1)


def score(s):
    return Mate(mate=s.mate) if s.mate is not None else Cp(cp=s.cp)


def answer(found, budget, hash_mb):
    """engine.result.Analysis -> the API's Analysis, with SAN and White's view added."""
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


# --- errors: every one answers JSON naming the field and the reason -------------------------------


def error_response(status, errors):
    context = app.current_event.request_context
    request_id = context.request_id or app.lambda_context.aws_request_id
    first = errors[0]
    body = ErrorBody(status=status, message=f"{first['field']}: {first['reason']}",
                     errors=[FieldError(**e) for e in errors], request_id=request_id)
    return Response(status_code=status, content_type="application/json", body=body.model_dump_json())


def rejected(status, errors):
    metrics.add_metric("RejectedRequests", MetricUnit.Count, 1)
    logger.info("rejected", extra={"status": status, "errors": errors})
    return error_response(status, errors)


@app.exception_handler(InputError)
def input_error(e):
    return rejected(e.status, [{"field": e.field, "reason": e.reason}])


@app.exception_handler(RequestValidationError)
def validation_error(e):
    errors = e.errors()
    content_type = app.current_event.headers.get("content-type", "")
    if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return rejected(415, [{"field": "body", "reason": f"send the body as JSON with Content-Type: "
                                                           f"application/json, not {content_type}"}])
    if any(err["type"] == "json_invalid" for err in errors):
        err = next(err for err in errors if err["type"] == "json_invalid")
        return rejected(400, [{"field": "body", "reason": f"not valid JSON: {err['ctx']['error']} at character "
                                                          f"{err['loc'][-1]}"}])
    fields = [{"field": field_name(err["loc"]), "reason": err["msg"]} for err in errors]
    unreadable = any(f["field"] == "body" for f in fields)  # a JSON array, string or number, or no body
    return rejected(400 if unreadable else 422, fields)


@app.exception_handler(RequestUnsupportedContentType)
def unsupported_content_type(e):
    content_type = app.current_event.headers.get("content-type", "")
    return rejected(415, [{"field": "body", "reason": f"send the body as JSON with Content-Type: application/json, "
                                                      f"not {content_type}"}])


@app.not_found
def not_found(e):
    event = app.current_event
    return rejected(404, [{"field": "path", "reason": f"no route for {event.http_method} {event.path}"}])


@app.exception_handler(Exception)
def unexpected(e):
    logger.exception("unexpected error")
    metrics.add_metric("InternalErrors", MetricUnit.Count, 1)
    return error_response(500, [{"field": "", "reason": "internal error; quote the request id to report it"}])


def field_name(loc):
    """("body", "moves", 3) -> "moves[3]"; ("query", "depth") -> "depth"; ("body",) -> "body"."""
    parts = [p for p in loc[1:] if p != "request"] if len(loc) > 1 else list(loc)
    name = ""
    for p in parts:
        name += f"[{p}]" if isinstance(p, int) else (f".{p}" if name else str(p))
    return name or "body"


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics(capture_cold_start_metric=True)
def lambda_handler(event, context):
    return app.resolve(event, context)
