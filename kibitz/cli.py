"""kibitz: the SAM application on this machine, without Docker. Its verbs mirror `sam local`.

    kibitz invoke AnalyzeFunction -e events/analyze-post.json   # like `sam local invoke`
    kibitz serve [--port 3000]                                   # like `sam local start-api`, + SQS/DynamoDB
    kibitz analyze FEN [--movetime-ms N] [--moves ...]          # a readable analysis
    kibitz batch submit FILE / kibitz batch results JOB_ID      # batch jobs (kibitz/clients/batch.py)
    kibitz review game.pgn [-o annotated.pgn] [--graph DIR]     # game review (kibitz/clients/review.py)

This module only parses: each verb is registered in COMMANDS with its argument set-up and the function that
runs it, imported when it runs (`kibitz --help` stays quick). invoke and serve are the local stack's
(kibitz/local/commands.py: `serve` serves every Api route in template.yaml, and runs the queues, tables and
SQS event sources the template declares); analyze, batch and review are the clients' (kibitz/clients/).
"""

import argparse
import importlib
import sys

from kibitz.local import template

# --- invoke ---------------------------------------------------------------------------------------


def add_invoke(p):
    p.add_argument("function", help="logical id in template.yaml, e.g. AnalyzeFunction")
    p.add_argument("-e", "--event", help="event JSON file ('-' for standard input; default: {})")


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
    p.add_argument("--live", action="store_true", help="stream the search through the WebSocket route, lines "
                                                       "redrawn as they deepen (Ctrl-C stops it; docs/live.md)")
    p.add_argument("--url", help="with --live: the stream's ws:// or wss:// address (default: $KIBITZ_LIVE_URL, "
                                 "else one started in this process)")


# --- batch, review ---------------------------------------------------------------------------------


def add_batch(p):
    from kibitz.clients.batch import add_batch as add

    add(p)


def add_review(p):
    from kibitz.clients.review import add_review as add

    add(p)


# verb: (its arguments, "module:function" that runs it, help)
COMMANDS = {
    "invoke": (add_invoke, "kibitz.local.commands:invoke",
               "run a function once on an event, in-process (sam local invoke)"),
    "serve": (add_serve, "kibitz.local.commands:serve",
              "serve the template's API routes on 127.0.0.1 (sam local start-api), with its queues, tables and SQS "
              "event sources"),
    "analyze": (add_analyze, "kibitz.clients.analyze:analyze", "analyse a position and print it for people"),
    "batch": (add_batch, "kibitz.clients.batch:batch", "submit a file of positions as a job, and collect the results"),
    "review": (add_review, "kibitz.clients.review:review_command",
               "review the games of a PGN file: annotated PGN, accuracy, ACPL, graphs"),
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
    module, function = args.run.split(":")
    return getattr(importlib.import_module(module), function)(args) or 0


if __name__ == "__main__":
    sys.exit(main())
