"""BatchFunction: analyses the positions of batch jobs, fed by the jobs queue (SQS).

The SQS event source mapping hands over up to BatchSize messages, one position each; Powertools'
BatchProcessor runs `record_handler` on each and answers the records that must come back
(`ReportBatchItemFailures`). What happens to a record:

  analysed                  its Analysis (the /analyze answer) is stored and counted as done
  cannot be analysed        unreadable body, illegal FEN or move: stored and counted as failed with
                            the reason; it does not come back, and does not hold up the others
  already finished          (a redelivery, or a duplicate message) the stored result stands; the count
                            is re-applied, which changes nothing (functions/common/jobs.py says why)
  transient failure         AWS refused a read or a write (throttled, unavailable): reported as a
                            batch item failure, so SQS delivers it again; after maxReceiveCount
                            receives it goes to the dead-letter queue
  not enough time left      the Lambda's remaining time less KIBITZ_RECORD_MARGIN_MS is under the
                            record's movetime: not started, reported as a failure, delivered again
  no job                    a message for a job the table does not have (or with no job id at all):
                            reported as a failure, so it ends in the dead-letter queue for a person

Configuration (template.yaml): KIBITZ_JOBS_TABLE, KIBITZ_HASH_MB, KIBITZ_RECORD_MARGIN_MS,
KIBITZ_RESULTS_TTL_DAYS, POWERTOOLS_*.
"""

import json
import os

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

from engine import analyse
from engine.board import IllegalMoveError
from engine.fen import FenError
from engine.tt_pool import reserve_hash
from functions.common.jobs import Store, UnknownJob, read_message
from functions.common.models import answer, hash_size_mb

DEFAULT_RECORD_MARGIN_MS = 5000

logger = Logger()
tracer = Tracer()  # patches botocore: the DynamoDB calls show in X-Ray
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Kibitz"))
# Every record failing is a normal answer here (e.g. all deferred), not an error of the invocation.
# The processor logs each failed record with its exception (a warning: SQS delivers it again).
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False, logger=logger)


class Deferred(Exception):
    """Not enough of the invocation left to analyse this record: SQS delivers it again."""


class Unattributable(Exception):
    """A message that names no job and position: nothing to record it against."""


_batch = {"store": None, "unknown_jobs": set()}
reserve_hash(hash_size_mb())  # in the init phase: the first position's search does not pay for the table


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


def record_handler(record, lambda_context):
    job_id, index = attribution(record)
    store = _batch["store"]
    logger.append_keys(job_id=job_id, index=index, message_id=record.message_id,
                       receive_count=record.attributes.approximate_receive_count)
    if job_id in _batch["unknown_jobs"]:
        metrics.add_metric("UnknownJobRecords", MetricUnit.Count, 1)
        raise UnknownJob(job_id)
    try:
        message = read_message(record.body)
    except ValueError as e:
        metrics.add_metric("PoisonMessages", MetricUnit.Count, 1)
        logger.warning("poison message", extra={"reason": str(e)})
        store.record(job_id, index, str(index), "", error=str(e))
        return "failed"
    if (message.job_id, message.index) != (job_id, index):
        reason = (f"message body: it is position {message.index} of job {message.job_id}, but its attributes say "
                  f"position {index} of job {job_id}")
        store.record(job_id, index, message.id, message.fen, error=reason)
        return "failed"

    # A redelivery may find its position finished: keep the stored result, make sure it is counted. (On a
    # first delivery the read is skipped: a duplicate message then costs an analysis, not a wrong count,
    # as the result's write is conditional.)
    redelivered = int(record.attributes.approximate_receive_count or 1) > 1
    already = store.finished(job_id, index) if redelivered else None
    if already:
        metrics.add_metric("DuplicateRecords", MetricUnit.Count, 1)
        store.count(job_id, index, already)
        return already

    margin = int(os.environ.get("KIBITZ_RECORD_MARGIN_MS", DEFAULT_RECORD_MARGIN_MS))
    left = lambda_context.get_remaining_time_in_millis() - margin
    options = message.options
    if left < options.movetime_ms:
        metrics.add_metric("DeferredRecords", MetricUnit.Count, 1)
        raise Deferred(f"{left} ms left of the invocation (after a {margin} ms margin), "
                       f"{options.movetime_ms} ms needed")
    hash_mb = hash_size_mb()
    try:
        found = analyse(message.fen, message.moves, movetime_ms=options.movetime_ms, depth=options.depth,
                        nodes=options.nodes, multipv=options.multipv, hash_mb=hash_mb)
        result, error = answer(found, options.movetime_ms, hash_mb), None
    except FenError as e:
        result, error = None, f"fen: {e}"
    except IllegalMoveError as e:
        result, error = None, f"moves: {e}"
    except ValueError as e:
        result, error = None, str(e)
    except Exception as e:  # a bug: analysing it again would fail again, so it is recorded, not retried
        logger.exception("analysis failed")
        result, error = None, f"internal error ({type(e).__name__}); the function's log has the traceback"
    if store.record(job_id, index, message.id, message.fen, analysis=result, error=error) == "duplicate":
        metrics.add_metric("DuplicateRecords", MetricUnit.Count, 1)
        return "duplicate"
    if error is None:
        metrics.add_metric("PositionsAnalysed", MetricUnit.Count, 1)
        metrics.add_metric("Nodes", MetricUnit.Count, found.nodes)
        metrics.add_metric("SearchTime", MetricUnit.Milliseconds, found.time_ms)
        logger.info("analysed", extra={"fen": found.fen, "depth": found.depth, "nodes": found.nodes,
                                       "time_ms": found.time_ms, "game_over": found.terminal})
        return "done"
    metrics.add_metric("PositionsFailed", MetricUnit.Count, 1)
    logger.info("position failed", extra={"reason": error})
    return "failed"


def start_batch(event):
    """Per invocation: the store, and a mark on each job of the batch that a worker has it (status running)."""
    store = _batch["store"] = Store()
    _batch["unknown_jobs"] = set()
    jobs = set()
    for record in event.get("Records") or []:
        job = ((record.get("messageAttributes") or {}).get("job_id") or {}).get("stringValue")
        if job:
            jobs.add(job)
    for job in sorted(jobs):
        try:
            if not store.mark_started(job):
                _batch["unknown_jobs"].add(job)
                logger.error("message for an unknown job", extra={"job_id": job})
        except Exception:  # the records' own writes will meet the same trouble and be retried
            logger.warning("could not mark the job started", extra={"job_id": job}, exc_info=True)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics(capture_cold_start_metric=True)
def lambda_handler(event, context):
    metrics.add_metric("BatchRecords", MetricUnit.Count, len(event.get("Records") or []))
    start_batch(event)
    response = process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                        context=context)
    failures = len(response.get("batchItemFailures", []))
    logger.remove_keys(["job_id", "index", "message_id", "receive_count"])
    logger.info("batch", extra={"records": len(event.get("Records") or []), "failures": failures})
    return response
