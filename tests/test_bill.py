"""What bounds the bill (docs/bill.md, "What an attacker can cost you"): the template's concurrency, budget,
key, quota and WAF parameters, API Gateway's own answers in the API's error shape, SAM's reading of the
conditional API key, checkov's skips, and the bounds as the functions apply them (the movetime cap, a
job's search time, a key's jobs a day)."""

import contextlib
import io
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from kibitz.local import template
from kibitz.local.apigateway import proxy_event
from kibitz.local.runtime import FunctionRuntime
from tests.batch_support import START, stack
from tests.conftest import ROOT
from tests.test_api_template import raw_template

KEYED = {("/analyze", "get"), ("/analyze", "post"), ("/jobs", "post"), ("/jobs/{job_id}", "get"),
         ("/jobs/{job_id}/pgn", "get"), ("/jobs/uploads", "post")}


# --- the template ----------------------------------------------------------------------------------

def test_the_functions_reserve_their_concurrency_unless_told_not_to():
    doc = raw_template()
    params, conditions = doc["Parameters"], doc["Conditions"]
    for fn, param, default in (("AnalyzeFunction", "AnalyzeReservedConcurrency", 10),
                               ("JobsFunction", "JobsReservedConcurrency", 5)):
        assert params[param]["Default"] == default and params[param]["MinValue"] == -1
        reserved = doc["Resources"][fn]["Properties"]["ReservedConcurrentExecutions"]
        condition, value, otherwise = reserved.value
        assert value.value == param and otherwise.value == "AWS::NoValue"
        assert conditions[condition].tag == "Not"  # reserved unless the parameter is -1


def test_the_budget_cap_reaches_the_functions_that_take_requests():
    doc = raw_template()
    cap = doc["Parameters"]["MaxMovetimeMs"]
    assert cap["Default"] == 10000 and cap["MaxValue"] == 25000  # 25 s: a search ends before API Gateway's 29 s
    functions = template.load()
    for name in ("AnalyzeFunction", "JobsFunction"):
        assert functions[name].environment["KIBITZ_MAX_MOVETIME_MS"] == "10000"
    jobs = functions["JobsFunction"].environment
    assert jobs["KIBITZ_MAX_JOB_SEARCH_S"] == "3600" and jobs["KIBITZ_MAX_JOBS_PER_KEY_DAY"] == "100"


def test_the_api_key_usage_plan_and_waf_exist_only_when_asked_for():
    doc = raw_template()
    res, params = doc["Resources"], doc["Parameters"]
    assert params["ApiKeyRequired"]["Default"] == "false" and params["WafRequestsPer5Min"]["Default"] == 0
    for name in ("ApiKey", "ApiUsagePlan", "ApiUsagePlanKey"):
        assert res[name]["Condition"] == "ApiKeysOn", name
    plan = res["ApiUsagePlan"]["Properties"]
    assert plan["Quota"]["Limit"].value == "ApiKeyQuotaPerDay" and plan["Quota"]["Period"] == "DAY"
    assert plan["Throttle"]["RateLimit"].value == "ThrottleRateLimit"
    for name in ("ApiWebAcl", "ApiWebAclAssociation"):
        assert res[name]["Condition"] == "WafOn", name
    rule = res["ApiWebAcl"]["Properties"]["Rules"][0]
    assert rule["Statement"]["RateBasedStatement"]["Limit"].value == "WafRequestsPer5Min"
    assert rule["Action"]["Block"]["CustomResponse"]["ResponseCode"] == 429
    assert doc["Outputs"]["ApiKeyId"]["Condition"] == "ApiKeysOn"


def test_the_api_routes_need_a_key_only_when_keys_are_on():
    api = raw_template()["Resources"]["KibitzApi"]["Properties"]
    assert api["MergeDefinitions"] is True and api["AlwaysDeploy"] is True
    paths = api["DefinitionBody"]["paths"]
    keyed = set()
    for path, methods in paths.items():
        for method, spec in methods.items():
            condition, required, otherwise = spec["security"].value
            assert condition == "ApiKeysOn" and required == [{"api_key": []}] and otherwise.value == "AWS::NoValue"
            keyed.add((path, method))
    assert keyed == KEYED  # the page and /swagger stay open


