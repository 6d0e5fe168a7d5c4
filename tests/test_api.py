"""The analysis API's handler, in-process: every event in events/, the answer's fields against
python-chess, errors, the time budget, the hash size, warm reuse of the engine's tables."""

import contextlib
import io
import json
import random
import subprocess
import sys

import chess
import pytest

from kibitz.local import template
from kibitz.local.apigateway import proxy_event
from kibitz.local.runtime import LambdaContext
from tests.api_cases import CASES, check_response, event_files, load_event
from tests.conftest import LATE_MS, ROOT, captured

STARTPOS = chess.STARTING_FEN
SICILIAN_BLACK = "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"


@pytest.fixture(scope="module")
def app_module(runtime):
    return sys.modules[runtime.load().__module__]


def call(runtime, method="POST", query="", body=None, headers=None, timeout_s=None):
    """(status, parsed body, what the function printed) of one invocation."""
    if headers is None:
        headers = {"Content-Type": "application/json"}
    if isinstance(body, dict):
        body = json.dumps(body)
    with captured(runtime) as out:
        response = runtime.invoke(proxy_event(method, "/analyze", query, headers, body), timeout_s=timeout_s)
    return response["statusCode"], json.loads(response["body"]), out.getvalue()


def test_every_event_is_covered():
    assert event_files() == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_event(runtime, name):
    with contextlib.redirect_stdout(io.StringIO()):
        response = runtime.invoke(load_event(name))
    check_response(name, response)


def test_every_template_route_has_an_event():
    routes = {(r.method, r.path) for r in template.load()["AnalyzeFunction"].routes}  # /jobs: test_jobs_api.py
    covered = {(load_event(n)["httpMethod"], load_event(n)["path"]) for n in event_files()}
    assert routes == covered


def test_answer_fields_agree_with_python_chess(runtime):
    status, body, _ = call(runtime, body={"fen": SICILIAN_BLACK, "movetime_ms": 300, "multipv": 3})
    assert status == 200
    board = chess.Board(SICILIAN_BLACK)
    assert body["fen"] == SICILIAN_BLACK and body["side_to_move"] == "black"
    assert body["game_over"] is None and body["result"] is None
    assert len(body["lines"]) == 3 and [line["multipv"] for line in body["lines"]] == [1, 2, 3]
    assert len({line["pv"][0] for line in body["lines"]}) == 3
    for line in body["lines"]:
        b = board.copy()
        sans = []
        for uci in line["pv"]:
            move = chess.Move.from_uci(uci)
            assert move in b.legal_moves
            sans.append(b.san(move))
            b.push(move)
        assert line["pv_san"] == sans
        # Black to move: White's view is the negation.
        assert line["score_white"] == {k: -v for k, v in line["score"].items()}
    best = body["lines"][0]
    assert body["pv"] == best["pv"] and body["pv_san"] == best["pv_san"] and body["score"] == best["score"]
    assert body["best_move"] == best["pv"][0] and body["best_move_san"] == best["pv_san"][0]
    if body["ponder"]:
        after = board.copy()
        after.push_uci(body["best_move"])
        assert body["ponder_san"] == after.san(chess.Move.from_uci(body["ponder"]))
    assert body["depth"] >= 1 and body["seldepth"] >= body["depth"] and body["nodes"] > 0 and body["nps"] > 0
    assert 0 < body["time_ms"] <= body["budget_ms"] + LATE_MS and body["budget_ms"] == 300
    assert body["engine"] == {"name": "Kibitz", "version": "0.1.0", "backend": "aot"}


def test_white_to_move_score_is_the_same_from_whites_side(runtime):
    status, body, _ = call(runtime, body={"fen": STARTPOS, "moves": ["e2e4", "e7e5"], "depth": 4})
    assert status == 200 and body["side_to_move"] == "white" and body["score_white"] == body["score"]
    assert body["depth"] == 4


