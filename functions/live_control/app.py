"""The live analysis stream's small routes: `$connect`, `$disconnect`, `stop` and `$default` (docs/live.md).

A function of its own, 256 MB, no engine: a `stop` must run even while every LiveFunction is busy
searching (their reserved concurrency is theirs alone), and it costs milliseconds.

    $connect      records the connection (connected_at); the key, where one is required, was checked by
                  the authorizer (authorizer.py) before this runs
    $disconnect   marks it gone: a search still running for it stops at the watcher's next read
    stop          records when the stop was asked: the search asked before it stops and answers its best
                  line so far (functions/common/live/connections.py)
    $default      any other message (not JSON, no or an unknown action): an error message, answered through
                  the route's response (a two-way route), the connection kept

Configuration: KIBITZ_LIVE_TABLE.
"""

import json
import logging
import os
import time

from functions.common.live.connections import Connections

logger = logging.getLogger()
logger.setLevel(os.environ.get("AWS_LAMBDA_LOG_LEVEL", "INFO"))
ACTIONS = ("analyze", "stop")


def lambda_handler(event, context):
    ctx = event["requestContext"]
    route, cid = ctx.get("routeKey"), ctx["connectionId"]
    at_ms = int(ctx.get("requestTimeEpoch") or time.time() * 1000)
    connections = Connections()
    if route == "$connect":
        connections.connect(cid, at_ms)
    elif route == "$disconnect":
        connections.disconnect(cid)
    elif route == "stop":
        try:
            connections.stop(cid, at_ms)
        except connections.client.exceptions.ConditionalCheckFailedException:
            pass  # a later stop is recorded already
    else:
        return {"statusCode": 200, "body": json.dumps(unknown(event.get("body"), ctx.get("requestId", "")))}
    logger.info(json.dumps({"route": route, "connection": cid}))
    return {"statusCode": 200}


def unknown(body, request_id):
    """The error message for a frame the route selection sent here (standard library only: no pydantic)."""
    field, data = "action", None
    try:
        data = json.loads(body or "")
    except ValueError as e:
        field, reason = "body", f"not valid JSON: {e}"
    else:
        if not isinstance(data, dict):
            field, reason = "body", f"expected a JSON object, not {type(data).__name__}"
        else:
            shown = json.dumps(data.get("action")) if data.get("action") is not None else "none"
            reason = f"unknown action {shown}; expected one of {', '.join(ACTIONS)}"
    head = {"type": "error"}
    if isinstance(data, dict) and isinstance(data.get("id"), (str, int)):
        head["id"] = data["id"]
    return {**head, "status": 400, "message": f"{field}: {reason}", "errors": [{"field": field, "reason": reason}],
            "request_id": request_id}
