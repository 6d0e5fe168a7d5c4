"""The shared analysis cache against moto on 127.0.0.1: hits and misses, the deep-enough rule, cache
off and refresh, poisoned entries, a table that fails (refused, throttled, too slow), concurrent
writers, and /analyze answering `cached`."""

import contextlib
import io
import json
import socket
import threading
import time

import chess
import pytest

from engine.board import Board
from engine.cache_key import key as cache_key
from functions.common.analysis.cache import analyse_cached, read_entry, serves, updated_entry
from functions.common.analysis.cache_store import COOLDOWN_S, CacheStore
from functions.common.api.models import SearchLimits
from functions.common.aws.dynamodb_lite import DynamoDB, DynamoDBError
from kibitz.local.apigateway import proxy_event
from kibitz.local.runtime import FunctionRuntime
from tests.batch_support import moto_env
from tests.conftest import LATE_MS

SICILIAN = "rnbqkbnr/pp2pppp/3p4/2p5/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3"
ITALIAN = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
POSITIONS = ["r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
             "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
             "rnbqkbnr/pp3ppp/4p3/2ppP3/3P4/8/PPP2PPP/RNBQKBNR w KQkq - 0 4",
             "rnbqkb1r/ppp1pppp/5n2/3p4/2PP4/8/PP2PPPP/RNBQKBNR w KQkq - 1 3",
             "r1bqkbnr/pp1ppppp/2n5/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
             "rnbqkbnr/ppp2ppp/4p3/3p4/3PP3/8/PPP2PPP/RNBQKBNR w KQkq - 0 3"]


@pytest.fixture(scope="module")
def aws():
    with moto_env("c") as local:
        yield local


@pytest.fixture
def store(aws):
    return CacheStore(aws.resources["AnalysisCacheTable"]["Ref"])


def limits(**kw):
    return SearchLimits(**{"movetime_ms": 10_000, **kw})


def entry(store, fen, multipv=1):
    return store.get(cache_key(Board(fen)), multipv)


def test_a_second_request_is_answered_from_the_cache(store):
    first, o1 = analyse_cached(SICILIAN, [], limits(depth=7), 10_000, 16, store)
    again, o2 = analyse_cached(SICILIAN, [], limits(depth=7), 10_000, 16, store)
    assert (o1.cached, o1.event, o2.cached, o2.event) == (False, "stored", True, "hit")
    assert (again.best_move, again.pv, again.score, again.depth, again.lines) == \
        (first.best_move, first.pv, first.score, first.depth, first.lines)
    assert again.fen == SICILIAN and again.nodes == first.nodes  # the figures of the search that made it
    # the same position reached by moves (its history: the last move was a pawn's, so none) hits too
    moved, o3 = analyse_cached(chess.STARTING_FEN, ["e2e4", "c7c5", "g1f3", "d7d6", "d2d4"], limits(depth=5),
                               10_000, 16, store)
    assert o3.cached and moved.best_move == first.best_move and moved.fen == SICILIAN
    # reached with pieces moved since the last pawn move, it has a history the search could return to
    _, o4 = analyse_cached(chess.STARTING_FEN, ["e2e4", "c7c5", "d2d4", "d7d6", "g1f3"], limits(depth=5),
                           10_000, 16, store)
    assert not o4.cached


def test_a_request_is_served_when_the_entry_is_as_deep_as_it_would_reach(store):
    fen = POSITIONS[0]
    _, o = analyse_cached(fen, [], limits(depth=6), 10_000, 16, store)
    assert o.event == "stored"
    found, o = analyse_cached(fen, [], limits(depth=5), 10_000, 16, store)
    assert o.cached and found.depth == 6  # deeper than asked
    found, o = analyse_cached(fen, [], limits(depth=7), 10_000, 16, store)
    assert not o.cached and o.event == "stored" and found.depth == 7
    found, o = analyse_cached(fen, [], limits(depth=6), 10_000, 16, store)
    assert o.cached and found.depth == 7  # the entry keeps the deepest
    _, o = analyse_cached(fen, [], limits(depth=3), 10_000, 16, store)
    assert o.cached
    saved = json.loads(entry(store, fen))
    assert saved["analysis"]["depth"] == 7 and saved["budgets"] == {}  # the depth limit ended them, not the time


