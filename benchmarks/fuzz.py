"""The API fuzzed from its own OpenAPI document (Schemathesis), against `kibitz serve` on 127.0.0.1 (issue 15).

    .venv/bin/python -m benchmarks.fuzz [--record] [--examples 1000] [--properties 20000]

For each route of /analyze and /jobs the document at /swagger?format=json describes, Schemathesis
generates requests from the document (half fitting it, half not: wrong types, missing fields, values
out of range) and sends each to `kibitz serve`; every answer must be a status the document lists for the
route, with the content type and the body schema it gives for that status, and never a 5xx. The checks:
not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance.

movetime_ms is brought into 1..MOVETIME_CAP_MS before a request goes (cap_movetime), so that fuzzing does
not spend its time thinking: every search ends by its movetime, so this bounds each request whatever
depth, nodes or threads it names. The document itself is not changed.

`--properties N` also runs the Hypothesis property tests (tests/test_properties.py) with N examples each.
tests/test_api_fuzz.py runs fuzz_api() with a few examples per route in `make test`.
"""

import argparse
import collections
import os
import signal
import subprocess
import sys
import time

from benchmarks.common import ROOT, cpu_times, record, steal_since, table

COMMAND = "python -m benchmarks.fuzz --record"
MOVETIME_CAP_MS = 50
ROUTES = [("POST", "/analyze"), ("GET", "/analyze"), ("POST", "/jobs"), ("GET", "/jobs/{job_id}"),
          ("GET", "/jobs/{job_id}/pgn")]


def cap_movetime(case):
    """movetime_ms (body or query) into 1..MOVETIME_CAP_MS when it is a whole number in the documented range
    (a negative case's wrong value is left as generated: it must be refused as it is)."""
    for holder in (case.body, case.query):
        if isinstance(holder, dict) and type(holder.get("movetime_ms")) is int and holder["movetime_ms"] >= 1:
            holder["movetime_ms"] = 1 + holder["movetime_ms"] % MOVETIME_CAP_MS


def fuzz_api(url, examples, seed=0, routes=ROUTES):
    """{(method, path): {"statuses": Counter, "failures": [text], "cases": n}} after `examples` generated cases
    per route and generation mode (positive, negative), against the server at url."""
    import hypothesis
    import requests
    import schemathesis
    from hypothesis import HealthCheck, Phase, given, settings
    from schemathesis.checks import not_a_server_error
    from schemathesis.generation import GenerationMode
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    checks = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
    schema = schemathesis.openapi.from_url(url + "/swagger?format=json")
    session = requests.Session()

    accepted = []  # job ids POST /jobs answered: GET /jobs/{job_id} is asked for some of them too

    def send(case, steer, report, mode):
        cap_movetime(case)
        if mode == GenerationMode.POSITIVE:
            steer_case(case, steer, accepted)
        response = case.call(base_url=url, session=session, timeout=120)
        report["cases"] += 1
        report["statuses"][response.status_code] += 1
        if response.status_code == 202:
            accepted.append(response.json()["job_id"])
        try:
            case.validate_response(response, checks=checks)
        except BaseException as e:  # schemathesis' Failure or FailureGroup: keep it, go on
            if len(report["failures"]) < 20:
                report["failures"].append(f"{mode.value}: {type(e).__name__}: {str(e)[:1500]}")

    operations = {(op.method.upper(), op.path): op for op in (r.ok() for r in schema.get_all_operations())}
    missing = [r for r in routes if r not in operations]
    if missing:
        raise AssertionError(f"the OpenAPI document at {url} lacks {missing}")
    found = {}
    for key in routes:  # in this order: jobs are submitted before they are read
        operation = operations[key]
        report = found[key] = {"statuses": collections.Counter(), "failures": [], "cases": 0}
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            test = given(case=operation.as_strategy(generation_mode=mode), steer=steer_strategy())(
                sender(send, report, mode))
            test = settings(max_examples=examples, deadline=None, database=None, derandomize=seed == 0,
                            phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))(test)
            (hypothesis.seed(seed)(test) if seed else test)()  # seed 0: derandomized (make test)
    return found


def sender(send, report, mode):
    """A test for @given (which takes no function with defaults)."""
    def test(case, steer):
        send(case, steer, report, mode)
    return test


