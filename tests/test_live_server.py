"""`kibitz serve`'s WebSocket route (kibitz/local/ws_server.py) with a real client (the `websockets` library and
kibitz/clients/live.py): moto standing in for DynamoDB, the local Management API, stop as its own
invocation through the connections table, bad frames answered with the connection kept, a client that
leaves mid-search, the key on $connect, and the shared cache."""

import json
import os
import threading
import time
from unittest import mock

import pytest

from kibitz.clients.live import LiveClient, LiveError

pytest.importorskip("websockets")
pytest.importorskip("moto")

ITALIAN = "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
STARTPOS = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


@pytest.fixture(scope="module", autouse=True)
def switch_interval():
    """LiveFunction sets the process's GIL switch interval (functions/live/app.py): put it back after."""
    import sys

    saved = sys.getswitchinterval()
    yield
    sys.setswitchinterval(saved)


@pytest.fixture(scope="module")
def services():
    from kibitz.local.services import Services

    saved = dict(os.environ)
    os.environ.update(POWERTOOLS_METRICS_DISABLED="true")  # the log level stays: the "kibitz" logger is shared
    for name in ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL", "KIBITZ_LIVE_ENDPOINT"):
        os.environ.pop(name, None)
    services = Services(pollers=0, quiet=True).start(pollers=False)
    try:
        yield services
    finally:
        services.stop()
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def live(services):
    from kibitz.local.ws_server import LiveServer

    with LiveServer(services.functions, concurrency=4) as server:
        yield server


def raw(live):
    from websockets.sync.client import connect

    return connect(live.url, compression=None)


def test_the_route_binds_loopback_and_names_a_ws_url(live):
    assert live.url.startswith("ws://127.0.0.1:") and live.url.endswith("/live")
    assert live.endpoint.startswith("http://127.0.0.1:")


def test_a_live_analysis_streams_infos_then_the_result(live):
    infos = []
    with LiveClient(live.url) as client:
        result = client.analyse({"fen": ITALIAN, "movetime_ms": 800, "multipv": 2}, on_info=infos.append)
    assert len(infos) >= 3  # the newest iteration goes: the first may be deeper than 1 (a cold container)
    assert [i["depth"] for i in infos] == sorted(i["depth"] for i in infos)
    assert result["best_move"] and len(result["lines"]) == 2 and result["budget_ms"] == 800


def test_bad_frames_get_errors_and_the_connection_stays(live):
    with raw(live) as ws:
        for frame, field in [("not json", "body"), ('{"action": "ponder"}', "action"), ("[]", "body"),
                             ('{"action": "analyze", "fen": "8/8/8/8/8/8/8/8 w - - 0 1"}', "fen"),
                             (json.dumps({"action": "analyze", "fen": STARTPOS, "movetime_ms": 99999}), "movetime_ms"),
                             (json.dumps({"action": "analyze", "fen": STARTPOS, "pad": "x" * 20000}), "body")]:
            ws.send(frame)
            message = json.loads(ws.recv(timeout=10))
            assert message["type"] == "error" and message["errors"][0]["field"] == field, (frame[:40], message)
        ws.send(json.dumps({"action": "analyze", "fen": STARTPOS, "depth": 3, "id": 1}))
        while (message := json.loads(ws.recv(timeout=10)))["type"] == "info":
            pass
        assert message["type"] == "result" and message["id"] == 1


def test_a_frame_over_api_gateways_limit_closes_the_connection(live):
    from websockets.exceptions import ConnectionClosed

    with raw(live) as ws:
        ws.send("x" * (128 * 1024 + 1))
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=10)
    assert closed.value.rcvd.code == 1009


def test_stop_answers_the_best_line_so_far_within_the_watchers_reach(live):
    with LiveClient(live.url) as client:
        first = threading.Event()
        stopped = {}

        def stop_after_first(info):
            if not first.is_set():
                first.set()
                threading.Timer(0.3, lambda: (stopped.setdefault("at", time.monotonic()), client.stop())).start()

        t0 = time.monotonic()
        result = client.analyse({"fen": ITALIAN, "movetime_ms": 8000}, on_info=stop_after_first)
        answered = time.monotonic()
    assert answered - t0 < 3 and answered - stopped["at"] < 0.5, "stop took too long"
    assert result["best_move"] and result["time_ms"] < 3000


