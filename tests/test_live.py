"""The live analysis stream's handlers (issue 33), in-process against moto: DynamoDB for the connections
table and the API Gateway Management API (moto 5's post_to_connection keeps what was posted to a
connection, the messages one after another). What the WebSocket server and the page do with them is in
tests/test_live_server.py and tests/test_page_browser.py."""

import contextlib
import io
import json
import os
import threading
import time
from unittest import mock
from urllib.parse import quote

import pytest

from kibitz.local import live_events, template
from kibitz.local.apigateway import proxy_event
from kibitz.local.runtime import FunctionRuntime
from tests.conftest import ROOT

moto = pytest.importorskip("moto")

DOMAIN = "abc123.execute-api.us-east-1.amazonaws.com"
TABLE = "kibitz-test-live"
STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
ITALIAN = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
ENV = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_SESSION_TOKEN": "testing",
       "AWS_DEFAULT_REGION": "us-east-1", "AWS_REGION": "us-east-1", "KIBITZ_LIVE_TABLE": TABLE,
       "KIBITZ_MAX_MOVETIME_MS": "10000"}  # the log level stays: Powertools sets it on the "kibitz" logger all share


@pytest.fixture(scope="module")
def aws():
    import boto3

    with mock.patch.dict(os.environ, ENV), moto.mock_aws():
        for name in ("AWS_ENDPOINT_URL", "KIBITZ_CACHE_TABLE", "KIBITZ_LIVE_ENDPOINT"):
            os.environ.pop(name, None)
        client = boto3.client("dynamodb")
        client.create_table(
            TableName=TABLE, BillingMode="PAY_PER_REQUEST",
            AttributeDefinitions=[{"AttributeName": "connection_id", "AttributeType": "S"}],
            KeySchema=[{"AttributeName": "connection_id", "KeyType": "HASH"}])
        # The watcher reads through dynamodb_lite (plain HTTP), which moto's in-process mock does not see: here
        # its calls go to the same operations through boto3 (tests/test_live_server.py runs it against moto's server).
        from functions.common.aws.dynamodb_lite import DynamoDB

        calls = {"GetItem": client.get_item}
        with mock.patch.object(DynamoDB, "call", lambda self, operation, params: calls[operation](**params)):
            yield


@pytest.fixture(scope="module", autouse=True)
def switch_interval():
    """LiveFunction sets the process's GIL switch interval (functions/live/app.py): put it back for the tests
    that follow in this process."""
    import sys

    saved = sys.getswitchinterval()
    yield
    sys.setswitchinterval(saved)


@pytest.fixture(scope="module")
def runtimes(aws):
    functions = template.load()
    live, control = FunctionRuntime(functions["LiveFunction"]), FunctionRuntime(functions["LiveControlFunction"])
    with contextlib.redirect_stdout(io.StringIO()):
        live.load()
        control.load()
    return live, control


def posted(cid):
    """Every message posted to the connection, in order (moto keeps them as one byte string)."""
    from moto.apigatewaymanagementapi.models import apigatewaymanagementapi_backends

    connections = apigatewaymanagementapi_backends["123456789012"]["us-east-1"].connections
    key = quote(cid, safe="")
    text = connections[key].data.decode() if key in connections else ""
    decoder, i, out = json.JSONDecoder(), 0, []
    while i < len(text):
        message, i = decoder.raw_decode(text, i)
        out.append(message)
    return out


def connect(runtimes):
    cid = live_events.new_connection_id()
    assert runtimes[1].invoke(live_events.connect_event(cid, DOMAIN, int(time.time() * 1000))) == {"statusCode": 200}
    return cid


def send(runtime, cid, body, route=None):
    if isinstance(body, dict):
        route = route or body.get("action")
        body = json.dumps(body)
    with contextlib.redirect_stdout(io.StringIO()):
        return runtime.invoke(live_events.message_event(route or "$default", cid, DOMAIN, 0, body))


def analyze(runtimes, request, cid=None):
    cid = cid or connect(runtimes)
    assert send(runtimes[0], cid, {"action": "analyze", **request}) == {"statusCode": 200}
    return cid, posted(cid)


def in_background(fn, *args):
    out = {}

    def run():
        out["value"] = fn(*args)
        out["done"] = time.monotonic()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def wait_for(predicate, timeout_s=10):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


# --- the stream ---------------------------------------------------------------------------------


