"""The jobs queue's messages for a job read from S3 (JobsQueue carries them beside the per-position
messages of jobs/queue.py; the `kind` message attribute tells them apart):

    split   cut the source into chunks from byte `offset` on (jobs/s3/split.py); one at submission, and another
            from where an invocation stopped when its time ran short
    chunk   analyse the positions of bytes [start, end) of an object (jobs/s3/chunk.py)
    finish  write a complete job's output (jobs/s3/output.py), when no chunk's delivery did

    send(sqs, queue_url, [message, ...])     # SendMessageBatch, 10 a call, calls in parallel; raises if any refused
"""

from concurrent.futures import ThreadPoolExecutor
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from functions.common.api.models import SearchLimits, Variant
from functions.common.jobs.s3.models import Format

SEND_THREADS = 8
SEND_ATTEMPTS = 4


class Where(BaseModel):
    """An object and how to read it."""

    bucket: str
    key: str
    etag: str
    format: Format
    compression: Literal["none", "gzip", "zstd"] = "none"


class SplitMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    kind: Literal["split"] = "split"
    job_id: str = Field(min_length=1, max_length=64)
    source: Where
    offset: int = 0  # a record boundary; and what comes before it:
    chunk: int = 0  # chunks
    index: int = 0  # positions
    number: int = 0  # games (PGN) or records (EPD, JSONL)
    line: int = 0  # lines
    options: SearchLimits
    variant: Variant = "standard"  # of every position; a PGN game's Variant tag wins
    puzzles: bool = False  # PGN: find the games' puzzles (the request's `puzzles`)


class ChunkMessage(BaseModel):
    model_config = ConfigDict(extra="ignore")

    kind: Literal["chunk"] = "chunk"
    job_id: str = Field(min_length=1, max_length=64)
    chunk: int = Field(ge=0)
    object: Where  # the source, or its decompressed copy
    start: int
    end: int
    positions: int
    first_number: int
    first_index: int
    options: SearchLimits
    variant: Variant = "standard"
    puzzles: bool = False  # PGN: find the games' puzzles (the request's `puzzles`)


class FinishMessage(BaseModel):
    """Write a complete job's output: sent by JobsFunction when a read of the job's progress counted its last
    chunk's failure (its last delivery died: s3_jobs.S3Jobs.overdue)."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["finish"] = "finish"
    job_id: str = Field(min_length=1, max_length=64)
    chunk: int = -1


def attributes(message):
    number = message.chunk
    return {"job_id": {"DataType": "String", "StringValue": message.job_id},
            "kind": {"DataType": "String", "StringValue": message.kind},
            "chunk": {"DataType": "Number", "StringValue": str(number)}}


def read(kind, body):
    return {"split": SplitMessage, "finish": FinishMessage}.get(kind, ChunkMessage).model_validate_json(body)


def _send_group(sqs, queue_url, entries):
    pending = entries
    for _ in range(SEND_ATTEMPTS):
        answer = sqs.send_message_batch(QueueUrl=queue_url, Entries=pending)
        failed = {f["Id"]: f for f in answer.get("Failed", [])}
        if not failed:
            return
        if any(f.get("SenderFault") for f in failed.values()):
            raise RuntimeError(f"the queue refused a message: {next(iter(failed.values()))}")
        pending = [e for e in pending if e["Id"] in failed]
    raise RuntimeError(f"the queue refused {len(pending)} messages after {SEND_ATTEMPTS} tries")


def send(sqs, queue_url, messages):
    """Send every message (10 a call, SEND_THREADS calls at once). Raises when one is refused: the caller's
    message comes back and sends them all again, which the receivers take as duplicates."""
    entries = [{"Id": str(i % 10), "MessageBody": m.model_dump_json(), "MessageAttributes": attributes(m)}
               for i, m in enumerate(messages)]
    groups = [entries[i:i + 10] for i in range(0, len(entries), 10)]
    if len(groups) <= 1:
        for g in groups:
            _send_group(sqs, queue_url, g)
        return
    with ThreadPoolExecutor(SEND_THREADS) as pool:
        list(pool.map(lambda g: _send_group(sqs, queue_url, g), groups))
