"""The analysis API's goals (issue 4): cold start, warm overhead, budget adherence, layer size.

    .venv/bin/python -m benchmarks.api [--record] [--only cold,snapstart,warm,budget,size] [--build-dir DIR]
                                       [--compare PYTHON] [--compare-build-dir DIR]

cold    the built artifact (sam build), fresh processes of a clean venv without numba: import of the
        handler (Powertools, pydantic, numpy, the compiled engine, its tables) + the first request,
        minus the search time of that request. Goal <= 300 ms. With another interpreter to compare
        (--compare, by default python3.11 where one runs: the runtime before issue 16), the same
        artifact is built again by that interpreter (its own wheels, engine module and bytecode, in a
        temporary directory, ~5 min) and both are measured in turns, side by side.
snapstart  the same fresh process, run as SnapStart would: what the snapshot holds (the import and the
        before-snapshot hook, run once when a version is published) and what still runs in every
        environment restored from it (the after-restore hook and the first request minus its search).
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
import subprocess
import sys
import tempfile
import time
import tomllib
import zipfile

from benchmarks import artifact
from benchmarks.common import DATA, ROOT, cpu_times, record, steal_since, table
from kibitz.local import template
from kibitz.local.apigateway import proxy_event
from kibitz.local.runtime import FunctionRuntime

COMMAND = "python -m benchmarks.api --record"


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
        from functions.common.analysis import cache as analysis_cache  # the handler calls engine.analyse() through it

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


def clean_python(python, venv_dir):
    """The interpreter of a new, empty virtual environment of `python`."""
    subprocess.run([python, "-m", "venv", "--without-pip", "--clear", str(venv_dir)], check=True)
    return str(pathlib.Path(venv_dir) / "bin" / "python")


def describe(python):
    """'3.13.5 (PGO+LTO)': the version, and whether the build was optimised with a profile."""
    code = ("import platform, sysconfig; a = sysconfig.get_config_var('CONFIG_ARGS') or ''; "
            "print(platform.python_version(), ('PGO+LTO' if '--with-lto' in a else 'PGO') "
            "if '--enable-optimizations' in a else 'no PGO')")
    version, _, how = subprocess.run([python, "-c", code], capture_output=True, text=True,
                                     check=True).stdout.strip().partition(" ")
    return f"{version} ({how})"


def find_compare():
    """python3.11 where one runs (the runtime before issue 16), else None."""
    for candidate in (shutil.which("python3.11"), "/usr/bin/python3.11", "/usr/local/bin/python3.11"):
        if candidate and subprocess.run([candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 11)"],
                                        capture_output=True).returncode == 0:
            return candidate
    return None


def build_with(python, out):
    """The artifact as `python` builds it (another version than .venv/'s): a virtualenv of it with the
    project's build extra, then every layer's and function's Makefile with that interpreter, as sam
    build runs them. Before Python 3.13 the runtime was Amazon Linux 2: manylinux2014 wheels."""
    out = pathlib.Path(out)
    if (out / "EngineLayer").exists():
        return out, "an existing build"
    work = out.parent
    venv = work / "venv-build"
    subprocess.run([python, "-m", "venv", "--clear", str(venv)], check=True)
    vpython = str(venv / "bin" / "python")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    subprocess.run([vpython, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    *project["dependencies"], *project["optional-dependencies"]["build"]], check=True)
    version = subprocess.run([vpython, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    glibc_minor = "34" if version >= "3.12" else "17"  # Amazon Linux 2023, or 2 (manylinux2014)
    functions = template.load()
    for name, folder in artifact.LAYERS.items():
        subprocess.run(["make", "-f", str(ROOT / folder / "Makefile"), f"build-{name}", f"ARTIFACTS_DIR={out / name}",
                        f"BUILD_PYTHON={vpython}", f"GLIBC_MINOR={glibc_minor}"],
                       cwd=ROOT, check=True, capture_output=True)
    for name in artifact.FUNCTIONS:
        subprocess.run(["make", "-f", str(functions[name].code_dir / "Makefile"), f"build-{name}",
                        f"ARTIFACTS_DIR={out / name}", f"PYTHON={vpython}", f"GLIBC_MINOR={glibc_minor}"],
                       cwd=ROOT, check=True, capture_output=True)
    return out, f"each Makefile with {python} (wheels for glibc 2.{glibc_minor} at most)"


def bench_cold(runs, builds):
    """builds: [(label, python, build_dir)], measured in turns (a slow spell of the machine is shared)."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="kibitz-venv-"))
    plan = [(label, clean_python(python, work / f"clean{i}"), where) for i, (label, python, where) in enumerate(builds)]
    for _label, python, where in plan:
        cold_start(python, where)  # a first run brings the files into the page cache
    samples = {label: [] for label, _, _ in plan}
    process = {label: [] for label, _, _ in plan}
    for _ in range(runs):
        for label, python, where in plan:
            t0 = time.perf_counter()
            samples[label].append(cold_start(python, where))
            process[label].append((time.perf_counter() - t0) * 1000)
    shutil.rmtree(work)

    def cells(key):
        out = []
        for label, _, _ in plan:
            values = [s[key] for s in samples[label]] if key else process[label]
            out += stats(values)[:3]
        return out

    rows = [
        ["import + tables + first request - search", *cells("cold"), "300"],
        ["  of which: import app (Powertools, pydantic, numpy, engine, tables)", *cells("init"), ""],
        ["  of which: first request minus its search", *cells("first"), ""],
        ["import app, CPU time of the process (what CPU steal cannot inflate)", *cells("cpu"), ""],
        ["whole process (interpreter start to exit, incl. the search)", *cells(None), ""],
    ]
    headers = [f"fresh process, built artifact, clean venv (ms, {runs} runs)"]
    for label, _, _ in plan:
        headers += [f"{label}: median", "p90", "p99"]
    return table(headers + ["goal"], rows)


# Imports the built function as Lambda's runtime would with SnapStart, with a stand-in for the runtime's
# snapshot_restore_py: init, the before-snapshot hooks (what the snapshot then holds), the after-restore
# hooks and the first request (what every restored environment still runs). argv: build_dir, event file.
SNAPSTART_DRIVER = r'''
import contextlib, io, json, os, sys, time, types
build_dir, event_path = sys.argv[1], sys.argv[2]
hooks = {"before": [], "after": []}
fake = types.ModuleType("snapshot_restore_py")
fake.register_before_snapshot = lambda f, *a, **k: hooks["before"].append(f) or f
fake.register_after_restore = lambda f, *a, **k: hooks["after"].append(f) or f
sys.modules["snapshot_restore_py"] = fake
sys.path[:0] = [os.path.join(build_dir, "AnalyzeFunction")] + [os.path.join(build_dir, layer, "python")
                                                             for layer in ("EngineLayer", "CommonLayer")]

class Context:
    function_version, log_stream_name, function_name = "1", "snapstart", "AnalyzeFunction"
    log_group_name, memory_limit_in_mb, aws_request_id = "/aws/lambda/AnalyzeFunction", 1769, "snapstart-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:AnalyzeFunction:live"
    def __init__(self):
        self._deadline = time.monotonic() + 30
    def get_remaining_time_in_millis(self):
        return int((self._deadline - time.monotonic()) * 1000)

def timed(fn):
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000

logs = io.StringIO()
with contextlib.redirect_stdout(logs):
    init = timed(lambda: __import__("app"))
    before = timed(lambda: [hook() for hook in hooks["before"]])
    after = timed(lambda: [hook() for hook in hooks["after"]])
    import app
    event = json.load(open(event_path))
    t = time.perf_counter()
    response = app.lambda_handler(event, Context())
    first = (time.perf_counter() - t) * 1000
print(json.dumps({"init": init, "before": before, "after": after, "first": first, "response": response,
                  "hooks": [len(hooks["before"]), len(hooks["after"])]}))
'''


def snapstart_run(python, build_dir):
    event = ROOT / "events" / "analyze-post.json"
    env = {**artifact.lambda_environment(), **artifact.runtime_environment(build_dir), **DEPLOYED,
           "AWS_LAMBDA_INITIALIZATION_TYPE": "snap-start", "PATH": os.environ.get("PATH", "")}
    proc = subprocess.run([python, "-I", "-B", "-c", SNAPSTART_DRIVER, str(build_dir), str(event)], env=env,
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-4000:])
    r = json.loads(proc.stdout.splitlines()[-1])
    assert r["response"]["statusCode"] == 200 and r["hooks"] == [1, 1], r
    r["first"] -= json.loads(r["response"]["body"])["time_ms"]
    return r


