"""kibitz: the SAM application on this machine, without Docker. Its verbs mirror `sam local`.

    kibitz invoke AnalyzeFunction -e events/analyze-post.json   # like `sam local invoke`
    kibitz serve [--port 3000]                                   # like `sam local start-api`, + SQS/DynamoDB
    kibitz analyze FEN [--movetime-ms N] [--moves ...]          # a readable analysis
    kibitz batch submit FILE / kibitz batch results JOB_ID      # batch jobs (kibitz/batch_client.py)
    kibitz review game.pgn [-o annotated.pgn] [--graph DIR]     # game review (kibitz/review_client.py)

Each verb is a module-level function registered in COMMANDS with its argument set-up; `serve` serves
every Api route in template.yaml, and runs the queues, tables and SQS event sources the template
declares (embedded moto and local pollers, or AWS: kibitz/services.py).
"""

import argparse
import contextlib
import json
import pathlib
import sys

from kibitz import template
from kibitz.apigateway import proxy_event
from kibitz.runtime import FunctionRuntime

ANALYZE_FUNCTION = "AnalyzeFunction"


def _functions(args):
    return template.load(args.template)


# --- invoke ---------------------------------------------------------------------------------------


def add_invoke(p):
    p.add_argument("function", help="logical id in template.yaml, e.g. AnalyzeFunction")
    p.add_argument("-e", "--event", help="event JSON file ('-' for standard input; default: {})")


def invoke(args):
    functions = _functions(args)
    if args.function not in functions:
        sys.exit(f"kibitz: no function {args.function!r} in {args.template} (have: {', '.join(functions)})")
    if args.event == "-":
        event = json.load(sys.stdin)
    elif args.event:
        event = json.loads(pathlib.Path(args.event).read_text())
    else:
        event = {}
    services = None
    from kibitz.ws_server import is_live_function

    live = is_live_function(args.template, args.function)  # its connections table; it posts to its client
    if _needs_services(functions[args.function]) or live:
        from kibitz.services import Services

        services = Services(args.template, pollers=0, quiet=True).start()
        functions = services.functions
        if services.mode == "embedded":
            print("kibitz: the template's queues and tables are embedded (moto, empty: a job the event names does "
                  "not exist); set KIBITZ_JOBS_TABLE and KIBITZ_JOBS_QUEUE_URL to use AWS", file=sys.stderr)
    posted = None
    try:
        runtime = FunctionRuntime(functions[args.function])
        with contextlib.ExitStack() as stack:
            if live:
                from kibitz.ws_server import ManagementRecorder

                posted = stack.enter_context(ManagementRecorder()).posted
            with contextlib.redirect_stdout(sys.stderr):  # the function's logs go to stderr, the answer to stdout
                response = runtime.invoke(event)
    finally:
        if services is not None:
            services.stop()
    print(json.dumps(response, indent=2))
    for cid, message in posted or ():  # what it posted through the Management API, one JSON line each
        print(json.dumps({"connection_id": cid, "message": message}))


def _needs_services(function):
    """A function with an SQS event, or one whose environment names a template resource (a table, a queue)."""
    return bool(function.sqs_events) or any(
        name in ("KIBITZ_JOBS_TABLE", "KIBITZ_JOBS_QUEUE_URL") for name in template.variable_names(function.name))


# --- serve ----------------------------------------------------------------------------------------


def add_serve(p):
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("-p", "--port", type=int, default=3000)
    p.add_argument("--pollers", type=int, help="local pollers per SQS event source, each a process running the "
                                               "function (default: its MaximumConcurrency, at most the cores; "
                                               "0: none)")
    p.add_argument("--visibility-timeout", type=int, metavar="S",
                   help="embedded queues only: the visibility timeout instead of the template's (1800 s), so that "
                        "a crashed batch comes back sooner")
    p.add_argument("--max-receive-count", type=int, metavar="N",
                   help="embedded queues only: deliveries before the dead-letter queue, instead of the template's")
    p.add_argument("--live-port", type=int, help="the WebSocket route's port (default: --port + 1, else any free one; "
                                                 "docs/live.md)")
    p.add_argument("--live-concurrency", type=int, metavar="N",
                   help="live analyses at once (default: the template's LiveReservedConcurrency)")
    p.add_argument("--live-key", metavar="KEY", help="require ?key=KEY on the WebSocket route, as a deployment "
                                                     "with ApiKeyRequired does")


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def serve(args):
    import signal

    from kibitz import compression
    from kibitz.server import make_server
    from kibitz.services import Services

    signal.signal(signal.SIGTERM, _interrupt)  # stop as on Ctrl-C: the pollers and moto go too
    services = Services(args.template, pollers=args.pollers, visibility_timeout_s=args.visibility_timeout,
                      max_receive_count=args.max_receive_count)
    server = live = None
    try:
        services.start(pollers=False)
        functions = services.functions
        live = _start_live(functions, args)
        server = make_server(functions, args.host, args.port,
                             minimum_compression_size=compression.minimum_size(args.template))
        host, port = server.server_address[:2]
        print(f"kibitz: serving {args.template} on http://{host}:{port} (Ctrl-C stops)", file=sys.stderr)
        for name, fn in functions.items():
            for route in fn.routes:
                print(f"  {route.method:6} http://{host}:{port}{route.path}  -> {name}", file=sys.stderr)
        if live is not None:
            print(f"  WS     {live.url}{'?key=...' if live.api_key else ''}  -> LiveFunction (analyze), "
                  f"LiveControlFunction ($connect, $disconnect, stop, $default); up to {live.concurrency} at once",
                  file=sys.stderr)
        services.start_pollers()  # after the banner: their output (the function's logs) follows it
        for line in services.describe():
            print(line, file=sys.stderr)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            server.server_close()
        if live is not None:
            live.stop()
        services.stop()


