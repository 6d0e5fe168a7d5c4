"""The jobs API (JobsFunction) in this process, against moto on 127.0.0.1: every jobs event, what a
submission puts in the queue and the table, bad submissions queueing nothing, SendMessageBatch's
partial failures, a queue that refuses everything, pagination."""

import json

import pytest

from functions.common.aws.clients import client
from functions.common.jobs.models import JobRequest
from functions.common.jobs.queue import PositionMessage
from functions.common.jobs.submit import submit
from kibitz.local import template
from kibitz.local.eventsource import sqs_event
from tests import api_cases, jobs_cases
from tests.batch_support import START, stack, wac


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with stack(tmp_path_factory.mktemp("jobs")) as st:
        jobs_cases.seed(st.store)
        yield st


def test_every_event_in_events_is_covered_once():
    names = sorted(p.name for p in jobs_cases.EVENTS.glob("*.json")
                   if not p.name.startswith("live-"))  # the WebSocket API's: tests/test_live.py runs them all
    analyze, api, batch = set(api_cases.CASES), set(jobs_cases.API_CASES), set(jobs_cases.BATCH_CASES)
    assert not (analyze & api) and not (analyze & batch) and not (api & batch)
    assert names == sorted(analyze | api | batch | jobs_cases.S3_EVENTS)
    assert jobs_cases.event_files() == sorted(api | batch)


def test_every_route_and_queue_of_the_template_has_events():
    functions = template.load()
    routes = {(r.method, r.path) for name in ("JobsFunction",) for r in functions[name].routes}
    assert routes == {("POST", "/jobs"), ("GET", "/jobs/{job_id}"), ("GET", "/jobs/{job_id}/pgn"),
                      ("POST", "/jobs/uploads")}
    covered = {(e["httpMethod"], e["resource"]) for e in map(jobs_cases.load_event, jobs_cases.API_CASES)}
    assert covered == routes
    assert functions["BatchFunction"].sqs_events and all(
        jobs_cases.load_event(n)["Records"][0]["eventSource"] == "aws:sqs" for n in jobs_cases.BATCH_CASES)


@pytest.mark.parametrize("name", sorted(jobs_cases.API_CASES))
def test_event(s, name):
    jobs_cases.check_api(name, s.call(jobs_cases.load_event(name)))


def queued(s, max_messages=1000):
    """Receive (and delete) every message of the jobs queue: [(attributes, PositionMessage)]."""
    out = []
    while True:
        got = s.sqs.receive_message(QueueUrl=s.queue_url, MaxNumberOfMessages=10, MessageAttributeNames=["All"],
                                    WaitTimeSeconds=0).get("Messages", [])
        if not got:
            return out
        for m in got:
            attrs = {k: v["StringValue"] for k, v in m["MessageAttributes"].items()}
            out.append((attrs, PositionMessage.model_validate_json(m["Body"])))
            s.sqs.delete_message(QueueUrl=s.queue_url, ReceiptHandle=m["ReceiptHandle"])
        assert len(out) <= max_messages


def test_a_job_is_recorded_and_each_position_queued_once_in_batches_of_ten(s):
    queued(s)  # whatever earlier tests left
    calls = []
    sqs = client("sqs")
    sqs.meta.events.register("provide-client-params.sqs.SendMessageBatch",
                             lambda params, **_: calls.append(len(params["Entries"])))
    try:
        status, body = s.post({"positions": wac(23), "movetime_ms": 200, "depth": 3})
    finally:
        sqs.meta.events.unregister("provide-client-params.sqs.SendMessageBatch")
    assert status == 202 and body["total"] == body["queued"] == 23, body
    assert calls == [10, 10, 3]
    job = s.store.job(body["job_id"])
    assert job["status"] == "queued" and (job["total"], job["done"], job["failed"]) == (23, 0, 0)
    assert job["options"].movetime_ms == 200 and job["options"].depth == 3 and job["source"] == "positions"
    messages = queued(s)
    assert sorted(m.index for _, m in messages) == list(range(23))
    fens = wac(23)
    for attrs, m in messages:
        assert attrs == {"job_id": body["job_id"], "index": str(m.index)} and m.job_id == body["job_id"]
        assert m.fen == fens[m.index] and m.id == str(m.index) and m.options.depth == 3


