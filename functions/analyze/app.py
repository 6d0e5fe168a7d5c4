"""The analysis API: POST /analyze and GET /analyze, behind API Gateway (REST), on AWS Lambda.

A thin adapter in the Powertools style: pydantic models say what a request and an answer are
(functions/common/api/models.py, shared with the batch functions), the resolver validates,
`engine.analyse()` thinks. Importing this module imports the engine, which builds
its attack tables once per process (Lambda's init phase); every warm invocation reuses them.

Configuration (environment variables declared in template.yaml):
    KIBITZ_HASH_MB            transposition table per request, in MB ("auto": sized from the memory)
    KIBITZ_SAFETY_MARGIN_MS   time kept back from the Lambda deadline for answering (default 1000)
    KIBITZ_CACHE_TABLE        the shared analysis cache (DynamoDB); unset: no cache (common/analysis/cache_store.py)
    CORS_ORIGIN               Access-Control-Allow-Origin (default "*")
    POWERTOOLS_*              service name, metrics namespace, log level (Powertools reads them)
"""

from functions.common.api import init_phase

init_phase.begin()  # no collections while the imports below make their objects (functions/common/api/init_phase.py)

import os
import random
import time
from typing import Annotated

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler.api_gateway import APIGatewayRestResolver, CORSConfig
from aws_lambda_powertools.event_handler.openapi.params import Body, Query

import engine
from engine.tt_pool import reserve_hash
from functions.common.analysis.budget import budget_ms, default_threads, hash_size_mb
from functions.common.analysis.cache_store import CacheStore
from functions.common.analysis.request import RequestError, analyse_request  # loads the compiled engine: init phase
from functions.common.api import telemetry
from functions.common.api.http import (
    MAX_BODY_BYTES,
    InputError,
    SwaggerOnDemand,
    api_handler,
    install_error_handlers,
    json_body_reader,
    known_query,
    refuse_form_bodies,
)
from functions.common.api.models import DEFAULT_MOVETIME_MS, AnalysisAnswer, AnalyzeBody, AnalyzeQuery, error_responses

RESPONSES = {200: {"description": "the analysis", "content": {"application/json": {"model": AnalysisAnswer}}}} | \
    error_responses(400, 413, 415, 422, 429, 503)  # 429, 503: API Gateway's (throttle, quota, concurrency)

logger = Logger()
tracer = Tracer(auto_patch=False)  # one DynamoDB call a request at most: not worth patching botocore's cold start
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Kibitz"))
app = APIGatewayRestResolver(
    enable_validation=True,
    cors=CORSConfig(allow_origin=os.environ.get("CORS_ORIGIN", "*"), max_age=600),
    json_body_deserializer=json_body_reader(MAX_BODY_BYTES),
)
install_error_handlers(app, logger, metrics)  # every error answers JSON naming the field and the reason
cache = CacheStore.from_env()  # None without KIBITZ_CACHE_TABLE


@app.post("/analyze", summary="Analyse a position (JSON body)", responses=RESPONSES, middlewares=[refuse_form_bodies])
def analyze_post(request: Annotated[AnalyzeBody, Body()]) -> AnalysisAnswer:
    return run(request)


@app.get("/analyze", summary="Analyse a position (query parameters)", responses=RESPONSES,
         middlewares=[known_query(*AnalyzeQuery.model_fields)])
def analyze_get(request: Annotated[AnalyzeQuery, Query()]) -> AnalysisAnswer:
    return run(request)


@tracer.capture_method
def run(request):
    started = time.monotonic_ns()  # a slow cache read comes out of the search's time, not on top of it
    budget = budget_ms(request.movetime_ms, app.lambda_context.get_remaining_time_in_millis())
    try:
        done = analyse_request(request.fen, request.moves, request.limits(), budget, cache, threads=request.threads,
                               started_ns=started, chess960=request.variant == "chess960", explain=request.explain,
                               threats=request.threats)
    except RequestError as e:
        raise InputError(422, e.field, e.reason) from e
    telemetry.analysed(metrics, logger, done.found, done.outcome, budget, done.threads)
    return done.answer


def document_jobs(app):
    """The jobs routes in this function's document (API Gateway sends them to JobsFunction; here they answer 404)."""
    from functions.common.jobs.routes import Elsewhere, add_job_routes

    add_job_routes(app, Elsewhere())


docs = SwaggerOnDemand(app, path="/swagger", document=document_jobs, title="Kibitz API", version=engine.__version__,
                       description="Best move, score and principal variation of a chess position (/analyze), and "
                                   "of many at once (/jobs). See docs/api.md and docs/batch.md.")


@api_handler(logger, tracer, metrics, docs=docs)
def lambda_handler(event, context):
    return app.resolve(event, context)


# --- SnapStart (template parameter SnapStart=On; docs/snapstart.md) -----------------------------------
# Lambda runs before_snapshot once, after this module's import, when it publishes a version, and
# snapshots the environment; after_restore runs in every environment resumed from that snapshot.


def before_snapshot():
    """Warm what a first request touches, so that the snapshot holds it: the transposition table at
    its largest, its pages faulted in (the attack tables and the net were written at import), and one
    tiny search on the threads a request gets, which runs the compiled search over those tables and
    leaves its searchers' arrays to be reused, then the answer's models and SAN. Straight to the engine,
    not through the analysis cache: no call to DynamoDB from a snapshot."""
    reserve_hash(hash_size_mb())
    threads = default_threads()
    hash_mb = hash_size_mb(DEFAULT_MOVETIME_MS, threads)
    found = engine.analyse(depth=4, hash_mb=hash_mb, threads=threads)
    AnalysisAnswer.of(found, DEFAULT_MOVETIME_MS, hash_mb, threads).model_dump_json()


def after_restore():
    """What must differ between the environments resumed from one snapshot: `random`'s state, drawn
    once from os.urandom when it was imported, is drawn again (no code of this function uses it that
    we know of; reseeding costs microseconds). Nothing else needs it: uuid4, secrets and the X-Ray
    SDK's ids read os.urandom each time. The engine draws nothing at random: a search's table epoch and
    salt come from this process's count of searches (engine/tt_pool.py), which every resumed environment
    continues from the same value; harmless, as each environment has its own table and the salt only
    tells its searches apart. str hashing's secret is fixed at interpreter start, so all of them share
    it; it cannot be changed, and only resistance to hash flooding depends on it (bodies are at most
    16 KiB)."""
    random.seed()


try:  # in Lambda's python3.12 and later runtimes only; not in `kibitz` or the tests, which never snapshot
    from snapshot_restore_py import register_after_restore, register_before_snapshot
except ImportError:
    pass
else:
    register_before_snapshot(before_snapshot)
    register_after_restore(after_restore)


# Last: the hooks are registered during init; Lambda runs before_snapshot once this import has ended.
init_phase.end()
