"""The analysis API's goals (issue 4): cold start, warm overhead, budget adherence, layer size.

    .venv/bin/python benchmarks/api.py [--record] [--only cold,warm,budget,size] [--build-dir DIR]

cold    the built artifact (sam build), fresh processes of a clean venv without numba: import of the
        handler (Powertools, pydantic, numpy, the compiled engine, its tables) + the first request,
        minus the search time of that request. Goal <= 300 ms.
coldparts  the same, with one of the cold-start measures undone at a time (copies of the build):
        what each is worth.
warm    in-process handler, >= 500 requests: handler time minus the time engine.analyse() took.
        Goal <= 5 ms at p99.
budget  in-process handler: time from invoke to answer, minus the request's movetime_ms, for
        budgets of 100 ms to 5 s. Goal <= 30 ms at p99.
size    EngineLayer and AnalyzeFunction as built, unzipped and zipped. Lambda's limit: 250 MB unzipped.
"""

import argparse
import contextlib
import io
import json
import os
import pathlib
import py_compile
import shutil
import statistics
import sys
import tempfile
import time
import zipfile

if __package__ in (None, ""):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from benchmarks.common import DATA, ROOT, cpu_times, record, steal_since, table
from kibitz import artifact, template
from kibitz.apigateway import proxy_event
from kibitz.runtime import FunctionRuntime

COMMAND = "python benchmarks/api.py --record"


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def stats(values):
    return [f"{statistics.median(values):.1f}", f"{pct(values, 0.9):.1f}", f"{pct(values, 0.99):.1f}",
            f"{max(values):.1f}"]


def positions(n):
    fens = []
    for line in (DATA / "wac.epd").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4:
            fens.append(" ".join(fields[:4]) + " 0 1")
        if len(fens) == n:
            break
    return fens


def post(body):
    return proxy_event("POST", "/analyze", "", {"Content-Type": "application/json"}, json.dumps(body))


class Handler:
    """The function in this process, with engine.analyse() timed and the function's output swallowed."""

    def __init__(self):
        self.runtime = FunctionRuntime(template.load()["AnalyzeFunction"])
        self.out = io.StringIO()
        with contextlib.redirect_stdout(self.out):
            module = sys.modules[self.runtime.load().__module__]
        module.logger.registered_handler.setStream(self.out)
        from functions.common import analysis_cache  # the handler calls engine.analyse() through it

        inner = analysis_cache.analyse
        self.search_ms = None

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.search_ms = (time.perf_counter() - t0) * 1000

        analysis_cache.analyse = timed

    def __call__(self, event):
        self.search_ms = 0.0  # stays 0 when the answer comes from the cache
        self.out.seek(0)
        self.out.truncate()
        with contextlib.redirect_stdout(self.out):
            t0 = time.perf_counter()
            response = self.runtime.invoke(event)
            ms = (time.perf_counter() - t0) * 1000
        return response, ms


def bench_warm(requests):
    handler = Handler()
    fens = positions(100)
    overheads, by_kind = [], {}
    for i in range(requests):
        fen = fens[i % len(fens)]
        kind = ("POST movetime 10 ms", "POST multipv 3, 10 ms", "GET depth 4")[i % 3]
        if kind.startswith("GET"):
            query = "fen=" + fen.replace(" ", "_") + "&depth=4"
            event = proxy_event("GET", "/analyze", query, {})
        elif "multipv" in kind:
            event = post({"fen": fen, "movetime_ms": 10, "multipv": 3})
        else:
            event = post({"fen": fen, "movetime_ms": 10})
        response, ms = handler(event)
        assert response["statusCode"] == 200, response
        overhead = ms - handler.search_ms
        overheads.append(overhead)
        by_kind.setdefault(kind, []).append(overhead)
    rows = [[f"all ({len(overheads)} requests)", *stats(overheads), "5"]]
    rows += [[f"  {kind} ({len(v)})", *stats(v), ""] for kind, v in by_kind.items()]
    return table(["handler minus engine.analyse(), ms", "median", "p90", "p99", "max", "goal p99"], rows)


