"""BatchFunction's work on one queue record, as plain functions that know nothing of Lambda's event.

    job_id, index = attribution(record)                     # or Unattributable
    outcome = analyse_record(record, job_id, index, store, remaining_ms, cache)   # or Deferred

analyse_record calls finish_review(store, job_id, item) after each count: the record that completes a review
has its puzzles found and stored with the job (GET /jobs/{job_id} serves them, and calls the review done then).

record: one SQS record as Powertools gives it (message_id, body, message_attributes,
attributes.approximate_receive_count). What happens to it is in functions/batch/app.py's docstring;
the Outcome says what was done, for the handler's metrics and logs.
"""

import dataclasses
import json

from functions.common import settings
from functions.common.analysis.request import analyse_request  # loads the compiled engine: in the init phase
from functions.common.jobs.queue import read_message
from functions.common.jobs.review_report import finish_review

DEFAULT_RECORD_MARGIN_MS = 5000


class Deferred(Exception):
    """Not enough of the invocation left to analyse this record: SQS delivers it again."""


class Unattributable(Exception):
    """A message that names no job and position: nothing to record it against."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    status: str  # what the record came to: "done", "failed" or "duplicate"
    event: str  # what happened: "analysed", "failed", "poison", "mismatch", "redelivered" or "duplicate"
    reason: str | None = None  # why it failed
    found: object = None  # engine.result.Analysis, when analysed
    cache: object = None  # functions.common.analysis.cache.CacheOutcome, when analysed
    budget_ms: int | None = None  # the search's time limit and threads, when analysed
    threads: int | None = None
    exception: BaseException | None = None  # an engine bug, whose traceback belongs in the log
    puzzles: str | None = None  # what finish_review did, when this record completed a review


def jobs_of(event):
    """The job ids the records of an SQS event name in their message attributes, sorted."""
    jobs = set()
    for record in event.get("Records") or []:
        job = ((record.get("messageAttributes") or {}).get("job_id") or {}).get("stringValue")
        if job:
            jobs.add(job)
    return sorted(jobs)


def attribution(record):
    """(job_id, index) from the message attributes, else from the body; Unattributable if neither has them."""
    attrs = record.message_attributes  # its [] gives Powertools' attribute objects
    try:
        if "job_id" in attrs and "index" in attrs and attrs["job_id"].string_value:
            return attrs["job_id"].string_value, int(attrs["index"].string_value)
        body = json.loads(record.body)
        return str(body["job_id"]), int(body["index"])
    except (ValueError, TypeError, KeyError) as e:
        raise Unattributable(f"message {record.message_id} names no job and position ({type(e).__name__}: {e})") \
            from None


def analyse_record(record, job_id, index, store, remaining_ms, cache=None):
    """Read the record's message, analyse its position (through the analysis cache, a
    cache_store.CacheStore or None), store and count the result (job_store.Store).

    Raises Deferred when remaining_ms less KIBITZ_RECORD_MARGIN_MS is under the position's movetime;
    AWS errors propagate (the record comes back).
    """
    try:
        message = read_message(record.body)
    except ValueError as e:
        _, item = store.record(job_id, index, str(index), "", error=str(e))
        return Outcome("failed", "poison", reason=str(e), puzzles=finish_review(store, job_id, item))
    if (message.job_id, message.index) != (job_id, index):
        reason = (f"message body: it is position {message.index} of job {message.job_id}, but its attributes say "
                  f"position {index} of job {job_id}")
        _, item = store.record(job_id, index, message.id, message.fen, error=reason)
        return Outcome("failed", "mismatch", reason=reason, puzzles=finish_review(store, job_id, item))

    # A redelivery may find its position finished: keep the stored result, make sure it is counted. (On a
    # first delivery the read is skipped: a duplicate message then costs an analysis, not a wrong count,
    # as the result's write is conditional.)
    redelivered = int(record.attributes.approximate_receive_count or 1) > 1
    already = store.finished(job_id, index) if redelivered else None
    if already:
        item = store.count(job_id, index, already)
        return Outcome(already, "redelivered", puzzles=finish_review(store, job_id, item))

    margin = settings.record_margin_ms(DEFAULT_RECORD_MARGIN_MS)
    left = remaining_ms - margin
    options = message.options
    if left < options.movetime_ms:
        raise Deferred(f"{left} ms left of the invocation (after a {margin} ms margin), "
                       f"{options.movetime_ms} ms needed")
    found = exception = outcome = None
    threads = options.threads
    try:
        done = analyse_request(message.fen, message.moves, options, options.movetime_ms, cache, threads=threads,
                               chess960=message.variant == "chess960")
        found, outcome, threads, result, error = done.found, done.outcome, done.threads, done.answer, None
    except ValueError as e:  # RequestError ("fen: ...", "moves: ..."), or a limit engine.analyse refuses
        result, error = None, str(e)
    except Exception as e:  # a bug: analysing it again would fail again, so it is recorded, not retried
        result, error, exception = None, f"internal error ({type(e).__name__}); the function's log has the traceback", e
    recorded, item = store.record(job_id, index, message.id, message.fen, analysis=result, error=error)
    puzzles = finish_review(store, job_id, item)
    if recorded == "duplicate":
        return Outcome("duplicate", "duplicate", puzzles=puzzles)
    if error is None:
        return Outcome("done", "analysed", found=found, cache=outcome, budget_ms=options.movetime_ms, threads=threads,
                       puzzles=puzzles)
    return Outcome("failed", "failed", reason=error, exception=exception, puzzles=puzzles)