def test_each_iteration_streams_an_info_then_the_result(runtimes):
    _, messages = analyze(runtimes, {"fen": ITALIAN, "movetime_ms": 1200, "multipv": 2, "id": "q1", "cache": "off"})
    kinds = [m["type"] for m in messages]
    assert kinds[-1] == "result" and set(kinds[:-1]) == {"info"} and len(kinds) >= 4, kinds
    assert all(m["id"] == "q1" for m in messages)
    infos = [m for m in messages if m["type"] == "info"]
    depths = [m["depth"] for m in infos]
    assert depths == sorted(depths)
    for info in infos:
        assert set(info) >= {"depth", "seldepth", "nodes", "nps", "score", "score_white", "wdl", "win_chance",
                             "best_move", "best_move_san", "pv", "pv_san", "lines"}
        assert len(info["lines"]) == 2 and info["lines"][0]["pv_san"] and info["lines"][0]["pv"]
    assert messages[-1]["depth"] >= depths[-1] and messages[-1]["budget_ms"] == 1200


def test_the_result_is_what_post_analyze_answers(runtimes):
    request = {"fen": ITALIAN, "moves": ["g8f6"], "depth": 7, "multipv": 2, "threads": 1, "cache": "off"}
    _, messages = analyze(runtimes, request)
    result = messages[-1]
    assert result.pop("type") == "result"
    rest = FunctionRuntime(template.load()["AnalyzeFunction"])
    with contextlib.redirect_stdout(io.StringIO()):
        response = rest.invoke(proxy_event("POST", "/analyze", headers={"Content-Type": "application/json"},
                                           body=json.dumps(request)))
    answer = json.loads(response["body"])
    assert response["statusCode"] == 200
    for timing in ("time_ms", "nps"):  # the same search, not the same clock
        result.pop(timing), answer.pop(timing)
    assert result == answer


def test_the_result_carries_the_reasons_and_the_threat(runtimes):
    # WAC.021: were it Black's turn, Qxd2 would take White's queen; the same fields as POST /analyze's
    fen = "5rk1/1b3p1p/pp3p2/3n1N2/1P6/P1qB1PP1/3Q3P/4R1K1 w - - 0 1"
    request = {"fen": fen, "nodes": 60000, "threads": 1, "cache": "off", "explain": True, "threats": True}
    _, messages = analyze(runtimes, request)
    result = messages[-1]
    assert result["type"] == "result" and result["reason"]["text"] and result["lines"][0]["reason"] == result["reason"]
    assert result["threat"]["san"] == "Qxd2" and result["threat"]["reason"]["squares"] == ["d2"]


def test_chess960_streams_castling_king_to_rook(runtimes):
    # White's only mate is queen-side castling, king b1 to rook a1
    _, messages = analyze(runtimes, {"fen": "2rkr3/2p1p3/8/8/8/8/PPP5/RK6 w Q - 0 1", "variant": "chess960",
                                     "depth": 3, "cache": "off"})
    result = messages[-1]
    assert result["type"] == "result" and result["variant"] == "chess960"
    assert (result["best_move"], result["best_move_san"], result["score"]) == ("b1a1", "O-O-O#", {"mate": 1})


def test_a_finished_game_answers_at_once(runtimes):
    _, messages = analyze(runtimes, {"fen": "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"})
    assert [m["type"] for m in messages] == ["result"] and messages[0]["game_over"] == "checkmate"


# --- bad messages: an error naming the field; the connection stays ---------------------------------


