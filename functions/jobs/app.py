"""JobsFunction: POST /jobs, GET /jobs/{job_id} and GET /jobs/{job_id}/pgn, the batch analysis API
behind API Gateway (REST).

POST /jobs checks every position (a bad one answers 422 naming it, and nothing is queued), records
the job in the results table, sends one message per position to the jobs queue (SendMessageBatch,
10 a call) and answers 202 with the job id. BatchFunction does the analysis. GET /jobs/{job_id}
answers the status, the counts and one page of results (and a finished review's summary per game);
GET /jobs/{job_id}/pgn a finished review's annotated PGN. functions/common/jobs/ (submit.py, store.py,
review_report.py) does the work; this module is the HTTP adapter. A function of its own, so AnalyzeFunction's
cold start carries neither boto3 nor the jobs code, and its IAM role reaches no table and no queue.

POST /jobs with `source` and `format` takes a job from an object in S3 (functions/common/jobs/s3/submit.py), and
POST /jobs/uploads gives a presigned URL to put one into InputBucket. An object put under InputBucket/incoming/
starts a job by itself: EventBridge invokes this function with S3's event (functions/common/jobs/s3/drop.py).

Configuration (template.yaml): KIBITZ_JOBS_TABLE, KIBITZ_JOBS_QUEUE_URL, KIBITZ_RESULTS_TTL_DAYS,
KIBITZ_INPUT_BUCKET, KIBITZ_EXTRA_INPUT_BUCKET, KIBITZ_OUTPUT_BUCKET, KIBITZ_MAX_SOURCE_BYTES, CORS_ORIGIN,
POWERTOOLS_*.
"""

from functions.common.api import init_phase

init_phase.begin()  # no collections while the imports below make their objects (functions/common/api/init_phase.py)

import os

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler.api_gateway import APIGatewayRestResolver, CORSConfig, Response
from aws_lambda_powertools.metrics import MetricUnit
from botocore.exceptions import BotoCoreError, ClientError

from functions.common.api.http import InputError, api_handler, install_error_handlers, json_body_reader
from functions.common.jobs.limits import S3_WAY
from functions.common.jobs.models import MAX_JOB_BODY_BYTES
from functions.common.jobs.review_report import annotated_pgn
from functions.common.jobs.routes import add_job_routes
from functions.common.jobs.s3.drop import dropped, start
from functions.common.jobs.s3.source import upload
from functions.common.jobs.store import Store
from functions.common.jobs.submit import submit

logger = Logger()
tracer = Tracer()  # patches botocore: the SQS and DynamoDB calls show in X-Ray
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Kibitz"))
app = APIGatewayRestResolver(
    enable_validation=True,
    cors=CORSConfig(allow_origin=os.environ.get("CORS_ORIGIN", "*"), max_age=600),
    json_body_deserializer=json_body_reader(MAX_JOB_BODY_BYTES, over=S3_WAY),
)
error_response = install_error_handlers(app, logger, metrics)


class Jobs:
    """What the routes do (functions/common/jobs/routes.py declares them, for the docs too)."""

    def create(self, request):
        # With ApiKeyRequired, API Gateway names the caller's key here (a client cannot set it): jobs a key a day
        accepted = submit(request, api_key_id=app.current_event.request_context.identity.api_key_id)
        metrics.add_metric("JobsSubmitted", MetricUnit.Count, 1)
        metrics.add_metric("PositionsQueued", MetricUnit.Count, accepted.queued)
        if accepted.not_queued:
            metrics.add_metric("PositionsNotQueued", MetricUnit.Count, len(accepted.not_queued))
        logger.info("job submitted", extra={"job_id": accepted.job_id, "total": accepted.total,
                                            "queued": accepted.queued, "source": request.sources()[0]})
        return Response(status_code=202, content_type="application/json", body=accepted,
                        headers={"Location": accepted.url})

    def state(self, job_id, after, limit):
        state = Store().state(job_id, after, limit)
        metrics.add_metric("JobReads", MetricUnit.Count, 1)
        if state is None:
            raise InputError(404, "job_id", f"no job {job_id}: it was never submitted, or it expired")
        return state

    def pgn(self, job_id):
        store = Store()
        job = store.job(job_id)
        if job is None:
            raise InputError(404, "job_id", f"no job {job_id}: it was never submitted, or it expired")
        if job["games"] is None:
            raise InputError(409, "job_id", f"job {job_id} is not a review: submit the games as pgn with review: true")
        if job["status"] not in ("done", "done-with-failures"):
            raise InputError(409, "job_id", f"job {job_id} is {job['status']}: {job['done'] + job['failed']} of "
                                            f"{job['total']} positions finished; GET /jobs/{job_id} for progress")
        text = annotated_pgn(job, store.all_results(job_id))
        metrics.add_metric("ReviewsRead", MetricUnit.Count, 1)
        return Response(status_code=200, content_type="text/plain; charset=utf-8", body=text)


    def upload(self, request):
        accepted = upload(request)
        metrics.add_metric("UploadsGranted", MetricUnit.Count, 1)
        return Response(status_code=201, content_type="application/json", body=accepted)


add_job_routes(app, Jobs())


@app.exception_handler((BotoCoreError, ClientError))
def aws_unavailable(e):
    logger.exception("AWS call failed")
    metrics.add_metric("AwsErrors", MetricUnit.Count, 1)
    return error_response(503, [{"field": "", "reason": "the jobs table, queue or buckets did not answer; try again "
                                                        "(quote the request id to report it)"}])


@api_handler(logger, tracer, metrics)
def api(event, context):
    return app.resolve(event, context)


@logger.inject_lambda_context
@metrics.log_metrics
def drop_folder(objects, context):
    metrics.add_metric("DropEvents", MetricUnit.Count, len(objects))
    for bucket, key in objects:
        marker = start(bucket, key)
        if marker is not None:
            metrics.add_metric("DroppedJobs" if marker["job_id"] else "DroppedRefused", MetricUnit.Count, 1)
            logger.info("dropped object", extra=marker)
    return {"objects": len(objects)}


def lambda_handler(event, context):
    if (objects := dropped(event)) is not None:  # S3's event, not a request
        return drop_folder(objects, context)
    return api(event, context)


init_phase.end()
