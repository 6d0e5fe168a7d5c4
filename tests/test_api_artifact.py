"""The built artifact works: `sam build` (or the same steps by hand without aws-sam-cli), then the
function and the layer run from a clean virtual environment without numba, with the layer on the
path as Lambda's /opt/python, and every event in events/ answers as expected.

Also: every shared object needs at most GLIBC_2.26 (Amazon Linux 2), no numba or llvmlite is shipped,
and function + layer stay under Lambda's 250 MB unzipped limit.
"""

import re
import subprocess

import pytest

from functions.local import artifact
from tests import api_cases

pytestmark = pytest.mark.slow

GLIBC_MAX = (2, 26)
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


def test_every_event_answers_as_expected(results):
    by_name = {r["event"]: r for r in results[1:]}
    assert sorted(by_name) == sorted(api_cases.CASES)
    for name, r in by_name.items():
        api_cases.check_response(name, r["response"])
    assert {r["table_builds"] for r in results[1:]} == {1}  # warm invocations reuse the tables


def glibc_needs(path):
    out = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True, check=True).stdout
    return {tuple(int(x) for x in v.split(".")) for v in re.findall(r"GLIBC_([0-9.]+)", out)}


def test_every_shared_object_needs_at_most_glibc_2_26(build_dir):
    objects = [p for p in build_dir.rglob("*.so*") if p.is_file()]
    assert any(p.name.startswith("_compiled") for p in objects) and any("pydantic_core" in str(p) for p in objects)
    too_new = {str(p.relative_to(build_dir)): max(v) for p in objects if (v := glibc_needs(p)) and max(v) > GLIBC_MAX}
    assert too_new == {}


def test_no_numba_in_the_artifact_and_it_fits_in_lambda(build_dir):
    for root in (build_dir / "AnalyzeFunction", build_dir / "EngineLayer/python"):
        shipped = {p.name.split("-")[0].lower() for p in root.iterdir()}
        assert not shipped & {"numba", "llvmlite"}, root
    engine = build_dir / "EngineLayer/python/engine"
    assert not (engine / "core").exists() and not (engine / "build.py").exists()
    size = sum(p.stat().st_size for p in build_dir.rglob("*") if p.is_file())
    assert size < LAMBDA_UNZIPPED_LIMIT, size