def gateway_body(template_text):
    """A gateway response's body as API Gateway would fill it in."""
    return json.loads(template_text.replace("$context.error.messageString", '"Internal server error"')
                      .replace("$context.requestId", "c6af9ac6"))


def test_api_gateways_own_refusals_have_the_apis_error_shape():
    from functions.common.api.models import ErrorBody

    responses = raw_template()["Resources"]["KibitzApi"]["Properties"]["GatewayResponses"]
    assert responses["DEFAULT_5XX"]["StatusCode"] == "503"  # a throttled function: 503, not 500
    assert responses["DEFAULT_5XX"]["ResponseParameters"]["Headers"]["Retry-After"] == "'1'"
    for kind, status in (("DEFAULT_5XX", 503), ("THROTTLED", 429), ("QUOTA_EXCEEDED", 429)):
        body = ErrorBody.model_validate(gateway_body(responses[kind]["ResponseTemplates"]["application/json"]))
        assert body.status == status and body.request_id == "c6af9ac6" and body.errors, kind


def test_every_checkov_skip_says_why():
    skips = re.findall(r"#\s*checkov:skip=(CKV_\w+)(.*)", (ROOT / "template.yaml").read_text())
    assert len(skips) >= 10
    for check, rest in skips:
        assert re.match(r":\s*\S.{20,}", rest), f"{check} is skipped without a reason"


SAM_TRANSFORM = """
import json, sys
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

class NoPolicies:
    def load(self):
        return {}

doc = yaml_parse(open("template.yaml").read())
for resource in doc["Resources"].values():
    props = resource.get("Properties") or {}
    for key in ("CodeUri", "ContentUri"):
        if key in props:
            props[key] = "s3://bucket/key"  # what sam package would write
out = transform(doc, {"ApiKeyRequired": sys.argv[1]}, NoPolicies())
body = out["Resources"]["KibitzApi"]["Properties"]["Body"]
print(json.dumps({"paths": {p: {m: spec.get("security") for m, spec in ms.items()} for p, ms in body["paths"].items()},
                  "integrations": sorted(p + " " + m for p, ms in body["paths"].items() for m, spec in ms.items()
                                         if "x-amazon-apigateway-integration" in spec and m != "options"),
                  "security_definitions": body.get("securityDefinitions"),
                  "gateway_responses": sorted(body.get("x-amazon-apigateway-gateway-responses", {}))}))
"""


def test_sam_merges_the_routes_into_the_keyed_definition():
    """SAM's transform (aws-sam-cli's samtranslator, .venv-sam): every route keeps its Lambda integration, the
    five API routes carry the conditional key requirement, the page and /swagger none."""
    sam = os.environ.get("KIBITZ_SAM") or str(ROOT / ".venv-sam/bin/sam")
    python = pathlib.Path(sam).parent / "python"
    if not python.exists():
        pytest.skip(f"{python} is missing: make sam")
    proc = subprocess.run([str(python), "-c", SAM_TRANSFORM, "true"], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "AWS_DEFAULT_REGION": "us-east-1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert set(out["integrations"]) == {f"{p} {m}" for p, m in KEYED} | {"/swagger get", "/ get", "/assets/{path+} get"}
    for path, methods in out["paths"].items():
        for method, security in methods.items():
            if (path, method) in KEYED:
                assert security == {"Fn::If": ["ApiKeysOn", [{"api_key": []}], {"Ref": "AWS::NoValue"}]}
            else:
                assert security is None, (path, method)
    assert out["security_definitions"]["Fn::If"][1] == {"api_key": {"type": "apiKey", "name": "x-api-key",
                                                                    "in": "header"}}
    assert out["gateway_responses"] == ["DEFAULT_5XX", "QUOTA_EXCEEDED", "THROTTLED"]


# --- the bounds, as the functions apply them -------------------------------------------------------

def post_analyze(rt, body):
    event = proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"},
                        body if isinstance(body, bytes | str) else json.dumps(body))
    with contextlib.redirect_stdout(io.StringIO()):
        response = rt.invoke(event)
    return response["statusCode"], json.loads(response["body"])