@pytest.mark.parametrize("body, status, field", [
    ({"positions": [START, "8/8/8/8/8/8/8/8 w - - 0 1", START]}, 422, "positions[1]"),
    ({"positions": [START, {"id": "x", "fen": START, "moves": ["e2e4", "e7e6", "e4e6"]}]}, 422,
     "positions[1].moves[2]"),
    ({"positions": [START, 42]}, 422, "positions[1]"),
    ({"positions": []}, 422, "positions"),
    ({"epd": "nonsense\n"}, 422, "epd"),
    ({"pgn": "1. e4 e5 2. Bb6 *"}, 422, "pgn"),
    ({"pgn": "1. e4", "movetime_ms": "500"}, 422, "movetime_ms"),
    ({"positions": [START], "colour": "white"}, 422, "colour"),
    ({}, 422, "body"),
    ("[1, 2]", 400, "body"),
    ({"positions": [START] * 50, "pgn": "x" * (1024 * 1024)}, 413, "body"),
])
def test_bad_submissions_name_the_position_and_queue_nothing(s, body, status, field):
    queued(s)
    items = len(s.items())
    got, answer = s.post(body)
    assert got == status, answer
    assert field in [e["field"] for e in answer["errors"]], answer
    assert s.depth() == (0, 0) and len(s.items()) == items  # no message, no job record


def test_form_bodies_are_refused_with_415(s):
    from kibitz.local.apigateway import proxy_event

    response = s.call(proxy_event("POST", "/jobs", headers={"Content-Type": "application/x-www-form-urlencoded"},
                                  body="positions=x"))
    assert response["statusCode"] == 415 and json.loads(response["body"])["errors"][0]["field"] == "body"


class FlakySqs:
    """The real (moto) SQS client, with SendMessageBatch answering as SQS does when some entries fail:
    entries in `flaky` fail once with an internal error (not the sender's fault), entries in `refused`
    fail every time as the sender's fault. Failed entries are not sent, as SQS does not send them."""

    def __init__(self, client, flaky, refused):
        self.client, self.flaky, self.refused = client, set(flaky), set(refused)
        self.calls = []

    def send_message_batch(self, QueueUrl, Entries):
        self.calls.append([e["Id"] for e in Entries])
        failed = []
        send = []
        for e in Entries:
            i = int(e["Id"])
            if i in self.refused:
                failed.append({"Id": e["Id"], "SenderFault": True, "Code": "InvalidParameterValue",
                               "Message": "refused for the test"})
            elif i in self.flaky:
                self.flaky.discard(i)
                failed.append({"Id": e["Id"], "SenderFault": False, "Code": "InternalError", "Message": "try again"})
            else:
                send.append(e)
        answer = self.client.send_message_batch(QueueUrl=QueueUrl, Entries=send) if send else {"Successful": []}
        return {"Successful": answer.get("Successful", []), "Failed": failed + answer.get("Failed", [])}


def test_send_message_batch_partial_failures_are_retried_or_recorded(s):
    queued(s)
    flaky = FlakySqs(s.sqs, flaky={1, 3, 12}, refused={7})
    accepted = submit(JobRequest(positions=wac(15), depth=2), store=s.store, sqs=flaky, queue_url=s.queue_url)
    assert accepted.queued == 14 and [(n.index, "InvalidParameterValue" in n.reason) for n in accepted.not_queued] == \
        [(7, True)]
    assert flaky.calls[:2] == [[str(i) for i in range(10)], ["1", "3"]]  # the flaky ones again, at once
    assert sorted(m.index for _, m in queued(s)) == [i for i in range(15) if i != 7]  # each once
    job = s.store.job(accepted.job_id)
    assert (job["total"], job["done"], job["failed"]) == (15, 0, 1)
    (result,), _ = s.store.results(accepted.job_id)
    assert result.index == 7 and result.status == "failed" and result.error.startswith("not queued: the queue refused")


