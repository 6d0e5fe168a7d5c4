"""Batch jobs: the request, the queue message, the results table, and sending positions to the queue.

One DynamoDB table (on-demand, TTL on `expires_at`) holds both the jobs and their results:

    job_id (S, partition key)   seq (N, sort key)
    <uuid>                      -1        the job: total, options, created_at, started_at,
                                          done_idx / failed_idx (number sets of finished indices)
    <uuid>                      0..n-1    one per finished position: status done|failed, id, fen,
                                          analysis (JSON) or error

Idempotence, so that a message delivered twice never doubles a result or a count:
  1. the result item is put on condition that it does not exist (key: job id + index);
  2. its index is then ADDed to the job's done_idx or failed_idx set. Adding to a set twice leaves
     one member, so the counts (the sets' sizes) are right even when step 2 runs again after a crash
     between 1 and 2 (the redelivered message finds the result, skips the analysis, and repeats 2).

The same code serves AWS and the local stand-in: boto3 finds moto's endpoint in AWS_ENDPOINT_URL.
Configuration: KIBITZ_JOBS_TABLE, KIBITZ_JOBS_QUEUE_URL, KIBITZ_RESULTS_TTL_DAYS (default 7).
"""

import datetime
import os
import time
import uuid
from typing import Literal

import boto3  # at import, so Lambda's init phase pays for it rather than the first request
from botocore.config import Config
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from functions.common.models import (
    MAX_FEN_CHARS,
    MAX_MOVES,
    Analysis,
    SearchLimits,
    depth_field,
    fen_field,
    moves_field,
    movetime_field,
    multipv_field,
    nodes_field,
    split_moves,
)
from functions.common.positions import MAX_POSITIONS

JOB_SEQ = -1  # the sort key of the job item; positions are 0..n-1
MAX_JOB_BODY_BYTES = 1024 * 1024
MAX_ID_CHARS = 100
DEFAULT_TTL_DAYS = 7
DEFAULT_PAGE = 100
MAX_PAGE = 200
SEND_BATCH = 10  # SendMessageBatch takes at most 10 entries
MAX_SEND_BYTES = 250 * 1024  # and at most 256 KiB in all; keep some room for attributes
SEND_ATTEMPTS = 4  # tries per entry when SendMessageBatch reports it failed (and the fault is not ours)
MESSAGE_VERSION = 1

Status = Literal["queued", "running", "done", "done-with-failures"]


# --- the request (POST /jobs) ---------------------------------------------------------------------


class PositionIn(BaseModel):
    """One position of a job: a FEN string, or an object with a FEN and moves played from it."""

    model_config = ConfigDict(extra="forbid", strict=True,
                              json_schema_extra={"description": "or just the FEN, as a string"})

    id: str | None = Field(None, min_length=1, max_length=MAX_ID_CHARS,
                           description="your name for it, returned with its result (default: its index)")
    fen: str = fen_field()
    moves: list[str] = moves_field()
    _bare: bool = PrivateAttr(False)  # given as a FEN string

    @model_validator(mode="wrap")
    @classmethod
    def _from_fen(cls, value, handler):
        """A plain string is the FEN. (Not a `str | PositionIn` union: its errors would name both branches.)"""
        if isinstance(value, str):
            item = handler({"fen": value})
            item._bare = True
            return item
        if not isinstance(value, dict | PositionIn):
            raise ValueError("expected a FEN string or an object {id, fen, moves}")
        return handler(value)

    @field_validator("moves", mode="before")
    @classmethod
    def _split_moves(cls, value):
        return split_moves(value)


class JobRequest(BaseModel):
    """POST /jobs: the positions (exactly one of `positions`, `epd`, `pgn`) and the analysis options."""

    model_config = ConfigDict(extra="forbid", strict=True)

    positions: list[PositionIn] | None = Field(
        None, min_length=1, max_length=MAX_POSITIONS,
        description="FEN strings, or {id, fen, moves} objects", examples=[["8/8/8/8/8/5k2/8/4K2R w K - 0 1"]])
    epd: str | None = Field(None, min_length=1, description="EPD text, one position a line (`id` opcode kept)")
    pgn: str | None = Field(None, min_length=1, description="PGN text: every position of every game is analysed")
    movetime_ms: int = movetime_field()
    depth: int | None = depth_field()
    nodes: int | None = nodes_field()
    multipv: int = multipv_field()

    def limits(self):
        return SearchLimits(movetime_ms=self.movetime_ms, depth=self.depth, nodes=self.nodes, multipv=self.multipv)

    def sources(self):
        return [name for name in ("positions", "epd", "pgn") if getattr(self, name) is not None]


# --- answers --------------------------------------------------------------------------------------


class NotQueued(BaseModel):
    index: int
    reason: str


