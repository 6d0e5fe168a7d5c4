"""The live analysis stream's `analyze` route: a WebSocket API (API Gateway v2) message in, a search whose
iterations are posted to the connection as they complete, and the final answer (docs/live.md).

    {"action": "analyze", "fen": ..., "movetime_ms": 2000, "multipv": 3, "id": "q1"}
      -> {"type": "info", "id": "q1", "depth": 1, ...}  (each completed iteration, at most one per 100 ms)
      -> {"type": "result", "id": "q1", <POST /analyze's answer>}   (also kept in the shared cache)
      or {"type": "error", "id": "q1", "status": 422, "message": ..., "errors": [...]}

The same models and the same search as POST /analyze (functions/common/); the messages are
functions/common/live/messages.py's, the posting functions/common/live/stream.py's. A `stop` message or
`$disconnect` is another invocation (functions/live_control/app.py) that writes the connection's item;
a watcher thread here reads it (functions/common/live/connections.py) and stops the search, which then
answers its best line so far. A connection gone (GoneException) stops it too, without an answer.

Configuration (template.yaml): KIBITZ_LIVE_TABLE (the connections), KIBITZ_LIVE_ENDPOINT (a local
Management API instead of https://{domainName}/{stage}), and AnalyzeFunction's KIBITZ_HASH_MB,
KIBITZ_MAX_MOVETIME_MS, KIBITZ_SAFETY_MARGIN_MS, KIBITZ_CACHE_TABLE.
"""

import json
import os
import sys
import threading
import time

from aws_lambda_powertools import Logger

from engine.stop_signal import StopSignal
from functions.common import settings
from functions.common.analysis.budget import budget_ms
from functions.common.analysis.cache_store import CacheStore
from functions.common.analysis.request import RequestError, analyse_request  # loads the compiled engine: init phase
from functions.common.live.connections import Connections, Watcher, dynamodb
from functions.common.live.messages import (
    MessageError,
    analyze_request,
    client_id,
    error_message,
    read_frame,
    result_message,
)
from functions.common.live.stream import Poster, Stream

logger = Logger()
cache = CacheStore.from_env()  # None without KIBITZ_CACHE_TABLE
if settings.text("KIBITZ_LIVE_TABLE"):
    dynamodb()  # boto3 imported and the table's client made in the init phase (~0.5 s), not at the first message

# The search releases the GIL while it searches, but takes it back between iterations; when the stream's
# poster holds it then (building an info message in Python: SAN, WDL, ~2 ms), the search waits for
# CPython's switch interval, 5 ms by default, at every iteration. 0.5 ms made the stream's cost on the
# search's nodes/s 0.99x instead of 0.88x (benchmarks/live.py, "own"). Process-wide: on Lambda this
# process runs this function alone (under `kibitz serve`, every function of the process).
SWITCH_INTERVAL_S = 0.0005
sys.setswitchinterval(SWITCH_INTERVAL_S)


class SearchStop:
    """The search's StopSignal, set by the watcher or by a gone client, but never before the first
    iteration has completed (so that even a search stopped at once answers a move)."""

    def __init__(self):
        self.signal = StopSignal()
        self.reason = None
        self._first = False
        self._lock = threading.Lock()

    def request(self, reason):
        with self._lock:
            self.reason = self.reason or reason
            if self._first:
                self.signal.set()

    def iteration_done(self):
        with self._lock:
            if not self._first:
                self._first = True
                if self.reason is not None:
                    self.signal.set()


