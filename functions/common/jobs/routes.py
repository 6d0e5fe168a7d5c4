"""The jobs API's routes, declared once: JobsFunction serves them, and AnalyzeFunction's /swagger documents
them beside /analyze, so that one OpenAPI document describes the whole API.

    add_job_routes(app, service)

registers POST /jobs, GET /jobs/{job_id}, GET /jobs/{job_id}/pgn and POST /jobs/uploads on a Powertools
resolver, with their models, checks and documented answers; `service` does the work (functions/jobs/app.py's,
or Elsewhere, which only documents).
"""

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Response
from aws_lambda_powertools.event_handler.openapi.params import Body, Path, Query

from functions.common.api.http import InputError, known_query, refuse_form_bodies
from functions.common.api.models import error_responses
from functions.common.jobs.models import DEFAULT_PAGE, MAX_PAGE, JobAccepted, JobRequest, JobState
from functions.common.jobs.s3.models import UploadAccepted, UploadRequest

JOB_ID = Path(min_length=1, max_length=64)


def add_job_routes(app, service):
    @app.post("/jobs", summary="Submit positions for analysis", middlewares=[refuse_form_bodies], responses={
        202: {"description": "queued", "content": {"application/json": {"model": JobAccepted}}},
        **error_responses(400, 413, 415, 422, 429, 503)})
    def create_job(request: Annotated[JobRequest, Body()]) -> Response[JobAccepted]:
        return service.create(request)

    @app.get("/jobs/<job_id>", summary="A job's status, counts and results (paginated)",
             middlewares=[known_query("limit", "after")], responses={
                 200: {"description": "the job", "content": {"application/json": {"model": JobState}}},
                 **error_responses(404, 422, 429, 503)})
    def get_job(job_id: Annotated[str, JOB_ID],
                limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="results per page")] = DEFAULT_PAGE,
                after: Annotated[int, Query(ge=-1, description="results with an index above this")] = -1) -> JobState:
        return service.state(job_id, after, limit)

    @app.get("/jobs/<job_id>/pgn", summary="A finished review's games, annotated (PGN)", responses={
        200: {"description": "the annotated PGN", "content": {"text/plain": {"schema": {"type": "string"}}}},
        **error_responses(404, 409, 422, 429, 503)})
    def get_job_pgn(job_id: Annotated[str, JOB_ID]) -> Response[str]:
        return service.pgn(job_id)


    @app.post("/jobs/uploads", summary="A URL to upload a file to, for a job read from S3",
              middlewares=[refuse_form_bodies], responses={
                  201: {"description": "PUT the file to upload_url, then POST /jobs with source",
                        "content": {"application/json": {"model": UploadAccepted}}},
                  **error_responses(400, 415, 422, 429, 503)})
    def create_upload(request: Annotated[UploadRequest, Body()]) -> Response[UploadAccepted]:
        return service.upload(request)


class Elsewhere:
    """The jobs routes as AnalyzeFunction knows them: documented only (API Gateway sends them to JobsFunction)."""

    def _elsewhere(self, *args):
        raise InputError(404, "path", "the jobs API is JobsFunction's")

    create = state = pgn = upload = _elsewhere
