"""BatchFunction and the SQS event source, against moto on 127.0.0.1: the events in events/, a job
end to end, a poison message, duplicate delivery, a crash in the middle of a batch, a Lambda
timeout, retries running out into the dead-letter queue, and too little time left to start."""

import dataclasses
import json
import threading
import time

import chess
import pytest

from functions.common.api.models import SearchLimits
from functions.common.jobs.models import JobRequest
from functions.common.jobs.positions import Position
from functions.common.jobs.queue import message_attributes, message_body
from functions.common.jobs.submit import submit
from kibitz.local.eventsource import failed_ids, sqs_event
from tests import jobs_cases
from tests.batch_support import START, stack, wac
from tests.conftest import SUITES, captured


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with stack(tmp_path_factory.mktemp("batch")) as st:
        jobs_cases.seed(st.store)
        yield st


def receive_all(s, n, url=None):
    """Receive n messages (in several calls if need be), as an event source would."""
    got = []
    deadline = time.monotonic() + 10
    while len(got) < n and time.monotonic() < deadline:
        got += s.sqs.receive_message(QueueUrl=url or s.queue_url, MaxNumberOfMessages=min(10, n - len(got)),
                                     AttributeNames=["All"], MessageAttributeNames=["All"]).get("Messages", [])
    assert len(got) == n
    return got


def delete(s, messages):
    """What the event source does after a successful invocation (here: these tests played its part)."""
    for m in messages:
        s.sqs.delete_message(QueueUrl=s.queue_url, ReceiptHandle=m["ReceiptHandle"])


def snapshot(s, job_id):
    return {r.index: (r.status, r.analysis.model_dump_json() if r.analysis else r.error) for r in s.results(job_id)}


def test_every_batch_event(s):
    for name in ("batch-sqs.json", "batch-sqs-poison.json", "batch-sqs-unknown-job.json"):
        jobs_cases.check_batch(name, s.invoke_batch(jobs_cases.load_event(name)), s.store)
    job = s.store.job(jobs_cases.JOB)
    assert (job["done"], job["failed"], job["status"]) == (3, 3, "done-with-failures")
    assert s.store.job(jobs_cases.UNKNOWN_JOB) is None  # nothing was written for the unknown job


def test_duplicate_delivery_gives_one_result_and_the_same_counts(s):
    status, body = s.post({"positions": wac(3), "depth": 3})
    assert status == 202
    job_id = body["job_id"]
    messages = receive_all(s, 3)
    event = sqs_event(messages, s.queue_arn, "us-east-1")
    assert s.invoke_batch(event) == {"batchItemFailures": []}
    delete(s, messages)
    first = snapshot(s, job_id)
    assert sorted(first) == [0, 1, 2] and {v[0] for v in first.values()} == {"done"}
    for record in event["Records"]:
        record["attributes"]["ApproximateReceiveCount"] = "2"
    assert s.invoke_batch(event) == {"batchItemFailures": []}  # the same messages again
    assert snapshot(s, job_id) == first
    job = s.store.job(job_id)
    assert (job["done"], job["failed"], job["status"]) == (3, 0, "done")
    # A crash between storing a result and counting it leaves the result uncounted; the redelivery counts it.
    s.store.ddb.update_item(TableName=s.store.table, Key=s.store.key(job_id, -1),
                            UpdateExpression="DELETE done_idx :i", ExpressionAttributeValues={":i": {"NS": ["1"]}})
    assert s.store.job(job_id)["done"] == 2
    assert s.invoke_batch(event) == {"batchItemFailures": []}
    assert s.store.job(job_id)["done"] == 3 and snapshot(s, job_id) == first


def test_a_duplicate_message_in_the_queue_is_stored_and_counted_once(s):
    status, body = s.post({"positions": [START], "depth": 3})
    job_id = body["job_id"]
    copy = message_body(job_id, Position(0, "0", START), SearchLimits(depth=3))
    s.sqs.send_message(QueueUrl=s.queue_url, MessageBody=copy, MessageAttributes=message_attributes(job_id, 0))
    with s.source(pollers=1, batch_size=1) as source:  # one at a time: the second delivery finds the first done
        s.wait_done(job_id)
        deadline = time.monotonic() + 30
        while s.depth() != (0, 0) and time.monotonic() < deadline:
            time.sleep(0.1)
    assert s.depth() == (0, 0) and source.stats["records"] == 2 and source.stats["failures"] == 0
    assert len(s.results(job_id)) == 1 and s.store.job(job_id)["done"] == 1


