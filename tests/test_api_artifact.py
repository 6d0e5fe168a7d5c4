"""The built artifact works: `sam build` (or the same steps by hand without aws-sam-cli), then each
function and the layers run from a clean virtual environment without numba, with the layers on the
path as Lambda's /opt/python, and every event in events/ answers as expected: AnalyzeFunction's on
their own, JobsFunction's and BatchFunction's (API Gateway and SQS events) against moto on
127.0.0.1 standing in for SQS and DynamoDB.

The clean environment is of the interpreter running the tests, .venv/'s Python 3.13, the python3.13
runtime's. Also: every shared object needs at most GLIBC_2.34 (Amazon Linux 2023), all bytecode is
3.13's, no numba or llvmlite is shipped, and each function with its layers stays under Lambda's 250 MB
unzipped limit.
"""

import re
import subprocess
import sys

import pytest

from benchmarks import artifact
from kibitz.local.aws import LocalAWS
from tests import api_cases, jobs_cases, page_artifact

pytestmark = pytest.mark.slow

GLIBC_MAX = (2, 34)  # python3.13 runtime: Amazon Linux 2023
LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sam") / "build"
    try:
        artifact.build(out)
    except subprocess.CalledProcessError as e:
        pytest.fail(f"build failed: {e.cmd}\n{e.stdout[-3000:]}\n{e.stderr[-3000:]}")
    return out


@pytest.fixture(scope="module")
def results(build_dir, tmp_path_factory):
    python = artifact.clean_python(tmp_path_factory.mktemp("venv") / "clean")
    names = api_cases.event_files()
    return artifact.run_events(python, build_dir, [api_cases.EVENTS / n for n in names])


def test_the_clean_environment_runs_the_layer_not_the_project(results, build_dir):
    facts = results[0]
    assert facts["numba"] is False and facts["llvmlite"] is False
    assert facts["engine"] == str(build_dir / "EngineLayer/python/engine/__init__.py")
    assert facts["numpy_file"].startswith(str(build_dir / "EngineLayer/python/numpy/"))
    assert facts["numpy"].startswith("2.2.") and facts["backend"] == "aot" and facts["table_builds"] == 1


def test_every_module_the_function_imports_ships_its_bytecode(results):
    """Lambda can't write bytecode beside read-only code: without it every cold start compiles again."""
    assert results[0]["uncompiled"] == []


def test_every_event_answers_as_expected(results):
    by_name = {r["event"]: r for r in results[1:]}
    assert sorted(by_name) == sorted(api_cases.CASES)
    for name, r in by_name.items():
        api_cases.check_response(name, r["response"])
    assert {r["table_builds"] for r in results[1:]} == {1}  # warm invocations reuse the tables


def glibc_needs(path):
    out = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True, check=True).stdout
    return {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", out)}


def test_every_shared_object_needs_at_most_glibc_2_34(build_dir):
    objects = [p for p in build_dir.rglob("*.so*") if p.is_file()]
    assert any(p.name.startswith("_compiled") for p in objects) and any("pydantic_core" in str(p) for p in objects)
    too_new = {str(p.relative_to(build_dir)): max(v) for p in objects if (v := glibc_needs(p)) and max(v) > GLIBC_MAX}
    assert too_new == {}
    extensions = {p.name.split(".")[1] for p in objects if p.name.endswith(".so") and ".cpython-" in p.name}
    assert extensions == {"cpython-313-x86_64-linux-gnu"}, extensions


def test_every_bytecode_file_is_python_3_13s(build_dir):
    """Lambda's python3.13 ignores bytecode of another Python and, its code being read-only, compiles
    the source again at every cold start. (The clean environment above is of this interpreter.)"""
    assert sys.version_info[:2] == (3, 13)
    tags = {p.name.split(".")[-2] for p in build_dir.rglob("__pycache__/*.pyc")}
    assert tags == {"cpython-313"}, tags


def test_no_numba_in_the_artifact_and_it_fits_in_lambda(build_dir):
    functions = ("AnalyzeFunction", "JobsFunction", "BatchFunction")
    layer_sites = [build_dir / "EngineLayer/python", build_dir / "CommonLayer/python"]
    for root in [build_dir / f for f in functions] + layer_sites:
        shipped = {p.name.split("-")[0].lower() for p in root.iterdir()}
        assert not shipped & {"numba", "llvmlite", "chess", "moto"}, root
    engine = build_dir / "EngineLayer/python/engine"
    assert not (engine / "core").exists() and not (engine / "build.py").exists()
    shipped_tables = sorted(p.name for p in (engine / "tablebases").glob("*.tb.xz"))
    assert shipped_tables == sorted(p.name for p in (artifact.ROOT / "engine/tablebases").glob("*.tb.xz"))
    assert len(shipped_tables) == 35 and not (engine / "tablebase_gen.py").exists()
    assert not list(build_dir.rglob("kibitz")), "the kibitz command is no part of what ships"
    assert {p.name for p in (build_dir / "CommonLayer/python/functions").iterdir()} <= {"__init__.py", "__pycache__",
                                                                                          "common"}

    def size(path):
        return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())

    layers = size(build_dir / "EngineLayer") + size(build_dir / "CommonLayer")
    for name in functions:  # what one function's environment holds: its own code and the layers
        assert size(build_dir / name) + layers < LAMBDA_UNZIPPED_LIMIT, name