def lambda_handler(event, context):
    """One `analyze` message: always answers 200 to API Gateway (what the client gets goes by the
    Management API)."""
    ctx = event["requestContext"]
    cid, request_id = ctx["connectionId"], ctx["requestId"]
    asked_at = int(ctx.get("requestTimeEpoch") or time.time() * 1000)
    poster = Poster.for_event(event)
    stream = Stream(poster, cid)
    id_ = None
    try:
        data = read_frame(event.get("body"))
        id_ = client_id(data)
        stream.id_ = id_
        request = analyze_request(data)
    except MessageError as e:
        logger.info("rejected", extra={"status": e.status, "errors": e.errors[:20], "connection": cid})
        stream.send(error_message(e.status, e.errors, request_id, id_))
        return {"statusCode": 200}
    try:
        search(request, cid, request_id, asked_at, stream, context)
    except MessageError as e:
        logger.info("rejected", extra={"status": e.status, "errors": e.errors[:20], "connection": cid})
        stream.send(error_message(e.status, e.errors, request_id, id_))
    except Exception:
        logger.exception("unexpected error")
        stream.send(error_message(500, [{"field": "", "reason": "internal error; quote the request id to report it"}],
                                  request_id, id_))
    return {"statusCode": 200}


def search(request, cid, request_id, asked_at, stream, context):
    started = time.monotonic_ns()
    budget = budget_ms(request.movetime_ms, context.get_remaining_time_in_millis())
    connections = Connections()
    stop = SearchStop()
    stream.on_gone = stop.request

    def on_info(found):
        stop.iteration_done()
        stream.info(found)

    watcher = Watcher(connections, cid, request_id, asked_at, stop.request).start()
    stream.start()
    try:
        done = analyse_request(request.fen, request.moves, request.limits(), budget, cache, threads=request.threads,
                               started_ns=started, on_info=on_info, stop=stop.signal,
                               chess960=request.variant == "chess960", explain=request.explain,
                               threats=request.threats)
    except RequestError as e:
        raise MessageError(422, [{"field": e.field, "reason": e.reason}]) from e
    finally:
        watcher.close()
        stream.close()
    found, outcome, threads, answer = done.found, done.outcome, done.threads, done.answer
    delivered = stream.send(result_message(answer, stream.id_))
    metrics(found, outcome, budget, stream, stop, delivered)
    logger.info("analysed", extra={
        "fen": found.fen, "depth": found.depth, "nodes": found.nodes, "time_ms": found.time_ms, "budget_ms": budget,
        "cache": outcome.event, "threads": threads, "infos": stream.infos, "stopped": stop.reason,
        "watcher_reads": watcher.reads, "watcher_errors": watcher.errors, "delivered": delivered,
        "connection": cid})
    return answer


def metrics(found, outcome, budget, stream, stop, delivered):
    """One CloudWatch EMF line a search (namespace POWERTOOLS_METRICS_NAMESPACE, dimension service), written
    here rather than by Powertools' Metrics, whose metric set is shared by every instance in a process
    (`kibitz serve` runs several LiveFunction containers in one)."""
    if os.environ.get("POWERTOOLS_METRICS_DISABLED", "").lower() == "true":
        return
    values = {"LiveSearches": (1, "Count"), "Depth": (found.depth, "Count"), "Budget": (budget, "Milliseconds"),
              "LiveInfos": (stream.infos, "Count"), "LiveStopped": (int(stop.reason is not None), "Count"),
              "LiveGone": (int(not delivered), "Count"),
              "CacheHits" if outcome.cached else "CacheMisses": (1, "Count")}
    if not outcome.cached:
        values.update(Nodes=(found.nodes, "Count"), NodesPerSecond=(found.nps, "Count/Second"),
                      SearchTime=(found.time_ms, "Milliseconds"))
    if stream.first_info_at is not None:
        values["FirstInfoMs"] = ((stream.first_info_at - stream.started_at) * 1000, "Milliseconds")
    service = os.environ.get("POWERTOOLS_SERVICE_NAME", "kibitz")
    print(json.dumps({"_aws": {"Timestamp": int(time.time() * 1000), "CloudWatchMetrics": [{
        "Namespace": os.environ.get("POWERTOOLS_METRICS_NAMESPACE", "Kibitz"), "Dimensions": [["service"]],
        "Metrics": [{"Name": name, "Unit": unit} for name, (_, unit) in values.items()]}]},
        "service": service, **{name: value for name, (value, _) in values.items()}}, separators=(",", ":")))