def test_a_queue_that_refuses_everything_answers_503_and_leaves_no_job(s, monkeypatch):
    items = len(s.items())
    monkeypatch.setenv("KIBITZ_JOBS_QUEUE_URL", s.queue_url + "-missing")
    status, body = s.post({"positions": [START, START]})
    assert status == 503 and body["errors"][0]["field"] == "queue", body
    assert "nothing was queued" in body["errors"][0]["reason"] and "NonExistentQueue" in body["errors"][0]["reason"]
    assert len(s.items()) == items


def test_results_come_in_pages_in_index_order(s):
    queued(s)
    status, body = s.post({"positions": wac(7), "depth": 2})
    assert status == 202
    job_id = body["job_id"]
    got = s.sqs.receive_message(QueueUrl=s.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"],
                                MessageAttributeNames=["All"])["Messages"]
    assert len(got) == 7
    response = s.invoke_batch(sqs_event(got, s.queue_arn, "us-east-1"))  # the batch function, in this process
    assert response == {"batchItemFailures": []}
    pages, after = [], -1
    while True:
        status, page = s.get(job_id, f"limit=3&after={after}")
        assert status == 200 and page["status"] == "done" and (page["done"], page["failed"]) == (7, 0)
        pages.append([r["index"] for r in page["results"]])
        if page["next_after"] is None:
            break
        after = page["next_after"]
    assert [i for p in pages for i in p] == list(range(7)) and all(len(p) <= 3 for p in pages)
    status, page = s.get(job_id)
    assert [r["id"] for r in page["results"]] == [str(i) for i in range(7)]
    for r, fen in zip(page["results"], wac(7), strict=True):
        assert r["fen"] == fen and r["analysis"]["fen"] == fen and r["analysis"]["depth"] == 2 and r["error"] is None
    status, body = s.get(job_id, "page=2")
    assert status == 422 and body["errors"][0]["field"] == "page"


def test_results_stored_before_answers_had_wdl_still_read(s):
    """A result written by the previous version (no wdl, win_chance, cached) answers as if made now."""
    from functions.common.api.models import SearchLimits

    job_id = "01d00000-0000-4000-8000-000000000013"
    s.store.create_job(job_id, 1, SearchLimits(depth=2), "positions")
    old = {"fen": START, "side_to_move": "white", "game_over": None, "result": None, "best_move": "e2e4",
           "best_move_san": "e4", "ponder": None, "ponder_san": None, "score": {"cp": 35}, "score_white": {"cp": 35},
           "depth": 2, "seldepth": 2, "nodes": 40, "nps": 1, "time_ms": 1, "budget_ms": 1000, "hash_mb": 1,
           "hashfull": 0, "pv": ["e2e4"], "pv_san": ["e4"], "engine": {"name": "Kibitz", "version": "0.1.0",
                                                                      "backend": "aot"},
           "lines": [{"multipv": 1, "score": {"cp": 35}, "score_white": {"cp": 35}, "depth": 2, "seldepth": 2,
                      "pv": ["e2e4"], "pv_san": ["e4"]}]}
    s.store.ddb.put_item(TableName=s.store.table, Item={
        **s.store.key(job_id, 0), "status": {"S": "done"}, "id": {"S": "0"}, "fen": {"S": START},
        "finished_at": {"S": "2026-01-01T00:00:00Z"}, "analysis": {"S": json.dumps(old)}})
    s.store.count(job_id, 0, "done")
    status, body = s.get(job_id)
    assert status == 200, body
    analysis = body["results"][0]["analysis"]
    assert analysis["cached"] is False and sum(analysis["wdl"].values()) == 1000 and analysis["win_chance"] > 50
    assert analysis["lines"][0]["wdl"] == analysis["wdl"]