def test_a_movetime_over_the_deployments_cap_is_a_422_stating_it(runtime, monkeypatch):
    monkeypatch.setenv("KIBITZ_MAX_MOVETIME_MS", "300")
    status, body = post_analyze(runtime, {"fen": START, "movetime_ms": 301})
    assert status == 422 and body["errors"] == [{"field": "movetime_ms",
                                                 "reason": "301 ms is over this deployment's cap of 300 ms"}]
    status, body = post_analyze(runtime, {"fen": START, "movetime_ms": 300, "depth": 2})
    assert status == 200 and body["budget_ms"] == 300
    status, body = post_analyze(runtime, {"fen": START, "movetime_ms": 30000})  # the absolute bound still speaks first
    assert status == 422 and "less than or equal to 25000" in body["errors"][0]["reason"]
    monkeypatch.setenv("KIBITZ_MAX_MOVETIME_MS", "99999")  # never above the absolute bound
    from functions.common.api.models import movetime_cap_ms

    assert movetime_cap_ms() == 25000


def test_a_body_that_is_not_utf8_is_a_400_naming_the_body(runtime):
    """Found by Schemathesis: API Gateway base64-encodes such a body, which Powertools failed to decode (500)."""
    status, body = post_analyze(runtime, b"\xb1\xed{\"fen\": 1}")
    assert status == 400 and body["errors"][0]["field"] == "body" and "UTF-8" in body["errors"][0]["reason"]


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    with stack(tmp_path_factory.mktemp("bill")) as s:
        yield s


def post_job(s, body, api_key_id=None):
    event = proxy_event("POST", "/jobs", headers={"Content-Type": "application/json"}, body=json.dumps(body))
    event["requestContext"]["identity"]["apiKeyId"] = api_key_id  # what API Gateway sets with ApiKeyRequired
    response = s.call(event)
    return response["statusCode"], json.loads(response["body"])


def test_a_job_over_its_search_time_is_refused_whole(jobs, monkeypatch):
    monkeypatch.setenv("KIBITZ_MAX_JOB_SEARCH_S", "2")
    status, body = post_job(jobs, {"positions": [START] * 5, "movetime_ms": 500})
    assert status == 422 and body["errors"][0]["field"] == "positions"
    assert "5 positions x 500 ms is 2.5 s of search" in body["message"] and "at most 4 positions" in body["message"]
    status, body = post_job(jobs, {"pgn": "1. e4 e5 2. Nf3 *", "movetime_ms": 1000})  # 4 positions: 4 s
    assert status == 422 and body["errors"][0]["field"] == "pgn"
    status, body = post_job(jobs, {"positions": [START] * 4, "movetime_ms": 500})
    assert status == 202 and body["total"] == 4
    monkeypatch.setenv("KIBITZ_MAX_MOVETIME_MS", "400")
    status, body = post_job(jobs, {"positions": [START], "movetime_ms": 401})
    assert status == 422 and body["errors"][0] == {"field": "movetime_ms",
                                                   "reason": "401 ms is over this deployment's cap of 400 ms"}


