"""BatchFunction: analyses the positions of batch jobs, fed by the jobs queue (SQS).

The SQS event source mapping hands over up to BatchSize messages, one position each; Powertools'
BatchProcessor runs `record_handler` on each and answers the records that must come back
(`ReportBatchItemFailures`). The work is functions/common/jobs/worker.py's. What happens to a record:

  analysed                  its AnalysisAnswer (the /analyze answer) is stored and counted as done
  a review's last           whatever came of it, once counted: the review's puzzles are found (a small search
                            per mistake) and stored with the job, which is then done (jobs/review_report.py)
  cannot be analysed        unreadable body, illegal FEN or move: stored and counted as failed with
                            the reason; it does not come back, and does not hold up the others
  already finished          (a redelivery, or a duplicate message) the stored result stands; the count
                            is re-applied, which changes nothing (functions/common/jobs/table.py says why)
  transient failure         AWS refused a read or a write (throttled, unavailable): reported as a
                            batch item failure, so SQS delivers it again; after maxReceiveCount
                            receives it goes to the dead-letter queue
  not enough time left      the Lambda's remaining time less KIBITZ_RECORD_MARGIN_MS is under the
                            record's movetime: not started, reported as a failure, delivered again
  no job                    a message for a job the table does not have (or with no job id at all):
                            reported as a failure, so it ends in the dead-letter queue for a person

Jobs read from S3 send `split` and `chunk` messages instead (a `kind` attribute): functions/common/jobs/s3/worker.py
says what happens to them.

Configuration (template.yaml): KIBITZ_JOBS_TABLE, KIBITZ_CACHE_TABLE (the analysis cache),
KIBITZ_HASH_MB, KIBITZ_RECORD_MARGIN_MS, KIBITZ_RESULTS_TTL_DAYS, POWERTOOLS_*; for S3 jobs KIBITZ_JOBS_QUEUE_URL,
KIBITZ_OUTPUT_BUCKET, KIBITZ_MAX_RECEIVE_COUNT, KIBITZ_MAX_JOB_SEARCH_S, KIBITZ_CHUNK_POSITIONS,
KIBITZ_CHUNK_SEARCH_S.
"""

import os

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

from engine.tt_pool import reserve_hash
from functions.common.analysis.budget import hash_size_mb
from functions.common.analysis.cache_store import CacheStore
from functions.common.api import telemetry
from functions.common.jobs.s3 import worker as s3_worker
from functions.common.jobs.table import Table, UnknownJob
from functions.common.jobs.worker import Deferred, analyse_record, attribution, jobs_of

logger = Logger()
tracer = Tracer()  # patches botocore: the DynamoDB calls show in X-Ray
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Kibitz"))
# Every record failing is a normal answer here (e.g. all deferred), not an error of the invocation.
# The processor logs each failed record with its exception (a warning: SQS delivers it again).
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False, logger=logger)
batch = {"store": None, "unknown_jobs": set()}  # this invocation's
cache = CacheStore.from_env()  # the shared analysis cache; None without KIBITZ_CACHE_TABLE
reserve_hash(hash_size_mb())  # in the init phase: the first position's search does not pay for the table

COUNTED = {"analysed": "PositionsAnalysed", "failed": "PositionsFailed", "poison": "PoisonMessages",
           "redelivered": "DuplicateRecords", "duplicate": "DuplicateRecords"}


def record_handler(record, lambda_context):
    if "kind" in record.message_attributes:  # a job read from S3: a split or a chunk (common/jobs/s3/worker.py)
        return s3_record(record, lambda_context)
    job_id, index = attribution(record)
    logger.append_keys(job_id=job_id, index=index, message_id=record.message_id,
                       receive_count=record.attributes.approximate_receive_count)
    if job_id in batch["unknown_jobs"]:
        metrics.add_metric("UnknownJobRecords", MetricUnit.Count, 1)
        raise UnknownJob(job_id)
    try:
        outcome = analyse_record(record, job_id, index, batch["store"], lambda_context.get_remaining_time_in_millis(),
                                 cache)
    except Deferred:
        metrics.add_metric("DeferredRecords", MetricUnit.Count, 1)
        raise
    report(outcome)
    return outcome.status


def s3_record(record, lambda_context):
    kind = record.message_attributes["kind"].string_value
    logger.append_keys(job_id=record.message_attributes["job_id"].string_value, index=None,
                       message_id=record.message_id, receive_count=record.attributes.approximate_receive_count)
    outcome = s3_worker.handle(kind, record, lambda_context.get_remaining_time_in_millis, cache)
    metrics.add_metric({"split": "S3Splits", "finish": "S3Finishes"}.get(kind, "S3Chunks"), MetricUnit.Count, 1)
    logger.info(f"{kind} {outcome}", extra={"chunk": record.message_attributes["chunk"].string_value})
    return outcome


def report(outcome):
    """The record's metrics and log lines."""
    if outcome.event in COUNTED:
        metrics.add_metric(COUNTED[outcome.event], MetricUnit.Count, 1)
    if outcome.puzzles:  # this record completed a review: its puzzles were found and stored
        metrics.add_metric("ReviewsFinished", MetricUnit.Count, 1)
        logger.info("review finished", extra={"puzzles": outcome.puzzles})
    if outcome.event == "poison":
        logger.warning("poison message", extra={"reason": outcome.reason})
    elif outcome.event == "analysed":
        telemetry.analysed(metrics, logger, outcome.found, outcome.cache, outcome.budget_ms, outcome.threads)
    elif outcome.event == "failed":
        if outcome.exception is not None:
            logger.error("analysis failed", exc_info=outcome.exception)
        logger.info("position failed", extra={"reason": outcome.reason})


def start_batch(event):
    """Per invocation: the store, and a mark on each job of the batch that a worker has it (status running)."""
    store = batch["store"] = Table()
    batch["unknown_jobs"] = set()
    for job in jobs_of(event):
        try:
            if not store.mark_started(job):
                batch["unknown_jobs"].add(job)
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