def bench_budget(plan):
    handler = Handler()
    fens = positions(60)
    rows = []
    for budget, n in plan:
        over = []
        for i in range(n):
            response, ms = handler(post({"fen": fens[i % len(fens)], "movetime_ms": budget}))
            assert response["statusCode"] == 200, response
            over.append(ms - budget)
        rows.append([f"{budget} ms ({n} requests)", *stats(over), "30"])
    return table(["response time minus budget, ms", "median", "p90", "p99", "max", "goal p99"], rows)


def build(build_dir):
    if build_dir and (pathlib.Path(build_dir) / "EngineLayer").exists():
        return pathlib.Path(build_dir), "an existing build"
    build_dir = pathlib.Path(build_dir or tempfile.mkdtemp(prefix="kibitz-sam-")) / "build"
    how = artifact.build(build_dir)
    return build_dir, how


# As deployed (Tracing: Active), not as `sam local` runs it: the Tracer on, and the trace header the
# runtime gives each request. The X-Ray daemon's UDP port on loopback has no listener here.
DEPLOYED = {"AWS_SAM_LOCAL": "", "_X_AMZN_TRACE_ID": "Root=1-6740f000-0123456789abcdef01234567;"
            "Parent=0123456789abcdef;Sampled=1"}


def cold_start(python, build_dir, env=None):
    """One fresh process of the built function: {cold, init, cpu, first} in ms, where cold = the import
    (init) + the first request minus its search (first), and cpu = the import's CPU time."""
    event = ROOT / "events" / "analyze-post.json"
    facts, result = artifact.run_events(python, build_dir, [event], env={**DEPLOYED, **(env or {})})
    assert result["response"]["statusCode"] == 200 and facts["backend"] == "aot" and not facts["numba"]
    first = result["ms"] - json.loads(result["response"]["body"])["time_ms"]
    return {"cold": facts["init_ms"] + first, "init": facts["init_ms"], "cpu": facts["init_cpu_ms"], "first": first}


def bench_cold(build_dir, runs):
    python = artifact.clean_python(pathlib.Path(tempfile.mkdtemp(prefix="kibitz-venv-")) / "clean")
    cold_start(python, build_dir)  # a first run brings the files into the page cache
    samples, process = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        samples.append(cold_start(python, build_dir))
        process.append((time.perf_counter() - t0) * 1000)

    def column(key):
        return stats([s[key] for s in samples])

    rows = [
        ["import + tables + first request - search", *column("cold"), "300"],
        ["  of which: import app (Powertools, pydantic, numpy, engine, tables)", *column("init"), ""],
        ["  of which: first request minus its search", *column("first"), ""],
        ["import app, CPU time of the process (what CPU steal cannot inflate)", *column("cpu"), ""],
        ["whole process (interpreter start to exit, incl. the search)", *stats(process), ""],
    ]
    return table([f"fresh process, built artifact, clean venv (ms, {runs} runs)", "median", "p90", "p99", "max",
                  "goal"], rows)


def variant(build_dir, out, app_edits=(), drop_bytecode=False):
    """A copy of the built AnalyzeFunction beside links to the built layers, with app.py edited by each
    (old, new) of app_edits, and either its bytecode remade or all of the function's bytecode removed."""
    out.mkdir(parents=True)
    for layer in artifact.LAYERS:
        (out / layer).symlink_to(build_dir / layer)
    fn = out / artifact.FUNCTION
    shutil.copytree(build_dir / artifact.FUNCTION, fn)
    app = fn / "app.py"
    for old, new in app_edits:
        assert old in app.read_text(), old
        app.write_text(app.read_text().replace(old, new))
    if drop_bytecode:
        for cache in list(fn.rglob("__pycache__")):
            shutil.rmtree(cache)
    elif app_edits:
        py_compile.compile(str(app), invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH, doraise=True)
    return out


