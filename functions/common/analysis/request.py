"""Analyse a request as the API does, for all four callers (POST /analyze, the live stream, an SQS job's
position, an S3 job's chunk): its threads (the request's, else one per vCPU), its table sized from the
budget, the analysis cache, the answer's model, and bad input as one error naming the field.

    done = analyse_request(fen, moves, limits, budget_ms, cache)      # Analysed, or RequestError
    done.answer (AnalysisAnswer), done.found (engine.result.Analysis), done.outcome (CacheOutcome)

limits: SearchLimits (a request, or a job's options). cache: a CacheStore or None. The error text is
"field: reason" everywhere a reason is a string (a job's failed position); the HTTP and WebSocket answers
carry the same field and reason as {"field", "reason"}.
"""

import dataclasses

from engine.board import IllegalMoveError
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
                    chess960=False, board=None, game=None):
    """Analysed. Raises RequestError for a bad FEN or an illegal move. threads: the request's (None: one per
    vCPU). started_ns, on_info, stop, board, game: analyse_cached's."""
    threads = threads or default_threads()
    hash_mb = hash_size_mb(budget_ms, threads)
    try:
        found, outcome = analyse_cached(fen, moves, limits, budget_ms, hash_mb, cache, started_ns, threads=threads,
                                        on_info=on_info, stop=stop, chess960=chess960, board=board, game=game)
    except FenError as e:
        raise RequestError("fen", str(e)) from e
    except IllegalMoveError as e:
        raise RequestError("moves", str(e)) from e
    answer = AnalysisAnswer.of(found, budget_ms, hash_mb, threads, cached=outcome.cached)
    return Analysed(answer, found, outcome, budget_ms, hash_mb, threads)
