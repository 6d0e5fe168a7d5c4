"""engine.analyse() through the shared analysis cache: answer from it when it holds an analysis at
least as deep as the request would reach, else search and keep the result if it is deeper.

    found, outcome = analyse_cached(fen, moves, limits, budget_ms, hash_mb, store, started_ns)

limits: SearchLimits (its `cache`: "on", "off" = no read, no write, "refresh" = search, then write).
store: functions.common.analysis.cache_store.CacheStore, or None (no cache). outcome: what the cache did, for
the answer's `cached` and the handler's log ("hit", "stored", "kept", "miss", "bypass", "off",
"unavailable", "poisoned" ...).

"Deep enough": an entry keeps, per multipv, the deepest analysis and, per time budget it was
searched with (the last MAX_BUDGETS), the depth that budget reached the last time. A request is
served when any limit it sets would stop its search no deeper than the entry:
  - depth D:         entry depth >= D;
  - nodes N:         entry nodes >= N (a search of at least as many nodes from an empty table);
  - movetime T (always set): entry depth >= the depth a budget T' >= T reached the last time
                     (more time reaches at least as deep, so T would reach no deeper);
  - a mate the engine would stop on (found at depth >= 2|mate| + 4) serves any request.
A request with a budget never seen before, larger than every recorded one, searches; its depth is
recorded for the next. The halfmove clock's rule is engine.cache_key.clock_safe.

Poisoned entries: an entry that does not parse, or whose lines are not legal from the position, is
ignored (a miss) and overwritten by the search's result. Only the functions can write the table (IAM).
"""

import dataclasses
import json

from engine import analyse, cache_key, game_over, native, tablebase
from engine.board import Board, IllegalMoveError
from engine.limits import MAX_DEPTH
from engine.result import Analysis, Line, Score
from functions.common.analysis.cache_store import CacheUnavailable

MAX_BUDGETS = 8
ENTRY_VERSION = 1


@dataclasses.dataclass(frozen=True)
class CacheOutcome:
    cached: bool
    event: str  # hit, stored, kept, raced, unsafe, off, bypass, tablebase, none, unavailable (+ poisoned: a bad entry)
    detail: str | None = None


def analyse_cached(fen, moves, limits, budget_ms, hash_mb, store, started_ns=None, threads=1, on_info=None,
                   stop=None, chess960=False, board=None, game=None):
    """(engine.result.Analysis, CacheOutcome). Raises FenError / IllegalMoveError as engine.analyse().
    on_info, stop: engine.analyse()'s (the live stream, functions/live/app.py). A search that `stop` ended
    early is kept if deeper, but its depth is not recorded as what its time budget reaches.
    chess960: the position is Chess960's (engine.board.Board). board: the position's Board instead of fen
    and moves (an S3 chunk has it already). store: a CacheStore, or a cache_batch.CacheBatch (an S3 chunk's).
    game: engine.analyse()'s (a chunk's game kept from ply to ply); its answers are cached under their own
    key (engine.cache_key GAME_TABLE), searched with the analysis profile all the same."""
    board = board if board is not None else Board.from_moves(fen, moves, chess960=chess960)
    tables = getattr(limits, "tablebases", True)

    def search():
        # profile: an answer's parameters even with a game's table kept (the game profile is for moves played)
        return analyse(board=board, movetime_ms=budget_ms, depth=limits.depth, nodes=limits.nodes,
                       multipv=limits.multipv, hash_mb=hash_mb, started_ns=started_ns, threads=threads,
                       on_info=on_info, stop=stop, game=game, profile="analysis", tablebases=tables)

    mode = getattr(limits, "cache", "on")
    if store is None or mode == "off":
        return search(), CacheOutcome(False, "none" if store is None else "off")
    if game_over.reason(board) is not None:  # answered by the rules, no search: nothing to keep
        return search(), CacheOutcome(False, "bypass")
    if tables and tablebase.in_reach(board):  # the tables answer it in milliseconds, and an entry has no `tablebase`
        return search(), CacheOutcome(False, "tablebase")
    key = cache_key.key(board, tables, game_table=game is not None)  # a kept table's answer is not a fresh one's
    multipv = min(limits.multipv, len(board.legal_moves()))
    try:
        old = store.get(key, multipv)
    except CacheUnavailable as e:
        return search(), CacheOutcome(False, "unavailable", str(e))
    entry, poisoned = read_entry(old, board, multipv)
    if mode == "on" and entry is not None and serves(entry, limits, budget_ms, board.halfmove_clock):
        return to_analysis(entry["analysis"], board), CacheOutcome(True, "hit")
    found = search()
    stopped = stop is not None and stop.is_set()
    new = updated_entry(entry, found, budget_ms, board.halfmove_clock, refresh=mode == "refresh",
                        timed=_ended_by_time(found, limits) and not stopped)
    if new is None:
        event = "unsafe"  # the search may have seen the fifty-move rule: not for other clocks
    elif new == entry:
        event = "kept"
    else:
        try:
            event = "stored" if store.put(key, multipv, json.dumps(new, separators=(",", ":")), old) else "raced"
        except CacheUnavailable as e:
            return found, CacheOutcome(False, "unavailable", str(e))
    return found, CacheOutcome(False, event, "poisoned entry overwritten" if poisoned else None)


