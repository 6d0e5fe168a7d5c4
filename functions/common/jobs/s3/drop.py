"""The drop folder: an object put under InputBucket/incoming/ starts a job by itself.

S3 tells EventBridge, whose rule (template.yaml, JobsFunction's DropFolder event) invokes JobsFunction
with the "Object Created" event; a bucket notification's {"Records": [...]} event is read too. The job is
checked and queued as POST /jobs with `source` would (jobs/s3/submit.py), and the answer is written next to
the object, where whoever dropped it will look:

    incoming/games.pgn.job.json   {"job_id", "source", "status_url", "output"}   the job started
                                  {"job_id": null, "source", "errors": [...]}    refused, and why

Options: a sidecar `<key>.json` ({"format": "pgn", "movetime_ms": 100, ...}: POST /jobs fields), put
before the object, else the object's metadata (x-amz-meta-format, x-amz-meta-movetime-ms, -depth,
-nodes, -multipv, -cache, -tablebases, -variant); the format else from the name (.pgn, .epd, .jsonl, plain
or .gz/.zst). Keys ending in .json (sidecars, markers) start nothing. The job id is derived from the bucket,
key and ETag, so an event delivered twice starts one job.
"""

import json
import os
import urllib.parse
import uuid

from botocore.exceptions import ClientError
from pydantic import ValidationError

from functions.common import settings
from functions.common.api.http import InputError, field_name
from functions.common.aws.clients import client
from functions.common.jobs.models import JobRequest
from functions.common.jobs.s3.jobs import S3Jobs
from functions.common.jobs.s3.submit import submit_s3

DROP_PREFIX = "incoming/"
MARKER_SUFFIX = ".job.json"
OPTIONS = ("format", "movetime_ms", "depth", "nodes", "multipv", "cache", "tablebases", "variant")
SUFFIX_FORMATS = {".pgn": "pgn", ".epd": "epd", ".jsonl": "jsonl"}
MAX_SIDECAR_BYTES = 64 * 1024
MISSING = ("404", "NoSuchKey", "NotFound", "403", "AccessDenied")  # without s3:ListBucket a missing key is a 403


def dropped(event):
    """[(bucket, key as the event gives it)] of an S3 "Object Created" event (EventBridge or a
    notification's Records), or None when the event is neither."""
    if not isinstance(event, dict):
        return None
    if event.get("source") == "aws.s3" and isinstance(event.get("detail"), dict):
        d = event["detail"]
        return [(d["bucket"]["name"], d["object"]["key"])]
    records = event.get("Records")
    if isinstance(records, list) and records and all(r.get("eventSource") == "aws:s3" for r in records):
        return [(r["s3"]["bucket"]["name"], r["s3"]["object"]["key"]) for r in records]
    return None


def starts_a_job(key):
    return key.startswith(DROP_PREFIX) and not key.endswith(".json") and not key.endswith("/")


def format_of_name(key):
    name = key.lower()
    for suffix in (".gz", ".zst"):
        name = name.removesuffix(suffix)
    return SUFFIX_FORMATS.get(os.path.splitext(name)[1])


def _value(text):
    """A metadata value (always text) as the JSON value it stands for: "100" -> 100, "false" -> False."""
    if text.lstrip("-").isdigit():
        return int(text)
    return {"true": True, "false": False}.get(text.lower(), text)


def options_of(s3, bucket, key, head):
    """The job's fields from the sidecar, else the metadata; the format else from the name."""
    try:
        raw = s3.get_object(Bucket=bucket, Key=key + ".json", Range=f"bytes=0-{MAX_SIDECAR_BYTES - 1}")["Body"].read()
    except ClientError as e:
        code = e.response.get("Error", {}).get("Code")
        if code not in (*MISSING, "InvalidRange"):
            raise
        raw = b"" if code == "InvalidRange" else None  # InvalidRange: an empty sidecar
    if raw is not None:
        try:
            options = json.loads(raw)
        except ValueError as e:
            raise InputError(422, "sidecar", f"{key}.json is not JSON: {e}") from None
        if not isinstance(options, dict):
            raise InputError(422, "sidecar", f"{key}.json is not a JSON object of POST /jobs fields")
    else:
        meta = {k.lower().replace("-", "_"): v for k, v in head.get("Metadata", {}).items()}
        options = {k: _value(v) for k, v in meta.items() if k in OPTIONS}
    if "format" not in options and (fmt := format_of_name(key)) is not None:
        options["format"] = fmt
    return options


def job_id_of(bucket, key, etag):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"s3://{bucket}/{key}#{etag}"))


def _head(s3, bucket, key):
    """(key, head) of the dropped object; an EventBridge key may or may not be URL-encoded: try both."""
    for k in dict.fromkeys((key, urllib.parse.unquote_plus(key))):
        try:
            return k, s3.head_object(Bucket=bucket, Key=k)
        except ClientError as e:
            if e.response.get("Error", {}).get("Code") not in MISSING:
                raise
    return key, None


def start(bucket, key, s3=None):
    """Start a job for one dropped object and write its marker. The marker's dict, or None when the key
    starts nothing (or the object is gone)."""
    s3 = s3 or client("s3")
    key, head = _head(s3, bucket, key)
    if head is None or not starts_a_job(key):
        return None
    source = f"s3://{bucket}/{key}"
    job_id = job_id_of(bucket, key, head["ETag"])
    marker = {"job_id": job_id, "source": source, "status_url": f"/jobs/{job_id}",
              "output": f"s3://{settings.output_bucket() or ''}/{job_id}/"}
    try:
        if S3Jobs().item(job_id) is None:  # else a second delivery of the event: the job stands
            request = JobRequest.model_validate({**options_of(s3, bucket, key, head), "source": source})
            submit_s3(request, job_id=job_id)
    except ClientError as e:
        if e.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
            raise  # S3, DynamoDB or SQS did not answer: the event is delivered again
        # another delivery of the same event created the job first
    except ValidationError as e:
        marker = {"job_id": None, "source": source,
                  "errors": [{"field": field_name(("body", *err["loc"])), "reason": err["msg"]} for err in e.errors()]}
    except InputError as e:
        if e.status >= 500:  # the queue refused: the event is delivered again
            raise
        marker = {"job_id": None, "source": source, "errors": e.errors}
    s3.put_object(Bucket=bucket, Key=key + MARKER_SUFFIX, Body=json.dumps(marker, indent=1).encode(),
                  ContentType="application/json")
    return marker
