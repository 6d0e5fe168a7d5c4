"""DynamoDB failing on purpose, for the load benchmark (benchmarks/load.py): `kibitz` with a fraction of the
embedded moto's DynamoDB calls failing, to show that nothing is lost or doubled when DynamoDB misbehaves.
Never part of a deployment, nor of the `kibitz` command itself (which only offers the hook:
kibitz/local/aws.py's MIDDLEWARE).

    python -m benchmarks.faults --dynamodb 0.1 serve [kibitz serve's arguments]   # one call in ten fails

Half the faults refuse the call before moto sees it; the other half let moto do it, then answer an
error all the same (the answer was "lost": a retry then finds the write already made). Both are a
500 InternalServerError, which boto3 retries (a few times) and the cache's own client does not.
Every client of the embedded moto (serve's functions, the pollers) sees them; other services do not.
"""

import argparse
import json
import random
import sys
import threading

from kibitz import cli
from kibitz.local import aws


def fraction(text):
    """The fraction of DynamoDB calls to fail, from its text; ValueError naming the option if it is not one."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--dynamodb {text}: give a fraction from 0 to below 1") from None
    if not 0 <= value < 1:
        raise ValueError(f"--dynamodb {text}: give a fraction from 0 to below 1")
    return value


class FaultyDynamoDB:
    """WSGI middleware around moto's application: fails `rate` of the DynamoDB calls (seeded, so a run repeats)."""

    def __init__(self, app, rate, seed=15):
        self.app, self.rate = app, rate
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.counts = {"calls": 0, "refused": 0, "lost": 0}

    def __call__(self, environ, start_response):
        if not aws.is_dynamodb_call(environ):
            return self.app(environ, start_response)
        with self.lock:
            self.counts["calls"] += 1
            draw = self.random.random()
            fault = "refused" if draw < self.rate / 2 else "lost" if draw < self.rate else None
            if fault:
                self.counts[fault] += 1
        if fault == "lost":  # moto does the call; its answer is dropped
            list(self.app(environ, lambda *args, **kwargs: None))
        if fault:
            body = json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                               "message": f"injected fault ({fault}): benchmarks/faults.py"}).encode()
            start_response("500 Internal Server Error", [("Content-Type", "application/x-amz-json-1.0"),
                                                         ("Content-Length", str(len(body)))])
            return [body]
        return self.app(environ, start_response)

    def describe(self):
        return f"DynamoDB faults: {self.rate:.0%} of the calls fail (benchmarks/faults.py)"

    def summary(self):
        refused, lost = self.counts["refused"], self.counts["lost"]
        calls = self.counts["calls"]
        return f"{refused + lost} of {calls} DynamoDB calls failed ({refused} refused, {lost} lost answers)"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m benchmarks.faults", description=__doc__.split("\n\n")[0])
    ap.add_argument("--dynamodb", required=True, metavar="FRACTION",
                    help="the fraction of the embedded moto's DynamoDB calls that fail, from 0 to below 1")
    args, rest = ap.parse_known_args(argv)
    try:
        rate = fraction(args.dynamodb)
    except ValueError as e:
        ap.error(str(e))
    if rate:
        aws.MIDDLEWARE.append(lambda app: FaultyDynamoDB(app, rate))
    return cli.main(rest)


if __name__ == "__main__":
    sys.exit(main())
