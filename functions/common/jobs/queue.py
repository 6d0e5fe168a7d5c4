"""The jobs queue (SQS): one message per position of a job, and sending them.

    send_positions(sqs, queue_url, job_id, positions, limits)   # SendMessageBatch, 10 a call, with retries
    read_message(body)                                          # PositionMessage, or ValueError naming why

Each message carries its job id and index as message attributes too, so that BatchFunction can record
a message whose body cannot be read as a failed position.
"""

import time

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from functions.common.api.models import MAX_FEN_CHARS, MAX_MOVES, SearchLimits, Variant
from functions.common.jobs.limits import MAX_POSITIONS
from functions.common.jobs.models import MAX_ID_CHARS

SEND_BATCH = 10  # SendMessageBatch takes at most 10 entries
MAX_SEND_BYTES = 250 * 1024  # and at most 256 KiB in all; keep some room for attributes
SEND_ATTEMPTS = 4  # tries per entry when SendMessageBatch reports it failed (and the fault is not ours)
MESSAGE_VERSION = 1


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
    variant: Variant = "standard"  # a message from before the variant is standard chess


def message_body(job_id, position, limits):
    return PositionMessage(job_id=job_id, index=position.index, id=position.id, fen=position.fen,
                           moves=list(position.moves), options=limits,
                           variant="chess960" if position.chess960 else "standard").model_dump_json(exclude_none=True)


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
