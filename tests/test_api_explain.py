"""POST /analyze with "explain" and "threats" (docs/api.md, "Reasons and threats"): the reasons on every
line, the threat with its own reason, a 422 naming the field for a value that is not a boolean, the
OpenAPI document, and a cached answer given the same reasons as the search that made it."""

import json

import pytest

from engine.board import Board
from functions.common.analysis.request import analyse_request
from kibitz.local.apigateway import proxy_event
from tests.conftest import captured

WAC_060 = "rn1qr1k1/1p2np2/2p3p1/8/1pPb4/7Q/PB1P1PP1/2KR1B1R w - - 0 1"  # Qh8+ mates in 2
WAC_021 = "5rk1/1b3p1p/pp3p2/3n1N2/1P6/P1qB1PP1/3Q3P/4R1K1 w - - 0 1"  # were it Black's turn: Qxd2


def post(runtime, body):
    with captured(runtime):
        response = runtime.invoke(proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                                              json.dumps(body)))
    return response["statusCode"], json.loads(response["body"])


def search(**fields):
    return {"nodes": 60_000, "threads": 1, "movetime_ms": 10_000, "cache": "off", **fields}


def test_explain_gives_every_line_its_reason(runtime):
    status, answer = post(runtime, {"fen": WAC_060, "multipv": 2, "explain": True, **search()})
    assert status == 200, answer
    reason = answer["reason"]
    assert reason["kind"] == "mate" and reason["squares"] == ["h8"] and reason["mate"] == 2
    assert reason["san"] == ["Qh8+", "Bxh8", "Rxh8#"]
    assert reason["text"] == "Mates in 2 on the back rank: Qh8+ Bxh8 Rxh8#."
    assert answer["lines"][0]["reason"] == reason and answer["threat"] is None
    for line in answer["lines"]:
        assert line["reason"]["moves"] == line["pv"][:len(line["reason"]["moves"])]


def test_get_takes_them_as_query_parameters(runtime):
    query = "fen=" + WAC_060.replace(" ", "_") + "&explain=true&threats=true&nodes=20000&threads=1&cache=off"
    with captured(runtime):
        response = runtime.invoke(proxy_event("GET", "/analyze", query, {}, None))
    answer = json.loads(response["body"])
    assert response["statusCode"] == 200, answer
    assert answer["reason"]["kind"] == "mate" and answer["threat"] is not None


def test_without_explain_the_reasons_are_null(runtime):
    status, answer = post(runtime, {"fen": WAC_060, **search(nodes=5_000)})
    assert status == 200 and answer["reason"] is None and answer["threat"] is None
    assert all(line["reason"] is None for line in answer["lines"])


def test_threats_answer_the_opponents_best_move_with_its_reason(runtime):
    status, answer = post(runtime, {"fen": WAC_021, "threats": True, **search()})
    assert status == 200, answer
    threat = answer["threat"]
    assert threat["san"] == "Qxd2" and threat["move"] == "c3d2" and threat["pv"][0] == "c3d2"
    assert threat["reason"]["kind"] == "material" and threat["reason"]["squares"] == ["d2"]
    assert threat["reason"]["text"] == "Threatens to win the queen on d2: Qxd2."
    assert answer["reason"] is None  # explain not asked
    # the node limit is shared: the threat's fifth and the main search's four fifths
    assert answer["nodes"] < 60_000 and threat["nodes"] < 2 * 12_000


def test_no_threat_in_check(runtime):
    fen = Board.from_moves(moves=["e2e4", "f7f5", "d1h5"]).fen()
    status, answer = post(runtime, {"fen": fen, "threats": True, **search(nodes=5_000)})
    assert status == 200 and answer["best_move"] == "g7g6" and answer["threat"] is None


@pytest.mark.parametrize("field, value", [("explain", "yes"), ("threats", 1), ("explain", None)])
def test_a_value_that_is_not_a_boolean_is_a_422_naming_the_field(runtime, field, value):
    status, answer = post(runtime, {"fen": WAC_060, field: value})
    assert status == 422
    reasons = {e["field"]: e["reason"] for e in answer["errors"]}
    assert field in reasons and "boolean" in reasons[field], answer
    assert answer["message"].startswith(field)


def test_the_openapi_document_has_both_fields_and_the_answers(runtime):
    with captured(runtime):
        response = runtime.invoke(proxy_event("GET", "/swagger", "format=json", {}))
    schemas = json.loads(response["body"])["components"]["schemas"]
    for name in ("explain", "threats"):
        field = schemas["AnalyzeBody"]["properties"][name]
        assert field["type"] == "boolean" and field["default"] is False and field["description"]
    answer = schemas["AnalysisAnswer"]["properties"]
    assert "threat" in answer and "reason" in answer and "reason" in schemas["LineAnswer"]["properties"]
    assert {"kind", "side", "text", "pieces", "squares", "moves", "san"} <= set(schemas["ReasonAnswer"]["required"])
    assert {"move", "san", "score", "reason"} <= set(schemas["ThreatAnswer"]["properties"])


def test_the_cache_keeps_no_reason_and_a_hit_is_explained_the_same():
    """One entry serves requests with and without explain: a hit carries the reasons of its lines."""
    from functions.common.api.models import SearchLimits

    class Store:  # the CacheStore interface, in memory
        def __init__(self):
            self.items = {}

        def get(self, key, multipv):
            return self.items.get((key, multipv))

        def put(self, key, multipv, text, old):
            self.items[(key, multipv)] = text
            return True

    store = Store()
    limits = SearchLimits(nodes=30_000, threads=1)
    first = analyse_request(WAC_060, (), limits, 10_000, store, threads=1)
    assert not first.answer.cached and first.answer.reason is None
    assert all("reason" not in text for text in store.items.values())
    hit = analyse_request(WAC_060, (), limits, 10_000, store, threads=1, explain=True)
    assert hit.answer.cached and hit.answer.reason.kind == "mate" and hit.answer.reason.squares == ["h8"]
    assert hit.answer.pv == first.answer.pv
