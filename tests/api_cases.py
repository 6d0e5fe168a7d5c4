"""What each event in events/ must answer: the status and a check of the body.

Shared by the in-process tests (test_api.py) and the built-artifact test (test_api_artifact.py),
which runs the same checks inside a clean virtual environment (so: plain Python, no pytest).
"""

import json
import pathlib

EVENTS = pathlib.Path(__file__).resolve().parents[1] / "events"


def _analysis(best=None, side=None, lines=1):
    def check(body):
        assert body["best_move"] and body["best_move_san"] and body["pv"][0] == body["best_move"], body
        assert len(body["lines"]) == lines, body
        assert body["engine"]["name"] == "Kibitz" and body["engine"]["backend"] == "aot", body
        assert sum(body["wdl"].values()) == 1000 and 0 <= body["win_chance"] <= 100, body
        assert all(sum(line["wdl"].values()) == 1000 for line in body["lines"]), body
        assert body["cached"] is False, body  # no cache table in these runs
        if best:
            assert body["best_move"] in best, body
        if side:
            assert body["side_to_move"] == side, body
    return check


def _explained(body):
    """WAC.060 with explain and threats: Qh8+ mates in 2 on the back rank; the threat has its own reason."""
    _analysis(best={"h3h8"}, side="white")(body)
    reason = body["reason"]
    assert reason["kind"] == "mate" and reason["squares"] == ["h8"] and reason["mate"] == 2, body
    assert body["lines"][0]["reason"] == reason and reason["text"].startswith("Mates in 2"), body
    threat = body["threat"]
    assert threat["move"] and threat["pv"][0] == threat["move"] and threat["reason"]["text"], body


def _over(reason, result, wdl):
    def check(body):
        assert body["game_over"] == reason and body["result"] == result, body
        assert body["wdl"] == wdl, body
        assert body["best_move"] is None and body["pv"] == [], body
    return check


def _error(field, *words):
    def check(body):
        fields = [e["field"] for e in body["errors"]]
        assert field in fields, body
        reason = next(e["reason"] for e in body["errors"] if e["field"] == field)
        for word in words:
            assert word in reason, body
        assert body["request_id"] and "Traceback" not in json.dumps(body), body
    return check


def _openapi(body):
    assert set(body["paths"]["/analyze"]) == {"get", "post"}, body["paths"]


def _swagger_ui(text):
    assert "<html" in text.lower() and "SwaggerUIBundle" in text, text[:300]


JSON, TEXT = "json", "text"
CASES = {
    # name: (status, how to read the body, check)
    "analyze-post.json": (200, JSON, _analysis(side="black")),
    "analyze-post-moves-multipv.json": (200, JSON, _analysis(side="black", lines=3)),
    "analyze-post-depth.json": (200, JSON, _analysis(best={"d1d8"}, side="white")),  # back-rank mate in one
    "analyze-post-explain.json": (200, JSON, _explained),  # the coach's reasons and the threat (engine/coach)
    "analyze-post-checkmate.json": (200, JSON, _over("checkmate", "0-1", {"win": 0, "draw": 0, "loss": 1000})),
    "analyze-post-repetition.json": (200, JSON, _over("threefold repetition", "1/2-1/2",
                                                      {"win": 0, "draw": 1000, "loss": 0})),
    "analyze-post-bad-fen.json": (422, JSON, _error("fen", "side field")),
    "analyze-post-illegal-move.json": (422, JSON, _error("moves", "e7e4")),
    "analyze-post-out-of-range.json": (422, JSON, _error("movetime_ms", "25000")),
    "analyze-post-wrong-type.json": (422, JSON, _error("depth", "integer")),
    "analyze-post-unknown-field.json": (422, JSON, _error("colour", "Extra inputs")),
    "analyze-post-missing-fen.json": (422, JSON, _error("fen", "required")),
    "analyze-post-not-json.json": (400, JSON, _error("body", "not valid JSON")),
    "analyze-post-not-object.json": (400, JSON, _error("body", "object")),
    "analyze-post-not-utf8.json": (400, JSON, _error("body", "UTF-8")),  # bytes: base64, as API Gateway sends them
    "analyze-post-form.json": (415, JSON, _error("body", "application/json")),
    "analyze-post-too-large.json": (413, JSON, _error("body", "limit")),
    "analyze-get.json": (200, JSON, _analysis(side="black")),
    "analyze-get-moves.json": (200, JSON, _analysis(side="black", lines=2)),
    "analyze-get-missing-fen.json": (422, JSON, _error("fen", "required")),
    "analyze-get-bad-number.json": (422, JSON, _error("movetime_ms", "integer")),
    "analyze-get-unknown-param.json": (422, JSON, _error("time", "unknown query parameter")),
    "swagger.json": (200, TEXT, _swagger_ui),
    "swagger-openapi-json.json": (200, JSON, _openapi),
}


def event_files():
    """AnalyzeFunction's events (jobs-*.json and batch-*.json belong to tests/jobs_cases.py, live-*.json to
    tests/test_live.py)."""
    return sorted(p.name for p in EVENTS.glob("*.json") if not p.name.startswith(("jobs-", "batch-", "live-")))


def load_event(name):
    return json.loads((EVENTS / name).read_text())


def check_response(name, response):
    """Raises AssertionError unless the handler's response to events/<name> is the expected one."""
    status, kind, check = CASES[name]
    assert response["statusCode"] == status, (name, response["statusCode"], response.get("body", "")[:500])
    check(json.loads(response["body"]) if kind == JSON else response["body"])
