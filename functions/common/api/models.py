"""The analysis API's models: what a request and an answer are, for /analyze and for batch jobs, and
the body of every error answer.

AnalyzeFunction answers an `AnalysisAnswer` per request; BatchFunction stores the same answer per
position of a job, both made by `AnalysisAnswer.of()` from the engine's result (engine.result.Analysis:
the API's models are named *Answer so that the two are never confused). Importing this module loads
no compiled engine code: the bounds come from engine.limits and engine.layout.
"""

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

import engine
from engine import game_over, openings, wdl
from engine.fen import STARTPOS
from engine.layout import MAX_MULTIPV
from engine.limits import MAX_DEPTH, MAX_THREADS
from engine.result import Score
from functions.common import settings

DEFAULT_MOVETIME_MS = 1000
# API Gateway gives up on the integration after 29 s; the search ends by 25 s, which leaves room for
# a cold start and the answer. The Lambda timeout (30 s) is a second, later guard.
MAX_MOVETIME_MS = 25_000
# A deployment may cap it lower (template parameter MaxMovetimeMs): checked per request, so that the OpenAPI
# document (maximum 25000) is the same everywhere and the 422 states this deployment's cap.
MOVETIME_CAP_VARIABLE = "KIBITZ_MAX_MOVETIME_MS"
MAX_NODES = 10**12
MAX_MOVES = 1000  # a long game is 300 plies
MAX_FEN_CHARS = 128

GameOver = Literal[game_over.REASONS]


def split_moves(value):
    """Accept "e2e4 e7e5" or "e2e4,e7e5" as well as a list of UCI moves."""
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [move for item in value for move in re.split(r"[\s,]+", item) if move]
    return value


# --- requests -------------------------------------------------------------------------------------


def movetime_cap_ms():
    """This deployment's longest movetime: KIBITZ_MAX_MOVETIME_MS, never above MAX_MOVETIME_MS."""
    value = settings.text(MOVETIME_CAP_VARIABLE, "")
    return min(MAX_MOVETIME_MS, int(value)) if value.isdigit() else MAX_MOVETIME_MS


Variant = Literal["standard", "chess960"]


CacheMode = Literal["on", "off", "refresh"]


class SearchLimits(BaseModel):
    """How long to think. The search ends at whichever limit it reaches first; the time limit always applies."""

    model_config = ConfigDict(extra="forbid")

    movetime_ms: int = Field(DEFAULT_MOVETIME_MS, ge=1, le=MAX_MOVETIME_MS,
                             description="time to think, ms (cut to the Lambda's remaining time less a margin). A "
                                         "deployment may cap it lower (MaxMovetimeMs, default 10000): a larger value "
                                         "is a 422 stating the cap")
    depth: int | None = Field(None, ge=1, le=MAX_DEPTH, description="stop after this many plies")
    nodes: int | None = Field(None, ge=1, le=MAX_NODES, description="stop after about this many nodes")
    multipv: int = Field(1, ge=1, le=MAX_MULTIPV, description="how many best lines to report")
    threads: int | None = Field(None, ge=1, le=MAX_THREADS,
                                description="searching threads (Lazy SMP); default: one per full vCPU of the "
                                            "function (its memory / 1769 MB)")
    cache: CacheMode = Field("on", description="the shared analysis cache: on (answer from it when it holds an "
                                               "analysis at least as deep, else search and keep), off (no read, no "
                                               "write), refresh (search, then write)")
    tablebases: bool = Field(True, description="the endgame tables (every position of up to four pieces): a "
                                               "position within them is answered from them (`tablebase`), a "
                                               "search scores the positions it reaches within them by them; "
                                               "false searches as if there were none")


class RequestLimits(SearchLimits):
    """The limits as a request gives them (POST and GET /analyze, POST /jobs): movetime_ms is checked
    against this deployment's cap. What is stored and queued is the plain SearchLimits (limits())."""

    @field_validator("movetime_ms")
    @classmethod
    def _capped(cls, value):
        cap = movetime_cap_ms()
        if value > cap:
            raise PydanticCustomError("movetime_cap", "{value} ms is over this deployment's cap of {cap} ms",
                                      {"value": value, "cap": cap})
        return value

    def limits(self):
        return SearchLimits(**{name: getattr(self, name) for name in SearchLimits.model_fields})