def test_two_positions_counted_at_once_are_both_counted(s, monkeypatch):
    """Two pollers count their first positions of a job at the same moment. Moto's UpdateItem is not atomic: an
    ADD to a set the job has not got yet makes a new set, so of two such ADDs at once the last written wins and
    the other index is lost (the job stays at n-1 of n). The embedded moto answers DynamoDB calls one at a time
    (kibitz.local.aws.SerialDynamoDB), as DynamoDB's writes are atomic. Forced here: the first count is held just after
    moto found no done_idx, until the second count has been made or waits its turn."""
    from moto.dynamodb.exceptions import ProvidedKeyDoesNotExist
    from moto.dynamodb.parsing import executors

    job_id = "0badf00d-0000-4000-8000-00000000ad0d"
    s.store.create_job(job_id, 2, SearchLimits(depth=3), "positions")
    second_made_or_waiting = threading.Event()

    class WatchedLock:  # the serializing lock, telling when a call waits for it
        def __init__(self):
            self.lock = threading.Lock()

        def __enter__(self):
            if not self.lock.acquire(blocking=False):
                second_made_or_waiting.set()
                self.lock.acquire()

        def __exit__(self, *exc):
            self.lock.release()

    def count_second():
        s.store.count(job_id, 1, "done")
        second_made_or_waiting.set()

    second = threading.Thread(target=count_second)
    original = executors.AddExecutor.get_item_at_end_of_path

    def held(self, item):  # moto reading the set it will ADD to
        try:
            return original(self, item)
        except ProvidedKeyDoesNotExist:
            if not second.is_alive() and not second_made_or_waiting.is_set():  # the first count, and no set yet
                second.start()
                assert second_made_or_waiting.wait(60)
            raise

    monkeypatch.setattr(s.aws.serial, "lock", WatchedLock())
    monkeypatch.setattr(executors.AddExecutor, "get_item_at_end_of_path", held)
    s.store.count(job_id, 0, "done")
    second.join(60)
    assert not second.is_alive()
    job = s.store.job(job_id)
    assert (job["done"], job["status"]) == (2, "done")


def test_fifty_positions_end_to_end(s):
    fens = wac(50)
    status, body = s.post({"positions": fens, "depth": 3})
    assert status == 202 and body["queued"] == 50
    t0 = time.monotonic()
    with s.source(pollers=2) as source:
        job = s.wait_done(body["job_id"])
    results = s.results(body["job_id"])
    assert [r.index for r in results] == list(range(50))  # each exactly once, in order
    assert (job["total"], job["done"], job["failed"], job["status"]) == (50, 50, 0, "done")
    for r, fen in zip(results, fens, strict=True):
        assert r.status == "done" and r.fen == fen and r.analysis.fen == fen and r.analysis.depth == 3
        assert chess.Move.from_uci(r.analysis.best_move) in chess.Board(fen).legal_moves
    assert s.depth() == (0, 0) and s.depth(s.dlq_url) == (0, 0)
    assert source.stats["records"] == 50 and source.stats["failures"] == 0 and source.stats["deleted"] == 50
    print(f"50 positions at depth 3 with 2 pollers: {time.monotonic() - t0:.1f} s, {source.stats}")


