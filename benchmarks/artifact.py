"""The deployable artifact, built and run the way Lambda would run it, without Docker: for
benchmarks/api.py's cold starts and tests/test_api_artifact.py (tests may import benchmarks/).

build(): `sam build` into a directory (aws-sam-cli from $KIBITZ_SAM, .venv-sam/ or PATH), or, when
SAM is not installed, the same steps by hand: every layer and function is built by its own Makefile
(BuildMethod: makefile), run with ARTIFACTS_DIR as sam build runs it.

clean_python(): a virtual environment with nothing installed (no numba, no numpy), whose interpreter
runs DRIVER: it puts the function's folder and the layers' python/ on sys.path as /var/task and
/opt/python would be (EngineLayer, then CommonLayer), and invokes the handler on events, printing
one JSON line per result.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from kibitz.local.template import ROOT, load

FUNCTION = "AnalyzeFunction"
LAYERS = {"EngineLayer": "layers/engine", "CommonLayer": "layers/common"}  # logical id -> folder with the Makefile
FUNCTIONS = ("AnalyzeFunction", "JobsFunction", "BatchFunction", "PageFunction")


def find_sam():
    for candidate in (os.environ.get("KIBITZ_SAM"), ROOT / ".venv-sam" / "bin" / "sam", shutil.which("sam")):
        if candidate and pathlib.Path(candidate).exists():
            return str(candidate)
    return None


def build(build_dir, sam=None):
    """Build every layer and function of the template into build_dir/<logical id>."""
    build_dir = pathlib.Path(build_dir)
    sam = sam or find_sam()
    env = {**os.environ, "SAM_CLI_TELEMETRY": "0"}
    if sam:
        subprocess.run([sam, "build", "--template-file", str(ROOT / "template.yaml"), "--build-dir", str(build_dir)],
                       cwd=ROOT, env=env, check=True, capture_output=True, text=True)
        return "sam build"
    shutil.rmtree(build_dir, ignore_errors=True)
    functions = load()
    folders = {**{layer: ROOT / folder for layer, folder in LAYERS.items()},
               **{name: functions[name].code_dir for name in FUNCTIONS}}
    for name, folder in folders.items():
        subprocess.run(["make", "-f", str(folder / "Makefile"), f"build-{name}", f"ARTIFACTS_DIR={build_dir / name}"],
                       cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return "each Makefile by hand (no aws-sam-cli)"


def clean_python(venv_dir):
    """The interpreter of a new, empty virtual environment."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--clear", str(venv_dir)], check=True)
    return str(pathlib.Path(venv_dir) / "bin" / "python")


def lambda_environment(function=FUNCTION, resources=None):
    """The variables Lambda would give a function (template values, then the runtime's own); `resources`
    resolves the ones naming a table or a queue (kibitz/local/aws.py)."""
    from kibitz.local.runtime import FunctionRuntime

    return FunctionRuntime(load(resources=resources)[function]).environment()


# Run by the clean interpreter with -I, and -B: Lambda's code is read-only, so no bytecode gets written.
# argv = build_dir, function, then event files. Prints one JSON line per event, after a first line of
# facts about the process.
DRIVER = r'''
import contextlib, importlib.util, io, json, os, sys, time, uuid
build_dir, function = sys.argv[1], sys.argv[2]
t0, cpu0 = time.perf_counter(), time.process_time()
sys.path[:0] = [os.path.join(build_dir, function)] + [os.path.join(build_dir, layer, "python")
                                                      for layer in ("EngineLayer", "CommonLayer")]
timeout_s = int(os.environ.get("AWS_LAMBDA_FUNCTION_TIMEOUT", "30"))

class Context:
    function_version, log_stream_name = "$LATEST", "artifact"
    function_name, log_group_name = function, "/aws/lambda/" + function
    memory_limit_in_mb = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1769"))
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:" + function
    def __init__(self):
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + timeout_s
    def get_remaining_time_in_millis(self):
        return int((self._deadline - time.monotonic()) * 1000)

logs = io.StringIO()
with contextlib.redirect_stdout(logs):
    import app
init_ms, init_cpu_ms = (time.perf_counter() - t0) * 1000, (time.process_time() - cpu0) * 1000
import engine, engine.native, numpy, functions.common
boto3 = sys.modules.get("boto3")
# Lambda's /var/task and /opt are read-only (this process runs with -B): a module without shipped
# bytecode would be compiled again at every cold start.
uncompiled = sorted(name for name, m in list(sys.modules.items())
                    if (getattr(m, "__file__", None) or "").startswith(build_dir) and m.__file__.endswith(".py")
                    and not os.path.exists(importlib.util.cache_from_source(m.__file__)))
print(json.dumps({"init_ms": init_ms, "init_cpu_ms": init_cpu_ms, "uncompiled": uncompiled,
                  "numba": importlib.util.find_spec("numba") is not None,
                  "llvmlite": importlib.util.find_spec("llvmlite") is not None,
                  "engine": engine.__file__, "numpy": numpy.__version__, "numpy_file": numpy.__file__,
                  "common": functions.common.__file__, "boto3": boto3 and boto3.__file__,
                  "backend": engine.native.BACKEND, "table_builds": engine.native.TABLE_BUILDS}), flush=True)
for path in sys.argv[3:]:
    event = json.load(open(path))
    t = time.perf_counter()
    with contextlib.redirect_stdout(logs):
        response = app.lambda_handler(event, Context())
    ms = (time.perf_counter() - t) * 1000
    print(json.dumps({"event": os.path.basename(path), "ms": ms, "response": response,
                      "table_builds": engine.native.TABLE_BUILDS}), flush=True)
'''


def runtime_environment(build_dir, function=FUNCTION):
    """The variables the python3.13 runtime itself adds. They matter: the X-Ray SDK (under Powertools'
    Tracer) looks for LAMBDA_TASK_ROOT and, outside Lambda, builds a botocore X-Ray client for
    centralized sampling at import (~170 ms) that a real cold start never pays."""
    handler = load()[function].handler
    return {"LAMBDA_TASK_ROOT": str(pathlib.Path(build_dir) / function), "LAMBDA_RUNTIME_DIR": "/var/runtime",
            "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13", "_HANDLER": handler}


def run_events(python, build_dir, event_paths, timeout=600, function=FUNCTION, env=None):
    """[first line (process facts), then one result per event] from DRIVER in a fresh process.
    env: more variables (say, AWS_ENDPOINT_URL and the table's name for the batch functions)."""
    import json

    proc = subprocess.run([python, "-I", "-B", "-c", DRIVER, str(build_dir), function, *map(str, event_paths)],
                          env={**lambda_environment(function), **runtime_environment(build_dir, function),
                               **(env or {}), "PATH": os.environ.get("PATH", "")},
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"the built function failed:\n{proc.stderr[-4000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]
