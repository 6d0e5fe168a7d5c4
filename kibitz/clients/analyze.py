"""`kibitz analyze` (kibitz/cli.py parses its arguments): one analysis, printed for people (text.py) or as the
API's JSON. AnalyzeFunction runs in this process on the request as API Gateway would send it; with --live the
answer comes through the live stream instead (live_view.py)."""

import contextlib
import json
import sys

from engine.fen import STARTPOS
from kibitz.clients.live_view import analyze_live
from kibitz.clients.text import readable
from kibitz.local import template
from kibitz.local.apigateway import proxy_event
from kibitz.local.runtime import FunctionRuntime, quiet_logs

ANALYZE_FUNCTION = "AnalyzeFunction"


def request_of(args):
    """The API's request for the command line's position and limits."""
    request = {"fen": STARTPOS if args.fen == "startpos" else args.fen, "moves": args.moves,
               "movetime_ms": args.movetime_ms, "multipv": args.multipv}
    if args.variant != "standard":  # the API's default; another value is its 422 naming the field
        request["variant"] = args.variant
    for key in ("depth", "nodes"):
        if getattr(args, key) is not None:
            request[key] = getattr(args, key)
    return request


def analyze(args):
    request = request_of(args)
    if getattr(args, "live", False):
        return analyze_live(args, request)
    event = proxy_event("POST", "/analyze", headers={"Content-Type": "application/json"}, body=json.dumps(request))
    runtime = FunctionRuntime(template.load(args.template)[ANALYZE_FUNCTION])
    with contextlib.redirect_stdout(sys.stderr), quiet_logs():
        response = runtime.invoke(event)
    body = json.loads(response["body"])
    if args.json:
        print(json.dumps(body, indent=2))
    elif response["statusCode"] != 200:
        print(f"error {body['status']}: {body['message']}", file=sys.stderr)
    else:
        print(readable(body))
    return 0 if response["statusCode"] == 200 else 1