def test_a_job_limited_by_nodes_is_costed_by_its_nodes_at_the_floor_and_depth_by_its_movetime(jobs, monkeypatch):
    """Issue 69.3: positions x min(movetime, nodes at NODES_PER_S_FLOOR); a depth bounds no time."""
    from functions.common.api.models import SearchLimits
    from functions.common.jobs.limits import NODES_PER_S_FLOOR, position_cost_ms

    assert position_cost_ms(SearchLimits(nodes=2000)) == 2000 * 1000 // NODES_PER_S_FLOOR < 1000
    assert position_cost_ms(SearchLimits(nodes=10**9, movetime_ms=300)) == 300
    assert position_cost_ms(SearchLimits(depth=3, movetime_ms=700)) == 700
    assert position_cost_ms(SearchLimits(nodes=1)) == 1
    monkeypatch.setenv("KIBITZ_MAX_JOB_SEARCH_S", "2")
    per = 2000 * 1000 // NODES_PER_S_FLOOR
    fits = 2000 // per
    status, body = post_job(jobs, {"positions": [START] * fits, "nodes": 2000, "movetime_ms": 1000})
    assert status == 202 and body["total"] == fits, body
    status, body = post_job(jobs, {"positions": [START] * (fits + 1), "nodes": 2000, "movetime_ms": 1000})
    assert status == 422 and body["errors"][0]["field"] == "positions"
    assert f"{fits + 1} positions x {per} ms" in body["message"] and "2000 nodes at" in body["message"], body
    status, body = post_job(jobs, {"positions": [START] * 3, "depth": 2, "movetime_ms": 1000})
    assert status == 422 and "a depth bounds no time" in body["message"], body


def test_a_job_over_the_body_limits_is_told_the_way_through_s3(jobs):
    status, body = post_job(jobs, {"positions": [START] * 1001})
    assert status == 422 and body["errors"][0]["field"] == "positions"
    assert "1001 positions; the limit is 1000 per job in the body" in body["message"]
    assert "POST /jobs/uploads" in body["message"] and "kibitz batch submit" in body["message"], body
    status, body = post_job(jobs, {"epd": "8/8/8/8/8/5k2/8/4K2R w K -\n" * 1001})
    assert status == 422 and body["errors"][0]["field"] == "epd" and "POST /jobs/uploads" in body["message"]
    status, body = post_job(jobs, {"pgn": "1. e4 *\n" + " " * (1024 * 1024)})
    assert status == 413 and body["errors"][0]["field"] == "body" and "POST /jobs/uploads" in body["message"]


def test_a_keys_jobs_a_day_are_counted_and_other_keys_are_not(jobs, monkeypatch):
    monkeypatch.setenv("KIBITZ_MAX_JOBS_PER_KEY_DAY", "2")
    job = {"positions": [START], "movetime_ms": 10}
    assert [post_job(jobs, job, "key-a")[0] for _ in range(2)] == [202, 202]
    status, body = post_job(jobs, job, "key-a")
    assert status == 429 and body["errors"][0]["field"] == "api_key" and "2 jobs for today" in body["message"]
    assert post_job(jobs, job, "key-b")[0] == 202
    assert [post_job(jobs, job)[0] for _ in range(3)] == [202] * 3  # no key (ApiKeyRequired off): not counted
    status, body = post_job(jobs, {"positions": ["8/8/8/8/8/8/8/8 w - - 0 1"]}, "key-b")  # refused: not counted
    assert status == 422 and post_job(jobs, job, "key-b")[0] == 202


def test_the_counter_is_no_job(jobs):
    """A key's counter lives in JobsTable beside the jobs: no job id reads it."""
    from functions.common.jobs.store import Store

    store = Store(jobs.store.table, jobs.store.ddb)
    assert store.count_key_job("key-c", 20000, 1) and not store.count_key_job("key-c", 20000, 1)
    assert store.job("key#key-c") is None and store.state("key#key-c") is None


# --- faults and the local runner ---------------------------------------------------------------------