class PositionFields(BaseModel):
    """A position: a FEN, and the moves played from it."""

    fen: str = Field(min_length=1, max_length=MAX_FEN_CHARS, examples=[STARTPOS],
                     description="the position, as FEN (6 fields, or 4 with the clocks left out)")
    moves: list[str] = Field(default_factory=list, max_length=MAX_MOVES, examples=[["e2e4", "e7e5"]],
                             description="UCI moves played from `fen`, oldest first; the position analysed is "
                                         "the one after them, and they count for repetition draws")

    @field_validator("moves", mode="before")
    @classmethod
    def _split_moves(cls, value):
        return split_moves(value)


# The position's fields first, then the limits': pydantic orders a model's fields from its last base
# to its first, and the document and the errors list them in that order.
class AnalyzeParams(RequestLimits, PositionFields):
    """What to analyse and for how long. The search ends at whichever limit it reaches first;
    the time limit always applies."""

    model_config = ConfigDict(extra="forbid")

    variant: Variant = Field("standard", description="the rules: standard chess, or Chess960 (castling rights in "
                                                     "X-FEN or Shredder-FEN for any king and rook squares, castling "
                                                     "moves written king-to-rook in UCI: e1h1)")
    explain: bool = Field(False, description="each line (and `reason`, the best move's) carries the coach's reason: "
                                             "what its moves show (a mate, material won with the piece and square, "
                                             "a fork, pin or skewer, the exchange, a promotion), as a structure "
                                             "and a sentence (docs/api.md, \"Reasons and threats\")")
    threats: bool = Field(False, description="answer `threat`: the opponent's best move if it were their turn (a "
                                             "search of the null-move position with a fifth of the budget, taken "
                                             "out of the main search's), with its score and reason; null when the "
                                             "side to move is in check")


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


ScoreAnswer = Cp | Mate


def score_answer(score):
    """engine.result.Score -> Cp or Mate."""
    return Mate(mate=score.mate) if score.mate is not None else Cp(cp=score.cp)


class WdlAnswer(BaseModel):
    """engine/wdl.py's model: permille from the side to move, summing to 1000."""

    win: int = Field(ge=0, le=1000)
    draw: int = Field(ge=0, le=1000)
    loss: int = Field(ge=0, le=1000)


def wdl_answer(triple):
    return WdlAnswer(win=triple[0], draw=triple[1], loss=triple[2])


class ReasonAnswer(BaseModel):
    """The coach's reason (engine/coach): what a line shows, from its own moves and static exchange."""

    kind: str = Field(description="what happens: mate, mated, material, exchange, fork, pin, skewer, promotion, "
                                  "sacrifice, loses_material, quiet, loses, ... (engine/coach/reason.py KINDS)")
    side: Literal["white", "black"] = Field(description="whose line it is")
    text: str = Field(description="the reason as a sentence")
    pieces: list[str] = Field(description="the pieces it names (pawn, knight, ...), in the order of `squares`")
    squares: list[str] = Field(description="where they stand")
    moves: list[str] = Field(description="the moves that show it, UCI, from the position")
    san: list[str] = Field(description="the same moves in SAN")
    material: int | None = Field(None, description="the side's net material along those moves, in pawns")
    mate: int | None = Field(None, description="moves to mate (> 0 the side mates, < 0 it is mated)")
    themes: list[str] = Field(default_factory=list, description="puzzle themes (Lichess's names: fork, pin, ...)")


def reason_answer(reason):
    """engine.coach.Reason (or None) -> ReasonAnswer (or None)."""
    if reason is None:
        return None
    d = reason.to_dict()
    d["text"] = reason.sentence()
    return ReasonAnswer(**d)


def opening_answer(opening):
    """engine.openings.Opening (or None) -> OpeningAnswer (or None)."""
    return OpeningAnswer(eco=opening.eco, name=opening.name) if opening is not None else None


class ThreatAnswer(BaseModel):
    move: str = Field(description="the opponent's best move if it were their turn, UCI")
    san: str
    score: ScoreAnswer = Field(description="from the opponent's side")
    pv: list[str] = Field(description="the threat's line, UCI")
    pv_san: list[str]
    depth: int
    nodes: int
    time_ms: int = Field(description="the threat search's time, within the request's budget")
    reason: ReasonAnswer | None


def threat_answer(threat):
    if threat is None:
        return None
    return ThreatAnswer(move=threat.move, san=threat.san, score=score_answer(threat.score), pv=list(threat.pv),
                        pv_san=list(threat.pv_san), depth=threat.depth, nodes=threat.nodes, time_ms=threat.time_ms,
                        reason=reason_answer(threat.reason))


