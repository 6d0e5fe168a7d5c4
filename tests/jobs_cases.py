"""What each batch-jobs event in events/ must do: jobs-*.json (JobsFunction, API Gateway events) and
batch-*.json (BatchFunction, SQS events).

Shared by the in-process tests (test_jobs_api.py, test_batch.py) and the built-artifact test
(test_api_artifact.py). The events name one job, JOB, which the tests create first (`seed`), with
SEED_TOTAL positions: batch-sqs.json finishes positions 0 and 1, batch-sqs-poison.json 2 to 5.
"""

import json
import pathlib

from tests.api_cases import _error

EVENTS = pathlib.Path(__file__).resolve().parents[1] / "events"
JOB = "5e1ec7ed-0000-4000-8000-000000000005"
UNKNOWN_JOB = "0badf00d-0000-4000-8000-000000000404"
SEED_TOTAL = 6


def seed(store):
    """Create JOB in a results table (functions.common.jobs.store.Store), unless it is there."""
    from functions.common.api.models import SearchLimits
    from functions.common.jobs.table import JOB_SEQ

    if store.ddb.get_item(TableName=store.table, Key=store.key(JOB, JOB_SEQ)).get("Item") is None:
        store.create_job(JOB, SEED_TOTAL, SearchLimits(depth=5), "positions")


def _accepted(total):
    def check(body):
        assert body["status"] == "queued" and body["total"] == total and body["queued"] == total, body
        assert body["not_queued"] == [] and body["url"] == f"/jobs/{body['job_id']}", body
    return check


def _errors(*fields):
    def check(body):
        assert [e["field"] for e in body["errors"]] == list(fields), body
    return check


def _job(body):
    assert body["job_id"] == JOB and body["total"] == SEED_TOTAL, body
    assert body["review"] is False and body["games"] is None, body
    assert body["status"] in ("queued", "running", "done", "done-with-failures"), body
    assert len(body["results"]) <= 2 and body["done"] + body["failed"] <= SEED_TOTAL, body
    assert [r["index"] for r in body["results"]] == sorted(r["index"] for r in body["results"]), body


def _upload(body):
    assert body["source"].startswith("s3://") and body["source"].endswith("/games.pgn.gz"), body
    assert body["upload_url"].startswith("http") and body["expires_in_s"] > 0, body


def _all(*checks):
    def check(body):
        for c in checks:
            c(body)
    return check


API_CASES = {
    # name: (status, check of the JSON body)
    "jobs-post.json": (202, _accepted(4)),
    "jobs-post-epd.json": (202, _accepted(4)),
    "jobs-post-pgn.json": (202, _accepted(30)),  # 22 + 1 positions of the Immortal Game, 6 + 1 of the other
    "jobs-post-review.json": (202, _accepted(15)),  # 14 plies and the start, reviewed
    "jobs-post-chess960.json": (202, _accepted(7)),  # a [Variant "Chess960"] game, both sides castling, reviewed
    "jobs-post-bad-variant.json": (422, _error("variant", "'standard' or 'chess960'")),
    "jobs-post-review-positions.json": (422, _error("review", "a review needs games", "pgn")),
    "jobs-post-bad-positions.json": (422, _all(_errors("positions[1]", "positions[2].moves[1]"),
                                               _error("positions[1]", "side field"),
                                               _error("positions[2].moves[1]", "e7e4", "not legal"))),
    "jobs-post-bad-pgn.json": (422, _error("pgn", "game 1", "3... Nf6", "not legal")),
    "jobs-post-bad-epd.json": (422, _error("epd", "line 2 (position 1)", "0 kings")),
    "jobs-post-two-sources.json": (422, _error("body", "exactly one of positions, epd or pgn")),
    "jobs-post-s3-not-granted.json": (422, _error("source", "someone-elses-bucket", "not one this deployment reads")),
    "jobs-post-upload.json": (201, _upload),
    "jobs-post-too-many.json": (422, _error("positions", "1000")),
    "jobs-post-out-of-range.json": (422, _error("movetime_ms", "25000")),
    "jobs-post-not-json.json": (400, _error("body", "not valid JSON")),
    "jobs-get.json": (200, _job),
    "jobs-get-unknown.json": (404, _error("job_id", UNKNOWN_JOB)),
    "jobs-get-bad-limit.json": (422, _error("limit", "200")),
    "jobs-get-pgn.json": (409, _error("job_id", "is not a review", "review: true")),
}

BATCH_CASES = {
    # name: (message ids the answer must report as batch item failures, {index of JOB: (status, words in error)})
    "batch-sqs.json": (set(), {0: ("done", ()), 1: ("done", ())}),
    "batch-sqs-poison.json": (set(), {2: ("failed", ("message body", "not valid JSON")),
                                      3: ("failed", ("message body", "Field required")),
                                      4: ("failed", ("fen", "invalid FEN")),
                                      5: ("done", ())}),
    # a job the table does not have, and a message naming no job: both come back (and end in the DLQ)
    "batch-sqs-unknown-job.json": ({"00000006-0000-4000-8000-00000000a5a5", "00000007-0000-4000-8000-00000000a5a5"},
                                   {}),
}


# JobsFunction's events that need S3 and are tested there: the drop folder's EventBridge event (test_s3_drop.py)
S3_EVENTS = {"jobs-s3-drop.json"}


def event_files():
    return sorted(p.name for p in EVENTS.glob("*.json")
                  if p.name.startswith(("jobs-", "batch-")) and p.name not in S3_EVENTS)


def load_event(name):
    return json.loads((EVENTS / name).read_text())


def check_api(name, response):
    status, check = API_CASES[name]
    assert response["statusCode"] == status, (name, response["statusCode"], response.get("body", "")[:500])
    check(json.loads(response["body"]))


def check_batch(name, response, store):
    """The answer's batch item failures, and what the table holds for the event's positions."""
    failures, outcomes = BATCH_CASES[name]
    assert isinstance(response, dict), (name, response)
    assert {f["itemIdentifier"] for f in response["batchItemFailures"]} == failures, (name, response)
    results = {r.index: r for r in store.results(JOB, limit=100)[0]}
    for index, (status, words) in outcomes.items():
        assert index in results, (name, index, sorted(results))
        r = results[index]
        assert r.status == status, (name, r)
        if status == "done":
            assert r.analysis is not None and r.error is None, (name, r)
        else:
            assert r.analysis is None and all(w in r.error for w in words), (name, r.error)
