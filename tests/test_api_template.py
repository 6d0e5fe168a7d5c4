"""template.yaml: cfn-lint is clean, and the settings issue 4 asks for are there."""

import pathlib
import re
import subprocess
import sys
import tomllib

import yaml

from functions.local import template
from tests.conftest import ROOT


def raw_template():
    return yaml.load((ROOT / "template.yaml").read_text(), Loader=template._Loader)


def test_cfn_lint_is_clean():
    cfn_lint = pathlib.Path(sys.executable).parent / "cfn-lint"
    proc = subprocess.run([str(cfn_lint), "template.yaml"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_function_and_layer_settings():
    doc = raw_template()
    glob = doc["Globals"]["Function"]
    assert glob["Runtime"] == "python3.11" and glob["Architectures"] == ["x86_64"]
    assert glob["LoggingConfig"]["LogFormat"] == "JSON"
    fn = doc["Resources"]["AnalyzeFunction"]["Properties"]
    assert fn["MemorySize"] == 1769 and fn["Timeout"] == 30 and fn["Handler"] == "app.lambda_handler"
    assert fn["Layers"][0].tag == "Ref" and fn["Layers"][0].value == "EngineLayer"
    layer = doc["Resources"]["EngineLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    assert layer["Properties"]["ContentUri"] == "layers/engine/"
    assert "build-EngineLayer:" in (ROOT / "layers/engine/Makefile").read_text()


def test_api_throttling_cors_and_outputs():
    doc = raw_template()
    api = doc["Resources"]["KibitzApi"]["Properties"]
    settings = api["MethodSettings"][0]
    assert settings["ThrottlingRateLimit"].value == "ThrottleRateLimit"
    assert settings["ThrottlingBurstLimit"].value == "ThrottleBurstLimit"
    assert "CorsOrigin" in doc["Parameters"] and "CorsOrigin" in api["Cors"]["AllowOrigin"].value
    env = doc["Resources"]["AnalyzeFunction"]["Properties"]["Environment"]["Variables"]
    assert env["CORS_ORIGIN"].value == "CorsOrigin" and env["KIBITZ_HASH_MB"].value == "HashMb"
    assert "/Prod/analyze" in doc["Outputs"]["AnalyzeUrl"]["Value"].value


def test_function_requirements_match_the_api_extra():
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["api"]
    lines = (ROOT / "functions/analyze/requirements.txt").read_text().splitlines()
    requirements = [line for line in lines if line.strip() and not line.startswith("#")]
    assert sorted(requirements) == sorted(extra)


def test_the_local_reader_sees_what_sam_would():
    fn = template.load()["AnalyzeFunction"]
    assert fn.code_dir == ROOT / "functions" / "analyze" and fn.handler == "app.lambda_handler"
    assert {(r.method, r.path) for r in fn.routes} == {("POST", "/analyze"), ("GET", "/analyze"), ("GET", "/swagger")}
    assert fn.environment["POWERTOOLS_METRICS_NAMESPACE"] == "Kibitz" and fn.environment["CORS_ORIGIN"] == "*"
    assert re.fullmatch(r"auto|\d+", fn.environment["KIBITZ_HASH_MB"])