def test_a_poison_message_is_recorded_as_failed_and_its_batch_goes_on(s):
    job_id = "9015011a-0000-4000-8000-000000000010"
    s.store.create_job(job_id, 10, SearchLimits(depth=2), "positions")
    entries = []
    for i, fen in enumerate(wac(10)):
        body = "{oops" if i == 4 else message_body(job_id, Position(i, str(i), fen), SearchLimits(depth=2))
        entries.append({"Id": str(i), "MessageBody": body, "MessageAttributes": message_attributes(job_id, i)})
    s.sqs.send_message_batch(QueueUrl=s.queue_url, Entries=entries)
    with s.source(pollers=1) as source:
        job = s.wait_done(job_id)
    assert (job["done"], job["failed"], job["status"]) == (9, 1, "done-with-failures")
    results = s.results(job_id)
    assert [r.index for r in results] == list(range(10))
    assert results[4].status == "failed" and "not valid JSON" in results[4].error
    assert all(r.status == "done" for r in results if r.index != 4)
    assert source.stats["failures"] == 0 and s.depth() == (0, 0) and s.depth(s.dlq_url) == (0, 0)


def test_too_little_time_left_defers_the_records(s):
    status, body = s.post({"positions": wac(2), "movetime_ms": 500})
    messages = receive_all(s, 2)
    event = sqs_event(messages, s.queue_arn, "us-east-1")
    ids = {r["messageId"] for r in event["Records"]}
    # 3 s left, less the 5 s margin, is under 500 ms: neither record is started; both come back.
    response = s.invoke_batch(event, timeout_s=3)
    assert {f["itemIdentifier"] for f in response["batchItemFailures"]} == ids
    assert s.results(body["job_id"]) == [] and s.store.job(body["job_id"])["status"] == "running"
    # With the time it needs, the same batch is done.
    assert s.invoke_batch(event) == {"batchItemFailures": []}
    delete(s, messages)
    assert s.store.job(body["job_id"])["status"] == "done"


