"""An S3 job's state for GET /jobs/{job_id}: its counts, its failures (those whose last delivery died are
counted here), and presigned URLs once it has its output; a complete job left without output is finished.
"""

import datetime
import time

from functions.common import settings
from functions.common.aws.clients import client
from functions.common.jobs.models import JobState
from functions.common.jobs.s3.jobs import S3Jobs, counts, job_dict, progress
from functions.common.jobs.s3.messages import FinishMessage, send
from functions.common.jobs.s3.output import presigned

# A complete job with no output this long after its last count: whoever counted last died before writing it
# (BatchFunction's timeout, and some); a read of its progress then queues a finish message
FINISH_AFTER_S = 330


def _epoch(iso):
    return datetime.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def finish(job_id):
    """Queue a finish message: BatchFunction writes the output of a complete job (again, if one is on it)."""
    if url := settings.text("KIBITZ_JOBS_QUEUE_URL"):  # unset: the CLI reading the table (kibitz batch --table)
        send(client("sqs"), url, [FinishMessage(job_id=job_id)])


def state(store, job_id):
    """JobState of an S3 job (its failures, and presigned URLs once it has its output), or None."""
    jobs = S3Jobs(store)
    item = jobs.item(job_id)
    if item is None:
        return None
    failure_items = jobs.failure_items(job_id)
    now = time.time()
    if "output" not in item:
        counted = jobs.overdue(job_id, item, failure_items, now)
        if counted is not None:
            item, failure_items = counted, jobs.failure_items(job_id)
        last_count = _epoch(item.get("updated_at", item["created_at"])["S"])
        if counts(item)[4] and (counted is not None or now - last_count > FINISH_AFTER_S):
            finish(job_id)
    job = job_dict(job_id, item)
    _, s3 = progress(item, jobs.failures(job_id, items=failure_items), presigned(client("s3")))
    return JobState(**{k: v for k, v in job.items() if k not in ("source", "games", "s3")}, review=False, games=None,
                    results=[], next_after=None, s3=s3)