def test_mate_scores(runtime):
    # White to move mates in one (Rd8#).
    status, body, _ = call(runtime, body={"fen": "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "depth": 6})
    assert status == 200 and body["score"] == {"mate": 1} and body["score_white"] == {"mate": 1}
    assert body["best_move_san"] == "Rd8#"
    # Black to move has only Kb8, then Rh8#: mated in one, which is White mating in one.
    status, body, _ = call(runtime, body={"fen": "k7/8/1K6/8/8/8/8/7R b - - 0 1", "depth": 6})
    assert status == 200 and body["score"] == {"mate": -1} and body["score_white"] == {"mate": 1}
    assert body["pv_san"][:2] == ["Kb8", "Rh8#"]


@pytest.mark.parametrize("fen, moves, reason, result", [
    ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", [], "stalemate", "1/2-1/2"),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", ["d1d8"], "checkmate", "1-0"),
    ("8/8/4k3/8/8/3BK3/8/8 w - - 0 1", [], "insufficient material", "1/2-1/2"),
    ("8/8/4k3/8/8/3RK3/8/8 w - - 100 80", [], "fifty-move rule", "1/2-1/2"),
])
def test_finished_games_answer_200_with_no_move(runtime, fen, moves, reason, result):
    status, body, _ = call(runtime, body={"fen": fen, "moves": moves})
    assert status == 200
    assert body["game_over"] == reason and body["result"] == result
    assert body["best_move"] is None and body["best_move_san"] is None and body["pv"] == [] and body["lines"] == []


def test_get_takes_the_same_parameters(runtime):
    query = "fen=" + STARTPOS.replace(" ", "+") + "&moves=e2e4&moves=c7c5&moves=g1f3&depth=5&multipv=2"
    status, body, _ = call(runtime, "GET", query=query, headers={})
    assert status == 200 and body["fen"] == SICILIAN_BLACK and body["depth"] == 5 and len(body["lines"]) == 2


@pytest.mark.parametrize("body, status, field, words", [
    ({"fen": STARTPOS, "movetime_ms": 0}, 422, "movetime_ms", "greater than or equal to 1"),
    ({"fen": STARTPOS, "movetime_ms": 25001}, 422, "movetime_ms", "less than or equal to 25000"),
    ({"fen": STARTPOS, "multipv": 6}, 422, "multipv", "less than or equal to 5"),
    ({"fen": STARTPOS, "threads": 0}, 422, "threads", "greater than or equal to 1"),
    ({"fen": STARTPOS, "threads": 9}, 422, "threads", "less than or equal to 8"),
    ({"fen": STARTPOS, "threads": "2"}, 422, "threads", "integer"),
    ({"fen": STARTPOS, "depth": 0}, 422, "depth", "greater than or equal to 1"),
    ({"fen": STARTPOS, "nodes": -5}, 422, "nodes", "greater than or equal to 1"),
    ({"fen": STARTPOS, "depth": True}, 422, "depth", "integer"),
    ({"fen": STARTPOS, "movetime_ms": "100"}, 422, "movetime_ms", "integer"),
    ({"fen": STARTPOS, "movetime_ms": 1.5}, 422, "movetime_ms", "integer"),
    ({"fen": 42}, 422, "fen", "string"),
    ({"fen": ""}, 422, "fen", "at least 1"),
    ({"fen": STARTPOS, "moves": [1, 2]}, 422, "moves[0]", "string"),
    ({"fen": STARTPOS, "moves": ["e2e4", "zz"]}, 422, "moves", "not a UCI move"),
    ({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1"}, 422, "fen", "en-passant field"),
    ({"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}, 422, "fen", "board field"),
    ({"fen": STARTPOS, "Fen": STARTPOS}, 422, "Fen", "Extra inputs"),
    ({"fen": STARTPOS, "variant": "atomic"}, 422, "variant", "'standard' or 'chess960'"),
    ({"fen": STARTPOS, "variant": 960}, 422, "variant", "'standard' or 'chess960'"),
    # Chess960 castling sent as standard chess: the FEN's castling field says Chess960
    ({"fen": "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w KQkq - 0 1"}, 422, "fen", "Chess960"),
    ({"fen": "bbqnrnkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNRNKR w HEhe - 0 1"}, 422, "fen", "Chess960"),
])
def test_bad_fields_name_the_field_and_the_reason(runtime, body, status, field, words):
    got, answer, _ = call(runtime, body=body)
    assert got == status, answer
    reasons = {e["field"]: e["reason"] for e in answer["errors"]}
    assert field in reasons and words in reasons[field], answer
    assert answer["status"] == status and answer["message"].startswith(answer["errors"][0]["field"])


def test_fen_errors_carry_the_validators_message(runtime):
    from engine.fen import FenError, parse_fen

    fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1"
    with pytest.raises(FenError) as e:
        parse_fen(fen)
    status, body, _ = call(runtime, body={"fen": fen})
    assert status == 422 and body["errors"] == [{"field": "fen", "reason": str(e.value)}]


def test_no_input_gives_a_5xx(runtime):
    """Random junk in every field and as the body: always a 4xx or a 200, never a 5xx."""
    rng = random.Random(4)
    junk = [None, True, -1, 0, 2**70, 1.5, "", "x" * 200, "1000", [], {}, ["e2e4"], {"a": 1}, "\u0000", "ü"]
    fens = [STARTPOS, "8/8/8/8/8/8/8/8 w - - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "k7/8/K7 w - -",
            "k7/8/8/8/8/8/8/K7 w - - 0 1", "K7/8/8/8/8/8/8/k7 b - - 99999999999999999999 1"]
    fields = ["fen", "moves", "movetime_ms", "depth", "nodes", "multipv", "other"]
    for _ in range(150):
        body = {"fen": rng.choice(fens + junk), "movetime_ms": 5}
        for name in rng.sample(fields, rng.randint(0, 3)):
            body[name] = rng.choice(junk + [rng.randint(-3, 30)])
        status, answer, _ = call(runtime, body=body)
        assert status in (200, 400, 413, 415, 422), (body, answer)
    for raw in ["", "null", "{", "[]", "1", '"fen"', "\ud800", "{\"fen\": \"" + "k" * 20000 + "\"}"]:
        status, answer, _ = call(runtime, body=raw)
        assert 400 <= status < 500 and answer["errors"], (raw, answer)
    for query in ["", "fen", "fen=&fen=", "movetime_ms=1&movetime_ms=2&fen=k7/8/8/8/8/8/8/K7_w_-_-", "%ff=1",
                  "fen=" + "x" * 5000, "depth=1e3&fen=k7/8/8/8/8/8/8/K7_w_-_-"]:
        status, answer, _ = call(runtime, "GET", query=query, headers={})
        assert status in (200, 400, 422), (query, answer)


def test_unexpected_errors_answer_500_with_a_request_id_and_no_internals(runtime, app_module, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret internals: /var/task/app.py line 1")

    monkeypatch.setattr("functions.common.analysis.cache.analyse", broken)  # the handler's way to the engine
    status, body, logs = call(runtime, body={"fen": STARTPOS, "movetime_ms": 10})
    assert status == 500
    assert body["request_id"] and "secret" not in json.dumps(body) and "Traceback" not in json.dumps(body)
    assert "secret internals" in logs and body["request_id"] in logs  # logged, with the id to find it by


def test_budget_is_cut_to_the_lambdas_remaining_time(runtime):
    # 1.5 s left, 1 s safety margin: the search gets 500 ms whatever it asked for (less what the invocation
    # spent before the search began), and keeps to it.
    status, body, _ = call(runtime, body={"fen": STARTPOS, "movetime_ms": 5000}, timeout_s=1.5)
    assert status == 200 and 0 < body["budget_ms"] <= 500 and body["time_ms"] <= body["budget_ms"] + LATE_MS
    status, body, _ = call(runtime, body={"fen": STARTPOS, "movetime_ms": 200})
    assert body["budget_ms"] == 200 and body["time_ms"] <= 200 + LATE_MS
    status, body, _ = call(runtime, body={"fen": STARTPOS})  # default movetime: 1 s
    assert body["budget_ms"] == 1000


def test_the_longest_allowed_search_answers_before_api_gateway_gives_up():
    from functions.common.analysis.budget import DEFAULT_SAFETY_MARGIN_MS
    from functions.common.api.models import MAX_MOVETIME_MS

    assert MAX_MOVETIME_MS + DEFAULT_SAFETY_MARGIN_MS < 29_000
    function = template.load()["AnalyzeFunction"]
    assert function.timeout_s * 1000 - int(function.environment["KIBITZ_SAFETY_MARGIN_MS"]) > MAX_MOVETIME_MS


def test_hash_size_comes_from_the_environment(runtime, monkeypatch):
    monkeypatch.setenv("KIBITZ_HASH_MB", "8")
    assert call(runtime, body={"fen": STARTPOS, "depth": 2})[1]["hash_mb"] == 8
    monkeypatch.setenv("KIBITZ_HASH_MB", "auto")
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1769")
    # auto: a power of two under 1/16 of the memory, cut to what the budget can fill (32 KB a ms)
    assert call(runtime, body={"fen": STARTPOS, "depth": 2, "movetime_ms": 5000})[1]["hash_mb"] == 64
    assert call(runtime, body={"fen": STARTPOS, "depth": 2})[1]["hash_mb"] == 32  # the default 1 s
    assert call(runtime, body={"fen": STARTPOS, "depth": 2, "movetime_ms": 100})[1]["hash_mb"] == 4
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "512")
    assert call(runtime, body={"fen": STARTPOS, "depth": 2, "movetime_ms": 5000})[1]["hash_mb"] == 32


def test_threads_default_to_one_per_vcpu_of_the_memory(runtime, monkeypatch):
    for memory, threads in ((1024, 1), (1769, 1), (3008, 1), (3538, 2), (10240, 5)):
        monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", str(memory))
        assert call(runtime, body={"fen": STARTPOS, "depth": 3})[1]["threads"] == threads
    got = call(runtime, body={"fen": STARTPOS, "depth": 3, "threads": 2})[1]
    assert got["threads"] == 2 and got["best_move"]


def test_logs_are_structured_with_the_request_id_and_metrics_are_emf(runtime):
    event = proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                        json.dumps({"fen": STARTPOS, "depth": 3}))
    with captured(runtime) as out:
        runtime.invoke(event)
    records = [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]
    logs = [r for r in records if r.get("message") == "analysed"]
    assert logs and logs[0]["correlation_id"] == event["requestContext"]["requestId"]
    assert logs[0]["service"] == "kibitz" and logs[0]["depth"] == 3
    emf = [r for r in records if "_aws" in r]
    names = {m["Name"] for r in emf for d in r["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]}
    assert {"Nodes", "NodesPerSecond", "Depth", "SearchTime", "Budget"} <= names
    assert emf[-1]["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Kibitz"


def test_an_endgame_within_the_tables_answers_from_them_and_tablebases_false_searches(runtime):
    fen = "8/8/4k3/8/3b4/8/8/4K2R w - - 0 1"  # rook against bishop: a draw
    status, body, _ = call(runtime, body={"fen": fen, "movetime_ms": 2000})
    assert status == 200 and body["tablebase"]["category"] == "draw" and body["tablebase"]["dtm"] is None
    assert body["score"] == {"cp": 0} and body["nodes"] == 0 and body["tbhits"] > 0
    assert body["best_move"] in body["tablebase"]["best"] and len(body["tablebase"]["best_san"]) > 1
    status, body, _ = call(runtime, "GET", query="fen=8/8/8/4k3/8/8/8/4K2Q_w_-_-_0_1&tablebases=false&depth=4",
                           headers={})
    assert status == 200 and body["tablebase"] is None and body["tbhits"] == 0 and body["nodes"] > 0
    status, body, _ = call(runtime, body={"fen": fen, "tablebases": "no"})
    assert status == 422 and body["errors"][0]["field"] == "tablebases"
    status, body, _ = call(runtime, body={"fen": "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                                          "depth": 3})
    assert status == 200 and body["tablebase"] is None


def test_cors_header_and_openapi(runtime):
    event = proxy_event("GET", "/swagger", "format=json", {"Origin": "https://example.com"})
    with contextlib.redirect_stdout(io.StringIO()):
        response = runtime.invoke(event)
    spec = json.loads(response["body"])
    assert response["multiValueHeaders"]["Access-Control-Allow-Origin"] == ["*"]
    post = spec["paths"]["/analyze"]["post"]
    assert {"200", "400", "413", "415", "422"} <= set(post["responses"])
    schema = spec["components"]["schemas"]["AnalyzeBody"]
    assert set(schema["properties"]) == {"fen", "moves", "variant", "movetime_ms", "depth", "nodes", "multipv",
                                         "threads", "cache", "explain", "threats", "tablebases"}
    answer = spec["components"]["schemas"]["AnalysisAnswer"]["properties"]
    assert "tablebase" in answer and "tbhits" in answer  # the endgame tables' field (issue 70.4)
    table = spec["components"]["schemas"]["TablebaseAnswer"]
    assert set(table["properties"]) == {"category", "dtm", "best", "best_san", "exact", "dtz"}
    assert table["properties"]["category"]["enum"] == ["win", "cursed-win", "draw", "blessed-loss", "loss"]
    assert schema["properties"]["movetime_ms"]["maximum"] == 25000
    assert schema["properties"]["variant"]["enum"] == ["standard", "chess960"]  # the OpenAPI document says so
    get_params = {p["name"]: p for p in spec["paths"]["/analyze"]["get"]["parameters"]}
    assert "Chess960" in get_params["variant"]["description"]  # Powertools writes query parameters as strings
    jobs = spec["components"]["schemas"]["JobRequest"]["properties"]["variant"]  # POST /jobs, reviews too
    assert jobs["enum"] == ["standard", "chess960"] and "Variant tag" in jobs["description"]


def test_lambda_context_counts_down():
    ctx = LambdaContext(template.load()["AnalyzeFunction"])
    assert 29_000 < ctx.get_remaining_time_in_millis() <= 30_000


def test_warm_invocations_reuse_the_engine_tables():
    """A fresh process: the import builds the tables once; two invocations build nothing more."""
    code = """
import contextlib, io, json, sys
from kibitz.local import template
from kibitz.local.runtime import FunctionRuntime
from kibitz.local.apigateway import proxy_event
rt = FunctionRuntime(template.load()["AnalyzeFunction"])
ev = proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                 json.dumps({"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "movetime_ms": 50}))
assert "engine.native" not in sys.modules
with contextlib.redirect_stdout(io.StringIO()):
    rt.load()  # imports app, which imports the engine: the tables are built here
    import engine.native as native
    builds = [native.TABLE_BUILDS]
    tables = native.TABLES
    for _ in range(2):
        assert rt.invoke(ev)["statusCode"] == 200
        builds.append(native.TABLE_BUILDS)
print(json.dumps({"builds": builds, "same": native.TABLES is tables}))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == {"builds": [1, 1, 1], "same": True}


def test_the_docs_cost_nothing_until_asked_for():
    """A fresh process: Powertools' OpenAPI models (~100 ms of a cold start) load with the first request
    for /swagger, not at init nor for /analyze, good or bad; after it the docs answer as always."""
    code = """
import contextlib, io, json, sys
from kibitz.local import template
from kibitz.local.runtime import FunctionRuntime
from kibitz.local.apigateway import proxy_event
MODELS = "aws_lambda_powertools.event_handler.openapi.models"
rt = FunctionRuntime(template.load()["AnalyzeFunction"])
json_ct = {"Content-Type": "application/json"}
events = [proxy_event("POST", "/analyze", "", json_ct, json.dumps({"fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1"})),
          proxy_event("POST", "/analyze", "", json_ct, json.dumps({"fen": "nonsense", "depth": 0})),
          proxy_event("GET", "/analyze", "fen=8/8/8/8/8/8/8/K1k5+w+-+-+0+1&movetime_ms=50", {}, None),
          proxy_event("GET", "/nowhere", "", {}, None)]
seen = []
with contextlib.redirect_stdout(io.StringIO()):
    rt.load()
    seen.append(MODELS in sys.modules)
    statuses = [rt.invoke(ev)["statusCode"] for ev in events]
    seen.append(MODELS in sys.modules)
    docs = [rt.invoke(proxy_event("GET", "/swagger", q, {}, None)) for q in ("format=json", "")]
    seen.append(MODELS in sys.modules)
print(json.dumps({"seen": seen, "statuses": statuses, "docs": [d["statusCode"] for d in docs],
                  "paths": sorted(json.loads(docs[0]["body"])["paths"]),
                  "html": docs[1]["multiValueHeaders"]["Content-Type"]}))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == {
        "seen": [False, False, True], "statuses": [200, 422, 200, 404], "docs": [200, 200],
        "paths": ["/analyze", "/jobs", "/jobs/uploads", "/jobs/{job_id}", "/jobs/{job_id}/pgn"],  # one document
        "html": ["text/html"]}


@pytest.mark.parametrize("function", ["AnalyzeFunction", "JobsFunction"])
@pytest.mark.parametrize("event", [[], "analyse this", {}, {"httpMethod": "GET"}, {"path": None}])
def test_an_event_that_is_no_api_request_answers_400_naming_the_event(function_runtime, function, event):
    """A direct invoke with some other payload: the resolver would raise KeyError; we answer why."""
    rt = function_runtime(function)
    with contextlib.redirect_stdout(io.StringIO()):
        response = rt.invoke(event)
    body = json.loads(response["body"])
    assert response["statusCode"] == 400 and body["errors"][0]["field"] == "event"
    assert "API Gateway REST proxy event" in body["message"] and body["request_id"]


def test_the_api_models_load_no_compiled_engine():
    """The API's models read the engine's bounds (engine.limits, engine.layout), not its compiled core:
    importing them (say, in a client or a test) loads neither engine.native nor numba."""
    code = """
import json, sys
import functions.common.analysis.budget
import functions.common.api.http
import functions.common.api.models
import functions.common.jobs.models
heavy = ("engine.native", "engine._compiled", "engine.board", "engine.core", "numba", "llvmlite")
print(json.dumps(sorted(name for name in sys.modules if name.startswith(heavy))))
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []


def test_chess960_variant_answers_castling_king_to_rook(runtime):
    # Chess960 start 96 after Nf1-e3 Nf8-e6 Ng1... : White castles where the king stands (g1h1, O-O).
    fen = "bbqnrnkr/pppppppp/4n3/8/8/4N3/PPPPPPPP/BBQNR1KR w KQkq - 2 2"
    status, body, _ = call(runtime, body={"fen": fen, "variant": "chess960", "depth": 3, "multipv": 5,
                                          "cache": "off"})
    assert status == 200, body
    assert body["variant"] == "chess960" and body["fen"] == fen
    ref = chess.Board(fen, chess960=True)
    for line in body["lines"]:
        replay = ref.copy()
        sans = []
        for move in line["pv"]:
            sans.append(replay.san(chess.Move.from_uci(move)))
            replay.push_uci(move)
        assert sans == line["pv_san"]
    status, body, _ = call(runtime, body={"fen": fen, "variant": "chess960", "moves": ["g1h1"], "depth": 1,
                                          "cache": "off"})
    assert status == 200 and body["fen"].startswith("bbqnrnkr/pppppppp/4n3/8/8/4N3/PPPPPPPP/BBQNRRK1 b kq"), body
    status, body, _ = call(runtime, body={"fen": STARTPOS, "depth": 1, "cache": "off"})
    assert status == 200 and body["variant"] == "standard"