def test_an_analysed_position_is_logged_and_counted_as_analyze_does_it(s):
    """functions/common/api/telemetry.py: the "analysed" line and the metrics AnalyzeFunction's are (test_api.py)."""
    status, body = s.post({"positions": wac(1), "depth": 2, "cache": "off"})
    messages = receive_all(s, 1)
    with captured(s.batch) as out:
        assert s.batch.invoke(sqs_event(messages, s.queue_arn, "us-east-1")) == {"batchItemFailures": []}
    delete(s, messages)
    records = [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")]
    (line,) = [r for r in records if r.get("message") == "analysed"]
    assert (line["fen"], line["depth"], line["budget_ms"], line["cache"]) == (wac(1)[0], 2, 1000, "off")
    assert line["threads"] >= 1 and line["nodes"] > 0 and line["job_id"] == body["job_id"]
    names = {m["Name"] for r in records if "_aws" in r for d in r["_aws"]["CloudWatchMetrics"] for m in d["Metrics"]}
    assert {"Nodes", "NodesPerSecond", "SearchTime", "Depth", "Budget", "CacheMisses", "PositionsAnalysed"} <= names


def test_lambdas_rules_for_partial_batch_responses():
    ids = {"a", "b", "c"}
    assert failed_ids({"batchItemFailures": []}, ids, True) == set()
    assert failed_ids({"batchItemFailures": [{"itemIdentifier": "b"}]}, ids, True) == {"b"}
    assert failed_ids(None, ids, True) == set()  # a handler that returns nothing succeeded
    assert failed_ids({"batchItemFailures": [{"itemIdentifier": "zzz"}]}, ids, True) == ids  # unknown id: all
    assert failed_ids({"batchItemFailures": [{"itemIdentifier": ""}]}, ids, True) == ids
    assert failed_ids({"batchItemFailures": "b"}, ids, True) == ids
    assert failed_ids("oops", ids, True) == ids
    assert failed_ids({"batchItemFailures": [{"itemIdentifier": "b"}]}, ids, False) == set()  # not enabled


def test_a_crash_in_the_middle_of_a_batch_loses_nothing(tmp_path):
    with stack(tmp_path, visibility_timeout_s=4) as s:
        status, body = s.post({"positions": wac(10), "movetime_ms": 400})
        job_id = body["job_id"]
        with s.source(pollers=1) as source:
            s.wait(job_id, lambda j: j["done"] >= 2, what="two positions")
            before = snapshot(s, job_id)
            source.kill(0)  # SIGKILL: the invocation dies with its batch half done, nothing deleted
            assert 2 <= len(before) < 10
            job = s.wait_done(job_id, timeout=90)
            stats = dict(source.stats)
        results = s.results(job_id)
        assert [r.index for r in results] == list(range(10)) and (job["done"], job["failed"]) == (10, 0)
        assert all(snapshot(s, job_id)[i] == before[i] for i in before)  # finished ones were not redone
        assert stats["restarts"] >= 1 and s.depth() == (0, 0) and s.depth(s.dlq_url) == (0, 0)


def test_an_invocation_past_the_function_timeout_is_killed_and_its_records_come_back(tmp_path):
    with stack(tmp_path, visibility_timeout_s=3) as s:
        fens = [" ".join(line.split()[:4]) for line in (SUITES / "openings_uho_6mvs.epd").read_text().splitlines()[:10]]
        status, body = s.post({"positions": fens, "movetime_ms": 1000})  # balanced openings: no quick mates
        job_id = body["job_id"]
        # A 2 s function (killed 2 s later), and a margin below zero: the handler starts records it cannot
        # finish in time (the margin exists to prevent that). Ten searches of up to 1 s (at least half of it
        # each, by the time manager) cannot all end in 4 s: the invocation is killed part-way.
        source = s.source(pollers=1, env={"KIBITZ_RECORD_MARGIN_MS": "-60000"})
        source.function = dataclasses.replace(source.function, timeout_s=2)
        with source:
            s.wait(job_id, lambda j: source.stats["timeouts"] >= 1, timeout=60, what="a timeout")
            done_before = s.store.job(job_id)["done"]
        assert done_before < 10 and source.stats["restarts"] >= 1
        # The unfinished records come back after the visibility timeout and, with the real 300 s, are done.
        with s.source(pollers=1) as again:
            job = s.wait_done(job_id, timeout=90)
        assert (job["done"], job["failed"]) == (10, 0) and [r.index for r in s.results(job_id)] == list(range(10))
        # A killed invocation deletes nothing: the whole batch came back, the finished records as duplicates.
        assert again.stats["failures"] == 0 and again.stats["records"] == 10


def test_retries_run_out_into_the_dead_letter_queue(tmp_path):
    with stack(tmp_path, visibility_timeout_s=1, max_receive_count=2) as s:
        status, body = s.post({"positions": wac(3), "depth": 2})
        job_id = body["job_id"]
        # The function's table is missing (ResourceNotFoundException on every write): a transient failure as
        # far as a record can tell, reported as a batch item failure each time.
        with s.source(pollers=1, env={"KIBITZ_JOBS_TABLE": "kibitz-no-such-table"}) as source:
            deadline = time.monotonic() + 60
            while s.depth(s.dlq_url)[0] < 3 and time.monotonic() < deadline:
                time.sleep(0.2)
            stats = dict(source.stats)
        assert s.depth(s.dlq_url)[0] == 3 and s.depth() == (0, 0)
        assert stats["failures"] >= 6 and stats["deleted"] == 0  # each received twice, never deleted
        dead = receive_all(s, 3, s.dlq_url)
        assert sorted(json.loads(m["Body"])["index"] for m in dead) == [0, 1, 2]
        assert all(int(m["Attributes"]["ApproximateReceiveCount"]) >= 2 for m in dead)
        assert all(m["MessageAttributes"]["job_id"]["StringValue"] == job_id for m in dead)
        assert s.results(job_id) == [] and s.store.job(job_id)["done"] == 0  # nothing half-written


def test_submit_straight_to_the_queue_is_the_same_job(s):
    """submit() on a store and queue of the caller's own: the same job as the API's (the CLI's --queue-url runs the
    whole function: tests/test_batch_local.py)."""
    accepted = submit(JobRequest(epd="\n".join(f"{f} id \"n{i}\";" for i, f in enumerate(wac(4))), depth=2),
                      store=s.store, sqs=s.sqs, queue_url=s.queue_url)
    with s.source(pollers=1):
        job = s.wait_done(accepted.job_id)
    assert job["done"] == 4 and [r.id for r in s.results(accepted.job_id)] == ["n0", "n1", "n2", "n3"]