def test_a_client_that_leaves_mid_search_ends_it(live):
    posted, gone = live.stats["posted"], live.stats["gone"]
    ws = raw(live).__enter__()
    ws.send(json.dumps({"action": "analyze", "fen": ITALIAN, "movetime_ms": 6000}))
    assert json.loads(ws.recv(timeout=10))["type"] == "info"
    ws.close()
    end = time.monotonic() + 3
    while time.monotonic() < end and live.pool.made > len(live.pool.idle):  # a container still searching
        time.sleep(0.02)
    assert live.pool.made == len(live.pool.idle), "the search went on after its client left"
    assert live.stats["posted"] - posted < 10 and live.stats["gone"] >= gone


def test_a_live_result_is_kept_in_the_shared_cache(live, services):
    from kibitz.local.apigateway import proxy_event
    from kibitz.local.runtime import FunctionRuntime

    request = {"fen": "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4", "depth": 6}
    with LiveClient(live.url) as client:
        result = client.analyse(request)
    assert result["cached"] is False
    rest = FunctionRuntime(services.functions["AnalyzeFunction"])
    response = rest.invoke(proxy_event("POST", "/analyze", headers={"Content-Type": "application/json"},
                                       body=json.dumps(request)))
    answer = json.loads(response["body"])
    assert answer["cached"] is True and answer["best_move"] == result["best_move"]


def test_more_live_analyses_than_containers_are_refused_as_throttled(live):
    clients = [LiveClient(live.url) for _ in range(live.concurrency + 1)]
    try:
        for c in clients:
            c.send({"action": "analyze", "fen": ITALIAN, "movetime_ms": 1500, "id": "x"})
        kinds = []
        for c in clients:
            message = json.loads(c.ws.recv(timeout=10))
            kinds.append((message["type"], message.get("status")))
        assert ("error", 429) in kinds and sum(k == "info" for k, _ in kinds) == live.concurrency
    finally:
        for c in clients:
            c.close()


def test_a_key_when_required_comes_in_the_query_string(services):
    from websockets.exceptions import InvalidStatus

    from kibitz.local.ws_server import LiveServer

    with mock.patch.dict(os.environ), LiveServer(services.functions, concurrency=1, api_key="k3y") as keyed:
        with pytest.raises(InvalidStatus) as refused:
            LiveClient(keyed.url)
        assert refused.value.response.status_code == 403
        with pytest.raises(InvalidStatus):
            LiveClient(keyed.url + "?key=wrong")
        with LiveClient(keyed.url + "?key=k3y") as client:
            assert client.analyse({"fen": STARTPOS, "depth": 2})["best_move"]


def test_errors_raise_live_error_with_the_field(live):
    with LiveClient(live.url) as client, pytest.raises(LiveError) as error:
        client.analyse({"fen": STARTPOS, "multipv": 9})
    assert error.value.status == 422 and error.value.errors[0]["field"] == "multipv"


def test_kibitz_analyze_live_prints_the_lines_then_the_answer(live, capsys):
    from kibitz import cli

    assert cli.main(["analyze", "startpos", "--moves", "e2e4", "--live", "--url", live.url, "--depth", "8",
                     "--multipv", "2"]) == 0
    out = capsys.readouterr().out
    assert "depth " in out and "nodes" in out  # the lines as they deepened (one a line: not a terminal)
    assert "Best move" in out and "Search    depth 8/" in out


def test_an_idle_connection_is_closed_as_api_gateway_closes_it(live, monkeypatch):
    from websockets.exceptions import ConnectionClosed

    from kibitz.local import ws_server

    monkeypatch.setattr(ws_server, "IDLE_S", 0.5)  # API Gateway's is 10 minutes
    with raw(live) as ws:
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=5)
    assert closed.value.rcvd.code == 1001


def test_kibitz_invoke_runs_a_live_function_and_prints_what_it_posted():
    import subprocess
    import sys

    from tests.conftest import ROOT

    proc = subprocess.run([sys.executable, "-m", "kibitz.cli", "invoke", "LiveFunction", "-e",
                           "events/live-analyze.json"], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "POWERTOOLS_LOG_LEVEL": "WARNING"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    answer, _, rest = proc.stdout.partition("}\n")
    assert json.loads(answer + "}") == {"statusCode": 200}
    posted = [json.loads(line) for line in rest.splitlines()]
    assert posted[-1]["message"]["type"] == "result" and posted[-1]["message"]["id"] == "sample"
    assert {p["connection_id"] for p in posted} == {"L0SM9cOFvHcCIhw="}
