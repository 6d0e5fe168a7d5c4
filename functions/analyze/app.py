"""The analysis API: POST /analyze and GET /analyze, behind API Gateway (REST), on AWS Lambda.

A thin adapter in the Powertools style: pydantic models say what a request and an answer are
(functions/common/models.py, shared with the batch functions), the resolver validates,
`engine.analyse()` thinks. Importing this module imports the engine, which builds
its attack tables once per process (Lambda's init phase); every warm invocation reuses them.

Configuration (environment variables declared in template.yaml):
    KIBITZ_HASH_MB            transposition table per request, in MB ("auto": sized from the memory)
    KIBITZ_SAFETY_MARGIN_MS   time kept back from the Lambda deadline for answering (default 1000)
    CORS_ORIGIN               Access-Control-Allow-Origin (default "*")
    POWERTOOLS_*              service name, metrics namespace, log level (Powertools reads them)
"""

import gc

# No collections while init imports and builds: it makes ~80,000 objects and frees almost none, and
# the collector walked them for ~30 ms of a cold start. gc.freeze() at the end hands them over.
gc.disable()

import os
import random
from typing import Annotated

from aws_lambda_powertools import Logger, Metrics, Tracer
from aws_lambda_powertools.event_handler.api_gateway import APIGatewayRestResolver, CORSConfig
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit

import engine
from engine.analysis import analyse, reserve_hash
from engine.board import IllegalMoveError
from engine.fen import FenError
from functions.common.http import SwaggerOnDemand, install_error_handlers, not_a_proxy_event
from functions.common.models import (  # noqa: F401 (MAX_*, DEFAULT_*: the limits, read by tests and docs)
    DEFAULT_MOVETIME_MS,
    DEFAULT_SAFETY_MARGIN_MS,
    MAX_BODY_BYTES,
    MAX_MOVETIME_MS,
    Analysis,
    AnalyzeBody,
    AnalyzeQuery,
    InputError,
    answer,
    error_responses,
    hash_size_mb,
    read_json_body,
)
from functions.common.models import budget_ms as _budget_ms

RESPONSES = {200: {"description": "the analysis", "content": {"application/json": {"model": Analysis}}}} | \
    error_responses(400, 413, 415, 422)

# --- the function ---------------------------------------------------------------------------------


logger = Logger()
tracer = Tracer(auto_patch=False)  # the function calls no AWS service: nothing to patch
metrics = Metrics(namespace=os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Kibitz"))
app = APIGatewayRestResolver(
    enable_validation=True,
    cors=CORSConfig(allow_origin=os.environ.get("CORS_ORIGIN", "*"), max_age=600),
    json_body_deserializer=read_json_body,
)
docs = SwaggerOnDemand(app, path="/swagger", title="Kibitz analysis API", version=engine.__version__,
                       description="Best move, score and principal variation of a chess position. See README.md.")


@app.post("/analyze", summary="Analyse a position (JSON body)", responses=RESPONSES)
def analyze_post(request: Annotated[AnalyzeBody, Body()]) -> Analysis:
    return run(request)


@app.get("/analyze", summary="Analyse a position (query parameters)", responses=RESPONSES)
def analyze_get(request: Annotated[AnalyzeQuery, Query()]) -> Analysis:
    unknown = sorted(set(app.current_event.query_string_parameters or {}) - set(AnalyzeQuery.model_fields))
    if unknown:
        raise InputError(422, unknown[0], "unknown query parameter; expected one of "
                         + ", ".join(AnalyzeQuery.model_fields))
    return run(request)


@tracer.capture_method
def run(request):
    budget = budget_ms(request.movetime_ms)
    hash_mb = hash_size_mb(budget)
    try:
        found = analyse(request.fen, request.moves, movetime_ms=budget, depth=request.depth, nodes=request.nodes,
                        multipv=request.multipv, hash_mb=hash_mb)
    except FenError as e:
        raise InputError(422, "fen", str(e)) from e
    except IllegalMoveError as e:
        raise InputError(422, "moves", str(e)) from e
    metrics.add_metric("Nodes", MetricUnit.Count, found.nodes)
    metrics.add_metric("NodesPerSecond", MetricUnit.CountPerSecond, found.nps)
    metrics.add_metric("Depth", MetricUnit.Count, found.depth)
    metrics.add_metric("SearchTime", MetricUnit.Milliseconds, found.time_ms)
    metrics.add_metric("Budget", MetricUnit.Milliseconds, budget)
    logger.info("analysed", extra={"fen": found.fen, "depth": found.depth, "nodes": found.nodes,
                                   "time_ms": found.time_ms, "budget_ms": budget, "game_over": found.terminal})
    return answer(found, budget, hash_mb)


def budget_ms(movetime_ms):
    """The search deadline: the request's movetime, cut to what the Lambda has left less a margin."""
    return _budget_ms(movetime_ms, app.lambda_context.get_remaining_time_in_millis())


# --- errors: every one answers JSON naming the field and the reason (functions/common/http.py) ------

error_response = install_error_handlers(app, logger, metrics)


@logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
@tracer.capture_lambda_handler
@metrics.log_metrics(capture_cold_start_metric=True)
def lambda_handler(event, context):
    if (rejected := not_a_proxy_event(event, context)) is not None:
        return rejected
    docs.prepare(event)
    return app.resolve(event, context)


# --- SnapStart (template parameter SnapStart=On; README.md, "SnapStart") ------------------------------
# Lambda runs before_snapshot once, after this module's import, when it publishes a version, and
# snapshots the environment; after_restore runs in every environment resumed from that snapshot.


def before_snapshot():
    """Warm what a first request touches, so that the snapshot holds it: the transposition table at
    its largest, its pages faulted in (the attack tables and the net were written at import), and one
    tiny search, which runs the compiled search over those tables, then the answer's models and SAN."""
    reserve_hash(hash_size_mb())
    hash_mb = hash_size_mb(DEFAULT_MOVETIME_MS)
    answer(analyse(depth=4, hash_mb=hash_mb), DEFAULT_MOVETIME_MS, hash_mb).model_dump_json()


def after_restore():
    """What must differ between the environments resumed from one snapshot: `random`'s state, drawn
    once from os.urandom when it was imported, is drawn again (no code of this function uses it that
    we know of; reseeding costs microseconds). Nothing else needs it: uuid4, secrets and the X-Ray
    SDK's ids read os.urandom each time. The engine draws nothing at random: a search's table epoch and
    salt come from this process's count of searches, which every resumed environment continues from
    the same value; harmless, as each environment has its own table and the salt only tells its
    searches apart. str hashing's secret is fixed at interpreter start, so all of them share it; it
    cannot be changed, and only resistance to hash flooding depends on it (bodies are at most 16 KiB)."""
    random.seed()


try:  # in Lambda's python3.12 and later runtimes only; not in `kibitz` or the tests, which never snapshot
    from snapshot_restore_py import register_after_restore, register_before_snapshot
except ImportError:
    pass
else:
    register_before_snapshot(before_snapshot)
    register_after_restore(after_restore)


# Everything the init phase made (Powertools, pydantic's schemas, the engine's tables) lives as long as
# the container: out of the collector's sight, a full collection in a request no longer walks it all
# (a 150 ms outlier in 600 warm requests before, none after). Then the collector is back on.
gc.freeze()
gc.enable()
