"""The API fuzzed from its own OpenAPI document: Schemathesis against `kibitz serve` on 127.0.0.1.

Every route of /analyze and /jobs in the document served at /swagger?format=json gets EXAMPLES generated
requests that fit the document and EXAMPLES that do not; every answer must be a status the document lists
for the route, with its content type and body schema, and no 5xx (benchmarks/fuzz.py: the driver, and a
long run with its figures in docs/benchmarks.md). movetime_ms is kept to 1..50 ms so that no request
thinks long; the jobs are queued and never run (no pollers).
"""

import pytest

from benchmarks.fuzz import ROUTES, fuzz_api
from benchmarks.served import Served

EXAMPLES = 20


@pytest.fixture(scope="module")
def served():
    with Served(pollers=0) as s:
        yield s


def test_every_answer_is_documented_and_none_is_a_server_error(served):
    found = fuzz_api(served.url, EXAMPLES)
    assert set(found) == set(ROUTES)
    failures = {route: report["failures"] for route, report in found.items() if report["failures"]}
    assert not failures, "\n\n".join(f"{route}: {text}" for route, texts in failures.items() for text in texts[:2])
    statuses = {route: report["statuses"] for route, report in found.items()}
    assert all(status < 500 for counts in statuses.values() for status in counts), statuses
    assert all(report["cases"] >= EXAMPLES for report in found.values()), statuses
    # the generated requests reach the work, not only the checks in front of it
    assert statuses[("POST", "/analyze")][200] + statuses[("GET", "/analyze")][200] > 0, statuses
    assert statuses[("POST", "/jobs")][202] > 0 and statuses[("GET", "/jobs/{job_id}")][200] > 0, statuses


def test_the_document_describes_the_whole_api(served):
    import json
    import urllib.request

    with urllib.request.urlopen(served.url + "/swagger?format=json", timeout=60) as r:
        doc = json.load(r)
    paths = doc["paths"]
    assert {"/analyze", "/jobs", "/jobs/{job_id}", "/jobs/{job_id}/pgn"} <= set(paths)
    movetime = doc["components"]["schemas"]["AnalyzeBody"]["properties"]["movetime_ms"]
    assert movetime["maximum"] == 25000 and "MaxMovetimeMs" in movetime["description"]
    for path, method in (("/analyze", "post"), ("/jobs", "post"), ("/jobs/{job_id}", "get")):
        assert {"429", "503"} <= set(paths[path][method]["responses"]), (path, method)