def test_a_time_budget_is_served_by_what_that_much_time_reached_before(store):
    fen = POSITIONS[1]
    first, o = analyse_cached(fen, [], limits(movetime_ms=100), 100, 16, store)
    assert o.event == "stored" and json.loads(entry(store, fen))["budgets"] == {"100": first.depth}
    _, o = analyse_cached(fen, [], limits(movetime_ms=100), 100, 16, store)
    assert o.cached  # as deep as 100 ms reached last time
    _, o = analyse_cached(fen, [], limits(movetime_ms=60), 60, 16, store)
    assert o.cached  # less time reaches no deeper
    more, o = analyse_cached(fen, [], limits(movetime_ms=400), 400, 16, store)
    assert not o.cached  # no budget this large was ever recorded: search
    budgets = json.loads(entry(store, fen))["budgets"]
    assert budgets["400"] == more.depth and budgets["100"] == first.depth


def test_nodes_and_multipv(store):
    fen = POSITIONS[2]
    _, o = analyse_cached(fen, [], limits(nodes=20_000), 10_000, 16, store)
    assert o.event == "stored"
    _, o = analyse_cached(fen, [], limits(nodes=10_000), 10_000, 16, store)
    assert o.cached
    found, o = analyse_cached(fen, [], limits(nodes=20_000, multipv=2), 10_000, 16, store)
    assert not o.cached and len(found.lines) == 2  # each multipv has its own entry
    found, o = analyse_cached(fen, [], limits(nodes=20_000, multipv=2), 10_000, 16, store)
    assert o.cached and len(found.lines) == 2 and found.lines[1].multipv == 2


def test_cache_off_neither_reads_nor_writes_and_refresh_searches_then_writes(store):
    fen = POSITIONS[3]
    _, o = analyse_cached(fen, [], limits(depth=5, cache="off"), 10_000, 16, store)
    assert (o.cached, o.event) == (False, "off") and entry(store, fen) is None
    analyse_cached(fen, [], limits(depth=5), 10_000, 16, store)
    stored = entry(store, fen)
    _, o = analyse_cached(fen, [], limits(depth=5, cache="off"), 10_000, 16, store)
    assert not o.cached and entry(store, fen) == stored
    found, o = analyse_cached(fen, [], limits(depth=4, cache="refresh"), 10_000, 16, store)
    assert not o.cached and found.depth == 4 and entry(store, fen) == stored  # searched; the deeper entry stays
    found, o = analyse_cached(fen, [], limits(depth=6, cache="refresh"), 10_000, 16, store)
    assert not o.cached and o.event == "stored" and json.loads(entry(store, fen))["analysis"]["depth"] == 6


def test_a_finished_game_bypasses_the_cache(store):
    mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    found, o = analyse_cached(mate, [], limits(depth=5), 10_000, 16, store)
    assert found.terminal == "checkmate" and o.event == "bypass" and entry(store, mate) is None


def poison(aws, store, fen, text):
    aws.client("dynamodb").put_item(TableName=store.table, Item={
        "position": {"S": cache_key(Board(fen))}, "m1": {"S": text}})