@pytest.mark.parametrize("body, status, field", [
    ({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"}, 422, "fen"),
    ({"fen": STARTPOS, "movetime_ms": 20000}, 422, "movetime_ms"),
    ({"fen": STARTPOS, "movetime_ms": "100"}, 422, "movetime_ms"),
    ({"fen": STARTPOS, "moves": ["e2e4", "e2e4"]}, 422, "moves"),
    ({"fen": STARTPOS, "bogus": 1}, 422, "bogus"),
    ({}, 422, "fen"),
    ({"fen": STARTPOS, "id": {"no": 1}}, 422, "id"),
    ({"fen": STARTPOS, "moves": ["e2e4"] * 4000}, 413, "body"),
    ({"fen": STARTPOS, "variant": "crazyhouse"}, 422, "variant"),
    # castling rights only Chess960 allows, sent as standard chess
    ({"fen": "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"}, 422, "fen"),
])
def test_a_bad_analyze_message_is_answered_with_an_error_naming_the_field(runtimes, body, status, field):
    cid, messages = analyze(runtimes, body)
    (error,) = messages
    assert error["type"] == "error" and error["status"] == status, error
    assert error["errors"][0]["field"] == field and error["message"].startswith(f"{field}: ")
    assert error["request_id"]
    _, messages = analyze(runtimes, {"fen": STARTPOS, "depth": 2}, cid)  # the connection is still there
    assert messages[-1]["type"] == "result"


def test_the_cap_is_stated_as_post_analyze_states_it(runtimes):
    _, (error,) = analyze(runtimes, {"fen": STARTPOS, "movetime_ms": 20000})
    assert error["errors"][0]["reason"] == "20000 ms is over this deployment's cap of 10000 ms"


@pytest.mark.parametrize("body, field, words", [
    ("not json", "body", "not valid JSON"),
    ("[1, 2]", "body", "expected a JSON object"),
    ('{"action": "ponder"}', "action", 'unknown action "ponder"'),
    ('{"fen": "x"}', "action", "unknown action none"),
])
def test_what_no_route_takes_gets_an_error_as_the_routes_response(runtimes, body, field, words):
    cid = connect(runtimes)
    response = send(runtimes[1], cid, body, "$default")
    error = json.loads(response["body"])
    assert response["statusCode"] == 200 and error["type"] == "error" and error["status"] == 400
    assert error["errors"][0]["field"] == field and words in error["errors"][0]["reason"]


def test_the_default_routes_error_echoes_the_id(runtimes):
    response = send(runtimes[1], connect(runtimes), '{"action": "go", "id": 7}', "$default")
    assert json.loads(response["body"])["id"] == 7


# --- stop, $disconnect, a client gone ---------------------------------------------------------------


def test_stop_is_its_own_invocation_and_answers_the_best_line_so_far(runtimes):
    live, control = runtimes
    cid = connect(runtimes)
    thread, out = in_background(send, live, cid, {"action": "analyze", "fen": ITALIAN, "movetime_ms": 8000})
    assert wait_for(lambda: any(m["type"] == "info" for m in posted(cid)))
    time.sleep(0.3)
    stopped_at = time.monotonic()
    assert send(control, cid, {"action": "stop"}) == {"statusCode": 200}
    thread.join(5)
    assert not thread.is_alive() and out["done"] - stopped_at < 0.5, "the search did not stop within 500 ms"
    result = posted(cid)[-1]
    assert result["type"] == "result" and result["best_move"] and result["time_ms"] < 2000


def test_a_stop_before_the_search_starts_still_answers_a_move(runtimes):
    live, control = runtimes
    cid = connect(runtimes)
    event = live_events.message_event("analyze", cid, DOMAIN, 0, json.dumps(
        {"action": "analyze", "fen": ITALIAN, "movetime_ms": 5000}))
    send(control, cid, {"action": "stop"})  # arrives (and runs) after the analyze was asked, before it searches
    t0 = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()):
        live.invoke(event)
    assert time.monotonic() - t0 < 1.0
    assert posted(cid)[-1]["type"] == "result" and posted(cid)[-1]["best_move"]


def test_disconnect_ends_the_search(runtimes):
    live, control = runtimes
    cid = connect(runtimes)
    thread, out = in_background(send, live, cid, {"action": "analyze", "fen": ITALIAN, "movetime_ms": 8000})
    assert wait_for(lambda: any(m["type"] == "info" for m in posted(cid)))
    gone_at = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()):
        control.invoke(live_events.disconnect_event(cid, DOMAIN, 0))
    thread.join(5)
    assert not thread.is_alive() and out["done"] - gone_at < 0.5


def test_a_client_gone_ends_the_search_at_the_next_post(runtimes):
    from functions.common.live import stream as live_stream

    live, _ = runtimes
    cid = connect(runtimes)
    real_post, calls = live_stream.Poster.post, []

    def post(self, connection, message):
        calls.append((time.monotonic(), message["type"]))
        if len(calls) > 2:
            raise live_stream.Gone("GoneException")
        return real_post(self, connection, message)

    with mock.patch.object(live_stream.Poster, "post", post):
        t0 = time.monotonic()
        send(live, cid, {"action": "analyze", "fen": ITALIAN, "movetime_ms": 8000})
        took = time.monotonic() - t0
    assert took < 1.0, f"the search went on for {took:.1f} s after the client left"
    assert [kind for _, kind in calls] == ["info", "info", "info"]  # and no result for nobody


def test_a_newer_analyze_on_the_connection_replaces_the_running_one(runtimes):
    live, _ = runtimes
    cid = connect(runtimes)
    other = FunctionRuntime(live.function)  # another container
    with contextlib.redirect_stdout(io.StringIO()):
        other.load()
    thread, out = in_background(send, live, cid, {"action": "analyze", "fen": ITALIAN, "movetime_ms": 8000,
                                                  "id": "old"})
    assert wait_for(lambda: any(m["type"] == "info" for m in posted(cid)))
    send(other, cid, {"action": "analyze", "fen": STARTPOS, "depth": 3, "id": "new"})
    thread.join(5)
    assert not thread.is_alive()
    results = {m["id"] for m in posted(cid) if m["type"] == "result"}
    assert results == {"old", "new"}


# --- the stream's pace --------------------------------------------------------------------------------