class OpeningAnswer(BaseModel):
    """The position's opening by lichess-org/chess-openings (CC0), matched by position (engine/openings.py)."""

    eco: str = Field(description="ECO code, e.g. B90")
    name: str = Field(description="e.g. Sicilian Defense: Najdorf Variation")


class LineAnswer(BaseModel):
    multipv: int = Field(description="1 for the best line, 2 for the next, ...")
    score: ScoreAnswer = Field(description="from the side to move")
    score_white: ScoreAnswer = Field(description="the same score from White's point of view")
    wdl: WdlAnswer = Field(description="win/draw/loss permille from the side to move, for this line's score")
    depth: int
    seldepth: int
    pv: list[str] = Field(description="the line in UCI")
    pv_san: list[str] = Field(description="the line in SAN")
    reason: ReasonAnswer | None = Field(None, description="what the line shows (with `explain`)")


class TablebaseAnswer(BaseModel):
    """A position within the endgame tables (up to four pieces, no castling rights; docs/tablebases.md). The
    tables measure the distance to mate; where the halfmove clock leaves fewer plies than the mate needs, the
    fifty-move rule is judged by the plies to the first zeroing move of the table's line (`dtz`): a win it cuts
    is a cursed win, a loss it saves a blessed loss. `exact` says whether that judgement is certain."""

    category: Literal["win", "cursed-win", "draw", "blessed-loss", "loss"] = Field(
        description="the result for the side to move with best play under the fifty-move rule: cursed-win / "
                    "blessed-loss a table win / loss the rule draws (the halfmove clock leaves too few plies)")
    dtm: int | None = Field(None, description="moves to mate, signed as `mate`: > 0 the side to move mates, < 0 it "
                                              "is mated; null for a draw")
    best: list[str] = Field(description="every move that keeps the result at the best distance, UCI")
    best_san: list[str] = Field(description="the same moves in SAN")
    exact: bool = Field(True, description="whether the category is certain: false when the fifty-move rule was "
                                          "judged along the table's line only (dtz), not by every line")
    dtz: int | None = Field(None, description="plies to the first zeroing move (capture, pawn move or the mate) of "
                                              "the table's line, when the halfmove clock leaves fewer plies than "
                                              "the mate needs; null otherwise")


class EngineInfo(BaseModel):
    name: str
    version: str
    backend: Literal["aot", "jit"] = Field(description="compiled ahead of time, or numba's JIT")