class JobAccepted(BaseModel):
    job_id: str
    status: Status
    total: int = Field(description="positions in the job")
    queued: int = Field(description="positions sent to the queue")
    not_queued: list[NotQueued] = Field(description="positions the queue refused; they are recorded as failed")
    url: str = Field(description="GET it for the status and the results")


class JobResult(BaseModel):
    index: int = Field(description="the position's place in the request, from 0")
    id: str
    status: Literal["done", "failed"]
    fen: str = Field(description="the FEN as submitted (the position analysed is analysis.fen, after the moves)")
    analysis: Analysis | None = Field(description="as POST /analyze answers it; null when failed")
    error: str | None = Field(description="why the position could not be analysed; null when done")


class JobState(BaseModel):
    job_id: str
    status: Status
    total: int
    done: int
    failed: int
    created_at: str
    started_at: str | None
    updated_at: str | None
    options: SearchLimits
    results: list[JobResult] = Field(description="finished positions in index order, one page")
    next_after: int | None = Field(description="more results may follow: GET again with ?after=<this>")


def job_status(total, done, failed, started):
    if done + failed >= total:
        return "done" if failed == 0 else "done-with-failures"
    return "running" if started or done or failed else "queued"


# --- the queue message ----------------------------------------------------------------------------


class PositionMessage(BaseModel):
    """The body of one queue message: one position of one job, and how to analyse it."""

    model_config = ConfigDict(extra="ignore")  # a newer sender may add fields

    v: int = MESSAGE_VERSION
    job_id: str = Field(min_length=1, max_length=64)
    index: int = Field(ge=0, lt=MAX_POSITIONS)
    id: str = Field(max_length=MAX_ID_CHARS)
    fen: str = Field(min_length=1, max_length=MAX_FEN_CHARS)
    moves: list[str] = Field(default_factory=list, max_length=MAX_MOVES)
    options: SearchLimits


def message_body(job_id, position, limits):
    return PositionMessage(job_id=job_id, index=position.index, id=position.id, fen=position.fen,
                           moves=list(position.moves), options=limits).model_dump_json(exclude_none=True)


def message_attributes(job_id, index):
    """Also outside the body, so that a message whose body cannot be read can still be recorded as failed."""
    return {"job_id": {"DataType": "String", "StringValue": job_id},
            "index": {"DataType": "Number", "StringValue": str(index)}}


def read_message(body):
    """PositionMessage from a message body, or ValueError with a reason."""
    try:
        return PositionMessage.model_validate_json(body)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ValueError(f"message body: {where}: {first['msg']}" if first["type"] != "json_invalid"
                         else f"message body: not valid JSON ({first['ctx']['error']})") from None


# --- AWS clients ----------------------------------------------------------------------------------

_clients = {}


def client(service):
    """One boto3 client per service and endpoint, made on first use (AWS_ENDPOINT_URL may point at moto)."""
    key = (service, os.environ.get("AWS_ENDPOINT_URL"), os.environ.get("AWS_DEFAULT_REGION"))
    if key not in _clients:
        _clients[key] = boto3.client(service, config=Config(retries={"mode": "standard", "max_attempts": 3},
                                                            connect_timeout=5, read_timeout=20))
    return _clients[key]


def now_iso():
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_job_id():
    return str(uuid.uuid4())


# --- the table ------------------------------------------------------------------------------------


class UnknownJob(LookupError):
    """A message for a job the table does not have (never created, or expired)."""

    def __init__(self, job_id):
        super().__init__(f"no job {job_id} in the results table")
        self.job_id = job_id