def test_infos_go_at_once_then_at_most_one_per_interval():
    from engine.result import Analysis, Line, Score
    from functions.common.live.stream import Stream

    def analysis(depth):
        line = Line(multipv=1, score=Score(cp=20), pv=("e2e4", "e7e5"), depth=depth, seldepth=depth)
        return Analysis(fen=STARTPOS, side_to_move="white", best_move="e2e4", ponder="e7e5", score=line.score,
                        depth=depth, seldepth=depth, nodes=1000 * depth, time_ms=10 * depth, nps=100_000,
                        hashfull=0, pv=line.pv, lines=(line,), backend="aot")

    class Recorder:
        def __init__(self):
            self.at = []

        def post(self, cid, message):
            self.at.append((time.monotonic(), message["depth"]))

    recorder = Recorder()
    stream = Stream(recorder, "c", interval_s=0.1).start()
    t0 = time.monotonic()
    for depth in range(1, 41):  # an iteration every 10 ms for 400 ms
        stream.info(analysis(depth))
        time.sleep(0.01)
    stream.close()
    times = [t for t, _ in recorder.at]
    assert times[0] - t0 < 0.05 and recorder.at[0][1] == 1
    assert all(b - a >= 0.095 for a, b in zip(times, times[1:], strict=False))
    assert 3 <= len(times) <= 6
    assert [d for _, d in recorder.at] == sorted(d for _, d in recorder.at)


# --- the authorizer -----------------------------------------------------------------------------------


def test_the_authorizer_allows_the_key_and_denies_anything_else(monkeypatch):
    monkeypatch.setenv("KIBITZ_API_KEY_VALUE", "s3cret-key-value")
    fn = FunctionRuntime(template.load()["LiveAuthorizerFunction"])
    for query, effect in [({"key": "s3cret-key-value"}, "Allow"), ({"key": "wrong"}, "Deny"), (None, "Deny"),
                          ({"key": ""}, "Deny")]:
        answer = fn.invoke(live_events.authorizer_event("c", DOMAIN, 0, query=query))
        assert answer["policyDocument"]["Statement"][0]["Effect"] == effect, query


def test_every_sample_event_runs_on_its_function(runtimes):
    """events/live-*.json, in the order a connection sees them (they share one connection id)."""
    live, control = runtimes
    names = ["live-connect", "live-analyze", "live-analyze-bad-fen", "live-stop", "live-default-not-json",
             "live-disconnect"]
    assert sorted(p.stem for p in (ROOT / "events").glob("live-*.json")) == sorted(names)
    for name in names:
        event = json.loads((ROOT / "events" / f"{name}.json").read_text())
        runtime = live if event["requestContext"]["routeKey"] == "analyze" else control
        with contextlib.redirect_stdout(io.StringIO()):
            response = runtime.invoke(event)
        assert response["statusCode"] == 200, name
        if name == "live-default-not-json":
            assert json.loads(response["body"])["errors"][0]["field"] == "body"
    messages = posted(event["requestContext"]["connectionId"])
    assert [m["type"] for m in messages][-2:] == ["result", "error"]
    assert messages[-1]["errors"][0]["field"] == "fen"


# --- the schema in the docs ---------------------------------------------------------------------------


def test_the_documented_schema_is_the_models(runtimes):
    from functions.common.live.messages import schemas

    documented = json.loads((ROOT / "docs/live-messages.schema.json").read_text())
    assert documented == json.loads(json.dumps(schemas())), \
        "docs/live-messages.schema.json is stale: write schemas() out again (docs/live.md)"
    _, messages = analyze(runtimes, {"fen": ITALIAN, "movetime_ms": 300, "multipv": 2, "id": 5})
    for message in messages:
        shape = documented["$defs"][message["type"]]
        assert set(shape["required"]) <= set(message) <= set(shape["properties"]), message["type"]


def test_each_search_writes_its_metrics_as_one_emf_line(runtimes, monkeypatch):
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    cid = connect(runtimes)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runtimes[0].invoke(live_events.message_event("analyze", cid, DOMAIN, 0, json.dumps(
            {"action": "analyze", "fen": ITALIAN, "movetime_ms": 300, "cache": "off"})))
    (line,) = [json.loads(x) for x in out.getvalue().splitlines() if x.startswith('{"_aws"')]
    names = {m["Name"] for m in line["_aws"]["CloudWatchMetrics"][0]["Metrics"]}
    assert {"LiveSearches", "Nodes", "NodesPerSecond", "Depth", "LiveInfos", "FirstInfoMs", "LiveStopped"} <= names
    assert line["LiveSearches"] == 1 and line["LiveInfos"] >= 1 and line["Depth"] >= 1 and line["service"]