def bench_snapstart(build_dir, runs):
    python = clean_python(sys.executable, pathlib.Path(tempfile.mkdtemp(prefix="kibitz-venv-")) / "clean")
    snapstart_run(python, build_dir)  # the page cache
    samples = [snapstart_run(python, build_dir) for _ in range(runs)]
    plain = [cold_start(python, build_dir) for _ in range(runs)]

    def cells(values):
        return stats(values)[:3]

    snapshot = [s["init"] + s["before"] for s in samples]
    restore = [s["after"] + s["first"] for s in samples]
    rows = [
        ["in the snapshot (run once, when a version is published)", *cells(snapshot)],
        ["  import app (as the cold start's import)", *cells([s["init"] for s in samples])],
        ["  before-snapshot hook: table reserved, a depth-4 search, its answer",
         *cells([s["before"] for s in samples])],
        ["per restore (every new environment), besides Lambda's own restore", *cells(restore)],
        ["  after-restore hook (random reseeded)", *cells([s["after"] for s in samples])],
        ["  first request minus its search", *cells([s["first"] for s in samples])],
        ["without SnapStart, for comparison: the cold start (import + first request - search)",
         *cells([c["cold"] for c in plain])],
        ["  of which the first request minus its search", *cells([c["first"] for c in plain])],
    ]
    return table([f"SnapStart, built artifact, Python {describe(python)} (ms, {runs} runs)", "median", "p90", "p99"],
                 rows)


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
    python = clean_python(sys.executable, pathlib.Path(tempfile.mkdtemp(prefix="kibitz-venv-")) / "clean")
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
    ap.add_argument("--only", default="cold,snapstart,warm,budget,size",
                    help="any of cold,coldparts,snapstart,warm,budget,size")
    ap.add_argument("--build-dir", help="reuse (or build into) this sam build directory")
    ap.add_argument("--compare", default="auto",
                    help="another interpreter for the cold start, beside this one (default: python3.11 if one "
                         "runs; 'none': no comparison)")
    ap.add_argument("--compare-build-dir",
                    help="reuse (or build into) this directory for --compare's artifact (the same as --build-dir's "
                         "for another build of the same Python: the artifact only depends on the version)")
    ap.add_argument("--requests", type=int, default=600, help="warm requests")
    ap.add_argument("--runs", type=int, default=20, help="cold-start processes")
    args = ap.parse_args()
    only = set(args.only.split(","))
    sections = []
    if only & {"cold", "coldparts", "snapstart", "size"}:
        build_dir, how = build(args.build_dir)
        print(f"built with {how}: {build_dir}", file=sys.stderr)
    if "cold" in only:
        builds = [(f"Python {describe(sys.executable)}", sys.executable, build_dir)]
        other = find_compare() if args.compare == "auto" else None if args.compare == "none" else args.compare
        if other:
            where = pathlib.Path(args.compare_build_dir or pathlib.Path(tempfile.mkdtemp(prefix="kibitz-compare-"))
                                 / "build")
            t0 = time.perf_counter()
            where, how = build_with(other, where)
            print(f"built with {how} in {time.perf_counter() - t0:.0f} s: {where}", file=sys.stderr)
            builds.append((f"Python {describe(other)}", other, where))
        interpreters = "; ".join(f"{label}: {python}" for label, python, _ in builds)
        sections.append(("API cold start", bench_cold(args.runs, builds),
                         f"Interpreters: {interpreters} (Python 3.11's artifact: built by it, with "
                         "manylinux2014 wheels, as deployed on python3.11 before issue 16). Each row's "
                         "figures are per interpreter, runs in turns. "
                         "Run as deployed: the runtime's variables (LAMBDA_TASK_ROOT, AWS_EXECUTION_ENV), Powertools' "
                         "Tracer on with a sampled trace header. "
                         "Search time is the `time_ms` the answer reports. The environment is the template's "
                         "(OPENBLAS_NUM_THREADS=1, PYDANTIC_DISABLE_PLUGINS). Python runs with -B: as on "
                         "Lambda's read-only /var/task and /opt, only the bytecode the build shipped is used "
                         "(each function's and each layer's Makefile compile it); a first, uncounted run "
                         "brings the files into the page cache."))
    if "snapstart" in only:
        sections.append(("API cold start with SnapStart", bench_snapstart(build_dir, args.runs),
                         "SnapStart=On (template.yaml): Lambda runs the init and the before-snapshot hook once, "
                         "when it publishes a version, and snapshots the environment; a new environment "
                         "resumes from the snapshot and runs only the after-restore hook before its first "
                         "request. Measured here in one fresh process with a stand-in for the runtime's "
                         "snapshot_restore_py, hooks called as Lambda calls them. Not measurable here: "
                         "Lambda's own restore (its `Restore Duration`: resuming the microVM and loading "
                         "the snapshot's pages as they are touched), which AWS bills per restore."))
    if "coldparts" in only:
        sections.append(("API cold start, measure by measure", bench_cold_parts(build_dir, args.runs),
                         "Each row undoes one measure in a copy of the build (the same layers), as the cold "
                         "start above, runs interleaved. The lower quartile shows a few ms more plainly than the "
                         "median, which a busy host moves by tens. Import CPU time counts every thread of the "
                         "process: on the function's one vCPU what other threads use is taken from the init. "
                         "The function's Makefile ships its bytecode (sam "
                         "build's Python builder wrote none: Lambda, whose /var/task is read-only, compiles it "
                         "at every cold start); Swagger is enabled by the first request for /swagger; the "
                         "handler switches the collector off until init ends (functions/common/api/init_phase.py); the "
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
