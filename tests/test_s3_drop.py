"""The drop folder (issue 35): an object put under InputBucket/incoming/ starts a job by itself, with options from a
sidecar <key>.json or the object's metadata, and its answer written beside it as <key>.job.json. JobsFunction is
invoked with the event EventBridge (or a bucket notification) would send, against moto's S3, SQS and DynamoDB."""

import json
import urllib.parse

import pytest

from tests.batch_support import s3_stack
from tests.jobs_cases import EVENTS
from tests.test_s3_jobs import EPD, GAMES, check_pgn_output, output, run_pollers


@pytest.fixture(scope="module")
def s(tmp_path_factory):
    with s3_stack(tmp_path_factory.mktemp("s3drop")) as st:
        yield st


def eventbridge(bucket, key):
    """events/jobs-s3-drop.json (what EventBridge sends for an object put under incoming/), for this object."""
    event = json.loads((EVENTS / "jobs-s3-drop.json").read_text())
    event["resources"] = [f"arn:aws:s3:::{bucket}"]
    event["detail"]["bucket"]["name"] = bucket
    event["detail"]["object"]["key"] = key
    return event


def notification(bucket, key):
    return {"Records": [{"eventVersion": "2.1", "eventSource": "aws:s3", "eventName": "ObjectCreated:Put",
                         "s3": {"bucket": {"name": bucket}, "object": {"key": urllib.parse.quote_plus(key)}}}]}


def drop(s, key, data, metadata=None, event=eventbridge):
    s.s3.put_object(Bucket=s.input, Key=key, Body=data.encode(), Metadata=metadata or {})
    assert s.call(event(s.input, key)) == {"objects": 1}
    return marker(s, key)


def marker(s, key):
    return json.loads(s.s3.get_object(Bucket=s.input, Key=key + ".job.json")["Body"].read())


def no_marker(s, key):
    with pytest.raises(s.s3.exceptions.ClientError):
        s.s3.head_object(Bucket=s.input, Key=key + ".job.json")


def test_a_dropped_pgn_with_metadata_runs_and_its_marker_names_the_job(s):
    m = drop(s, "incoming/club games.pgn", GAMES, {"movetime-ms": "5", "tablebases": "false"})
    assert m["source"] == f"s3://{s.input}/incoming/club games.pgn" and m["status_url"] == f"/jobs/{m['job_id']}"
    out = s.functions["JobsFunction"].environment["KIBITZ_OUTPUT_BUCKET"]
    assert m["output"] == f"s3://{out}/{m['job_id']}/"
    job = run_pollers(s, m["job_id"])
    assert (job["status"], job["total"], job["options"].movetime_ms) == ("done", 94, 5)
    assert job["options"].tablebases is False  # x-amz-meta-tablebases
    state, lines, pgn = output(s, m["job_id"])
    assert state["s3"]["output"]["jsonl"] == f"{m['job_id']}/results.jsonl"
    check_pgn_output(lines, pgn, GAMES)


def test_a_sidecar_gives_the_options_and_the_event_twice_is_one_job(s):
    s.s3.put_object(Bucket=s.input, Key="incoming/puzzles.txt.json", Body=b'{"format": "epd", "depth": 3}')
    s.call(eventbridge(s.input, "incoming/puzzles.txt.json"))  # the sidecar's own event starts nothing
    no_marker(s, "incoming/puzzles.txt.json")
    first = drop(s, "incoming/puzzles.txt", EPD, {"format": "pgn"}, event=notification)  # the sidecar wins
    assert s.call(eventbridge(s.input, "incoming/puzzles.txt")) == {"objects": 1}
    assert marker(s, "incoming/puzzles.txt") == first
    jobs = [i for i in s.items() if i["seq"]["N"] == "-1" and i.get("source", {}).get("S") == "s3"
            and "puzzles.txt" in i["s3"]["S"]]
    assert len(jobs) == 1 and jobs[0]["job_id"]["S"] == first["job_id"]
    job = run_pollers(s, first["job_id"])
    assert (job["status"], job["total"], job["options"].depth) == ("done", 2, 3)


@pytest.mark.parametrize("key,data,metadata,field,says", [
    ("incoming/notes.txt", EPD, {}, "format", "a source needs its format"),
    ("incoming/bad-depth.epd", EPD, {"depth": "deep"}, "depth", "valid integer"),
    ("incoming/wrong.pgn", EPD, {}, "format", "not a tag pair"),
    ("incoming/unknown.epd", EPD, {"colour": "blue", "movetime-ms": "0"}, "movetime_ms", "greater than"),
])
def test_a_refused_drop_says_why_in_its_marker(s, key, data, metadata, field, says):
    m = drop(s, key, data, metadata)
    assert m["job_id"] is None and m["source"] == f"s3://{s.input}/{key}", m
    assert m["errors"][0]["field"] == field and says in m["errors"][0]["reason"], m


def test_a_bad_sidecar_is_named(s):
    s.s3.put_object(Bucket=s.input, Key="incoming/x.epd.json", Body=b"{not json")
    m = drop(s, "incoming/x.epd", EPD)
    assert m["job_id"] is None and m["errors"][0]["field"] == "sidecar" and "not JSON" in m["errors"][0]["reason"]


@pytest.mark.parametrize("key", ["uploads/games.pgn", "incoming/games.pgn.job.json", "incoming/sub/"])
def test_keys_outside_the_drop_folder_and_its_own_markers_start_nothing(s, key):
    s.s3.put_object(Bucket=s.input, Key=key, Body=GAMES.encode())
    before = len(s.items())
    assert s.call(eventbridge(s.input, key)) == {"objects": 1}
    assert len(s.items()) == before
    no_marker(s, key)
