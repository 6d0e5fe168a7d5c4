"""The deployable artifact, built and run the way Lambda would run it, without Docker.

build(): `sam build` into a directory (aws-sam-cli from $KIBITZ_SAM, .venv-sam/ or PATH), or, when
SAM is not installed, the same two steps by hand: the layer's Makefile with ARTIFACTS_DIR, and pip
installing the function's requirements for manylinux2014 / cp311 beside its code.

clean_python(): a virtual environment with nothing installed (no numba, no numpy), whose interpreter
runs DRIVER: it puts the function's folder and the layer's python/ on sys.path as /var/task and
/opt/python would be, and invokes the handler on events, printing one JSON line per result.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from functions.local.template import ROOT, load

LAYER, FUNCTION = "EngineLayer", "AnalyzeFunction"


def find_sam():
    for candidate in (os.environ.get("KIBITZ_SAM"), ROOT / ".venv-sam" / "bin" / "sam", shutil.which("sam")):
        if candidate and pathlib.Path(candidate).exists():
            return str(candidate)
    return None


def build(build_dir, sam=None):
    """Build the layer and the function into build_dir/EngineLayer and build_dir/AnalyzeFunction."""
    build_dir = pathlib.Path(build_dir)
    sam = sam or find_sam()
    env = {**os.environ, "SAM_CLI_TELEMETRY": "0"}
    if sam:
        subprocess.run([sam, "build", "--template-file", str(ROOT / "template.yaml"), "--build-dir", str(build_dir)],
                       cwd=ROOT, env=env, check=True, capture_output=True, text=True)
        return "sam build"
    shutil.rmtree(build_dir, ignore_errors=True)
    subprocess.run(["make", "-f", str(ROOT / "layers/engine/Makefile"), "build-EngineLayer",
                    f"ARTIFACTS_DIR={build_dir / LAYER}"],
                   cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    function = load()[FUNCTION]
    shutil.copytree(function.code_dir, build_dir / FUNCTION, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--target", str(build_dir / FUNCTION), "--platform", "manylinux2014_x86_64",
                    "--implementation", "cp", "--python-version", "3.11", "--only-binary=:all:",
                    "-r", str(function.code_dir / "requirements.txt")], check=True, capture_output=True, text=True)
    return "layers/engine/Makefile + pip (no aws-sam-cli)"


def clean_python(venv_dir):
    """The interpreter of a new, empty virtual environment."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--clear", str(venv_dir)], check=True)
    return str(pathlib.Path(venv_dir) / "bin" / "python")


def lambda_environment():
    """The variables Lambda would give AnalyzeFunction (template values, then the runtime's own)."""
    from functions.local.runtime import FunctionRuntime

    return FunctionRuntime(load()[FUNCTION]).environment()


# Run by the clean interpreter with -I: argv = build_dir, then event files. Prints one JSON line per event.
DRIVER = r'''
import contextlib, importlib.util, io, json, os, sys, time, uuid
build_dir = sys.argv[1]
t0 = time.perf_counter()
sys.path[:0] = [os.path.join(build_dir, "AnalyzeFunction"), os.path.join(build_dir, "EngineLayer", "python")]

class Context:
    function_name, function_version, memory_limit_in_mb = "AnalyzeFunction", "$LATEST", 1769
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:AnalyzeFunction"
    log_group_name, log_stream_name = "/aws/lambda/AnalyzeFunction", "artifact"
    def __init__(self):
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + 30
    def get_remaining_time_in_millis(self):
        return int((self._deadline - time.monotonic()) * 1000)

logs = io.StringIO()
with contextlib.redirect_stdout(logs):
    import app
init_ms = (time.perf_counter() - t0) * 1000
import engine, engine.native, numpy
print(json.dumps({"init_ms": init_ms, "numba": importlib.util.find_spec("numba") is not None,
                  "llvmlite": importlib.util.find_spec("llvmlite") is not None,
                  "engine": engine.__file__, "numpy": numpy.__version__, "numpy_file": numpy.__file__,
                  "backend": engine.native.BACKEND, "table_builds": engine.native.TABLE_BUILDS}), flush=True)
for path in sys.argv[2:]:
    event = json.load(open(path))
    t = time.perf_counter()
    with contextlib.redirect_stdout(logs):
        response = app.lambda_handler(event, Context())
    ms = (time.perf_counter() - t) * 1000
    print(json.dumps({"event": os.path.basename(path), "ms": ms, "response": response,
                      "table_builds": engine.native.TABLE_BUILDS}), flush=True)
'''


def run_events(python, build_dir, event_paths, timeout=600):
    """[first line (process facts), then one result per event] from DRIVER in a fresh process."""
    import json

    proc = subprocess.run([python, "-I", "-c", DRIVER, str(build_dir), *map(str, event_paths)],
                          env={**lambda_environment(), "PATH": os.environ.get("PATH", "")},
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"the built function failed:\n{proc.stderr[-4000:]}")
    return [json.loads(line) for line in proc.stdout.splitlines()]