@pytest.mark.parametrize("bad", [
    lambda good: {**good, "analysis": {**good["analysis"], "best_move": "e2e5",
                                       "lines": [{**good["analysis"]["lines"][0], "pv": ["e2e5", "e7e5"]}]}},
    lambda good: {**good, "analysis": {**good["analysis"], "lines": [{**good["analysis"]["lines"][0],
                                                                       "pv": good["analysis"]["lines"][0]["pv"][:1] +
                                                                       ["a1a8"]}]}},
    lambda good: {**good, "analysis": {**good["analysis"], "depth": "deep"}},
    lambda good: "{not json",
])
def test_a_poisoned_entry_is_ignored_searched_and_overwritten(aws, store, bad):
    fen = POSITIONS[4]
    good = {"v": 1, "budgets": {"10000": 99}, "analysis": {
        "best_move": "f1b5", "ponder": None, "depth": 99, "seldepth": 99, "nodes": 10**9, "time_ms": 1, "nps": 1,
        "hashfull": 0, "lines": [{"multipv": 1, "score": {"mate": 1}, "depth": 99, "seldepth": 99, "pv": ["f1b5"]}]}}
    text = bad(good)
    poison(aws, store, fen, text if isinstance(text, str) else json.dumps(text))
    found, o = analyse_cached(fen, [], limits(depth=5), 10_000, 16, store)
    assert not o.cached and o.event == "stored" and o.detail == "poisoned entry overwritten"
    assert found.depth == 5 and chess.Move.from_uci(found.best_move) in chess.Board(fen).legal_moves
    repaired, poisoned = read_entry(entry(store, fen), Board(fen), 1)
    assert not poisoned and repaired["analysis"]["depth"] == 5 and repaired["analysis"]["best_move"] == found.best_move
    _, o = analyse_cached(fen, [], limits(depth=5), 10_000, 16, store)
    assert o.cached


def test_a_sound_entry_with_a_legal_line_is_believed(aws, store):
    """The guard is legality, as the issue asks: a legal but made-up entry is served (only the functions
    may write the table: IAM is the guard against that)."""
    fen = POSITIONS[5]
    made_up = {"v": 1, "budgets": {"10000": 20}, "analysis": {
        "best_move": "a2a3", "ponder": "a7a6", "depth": 20, "seldepth": 30, "nodes": 10**7, "time_ms": 5000,
        "nps": 2000, "hashfull": 1, "lines": [{"multipv": 1, "score": {"cp": 7}, "depth": 20, "seldepth": 30,
                                               "pv": ["a2a3", "a7a6"]}]}}
    poison(aws, store, fen, json.dumps(made_up))
    found, o = analyse_cached(fen, [], limits(depth=5), 10_000, 16, store)
    assert o.cached and found.best_move == "a2a3"


def test_two_writers_the_second_loses_to_the_first(store):
    assert store.put("test-race", 1, "one", None) is True
    assert store.put("test-race", 1, "two", None) is False  # wrote on the belief that there was nothing
    assert store.put("test-race", 1, "two", "stale") is False
    assert store.put("test-race", 1, "three", "one") is True and store.get("test-race", 1) == "three"


# --- a cache that fails ----------------------------------------------------------------------------


class Throttled:
    """A DynamoDB client that answers every call as a throttled table does."""

    def __init__(self):
        self.calls = 0

    def call(self, operation, params):
        self.calls += 1
        raise DynamoDBError(400, "ThrottlingException", "Rate of requests exceeds the allowed throughput.")