# Generated FENs are almost never positions, so a fitting case would never get past the FEN check: half
# the fitting cases get a real position (and their moves dropped, or kept), and half the job reads a job
# that was accepted. Drawn by Hypothesis with the case, so a run repeats.
FENS = ["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "8/8/8/8/8/5k2/8/4K2R w K - 0 1",
        "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"]


def steer_strategy():
    from hypothesis import strategies as st

    return st.tuples(st.one_of(st.none(), st.sampled_from(FENS)), st.booleans(), st.integers(0, 3))


def steer_case(case, steer, accepted):
    fen, keep_moves, pick = steer
    for holder in (case.body, case.query):
        if isinstance(holder, dict) and fen is not None:
            if "fen" in holder:
                holder["fen"] = fen
                if not keep_moves:
                    holder.pop("moves", None)
            sourceless = not any(k in holder for k in ("fen", "positions", "epd", "pgn"))
            if holder is case.body and sourceless:  # a job with no source: the document cannot say one is needed
                holder["positions"] = [fen]
            if isinstance(holder.get("positions"), list):  # one source, no review: a job that can be queued
                holder["positions"] = [fen] * min(len(holder["positions"]), 5)
                for other in ("epd", "pgn", "review"):
                    holder.pop(other, None)
    if accepted and pick < 2 and isinstance(case.path_parameters, dict) and "job_id" in case.path_parameters:
        case.path_parameters["job_id"] = accepted[pick - 2 if len(accepted) > 1 else -1]


def properties(examples):
    """Run tests/test_properties.py with `examples` examples a test: (passed, seconds, pytest's last line)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_properties.py"],
                          cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "KIBITZ_HYPOTHESIS_EXAMPLES": str(examples)})
    last = (proc.stdout.strip().splitlines() or ["no output"])[-1]
    return proc.returncode == 0, time.perf_counter() - t0, last, proc.stdout[-4000:]


def main():
    from benchmarks.served import Served

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the results into docs/benchmarks.md")
    ap.add_argument("--examples", type=int, default=1000, help="generated cases per route and mode")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--properties", type=int, default=0, help="also run the property tests with N examples each")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `with Served` stops its serve
    started, load_before = cpu_times(), os.getloadavg()
    t0 = time.perf_counter()
    with Served(pollers=0) as served:
        found = fuzz_api(served.url, args.examples, args.seed)
    seconds = time.perf_counter() - t0
    rows, failures = [], 0
    for (method, path), report in found.items():
        statuses = ", ".join(f"{s}: {n}" for s, n in sorted(report["statuses"].items()))
        rows.append([f"{method} {path}", report["cases"], statuses, len(report["failures"])])
        failures += len(report["failures"])
        for text in report["failures"][:3]:
            print(f"{method} {path}: {text}\n", file=sys.stderr)
    body = (f"Schemathesis {version('schemathesis')} (Hypothesis {version('hypothesis')}) against `kibitz serve` "
            f"(no pollers) on 127.0.0.1, from the document at /swagger?format=json: {args.examples} cases per "
            f"route and mode (fitting the document, and not), seed {args.seed}, movetime_ms brought into "
            f"1..{MOVETIME_CAP_MS}; checks not_a_server_error, status_code_conformance, "
            f"content_type_conformance, response_schema_conformance. {seconds:.0f} s.\n\n"
            + table(["route", "cases", "statuses", "failures"], rows))
    if args.properties:
        ok, prop_s, last, out = properties(args.properties)
        print(out, file=sys.stderr)
        body += (f"\n\nProperty tests (tests/test_properties.py) with {args.properties} examples each: {last} "
                 f"({prop_s:.0f} s).")
        failures += 0 if ok else 1
    body += (f"\n\nLoad average {load_before[0]:.1f} before, {os.getloadavg()[0]:.1f} after (2 cores, shared with a "
             f"data generation job and engine matches); {steal_since(started)}.")
    print(body)
    if args.record:
        record("API fuzzing and property tests", body, COMMAND)
    return 1 if failures else 0


def version(package):
    from importlib.metadata import version as v

    return v(package)


if __name__ == "__main__":
    sys.exit(main())