@pytest.fixture(scope="module")
def local_aws():
    """moto on 127.0.0.1 for the built batch functions: the table, the queues, the buckets, and JOB in it."""
    from functions.common.jobs.store import Store

    aws = LocalAWS(prefix="artifact").start()
    try:
        store = Store(aws.resources["JobsTable"]["Ref"], aws.client("dynamodb"))
        jobs_cases.seed(store)
        env = {**aws.env, "KIBITZ_JOBS_TABLE": aws.resources["JobsTable"]["Ref"],
               "KIBITZ_JOBS_QUEUE_URL": aws.resources["JobsQueue"]["Ref"],
               "KIBITZ_INPUT_BUCKET": aws.resources["InputBucket"]["Ref"],  # POST /jobs/uploads signs into it
               "KIBITZ_OUTPUT_BUCKET": aws.resources["OutputBucket"]["Ref"]}
        yield env, store
    finally:
        aws.stop()


@pytest.mark.parametrize("function, cases", [("JobsFunction", jobs_cases.API_CASES),
                                             ("BatchFunction", jobs_cases.BATCH_CASES)])
def test_the_batch_functions_answer_every_event(build_dir, tmp_path_factory, local_aws, function, cases):
    env, store = local_aws
    python = artifact.clean_python(tmp_path_factory.mktemp("venv") / "clean")
    names = sorted(cases) if function == "JobsFunction" else \
        ["batch-sqs.json", "batch-sqs-poison.json", "batch-sqs-unknown-job.json"]
    results = artifact.run_events(python, build_dir, [jobs_cases.EVENTS / n for n in names], function=function,
                                  env=env)
    facts = results[0]
    assert facts["numba"] is False and facts["backend"] == "aot"
    assert facts["common"] == str(build_dir / "CommonLayer/python/functions/common/__init__.py")
    assert facts["boto3"] == str(build_dir / function / "boto3/__init__.py")  # its own, not the runtime's
    by_name = {r["event"]: r for r in results[1:]}
    assert sorted(by_name) == sorted(names)
    for name in names:
        if function == "JobsFunction":
            jobs_cases.check_api(name, by_name[name]["response"])
        else:
            jobs_cases.check_batch(name, by_name[name]["response"], store)


def test_the_page_function_runs_alone(build_dir, tmp_path_factory):
    """PageFunction has no layer and no requirements: its folder alone answers the page and its assets."""
    python = artifact.clean_python(tmp_path_factory.mktemp("venv") / "clean")
    result = page_artifact.run(python, build_dir / "PageFunction")
    assert result["page"]["statusCode"] == 200 and f"assets/{result['version']}/app/main.js" in result["page"]["body"]
    assert result["script"]["statusCode"] == 200 and "import" in result["script"]["body"]
    assert result["uncompiled"] == [] and result["site_packages"] == []
    assert (build_dir / "PageFunction/static/vendor/cm-chessboard/LICENSE").is_file()
    assert sum(p.stat().st_size for p in (build_dir / "PageFunction").rglob("*") if p.is_file()) < 2 * 1024 * 1024