@contextlib.contextmanager
def silent_server():
    """A TCP server on 127.0.0.1 that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(server.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        for c in held:
            c.close()
        server.close()


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: connections are refused
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("make", ["throttled", "refused", "silent"])
def test_a_failing_cache_still_answers_and_then_stays_out_of_the_way(make, monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    with silent_server() as silent:
        ddb = {"throttled": Throttled(), "refused": DynamoDB(0.2, endpoint=closed_port()),
               "silent": DynamoDB(0.2, endpoint=silent)}[make]
        store = CacheStore("kibitz-cache", ddb)
        request = limits(movetime_ms=300)
        t0 = time.monotonic()
        found, o = analyse_cached(ITALIAN, [], request, 300, 16, store, time.monotonic_ns())
        elapsed_ms = (time.monotonic() - t0) * 1000
        assert found.best_move and (o.cached, o.event) == (False, "unavailable"), o
        # The cache's short timeout (0.2 s for the silent table) came out of the budget, not on top of it:
        # the search's clock ran from the request's start, and it kept its deadline.
        assert elapsed_ms - found.time_ms < 100 and found.time_ms <= 300 + LATE_MS
        # within the cooldown the store does not call the table again
        if isinstance(ddb, Throttled):
            calls = ddb.calls
        found, o = analyse_cached(POSITIONS[0], [], limits(depth=4), 10_000, 16, store)
        assert o.event == "unavailable" and "skipped" in o.detail and found.depth == 4
        if isinstance(ddb, Throttled):
            assert ddb.calls == calls
        store.down_until -= COOLDOWN_S  # and after it, it tries again
        _, o = analyse_cached(POSITIONS[0], [], limits(depth=4), 10_000, 16, store)
        assert o.event == "unavailable" and "skipped" not in o.detail


def test_the_entry_rules_on_their_own():
    from engine.result import Line, Score

    class Found:
        terminal, depth, seldepth, nodes, time_ms, nps, hashfull = None, 12, 40, 5000, 300, 1, 0
        score = Score(cp=10)
        best_move, ponder = "e2e4", None
        lines = ()

    assert updated_entry(None, Found(), 300, 0) is None  # no lines (nothing searched): nothing to keep

    class Searched(Found):
        lines = (Line(multipv=1, score=Score(cp=10), pv=("e2e4",), depth=12, seldepth=40),)

    new = updated_entry(None, Searched(), 300, 0)
    assert new["budgets"] == {"300": 12} and new["analysis"]["depth"] == 12
    assert updated_entry(None, Searched(), 300, 70) is not None  # the clock is in the key from 50 on
    assert updated_entry(None, Searched(), 300, 45) is not None  # 45 + 40 plies stop short of the fifty-move rule

    class Long(Searched):
        seldepth = 60

    assert updated_entry(None, Long(), 300, 45) is None  # 45 + 60 plies could have met it: not for other clocks
    assert serves(new, limits(movetime_ms=300), 300, 0) and serves(new, limits(movetime_ms=300), 300, 59)
    assert serves(new, limits(movetime_ms=300), 300, 45) and not serves(
        {**new, "analysis": {**new["analysis"], "seldepth": 60}}, limits(movetime_ms=300), 300, 45)
    for budget in range(1, 20):
        new = updated_entry(new, Searched(), 1000 + budget, 0)
    assert len(new["budgets"]) == 8 and "1019" in new["budgets"]  # the most recent few


# --- /analyze ----------------------------------------------------------------------------------------


def test_analyze_answers_cached_and_honours_cache_off(aws, monkeypatch):
    fn = aws.functions()["AnalyzeFunction"]
    assert fn.environment["KIBITZ_CACHE_TABLE"] == aws.resources["AnalysisCacheTable"]["Ref"]
    monkeypatch.setenv("KIBITZ_CACHE_TABLE", fn.environment["KIBITZ_CACHE_TABLE"])
    runtime = FunctionRuntime(fn)

    def post(body):
        with contextlib.redirect_stdout(io.StringIO()):
            response = runtime.invoke(proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                                                  json.dumps(body)))
        assert response["statusCode"] == 200, response
        return json.loads(response["body"])

    fen = "r2qkb1r/pp2pppp/2np1n2/8/3NP1b1/2N5/PPP1BPPP/R1BQK2R w KQkq - 3 7"
    first = post({"fen": fen, "depth": 6})
    second = post({"fen": fen, "depth": 6})
    assert first["cached"] is False and second["cached"] is True
    assert {k: v for k, v in second.items() if k != "cached"} == {k: v for k, v in first.items() if k != "cached"}
    assert post({"fen": fen, "depth": 6, "cache": "off"})["cached"] is False
    with contextlib.redirect_stdout(io.StringIO()):
        got = runtime.invoke(proxy_event("GET", "/analyze", f"fen={fen.replace(' ', '_')}&depth=5&cache=on", {}))
        bad = runtime.invoke(proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                                         json.dumps({"fen": fen, "cache": "sometimes"})))
    assert json.loads(got["body"])["cached"] is True
    assert bad["statusCode"] == 422 and json.loads(bad["body"])["errors"][0]["field"] == "cache"
    # A table that is gone: the analysis answers all the same.
    module = __import__("sys").modules[runtime.load().__module__]
    monkeypatch.setattr(module, "cache", CacheStore("kibitz-no-such-table"))
    gone = post({"fen": fen, "depth": 6})  # the same search as the first (a fresh table, one thread)
    assert gone["cached"] is False and gone["best_move"] == first["best_move"]
