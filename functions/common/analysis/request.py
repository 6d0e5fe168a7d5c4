"""Analyse a request as the API does, for all four callers (POST /analyze, the live stream, an SQS job's
position, an S3 job's chunk): its threads (the request's, else one per vCPU), its table sized from the
budget, the analysis cache, the answer's model, and bad input as one error naming the field.

    done = analyse_request(fen, moves, limits, budget_ms, cache)      # Analysed, or RequestError
    done.answer (AnalysisAnswer), done.found (engine.result.Analysis), done.outcome (CacheOutcome)

limits: SearchLimits (a request, or a job's options). cache: a CacheStore or None. The error text is
"field: reason" everywhere a reason is a string (a job's failed position); the HTTP and WebSocket answers
carry the same field and reason as {"field", "reason"}.

explain and threats (POST /analyze's, the live stream's) go around the cache, not into its key: the
reasons are a function of the position and the lines alone (engine/coached.py), so a cached answer is
enriched with exactly what the search that made it would have said, and one entry serves requests with
and without them. The threat is a search of its own, of the null-move position, through the cache too
(a position like any other, under its own key); it takes its fifth of the budget (and of the nodes) out
of the main search's, which is searched, and recorded in the cache, as a request of the remaining
four fifths.
"""

import dataclasses
import time

from engine import coached
from engine.board import Board, IllegalMoveError
from engine.fen import FenError
from functions.common.analysis.budget import default_threads, hash_size_mb
from functions.common.analysis.cache import analyse_cached
from functions.common.api.models import AnalysisAnswer


class RequestError(ValueError):
    """A position that cannot be analysed: the field at fault ("fen", "moves") and why."""

    def __init__(self, field, reason):
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason


@dataclasses.dataclass(frozen=True)
class Analysed:
    answer: AnalysisAnswer
    found: object  # engine.result.Analysis
    outcome: object  # functions.common.analysis.cache.CacheOutcome
    budget_ms: int
    hash_mb: int
    threads: int


def analyse_request(fen, moves, limits, budget_ms, cache, *, threads=None, started_ns=None, on_info=None, stop=None,
                    chess960=False, board=None, game=None, explain=False, threats=False):
    """Analysed. Raises RequestError for a bad FEN or an illegal move. threads: the request's (None: one per
    vCPU). started_ns, on_info, stop, board, game: analyse_cached's. explain, threats: engine.analyse()'s,
    as the module says."""
    threads = threads or default_threads()
    hash_mb = hash_size_mb(budget_ms, threads)
    started_ns = started_ns or time.monotonic_ns()
    main_ms, threat_ms = coached.split_ms(budget_ms) if threats else (budget_ms, 0)
    main_limits, threat_limits = limits, limits
    if threats and limits.nodes:
        main_nodes, threat_nodes = coached.split_nodes(limits.nodes)
        main_limits = limits.model_copy(update={"nodes": main_nodes})
        threat_limits = limits.model_copy(update={"nodes": threat_nodes})
    try:
        found, outcome = analyse_cached(fen, moves, main_limits, main_ms, hash_mb, cache, started_ns, threads=threads,
                                        on_info=on_info, stop=stop, chess960=chess960, board=board, game=game)
    except FenError as e:
        raise RequestError("fen", str(e)) from e
    except IllegalMoveError as e:
        raise RequestError("moves", str(e)) from e
    if explain:
        found = coached.explained(found)
    if threats and found.terminal is None and not (stop is not None and stop.is_set()):
        found = _with_threat(found, threat_limits, budget_ms, threat_ms, hash_mb, cache, started_ns, threads)
    answer = AnalysisAnswer.of(found, budget_ms, hash_mb, threads, cached=outcome.cached)
    return Analysed(answer, found, outcome, budget_ms, hash_mb, threads)


def _with_threat(found, limits, budget_ms, threat_ms, hash_mb, cache, started_ns, threads):
    """found with its threat: a search of the null-move position, at most threat_ms and never past the
    request's budget (None when the side to move is in check)."""
    null = coached.null_board(Board(found.fen, chess960=found.chess960))
    if null is None:
        return found
    now = time.monotonic_ns()
    left_ms = max(1, min(threat_ms, budget_ms - (now - started_ns) // 1_000_000))
    searched, _ = analyse_cached(None, (), limits, left_ms, hash_mb, cache, now, threads=threads, board=null)
    return dataclasses.replace(found, threat=coached.threat_of(null, searched))
