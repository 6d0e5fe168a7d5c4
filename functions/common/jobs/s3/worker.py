"""BatchFunction's work on the messages of a job read from S3 (`kind` split, chunk or finish, jobs/s3/messages.py).

    handle(kind, record, remaining_ms, cache)     # the outcome's name, or raises: SQS delivers it again

A failure (S3 or DynamoDB not answering, an object changed since it was checked) raises, and SQS delivers
the message again. On its last delivery (ApproximateReceiveCount = KIBITZ_MAX_RECEIVE_COUNT, the queue's
maxReceiveCount) the failure is written into the job first: a chunk's positions are named in the job's
failures, a split refuses the rest of the job; then it raises, and SQS moves the message to the dead-letter
queue for a person to look at. A chunk deferred for lack of time on its last delivery fails the same way. A
chunk's last delivery first writes its failure as pending (jobs/s3/jobs.py): if the invocation dies (a timeout, a
crash), the next read of the job's progress counts it, and a `finish` message has the output written.
Every other chunk still finishes, and the job's output says which positions failed and why.
"""

import time

from functions.common import settings
from functions.common.aws.clients import client
from functions.common.jobs.s3.chunk import ChunkDeferred, analyse_chunk
from functions.common.jobs.s3.jobs import S3Jobs, counts
from functions.common.jobs.s3.messages import read
from functions.common.jobs.s3.models import ChunkFailure
from functions.common.jobs.s3.output import finalize
from functions.common.jobs.s3.split import output_bucket, split

DEFAULT_MAX_RECEIVE_COUNT = 5
LAST_DELIVERY_SLACK_S = 30  # past the invocation's end, before a last delivery that did not count is called dead


def _finish_if_complete(jobs, job_id, item, s3):
    if item is None:  # counted before: whoever counted it may have died before writing the output
        item = jobs.item(job_id)
    total, done, failed, split_done, complete = counts(item)
    if complete and "output" not in item:
        finalize(job_id, item, s3, jobs)
        return True
    return False


def failure_of(message, error):
    return ChunkFailure(chunk=message.chunk, first_index=message.first_index, positions=message.positions,
                        where=f"{'games' if message.object.format == 'pgn' else 'lines'} from "
                              f"{message.first_number}, bytes {message.start}-{message.end - 1}",
                        error=error)


def handle(kind, record, remaining_ms, cache):
    message = read(kind, record.body)  # a body that is not one: ValidationError, the message comes back
    s3, jobs = client("s3"), S3Jobs()
    receives = int(record.attributes.approximate_receive_count or 1)
    last = receives >= settings.integer("KIBITZ_MAX_RECEIVE_COUNT", DEFAULT_MAX_RECEIVE_COUNT)
    if kind == "finish":
        return "finish+output" if _finish_if_complete(jobs, message.job_id, None, s3) else "finish"
    if kind == "chunk" and last:  # if this invocation dies, nothing else would name the chunk: say it now
        jobs.expect_failure(message.job_id, failure_of(message, f"its last delivery ({receives} of {receives}) did "
                                                                f"not finish: the invocation timed out or crashed"),
                            time.time() + remaining_ms() / 1000 + LAST_DELIVERY_SLACK_S)
    try:
        if kind == "split":
            _, _, after = split(message, s3, client("sqs"), settings.jobs_queue_url(), remaining_ms, jobs)
            event = "split"
        else:
            event, after = analyse_chunk(message, s3, output_bucket(), cache, remaining_ms(), jobs)
        if _finish_if_complete(jobs, message.job_id, after, s3):
            event += "+output"
        return event
    except Exception as e:
        if last and not isinstance(e, LookupError):  # LookupError: an unknown job, nothing to write into
            reason = f"{type(e).__name__}: {e}"[:500]
            if kind == "split":
                after = jobs.record_split(message.job_id, message.offset, 0, 0, done=True,
                                          refused=f"the source could not be split after {receives} tries: {reason}")
            else:
                what = "deferred" if isinstance(e, ChunkDeferred) else "failed"
                failure = failure_of(message, f"{what} {receives} times, the last: {reason}")
                after = jobs.count_chunk(message.job_id, message.chunk, 0, message.positions, failure)
            _finish_if_complete(jobs, message.job_id, after, s3)
        raise