class Store:
    """Jobs and results in the DynamoDB table `table` (low-level client: no float/Decimal surprises)."""

    def __init__(self, table=None, ddb=None):
        self.table = table or os.environ.get("KIBITZ_JOBS_TABLE")
        if not self.table:
            raise RuntimeError("KIBITZ_JOBS_TABLE is not set: the results table's name")
        self.ddb = ddb or client("dynamodb")
        self.ttl_days = float(os.environ.get("KIBITZ_RESULTS_TTL_DAYS", DEFAULT_TTL_DAYS))

    def _key(self, job_id, seq):
        return {"job_id": {"S": job_id}, "seq": {"N": str(seq)}}

    def _expires(self):
        return {"N": str(int(time.time() + self.ttl_days * 86400))}

    def create_job(self, job_id, total, limits, source):
        item = {**self._key(job_id, JOB_SEQ), "total": {"N": str(total)}, "source": {"S": source},
                "options": {"S": limits.model_dump_json()}, "created_at": {"S": now_iso()},
                "expires_at": self._expires()}
        self.ddb.put_item(TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(job_id)")

    def delete_job(self, job_id):
        self.ddb.delete_item(TableName=self.table, Key=self._key(job_id, JOB_SEQ))

    def mark_started(self, job_id):
        """Note that a worker has the job in hand (status running). False if there is no such job."""
        try:
            self.ddb.update_item(TableName=self.table, Key=self._key(job_id, JOB_SEQ),
                                 UpdateExpression="SET started_at = if_not_exists(started_at, :now)",
                                 ConditionExpression="attribute_exists(job_id)",
                                 ExpressionAttributeValues={":now": {"S": now_iso()}})
            return True
        except self.ddb.exceptions.ConditionalCheckFailedException:
            return False

    def finished(self, job_id, index):
        """"done" / "failed" if the position already has its result, else None (a strongly consistent read)."""
        item = self.ddb.get_item(TableName=self.table, Key=self._key(job_id, index), ConsistentRead=True,
                                 ProjectionExpression="#s", ExpressionAttributeNames={"#s": "status"}).get("Item")
        return item["status"]["S"] if item else None

    def record(self, job_id, index, pid, fen, analysis=None, error=None):
        """Store a position's result (analysis: Analysis, or error: str) and count it, idempotently.

        Returns "recorded", or "duplicate" when the position had its result already (the count is
        re-applied, which changes nothing if it was counted). AWS errors propagate: the caller retries.
        """
        status = "done" if error is None else "failed"
        item = {**self._key(job_id, index), "status": {"S": status}, "id": {"S": pid}, "fen": {"S": fen[:200]},
                "finished_at": {"S": now_iso()}, "expires_at": self._expires()}
        if analysis is not None:
            item["analysis"] = {"S": analysis.model_dump_json()}
        if error is not None:
            item["error"] = {"S": error[:2000]}
        outcome = "recorded"
        try:
            self.ddb.put_item(TableName=self.table, Item=item, ConditionExpression="attribute_not_exists(seq)",
                              ReturnValuesOnConditionCheckFailure="ALL_OLD")
        except self.ddb.exceptions.ConditionalCheckFailedException as e:
            outcome = "duplicate"
            old = e.response.get("Item") or {}
            status = old["status"]["S"] if "status" in old else self.finished(job_id, index)
        self.count(job_id, index, status)
        return outcome

    def count(self, job_id, index, status):
        """Add the position to the job's done or failed set (idempotent: a set holds each index once)."""
        counter = "done_idx" if status == "done" else "failed_idx"
        try:
            self.ddb.update_item(TableName=self.table, Key=self._key(job_id, JOB_SEQ),
                                 UpdateExpression="ADD #c :i SET updated_at = :now",
                                 ConditionExpression="attribute_exists(job_id)",
                                 ExpressionAttributeNames={"#c": counter},
                                 ExpressionAttributeValues={":i": {"NS": [str(index)]}, ":now": {"S": now_iso()}})
        except self.ddb.exceptions.ConditionalCheckFailedException:
            raise UnknownJob(job_id) from None

    def job(self, job_id):
        """The job item as a dict (total, done, failed, status, ...), or None."""
        item = self.ddb.get_item(TableName=self.table, Key=self._key(job_id, JOB_SEQ),
                                 ConsistentRead=True).get("Item")
        if not item:
            return None
        total = int(item["total"]["N"])
        done = len(item.get("done_idx", {}).get("NS", []))
        failed = len(item.get("failed_idx", {}).get("NS", []))
        started = item.get("started_at", {}).get("S")
        return {"job_id": job_id, "status": job_status(total, done, failed, started), "total": total, "done": done,
                "failed": failed, "created_at": item["created_at"]["S"], "started_at": started,
                "updated_at": item.get("updated_at", {}).get("S"),
                "options": SearchLimits.model_validate_json(item["options"]["S"]), "source": item["source"]["S"]}

    def results(self, job_id, after=-1, limit=DEFAULT_PAGE):
        """([JobResult], next_after): finished positions with index > after, in index order."""
        page = self.ddb.query(TableName=self.table, ConsistentRead=True, Limit=limit,
                              KeyConditionExpression="job_id = :j AND seq > :after",
                              ExpressionAttributeValues={":j": {"S": job_id}, ":after": {"N": str(max(after, -1))}})
        results = []
        for item in page.get("Items", []):
            analysis = item.get("analysis", {}).get("S")
            results.append(JobResult(index=int(item["seq"]["N"]), id=item["id"]["S"], status=item["status"]["S"],
                                     fen=item["fen"]["S"], error=item.get("error", {}).get("S"),
                                     analysis=Analysis.model_validate_json(analysis) if analysis else None))
        more = "LastEvaluatedKey" in page and results
        return results, (results[-1].index if more else None)

    def state(self, job_id, after=-1, limit=DEFAULT_PAGE):
        """JobState (the job and one page of results), or None for an unknown job."""
        job = self.job(job_id)
        if job is None:
            return None
        results, next_after = self.results(job_id, after, limit)
        return JobState(**{k: v for k, v in job.items() if k != "source"}, results=results, next_after=next_after)


# --- the queue ------------------------------------------------------------------------------------


def _chunks(entries):
    """Entries in groups SendMessageBatch accepts: at most 10, at most MAX_SEND_BYTES of bodies."""
    group, size = [], 0
    for entry in entries:
        n = len(entry["MessageBody"].encode())
        if group and (len(group) == SEND_BATCH or size + n > MAX_SEND_BYTES):
            yield group
            group, size = [], 0
        group.append(entry)
        size += n
    if group:
        yield group


def send_positions(sqs, queue_url, job_id, positions, limits, sleep=time.sleep):
    """Send one message per position with SendMessageBatch. Returns (queued, {index: reason}) where the
    second lists the positions the queue refused.

    SendMessageBatch answers per entry: entries that failed by no fault of ours (SenderFault false:
    throttling, an internal error) are sent again, up to SEND_ATTEMPTS tries with backoff; entries
    that failed by our fault are not. A call that fails as a whole (after boto3's own retries) stops
    the sending: that batch and the ones after it are refused, with the error as the reason.
    """
    entries = [{"Id": str(p.index), "MessageBody": message_body(job_id, p, limits),
                "MessageAttributes": message_attributes(job_id, p.index)} for p in positions]
    queued, refused = 0, {}
    groups = list(_chunks(entries))
    for g, group in enumerate(groups):
        pending = group
        for attempt in range(SEND_ATTEMPTS):
            try:
                answer = sqs.send_message_batch(QueueUrl=queue_url, Entries=pending)
            except Exception as e:  # botocore ClientError / BotoCoreError: the queue is not answering
                reason = f"the queue refused the batch: {_describe(e)}"
                for rest in [pending] + groups[g + 1:]:
                    refused.update({int(entry["Id"]): reason for entry in rest})
                return queued, refused
            queued += len(answer.get("Successful", []))
            failed = answer.get("Failed", [])
            retry_ids = {f["Id"] for f in failed if not f.get("SenderFault")}
            for f in failed:
                if f.get("SenderFault") or attempt == SEND_ATTEMPTS - 1:
                    refused[int(f["Id"])] = f"the queue refused it: {f.get('Code')}: {f.get('Message', '')}".strip()
            pending = [entry for entry in pending if entry["Id"] in retry_ids]
            if not pending or attempt == SEND_ATTEMPTS - 1:
                break
            sleep(0.05 * 4**attempt)
    return queued, refused


def _describe(e):
    response = getattr(e, "response", None)
    if isinstance(response, dict) and "Error" in response:
        return f"{response['Error'].get('Code')}: {response['Error'].get('Message', '')}"
    return f"{type(e).__name__}: {e}"


def submit(request, store=None, sqs=None, queue_url=None):
    """Check, record and queue a JobRequest: the jobs API and `kibitz batch submit --queue-url` both call this.

    Returns JobAccepted, or raises functions.common.models.InputError: 422 naming each bad position
    (nothing is recorded or queued), or 503 when the queue refused every message (the job is removed).
    """
    from functions.common.models import InputError
    from functions.common.positions import read_positions

    sources = request.sources()
    if len(sources) != 1:
        raise InputError(422, "body", "give exactly one of positions, epd or pgn" +
                         (f" (got {', '.join(sources)})" if sources else ""))
    positions, errors = read_positions(request)
    if errors:
        first, *more = errors
        raise InputError(422, first["field"], first["reason"], more)
    store = store or Store()
    sqs = sqs or client("sqs")
    queue_url = queue_url or os.environ.get("KIBITZ_JOBS_QUEUE_URL")
    if not queue_url:
        raise RuntimeError("KIBITZ_JOBS_QUEUE_URL is not set: the jobs queue's URL")
    limits = request.limits()
    job_id = new_job_id()
    store.create_job(job_id, len(positions), limits, sources[0])
    queued, refused = send_positions(sqs, queue_url, job_id, positions, limits)
    if queued == 0:
        store.delete_job(job_id)
        reason = next(iter(refused.values()))
        raise InputError(503, "queue", f"nothing was queued: {reason}")
    for p in positions:
        if p.index in refused:
            store.record(job_id, p.index, p.id, p.fen, error=f"not queued: {refused[p.index]}")
    return JobAccepted(job_id=job_id, status="queued", total=len(positions), queued=queued,
                       not_queued=[NotQueued(index=i, reason=r) for i, r in sorted(refused.items())],
                       url=f"/jobs/{job_id}")