def bench_cold_parts(build_dir, runs):
    python = artifact.clean_python(pathlib.Path(tempfile.mkdtemp(prefix="kibitz-venv-")) / "clean")
    work = pathlib.Path(tempfile.mkdtemp(prefix="kibitz-variants-"))
    eager_docs = ("\ninit_phase.end()\n", '\ndocs.prepare({"path": "/swagger"})\ninit_phase.end()\n')
    gc_on = ("\ninit_phase.begin()  #", "\n#")  # the collector stays on; init_phase.end() freezes all the same
    undo_env = {"OPENBLAS_NUM_THREADS": "", "PYDANTIC_DISABLE_PLUGINS": ""}
    plan = [  # label, build, environment
        ("as built", build_dir, {}),
        ("function's bytecode not shipped (sam build's Python builder)", variant(build_dir, work / "pyc",
                                                                                 drop_bytecode=True), {}),
        ("Swagger (Powertools' OpenAPI models) enabled at init", variant(build_dir, work / "docs", [eager_docs]), {}),
        ("collector on during init", variant(build_dir, work / "gc", [gc_on]), {}),
        ("OpenBLAS's thread pool (OPENBLAS_NUM_THREADS unset)", build_dir, {"OPENBLAS_NUM_THREADS": ""}),
        ("pydantic looks for plugins (PYDANTIC_DISABLE_PLUGINS unset)", build_dir, {"PYDANTIC_DISABLE_PLUGINS": ""}),
        ("all of the above undone", variant(build_dir, work / "all", [eager_docs, gc_on], drop_bytecode=True),
         undo_env),
    ]
    samples = {label: [] for label, _, _ in plan}
    for _label, where, env in plan:
        cold_start(python, where, env)  # the files into the page cache
    for _ in range(runs):  # round robin, so that a slow spell of the machine is shared out
        for label, where, env in plan:
            samples[label].append(cold_start(python, where, env))
    shutil.rmtree(work)

    def summary(label):  # median and lower quartile of the cold start, median of the import's CPU time
        wall = [x["cold"] for x in samples[label]]
        return statistics.median(wall), pct(wall, 0.25), statistics.median(x["cpu"] for x in samples[label])

    base = summary("as built")
    rows = []
    for label in samples:
        here = summary(label)
        change = [f"{a - b:+.1f}" for a, b in zip(here, base, strict=True)] if label != "as built" else ["", "", ""]
        rows.append([label, *(f"{x:.1f}" for x in here[:2]), *change])
    return table([f"cold start, ms ({runs} runs each)", "median", "lower quartile", "vs as built: median",
                  "lower quartile", "import CPU time (median)"], rows)


def zipped_size(folder):
    with tempfile.TemporaryFile() as f:
        with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
            for p in sorted(folder.rglob("*")):
                if p.is_file():
                    z.write(p, p.relative_to(folder))
        return f.tell()


def bench_size(build_dir):
    rows, total = [], [0, 0]
    for name in ("EngineLayer", "AnalyzeFunction"):
        folder = build_dir / name
        files = [p for p in folder.rglob("*") if p.is_file()]
        unzipped = sum(p.stat().st_size for p in files)
        zipped = zipped_size(folder)
        total[0] += unzipped
        total[1] += zipped
        rows.append([name, len(files), f"{unzipped / 1e6:.1f}", f"{zipped / 1e6:.1f}"])
    rows.append(["both (Lambda's limit: 250 MB unzipped)", "", f"{total[0] / 1e6:.1f}", f"{total[1] / 1e6:.1f}"])
    layer = build_dir / "EngineLayer" / "python"
    parts = {"numpy + numpy.libs": ["numpy", "numpy.libs"], "engine (compiled module + .py)": ["engine"]}
    for label, names in parts.items():
        size = sum(p.stat().st_size for n in names for p in (layer / n).rglob("*") if p.is_file())
        rows.append([f"  layer: {label}", "", f"{size / 1e6:.1f}", ""])
    return table(["built with sam build", "files", "unzipped MB", "zipped MB"], rows)