def _start_live(functions, args):
    """The WebSocket route (kibitz/ws_server.py), when the template has the live functions; the page learns
    its address from KIBITZ_LIVE_URL."""
    import os

    from kibitz.ws_server import LIVE_FUNCTION, LiveServer

    if LIVE_FUNCTION not in functions:
        return None
    port = args.live_port if args.live_port is not None else (args.port + 1 if args.port else 0)
    live = LiveServer(functions, args.host, port, args.live_concurrency, args.live_key).start()
    os.environ.setdefault("KIBITZ_LIVE_URL", live.url)  # set (even empty: no stream) by the caller: theirs
    return live


# --- analyze --------------------------------------------------------------------------------------


def add_analyze(p):
    p.add_argument("fen", help="the position (quote it), or 'startpos'")
    p.add_argument("--moves", nargs="*", default=[], help="UCI moves played from FEN")
    p.add_argument("--movetime-ms", type=int, default=1000)
    p.add_argument("--depth", type=int)
    p.add_argument("--nodes", type=int)
    p.add_argument("--multipv", type=int, default=1)
    p.add_argument("--variant", default="standard",
                   help="standard or chess960 (X-FEN/Shredder-FEN castling, castling moves king-to-rook: e1h1)")
    p.add_argument("--json", action="store_true", help="print the API's JSON answer instead")
    from kibitz.live_view import add_arguments

    add_arguments(p)  # --live, --url (docs/live.md)


def analyze(args):
    from engine.fen import STARTPOS

    request = {"fen": STARTPOS if args.fen == "startpos" else args.fen, "moves": args.moves,
               "movetime_ms": args.movetime_ms, "multipv": args.multipv}
    if args.variant != "standard":  # the API's default; another value is its 422 naming the field
        request["variant"] = args.variant
    for key in ("depth", "nodes"):
        if getattr(args, key) is not None:
            request[key] = getattr(args, key)
    if getattr(args, "live", False):
        from kibitz.live_view import analyze_live

        return analyze_live(args, request)
    event = proxy_event("POST", "/analyze", headers={"Content-Type": "application/json"}, body=json.dumps(request))
    runtime = FunctionRuntime(_functions(args)[ANALYZE_FUNCTION])
    with contextlib.redirect_stdout(sys.stderr), _quiet_logs():
        response = runtime.invoke(event)
    body = json.loads(response["body"])
    if args.json:
        print(json.dumps(body, indent=2))
    elif response["statusCode"] != 200:
        print(f"error {body['status']}: {body['message']}", file=sys.stderr)
    else:
        from kibitz.text import readable  # engine.pgn: only when there is an answer to print

        print(readable(body))
    return 0 if response["statusCode"] == 200 else 1


def _quiet_logs():
    """`kibitz analyze` is for people: keep the function's INFO logs and metrics out of the way."""
    import os
    from unittest import mock

    return mock.patch.dict(os.environ, POWERTOOLS_LOG_LEVEL="WARNING", POWERTOOLS_METRICS_DISABLED="true")


def add_batch(p):
    from kibitz.batch_client import add_batch as add

    add(p)


def batch(args):
    from kibitz.batch_client import batch as run

    return run(args)


def add_review(p):
    from kibitz.review_client import add_review as add

    add(p)


def review(args):
    from kibitz.review_client import review_command

    return review_command(args)


COMMANDS = {
    "invoke": (add_invoke, invoke, "run a function once on an event, in-process (sam local invoke)"),
    "serve": (add_serve, serve, "serve the template's API routes on 127.0.0.1 (sam local start-api), with its "
                                "queues, tables and SQS event sources"),
    "analyze": (add_analyze, analyze, "analyse a position and print it for people"),
    "batch": (add_batch, batch, "submit a file of positions as a job, and collect the results"),
    "review": (add_review, review, "review the games of a PGN file: annotated PGN, accuracy, ACPL, graphs"),
}


def parser():
    ap = argparse.ArgumentParser(prog="kibitz", description=__doc__.split("\n\n")[0])
    ap.add_argument("-t", "--template", default=str(template.TEMPLATE),
                    help="the SAM template (default: template.yaml)")
    sub = ap.add_subparsers(dest="command", required=True)
    for name, (add, run, text) in COMMANDS.items():
        p = sub.add_parser(name, help=text, description=text)
        add(p)
        p.set_defaults(run=run)
    return ap


def main(argv=None):
    args = parser().parse_args(argv)
    return args.run(args) or 0


if __name__ == "__main__":
    sys.exit(main())