# --- entries --------------------------------------------------------------------------------------


def serves(entry, limits, budget_ms, clock):
    a = entry["analysis"]
    if not cache_key.clock_safe(clock, a["seldepth"]):
        return False
    mate = a["lines"][0]["score"].get("mate")
    if mate is not None and a["depth"] >= 2 * abs(mate) + 4:
        return True
    if limits.depth is not None and a["depth"] >= limits.depth:
        return True
    if limits.nodes is not None and a["nodes"] >= limits.nodes:
        return True
    reached = [d for t, d in entry["budgets"].items() if int(t) >= budget_ms]
    return bool(reached) and a["depth"] >= min(reached)


def _ended_by_time(found, limits):
    """Whether the time budget ended the search (not its depth or nodes limit, nor a mate found)."""
    mate = found.score.mate
    return (limits.depth is None or found.depth < limits.depth) and \
        (limits.nodes is None or found.nodes < limits.nodes) and (mate is None or found.depth < 2 * abs(mate) + 4)


def updated_entry(entry, found, budget_ms, clock, refresh=False, timed=True):
    """The entry to store after a search: the deeper analysis (the new one on a tie with refresh), and,
    when the time budget ended it (`timed`), the depth this budget reached. None when the analysis may
    depend on the halfmove clock."""
    if found.terminal is not None or not found.lines or not cache_key.clock_safe(clock, found.seldepth):
        return None
    budgets = dict(entry["budgets"]) if entry else {}
    if timed:
        budgets.pop(str(budget_ms), None)
        budgets[str(budget_ms)] = found.depth  # the most recent last
    while len(budgets) > MAX_BUDGETS:
        budgets.pop(next(iter(budgets)))
    old = entry["analysis"] if entry else None
    deeper = old is None or found.depth > old["depth"] or (refresh and found.depth >= old["depth"])
    return {"v": ENTRY_VERSION, "analysis": to_entry(found) if deeper else old, "budgets": budgets}


def to_entry(found):
    return {"best_move": found.best_move, "ponder": found.ponder, "depth": found.depth, "seldepth": found.seldepth,
            "nodes": found.nodes, "time_ms": found.time_ms, "nps": found.nps, "hashfull": found.hashfull,
            "lines": [{"multipv": line.multipv, "score": _score(line.score), "depth": line.depth,
                       "seldepth": line.seldepth, "pv": list(line.pv)} for line in found.lines]}


def _score(score):
    return {"mate": score.mate} if score.mate is not None else {"cp": score.cp}


def read_entry(text, board, multipv):
    """(entry, poisoned): the stored entry if it is sound (its lines legal from this position), else
    (None, True); (None, False) for no entry."""
    if text is None:
        return None, False
    try:
        entry = json.loads(text)
        a = entry["analysis"]
        _require(entry["v"] == ENTRY_VERSION and isinstance(entry["budgets"], dict))
        _require(all(isinstance(d, int) and int(t) > 0 for t, d in entry["budgets"].items()))
        for name in ("depth", "seldepth", "nodes", "time_ms", "nps", "hashfull"):
            _require(isinstance(a[name], int) and a[name] >= 0)
        _require(1 <= a["depth"] <= MAX_DEPTH and len(a["lines"]) == multipv)
        for i, line in enumerate(a["lines"], 1):
            _require(line["multipv"] == i and line["pv"] and _valid_score(line["score"]))
            _require(isinstance(line["depth"], int) and isinstance(line["seldepth"], int))
            replay = board.copy()
            for move in line["pv"]:
                replay.push_uci(move)
        _require(a["best_move"] == a["lines"][0]["pv"][0])
        _require(a["ponder"] is None or _legal_reply(board, a["best_move"], a["ponder"]))
    except (ValueError, KeyError, TypeError, IllegalMoveError, AttributeError):
        return None, True
    return entry, False


def _require(ok):
    if not ok:
        raise ValueError("not a sound cache entry")


def _valid_score(score):
    return isinstance(score, dict) and len(score) == 1 and (
        isinstance(score.get("cp"), int) and abs(score["cp"]) < 100_000 or isinstance(score.get("mate"), int))


def _legal_reply(board, move, reply):
    """True, or IllegalMoveError / AttributeError (not a string)."""
    replay = board.copy()
    replay.push_uci(move)
    replay.push_uci(reply)
    return True


def _score_of(d):
    return Score(mate=d["mate"]) if "mate" in d else Score(cp=d["cp"])


def to_analysis(a, board):
    """The engine.result.Analysis of a stored analysis, for this position (its FEN and clocks)."""
    lines = tuple(Line(multipv=line["multipv"], score=_score_of(line["score"]), pv=tuple(line["pv"]),
                       depth=line["depth"], seldepth=line["seldepth"]) for line in a["lines"])
    return Analysis(fen=board.fen(), side_to_move="white" if board.side == 0 else "black", best_move=a["best_move"],
                    ponder=a["ponder"], score=lines[0].score, depth=a["depth"], seldepth=a["seldepth"],
                    nodes=a["nodes"], time_ms=a["time_ms"], nps=a["nps"], hashfull=a["hashfull"], pv=lines[0].pv,
                    lines=lines, terminal=None, backend=native.BACKEND, chess960=board.chess960)