class AnalysisAnswer(BaseModel):
    fen: str = Field(description="the position analysed (after `moves`)")
    variant: Variant = Field("standard", description="the rules the position was analysed under")
    side_to_move: Literal["white", "black"]
    game_over: GameOver | None = Field(description="why the game is over in this position; null while it goes on")
    result: Literal["1-0", "0-1", "1/2-1/2"] | None = Field(description="the game's result when it is over")
    best_move: str | None = Field(description="UCI; null when the game is over")
    best_move_san: str | None
    ponder: str | None = Field(description="the expected reply, UCI")
    ponder_san: str | None
    score: ScoreAnswer = Field(description="from the side to move")
    score_white: ScoreAnswer = Field(description="the same score from White's point of view")
    wdl: WdlAnswer = Field(description="win/draw/loss permille from the side to move (engine/wdl.py's model)")
    win_chance: float = Field(ge=0, le=100, description="White's expected score in percent (a win 100, a draw "
                                                        "50): 50 is even")
    depth: int
    seldepth: int
    nodes: int
    nps: int
    time_ms: int = Field(description="search time")
    budget_ms: int = Field(description="the time limit the search was given")
    hash_mb: int = Field(description="transposition table size")
    threads: int = Field(1, description="searching threads (Lazy SMP)")
    hashfull: int = Field(description="permille of the transposition table in use")
    pv: list[str] = Field(description="principal variation, UCI")
    pv_san: list[str] = Field(description="principal variation, SAN")
    lines: list[LineAnswer] = Field(description="one per multipv, best first")
    cached: bool = Field(description="answered from the shared analysis cache (the figures are those of the "
                                     "search that made it)")
    tablebase: TablebaseAnswer | None = Field(None, description="the endgame tables' answer for a position within "
                                                                "them; null otherwise (or with tablebases false)")
    tbhits: int = Field(0, description="endgame table probes this answer made")
    engine: EngineInfo
    reason: ReasonAnswer | None = Field(None, description="the best move's reason (with `explain`)")
    opening: OpeningAnswer | None = Field(None, description="the opening this position is, by its pieces (a "
                                                            "transposition too): null when it has no name")
    threat: ThreatAnswer | None = Field(None, description="the opponent's threat (with `threats`); null when not "
                                                          "asked, when the side to move is in check, or the game "
                                                          "is over")

    @model_validator(mode="before")
    @classmethod
    def _stored_before_wdl(cls, data):
        """A job result stored before answers had wdl, win_chance and cached (results live ResultsTtlDays)
        reads as one made now: the model's figures from its score, not cached."""
        if not isinstance(data, dict) or "wdl" in data or not isinstance(data.get("score"), dict):
            return data

        def triple(score):
            return wdl.wdl(Score(mate=score["mate"]) if "mate" in score else Score(cp=score.get("cp", 0)), m)

        m = wdl.material(data.get("fen", STARTPOS))
        over = data.get("game_over")
        w, d, lo = ((0, 0, 1000) if over == "checkmate" else (0, 1000, 0)) if over else triple(data["score"])
        lines = [{**line, "wdl": dict(zip(("win", "draw", "loss"), triple(line["score"]), strict=True))}
                 if isinstance(line, dict) and "wdl" not in line and isinstance(line.get("score"), dict) else line
                 for line in data.get("lines") or []]
        return {**data, "wdl": {"win": w, "draw": d, "loss": lo}, "lines": lines, "cached": data.get("cached", False),
                "win_chance": round(wdl.win_chance_white(w, d, lo, data.get("side_to_move", "white")), 1)}

    @classmethod
    def of(cls, found, budget_ms, hash_mb, threads=1, cached=False):
        """The answer for engine.result.Analysis `found`: SAN, White's view, WDL and the game's result added."""
        from engine.board import Board  # the compiled engine: not loaded by importing the models
        from engine.san import line_san

        side = found.side_to_move
        m = wdl.material(found.fen)
        board = Board(found.fen, chess960=found.chess960) if found.lines else None  # once for every line's SAN
        lines = [LineAnswer(multipv=line.multipv, score=score_answer(line.score),
                            score_white=score_answer(line.score.for_white(side)),
                            wdl=wdl_answer(wdl.exact(line.score) if found.tablebase else wdl.wdl(line.score, m)),
                            depth=line.depth, seldepth=line.seldepth, pv=list(line.pv), pv_san=line_san(board, line.pv),
                            reason=reason_answer(line.reason))
                 for line in found.lines]
        pv_san = lines[0].pv_san if lines else []
        if found.ponder and found.pv[1:2] != (found.ponder,):  # the ponder move came from the hash table
            ponder_san = line_san(board, [found.best_move, found.ponder])[1]
        else:
            ponder_san = pv_san[1] if found.ponder else None
        triple = wdl.of_analysis(found)
        return cls(
            fen=found.fen, variant="chess960" if found.chess960 else "standard", side_to_move=side,
            game_over=found.terminal, result=game_over.result(found.terminal, side),
            best_move=found.best_move, best_move_san=pv_san[0] if pv_san else None, ponder=found.ponder,
            ponder_san=ponder_san, score=score_answer(found.score),
            score_white=score_answer(found.score.for_white(side)), wdl=wdl_answer(triple),
            win_chance=round(wdl.win_chance_white(*triple, side), 1), depth=found.depth, seldepth=found.seldepth,
            nodes=found.nodes, nps=found.nps, time_ms=found.time_ms, budget_ms=budget_ms, hash_mb=hash_mb,
            threads=threads, hashfull=found.hashfull, pv=list(found.pv), pv_san=pv_san, lines=lines, cached=cached,
            tablebase=TablebaseAnswer(**found.tablebase) if found.tablebase else None, tbhits=found.tbhits,
            engine=EngineInfo(name=engine.NAME, version=engine.__version__, backend=found.backend),
            reason=reason_answer(found.reason), threat=threat_answer(found.threat),
            opening=opening_answer(openings.named(board) if board is not None else None),
        )


# --- errors ---------------------------------------------------------------------------------------


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
             409: "not available in the resource's present state", 415: "body is not JSON",
             422: "a field is missing, unknown, of the wrong type, out of range, or not a legal FEN / move",
             429: "too many requests: API Gateway's throttle or the API key's daily quota (or its jobs a day)",
             503: "busy or unavailable: the function's concurrency is used up (API Gateway's answer), or a "
                  "service it needs refused; try again"}
    return {code: {"description": texts[code], "content": {"application/json": {"model": ErrorBody}}}
            for code in codes}
