"""Submitting a job read from S3 (POST /jobs with `source` and `format`): the source checked
(jobs/s3/source.py), the job recorded with the object's ETag and size, and one `split` message queued. The
positions are found, counted and queued in chunks by BatchFunction (jobs/s3/split.py); GET /jobs/{job_id}
follows them.
"""


from functions.common import settings
from functions.common.api.http import InputError
from functions.common.aws.clients import client
from functions.common.jobs.limits import charge_key
from functions.common.jobs.models import JobAccepted
from functions.common.jobs.s3.jobs import S3Jobs
from functions.common.jobs.s3.messages import SplitMessage, Where, send
from functions.common.jobs.s3.source import check_source
from functions.common.jobs.table import Table, new_job_id


def submit_s3(request, store=None, sqs=None, queue_url=None, api_key_id=None, job_id=None):
    """JobAccepted (total 0: the positions are counted as the source is split), or InputError naming the field.
    job_id: given by the drop folder (jobs/s3/drop.py), derived from the object, so that an event twice is one job."""
    sources = request.sources()
    if sources != ["source"]:
        raise InputError(422, "body" if sources else "source",
                         "give exactly one of positions, epd, pgn or source" +
                         (f" (got {', '.join(sources)})" if len(sources) > 1 else "; format goes with source"))
    if request.review:
        raise InputError(422, "review", "a job read from S3 is not a review: its PGN output is annotated anyway "
                                        "(<job_id>/annotated.pgn)")
    info = check_source(request.source, request.format, chess960=request.variant == "chess960", limits=request)
    if request.puzzles and info.format != "pgn":
        raise InputError(422, "puzzles", f"puzzles are found in games: format pgn, not {info.format}")
    store = store or Table()
    if api_key_id:
        charge_key(store, api_key_id)
    queue_url = settings.jobs_queue_url(queue_url)
    limits = request.limits()
    job_id = job_id or new_job_id()
    S3Jobs(store).create(job_id, limits, info, puzzles=request.puzzles)
    where = Where(bucket=info.bucket, key=info.key, etag=info.etag, format=info.format, compression=info.compression)
    try:
        send(sqs or client("sqs"), queue_url, [SplitMessage(job_id=job_id, source=where, options=limits,
                                                             variant=request.variant, puzzles=request.puzzles)])
    except Exception as e:
        store.delete_job(job_id)
        raise InputError(503, "queue", f"nothing was queued: {type(e).__name__}: {e}") from None
    return JobAccepted(job_id=job_id, status="queued", total=0, queued=0, not_queued=[], url=f"/jobs/{job_id}")