def test_injected_faults_refuse_or_lose_the_answer_and_leave_other_calls_alone():
    from benchmarks.faults import FaultyDynamoDB, fraction

    calls = []

    def app(environ, start_response):
        calls.append(environ.get("HTTP_X_AMZ_TARGET"))
        start_response("200 OK", [])
        return [b"{}"]

    faulty = FaultyDynamoDB(app, 0.5, seed=1)
    statuses = []
    for _ in range(400):
        faulty({"HTTP_X_AMZ_TARGET": "DynamoDB_20120810.PutItem"}, lambda status, headers: statuses.append(status))
    faulty({"HTTP_X_AMZ_TARGET": "AmazonSQS.SendMessage"}, lambda status, headers: statuses.append(status))
    c = faulty.counts
    assert c["calls"] == 400 and 150 < c["refused"] + c["lost"] < 250 and c["refused"] and c["lost"]
    assert len(calls) == 400 - c["refused"] + 1  # a lost answer's call was made; a refused one was not
    assert statuses[-1] == "200 OK" and statuses.count("500 Internal Server Error") == c["refused"] + c["lost"]
    assert fraction("0") == 0 and fraction("0.1") == 0.1
    for bad in ("1.5", "-0.1", "some"):
        with pytest.raises(ValueError, match=f"--dynamodb {bad}: give a fraction from 0 to below 1"):
            fraction(bad)


def test_the_fault_runner_refuses_a_fraction_it_cannot_use(capsys):
    """benchmarks/faults.py runs kibitz's command line with the middleware; a bad --dynamodb stops it first."""
    from benchmarks.faults import main
    from kibitz.local import aws

    with pytest.raises(SystemExit):
        main(["--dynamodb", "2", "serve"])
    assert "--dynamodb 2: give a fraction from 0 to below 1" in capsys.readouterr().err and aws.MIDDLEWARE == []


def test_results_are_written_once_when_dynamodb_loses_answers(tmp_path):
    """A third of the calls fail, half of them after moto did the write: boto3's retries and the store's
    conditional writes still leave each result once, counted once."""
    from benchmarks.faults import FaultyDynamoDB
    from functions.common.api.models import SearchLimits
    from functions.common.jobs.store import Store
    from kibitz.local.aws import LocalAWS

    with LocalAWS(prefix="faulty", middleware=[lambda app: FaultyDynamoDB(app, 0.3)]) as aws:
        store = Store(aws.resources["JobsTable"]["Ref"], aws.client("dynamodb"))
        store.create_job("j1", 30, SearchLimits(depth=1), "positions")
        for i in range(30):
            store.record("j1", i, str(i), START, error="a failed position")
        job = store.job("j1")
        assert job["failed"] == 30 and job["status"] == "done-with-failures"
        assert [r.index for r in store.all_results("j1")] == list(range(30))
        faults = aws.wrappers[0].counts
        assert faults["lost"] > 0 and faults["refused"] > 0


def test_functions_on_powertools_take_turns_in_one_process():
    """Powertools keeps the request on a class: /analyze and /jobs served at once in one process must not
    read each other's (the load benchmark saw a /jobs body answered as an /analyze request)."""
    import threading

    functions = template.load()
    analyze_rt, jobs_rt = FunctionRuntime(functions["AnalyzeFunction"]), FunctionRuntime(functions["JobsFunction"])
    wrong = []

    def hammer(rt, path, body, check):
        for _ in range(60):
            event = proxy_event("POST", path, "", {"Content-Type": "application/json"}, json.dumps(body))
            with contextlib.redirect_stdout(io.StringIO()):
                answer = json.loads(rt.invoke(event)["body"])
            if not check(answer):
                wrong.append(answer)

    threads = [threading.Thread(target=hammer, args=(analyze_rt, "/analyze", {"fen": START, "depth": 1},
                                                     lambda a: a.get("fen") == START)),
               threading.Thread(target=hammer, args=(jobs_rt, "/jobs", {"positions": ["x"]},
                                                     lambda a: a["errors"][0]["field"] == "positions[0]"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    assert analyze_rt._turns is jobs_rt._turns  # the same lock


@pytest.mark.parametrize("script", ["fuzz", "load", "longlived"])
def test_the_long_runs_say_what_they_do(script):
    proc = subprocess.run([sys.executable, "-m", f"benchmarks.{script}", "--help"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "--record" in proc.stdout
