"""Local only, off by default: make a fraction of the embedded moto's DynamoDB calls fail, to test that
nothing is lost or doubled when DynamoDB misbehaves (benchmarks/load.py; never part of a deployment).

    KIBITZ_FAULT_DYNAMODB=0.1 kibitz serve        # one DynamoDB call in ten fails

Half the faults refuse the call before moto sees it; the other half let moto do it, then answer an
error all the same (the answer was "lost": a retry then finds the write already made). Both are a
500 InternalServerError, which boto3 retries (a few times) and the cache's own client does not.
Every client of the embedded moto (serve's functions, the pollers) sees them; other services do not.
"""

import json
import random
import threading

VARIABLE = "KIBITZ_FAULT_DYNAMODB"
TARGET_PREFIX = "DynamoDB_20120810."


def is_dynamodb_call(environ):
    """Whether a WSGI request to the embedded moto is a DynamoDB call (its X-Amz-Target names the service)."""
    return environ.get("HTTP_X_AMZ_TARGET", "").startswith(TARGET_PREFIX)


def fraction(environ):
    """The fraction of DynamoDB calls to fail, from KIBITZ_FAULT_DYNAMODB (0 when unset); ValueError if bad."""
    text = environ.get(VARIABLE, "").strip()
    if not text:
        return 0.0
    value = float(text)
    if not 0 <= value < 1:
        raise ValueError(f"{VARIABLE}={text}: give a fraction from 0 to below 1")
    return value


class FaultyDynamoDB:
    """WSGI middleware around moto's application: fails `rate` of the DynamoDB calls (seeded, so a run repeats)."""

    def __init__(self, app, rate, seed=15):
        self.app, self.rate = app, rate
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.counts = {"calls": 0, "refused": 0, "lost": 0}

    def __call__(self, environ, start_response):
        if not is_dynamodb_call(environ):
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
                               "message": f"injected fault ({fault}): {VARIABLE}"}).encode()
            start_response("500 Internal Server Error", [("Content-Type", "application/x-amz-json-1.0"),
                                                         ("Content-Length", str(len(body)))])
            return [body]
        return self.app(environ, start_response)

    def summary(self):
        refused, lost = self.counts["refused"], self.counts["lost"]
        calls = self.counts["calls"]
        return f"{refused + lost} of {calls} DynamoDB calls failed ({refused} refused, {lost} lost answers)"