STARTED = cpu_times()


def conditions():
    load = os.getloadavg()
    return (f"Load average at the end: {load[0]:.2f} (1 min), {load[1]:.2f} (5 min) on {os.cpu_count()} cores. "
            f"{steal_since(STARTED)}.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", action="store_true", help="write the tables to docs/benchmarks.md")
    ap.add_argument("--only", default="cold,warm,budget,size", help="any of cold,coldparts,warm,budget,size")
    ap.add_argument("--build-dir", help="reuse (or build into) this sam build directory")
    ap.add_argument("--requests", type=int, default=600, help="warm requests")
    ap.add_argument("--runs", type=int, default=20, help="cold-start processes")
    args = ap.parse_args()
    only = set(args.only.split(","))
    sections = []
    if only & {"cold", "coldparts", "size"}:
        build_dir, how = build(args.build_dir)
        print(f"built with {how}: {build_dir}", file=sys.stderr)
    if "cold" in only:
        sections.append(("API cold start", bench_cold(build_dir, args.runs),
                         "Run as deployed: the runtime's variables (LAMBDA_TASK_ROOT, AWS_EXECUTION_ENV), Powertools' "
                         "Tracer on with a sampled trace header. "
                         "Search time is the `time_ms` the answer reports. The environment is the template's "
                         "(OPENBLAS_NUM_THREADS=1, PYDANTIC_DISABLE_PLUGINS). Python runs with -B: as on "
                         "Lambda's read-only /var/task and /opt, only the bytecode the build shipped is used "
                         "(each function's and each layer's Makefile compile it); a first, uncounted run "
                         "brings the files into the page cache."))
    if "coldparts" in only:
        sections.append(("API cold start, measure by measure", bench_cold_parts(build_dir, args.runs),
                         "Each row undoes one measure in a copy of the build (the same layers), as the cold "
                         "start above, runs interleaved. The lower quartile shows a few ms more plainly than the "
                         "median, which a busy host moves by tens. Import CPU time counts every thread of the "
                         "process: on the function's one vCPU what other threads use is taken from the init. "
                         "The function's Makefile ships its bytecode (sam "
                         "build's Python builder wrote none: Lambda, whose /var/task is read-only, compiles it "
                         "at every cold start); Swagger is enabled by the first request for /swagger; the "
                         "handler switches the collector off until init ends (functions/common/init_phase.py); the "
                         "template sets OPENBLAS_NUM_THREADS=1 and PYDANTIC_DISABLE_PLUGINS=__all__."))
    if "warm" in only:
        sections.append(("API warm overhead", bench_warm(args.requests),
                         "Requests cycle through the first 100 positions of wac.epd. Overhead = time in "
                         "lambda_handler minus the time engine.analyse() took: validation, SAN, the answer's "
                         "models and JSON, logging and EMF metrics."))
    if "budget" in only:
        plan = [(100, 40), (250, 30), (500, 20), (1000, 15), (2000, 8), (5000, 5)]
        sections.append(("API budget adherence", bench_budget(plan),
                         "Time from invoking the handler to its answer, minus the request's movetime_ms "
                         "(negative: the search stopped early, e.g. at a forced mate or because the next "
                         "iteration would not finish). Positions: wac.epd."))
    if "size" in only:
        sections.append(("API layer size", bench_size(build_dir),
                         "Zipped with Python's zipfile (deflate), as `sam package` would upload them."))
    for title, body, note in sections:
        print(f"\n## {title}\n\n{body}\n\n{note}")
        if args.record:
            record(title, f"{body}\n\n{note}\n\n{conditions()}", COMMAND)
    print("\n" + conditions())


if __name__ == "__main__":
    main()
