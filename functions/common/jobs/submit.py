"""Submitting a job: check every position, record the job, queue one message per position.

JobsFunction's POST /jobs calls submit(); so does `kibitz batch submit --queue-url`, which runs JobsFunction's
handler in its own process (kibitz/clients/jobs.py).
"""

from functions.common import settings
from functions.common.api.http import InputError
from functions.common.aws.clients import client
from functions.common.jobs.limits import charge_key, check_search_time
from functions.common.jobs.models import JobAccepted, NotQueued
from functions.common.jobs.positions import read_positions
from functions.common.jobs.queue import send_positions
from functions.common.jobs.review_report import finish_review, games_record
from functions.common.jobs.s3.submit import submit_s3
from functions.common.jobs.table import Table, new_job_id


def submit(request, store=None, sqs=None, queue_url=None, api_key_id=None):
    """Check, record and queue a JobRequest (POST /jobs).

    Returns JobAccepted, or raises functions.common.api.http.InputError: 422 naming each bad position, or a
    job over the search time a job may ask (nothing is recorded or queued); 429 when `api_key_id`'s jobs
    for today are used up; 503 when the queue refused every message (the job is removed).
    """
    sources = request.sources()
    if sources == ["source"] or request.format is not None:
        return submit_s3(request, store, sqs, queue_url, api_key_id)
    if len(sources) != 1:
        raise InputError(422, "body", "give exactly one of positions, epd or pgn (or source with format)" +
                         (f" (got {', '.join(sources)})" if sources else ""))
    if request.review and sources != ["pgn"]:
        raise InputError(422, "review", f"a review needs games: send them as pgn, not {sources[0]}")
    if request.puzzles and not request.review:
        raise InputError(422, "puzzles", "puzzles come with a review (`review` with pgn, which always has them) or "
                                         "with a PGN read from S3 (source, format pgn)")
    games = [] if request.review else None  # the PGN's games, read once with its positions
    positions, errors = read_positions(request, games=games)
    if errors:
        first, *more = errors
        raise InputError(422, first["field"], first["reason"], more)
    check_search_time(len(positions), request, sources[0])
    games = games_record(games) if request.review else None
    store = store or Table()
    if api_key_id:
        charge_key(store, api_key_id)
    sqs = sqs or client("sqs")
    queue_url = settings.jobs_queue_url(queue_url)
    limits = request.limits()
    job_id = new_job_id()
    store.create_job(job_id, len(positions), limits, sources[0], games)
    queued, refused = send_positions(sqs, queue_url, job_id, positions, limits)
    if queued == 0:
        store.delete_job(job_id)
        reason = next(iter(refused.values()))
        raise InputError(503, "queue", f"nothing was queued: {reason}")
    for p in positions:
        if p.index in refused:
            _, item = store.record(job_id, p.index, p.id, p.fen, error=f"not queued: {refused[p.index]}")
            finish_review(store, job_id, item)  # if the workers finished the rest already
    return JobAccepted(job_id=job_id, status="queued", total=len(positions), queued=queued,
                       not_queued=[NotQueued(index=i, reason=r) for i, r in sorted(refused.items())],
                       url=f"/jobs/{job_id}")
