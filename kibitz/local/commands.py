"""`kibitz invoke` and `kibitz serve` (kibitz/cli.py parses their arguments): the template's functions run once on
an event, or served on 127.0.0.1 with the queues, tables and event sources the template declares."""

import contextlib
import json
import os
import pathlib
import signal
import sys

from kibitz.local import compression, template
from kibitz.local.runtime import FunctionRuntime
from kibitz.local.server import make_server
from kibitz.local.services import Services
from kibitz.local.ws_server import LIVE_FUNCTION, LiveServer, ManagementRecorder, is_live_function

# --- invoke ---------------------------------------------------------------------------------------


def invoke(args):
    functions = template.load(args.template)
    if args.function not in functions:
        sys.exit(f"kibitz: no function {args.function!r} in {args.template} (have: {', '.join(functions)})")
    if args.event == "-":
        event = json.load(sys.stdin)
    elif args.event:
        event = json.loads(pathlib.Path(args.event).read_text())
    else:
        event = {}
    services = None
    live = is_live_function(args.template, args.function)  # its connections table; it posts to its client
    if _needs_services(functions[args.function]) or live:
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


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def serve(args):
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
    """The WebSocket route (kibitz/local/ws_server.py), when the template has the live functions; the page learns
    its address from KIBITZ_LIVE_URL."""
    if LIVE_FUNCTION not in functions:
        return None
    port = args.live_port if args.live_port is not None else (args.port + 1 if args.port else 0)
    live = LiveServer(functions, args.host, port, args.live_concurrency, args.live_key).start()
    os.environ.setdefault("KIBITZ_LIVE_URL", live.url)  # set (even empty: no stream) by the caller: theirs
    return live
