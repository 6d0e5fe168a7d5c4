"""template.yaml: cfn-lint is clean (with SnapStart off and on), and the settings issues 4, 5 and 16 ask
for are there."""

import pathlib
import re
import subprocess
import sys
import tomllib

import yaml

from kibitz.local import template
from tests.conftest import ROOT


def raw_template():
    return yaml.load((ROOT / "template.yaml").read_text(), Loader=template._Loader)


def cfn_lint(path):
    cfn_lint = pathlib.Path(sys.executable).parent / "cfn-lint"
    return subprocess.run([str(cfn_lint), str(path)], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_cfn_lint_is_clean():
    proc = cfn_lint("template.yaml")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def with_snapstart_default(value):
    """template.yaml's text with the SnapStart parameter's default set to value."""
    text, n = re.subn(r'(\n  SnapStart:\n    Type: String\n    Default: )"Off"\n', rf'\1"{value}"\n',
                      (ROOT / "template.yaml").read_text())
    assert n == 1, "the SnapStart parameter has moved: update this test"
    return text


def test_cfn_lint_is_clean_with_snapstart_on(tmp_path):
    """cfn-lint runs the SAM transform with each parameter's default, so the template is linted as
    deployed with SnapStart=On by a copy whose default is On."""
    on = tmp_path / "template.yaml"
    on.write_text(with_snapstart_default("On"))
    proc = cfn_lint(on)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_function_and_layer_settings():
    doc = raw_template()
    glob = doc["Globals"]["Function"]
    assert glob["Runtime"] == "python3.13" and glob["Architectures"] == ["x86_64"]
    assert glob["LoggingConfig"]["LogFormat"] == "JSON"
    fn = doc["Resources"]["AnalyzeFunction"]["Properties"]
    assert fn["MemorySize"].tag == "Ref" and fn["MemorySize"].value == "AnalyzeMemoryMb"
    assert doc["Parameters"]["AnalyzeMemoryMb"]["Default"] == 1769  # one full vCPU, one search thread
    assert fn["Timeout"] == 30 and fn["Handler"] == "app.lambda_handler"
    assert fn["Layers"][0].tag == "Ref" and fn["Layers"][0].value == "EngineLayer"
    layer = doc["Resources"]["EngineLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile"
    assert layer["Properties"]["ContentUri"] == "layers/engine/"
    assert "build-EngineLayer:" in (ROOT / "layers/engine/Makefile").read_text()
    for name in ("EngineLayer", "CommonLayer"):
        assert doc["Resources"][name]["Properties"]["CompatibleRuntimes"] == ["python3.13"], name


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


def test_functions_are_built_with_bytecode_by_one_makefile():
    """sam build's Python builder ships no bytecode, which a read-only /var/task then compiles at every
    cold start: each function is built by its folder's Makefile, the same file in every folder."""
    doc = raw_template()
    makefiles = set()
    for name in ("AnalyzeFunction", "JobsFunction", "BatchFunction"):
        assert doc["Resources"][name]["Metadata"]["BuildMethod"] == "makefile", name
        makefiles.add((ROOT / doc["Resources"][name]["Properties"]["CodeUri"] / "Makefile").read_text())
    (makefile,) = makefiles
    assert "build-%:" in makefile and "compileall" in makefile and "$(PLATFORMS) --implementation cp" in makefile
    # Wheels for the interpreter that compiles the bytecode, and for Amazon Linux 2023's glibc at most.
    assert "--python-version $(PY_VERSION)" in makefile and "GLIBC_MINOR ?= 34" in makefile


def test_the_environment_keeps_the_cold_start_short():
    env = raw_template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["OPENBLAS_NUM_THREADS"] == "1" and env["PYDANTIC_DISABLE_PLUGINS"] == "__all__"


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


# --- batch analysis (issue 5) ---------------------------------------------------------------------


def test_the_jobs_queue_outlasts_six_batch_timeouts_and_redrives_to_a_dead_letter_queue():
    doc = raw_template()
    res = doc["Resources"]
    batch = res["BatchFunction"]["Properties"]
    queue = res["JobsQueue"]["Properties"]
    assert queue["VisibilityTimeout"] >= 6 * batch["Timeout"]
    redrive = queue["RedrivePolicy"]
    assert redrive["deadLetterTargetArn"].tag == "GetAtt" and redrive["deadLetterTargetArn"].value == \
        "JobsDeadLetterQueue.Arn"
    assert redrive["maxReceiveCount"].value == "MaxReceiveCount" and res["JobsDeadLetterQueue"]["Type"] == \
        "AWS::SQS::Queue"
    assert res["JobsDeadLetterAlarm"]["Properties"]["Dimensions"][0]["Value"].value == "JobsDeadLetterQueue.QueueName"


def test_the_batch_function_reads_the_queue_with_partial_batch_responses():
    doc = raw_template()
    batch = doc["Resources"]["BatchFunction"]["Properties"]
    event = batch["Events"]["JobsQueue"]
    assert event["Type"] == "SQS" and event["Properties"]["Queue"].value == "JobsQueue.Arn"
    assert event["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert event["Properties"]["BatchSize"].value == "BatchSize"
    assert event["Properties"]["ScalingConfig"]["MaximumConcurrency"].value == "MaxConcurrency"
    params = doc["Parameters"]
    assert params["BatchSize"]["MaxValue"] == 10 and params["MaxConcurrency"]["MinValue"] == 2
    # A full batch at the longest movetime ends inside the timeout, with the record margin to spare.
    from functions.common.api.models import MAX_MOVETIME_MS

    margin_ms = int(batch["Environment"]["Variables"]["KIBITZ_RECORD_MARGIN_MS"])
    assert params["BatchSize"]["MaxValue"] * MAX_MOVETIME_MS + margin_ms < batch["Timeout"] * 1000
    assert batch["MemorySize"] == 1769 and [layer.value for layer in batch["Layers"]] == ["EngineLayer", "CommonLayer"]


def test_the_results_table_is_on_demand_with_ttl():
    table = raw_template()["Resources"]["JobsTable"]["Properties"]
    assert table["BillingMode"] == "PAY_PER_REQUEST"
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert [k["AttributeName"] for k in table["KeySchema"]] == ["job_id", "seq"]


def test_each_function_gets_only_what_it_uses():
    res = raw_template()["Resources"]

    def statements(name):
        out = []
        for policy in res[name]["Properties"]["Policies"]:
            out += policy.get("Statement", []) if "Statement" in policy else [policy]
        return out

    jobs = statements("JobsFunction")
    table = next(s for s in jobs if "Sid" in s)
    assert table["Resource"].value == "JobsTable.Arn"
    assert sorted(table["Action"]) == ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem",
                                       "dynamodb:Query", "dynamodb:UpdateItem"]
    assert {"SQSSendMessagePolicy": {"QueueName": "JobsQueue.QueueName"}} == {
        k: {"QueueName": v["QueueName"].value} for p in jobs if "SQSSendMessagePolicy" in p for k, v in p.items()}
    # SQS polling rights come with the SQS event (SAM adds them); S3 jobs' grants: test_s3_grants_are_least_privilege
    by_sid = {s["Sid"]: s for s in statements("BatchFunction") if "Sid" in s}
    batch, batch_cache = by_sid["JobsTable"], by_sid["AnalysisCache"]
    assert batch["Resource"].value == "JobsTable.Arn"
    assert sorted(batch["Action"]) == ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"]
    (analyze_cache,) = statements("AnalyzeFunction")  # the analysis cache, nothing else
    for cache in (batch_cache, analyze_cache):  # read and write entries: never scan or delete
        assert cache["Resource"].value == "AnalysisCacheTable.Arn"
    assert sorted(analyze_cache["Action"]) == ["dynamodb:GetItem", "dynamodb:UpdateItem"]  # one entry a request
    # an S3 chunk's entries in batches (functions/common/analysis/cache_batch.py)
    assert sorted(batch_cache["Action"]) == ["dynamodb:BatchGetItem", "dynamodb:BatchWriteItem", "dynamodb:GetItem",
                                             "dynamodb:UpdateItem"]
    assert not any(getattr(s["Resource"], "value", None) == "AnalysisCacheTable.Arn" for s in jobs if "Resource" in s)
    for action in table["Action"] + batch["Action"] + analyze_cache["Action"]:
        assert "*" not in action and not action.startswith(("dynamodb:Scan", "dynamodb:BatchWrite"))
    assert not any("*" in a or a.startswith(("dynamodb:Scan", "dynamodb:Delete")) for a in batch_cache["Action"])


def test_the_analysis_cache_table_is_on_demand_with_ttl_and_encryption():
    res = raw_template()["Resources"]
    table = res["AnalysisCacheTable"]["Properties"]
    assert table["BillingMode"] == "PAY_PER_REQUEST" and table["SSESpecification"] == {"SSEEnabled": True}
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert [k["AttributeName"] for k in table["KeySchema"]] == ["position"]
    for name in ("AnalyzeFunction", "BatchFunction"):
        env = res[name]["Properties"]["Environment"]["Variables"]
        assert env["KIBITZ_CACHE_TABLE"].value == "AnalysisCacheTable"
    assert "KIBITZ_CACHE_TABLE" not in res["JobsFunction"]["Properties"]["Environment"]["Variables"]
    assert template.tables()["AnalysisCacheTable"].ttl_attribute == "expires_at"


def test_the_jobs_routes_and_the_layers_are_declared():
    doc = raw_template()
    events = doc["Resources"]["JobsFunction"]["Properties"]["Events"]
    assert {(e["Properties"]["Method"], e["Properties"]["Path"]) for e in events.values() if e["Type"] == "Api"} == {
        ("POST", "/jobs"), ("GET", "/jobs/{job_id}"), ("GET", "/jobs/{job_id}/pgn"), ("POST", "/jobs/uploads")}
    layer = doc["Resources"]["CommonLayer"]
    assert layer["Metadata"]["BuildMethod"] == "makefile" and layer["Properties"]["ContentUri"] == "layers/common/"
    assert "build-CommonLayer:" in (ROOT / "layers/common/Makefile").read_text()
    for output in ("JobsUrl", "JobsQueueUrl", "JobsTableName", "JobsDeadLetterQueueUrl"):
        assert output in doc["Outputs"]


def test_batch_function_requirements_match_the_extras():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    wanted = sorted(extras["api"] + [r for r in extras["batch"] if not r.startswith("kibitz[")])
    for name in ("jobs", "batch"):
        lines = (ROOT / f"functions/{name}/requirements.txt").read_text().splitlines()
        assert sorted(line for line in lines if line.strip() and not line.startswith("#")) == wanted


def test_the_local_reader_sees_the_queues_tables_and_sqs_event():
    queues, tables = template.queues(), template.tables()
    assert queues["JobsQueue"].dead_letter_queue == "JobsDeadLetterQueue" and queues["JobsQueue"].max_receive_count == 5
    assert tables["JobsTable"].ttl_attribute == "expires_at"
    (event,) = template.load()["BatchFunction"].sqs_events
    assert (event.queue, event.batch_size, event.max_concurrency, event.report_batch_item_failures) == \
        ("JobsQueue", 10, 10, True)
    resolved = template.load(resources={"JobsTable": {"Ref": "t"}, "JobsQueue": {"Ref": "https://q"}})
    assert resolved["JobsFunction"].environment["KIBITZ_JOBS_TABLE"] == "t"
    assert resolved["JobsFunction"].environment["KIBITZ_JOBS_QUEUE_URL"] == "https://q"


def test_samconfig_overrides_every_parameter_with_its_default():
    config = tomllib.loads((ROOT / "samconfig.toml").read_text())["default"]["deploy"]["parameters"]
    overrides = dict(re.findall(r'(\w+)="([^"]*)"', config["parameter_overrides"]))
    params = raw_template()["Parameters"]
    assert set(overrides) == set(params)
    assert all(str(params[name]["Default"]) == value for name, value in overrides.items())


# --- python3.13 and SnapStart (issue 16) ----------------------------------------------------------


def test_snapstart_is_a_parameter_off_by_default_on_the_analyze_function_only():
    doc = raw_template()
    param = doc["Parameters"]["SnapStart"]
    assert param["Default"] == "Off" and sorted(param["AllowedValues"]) == ["Off", "On"]
    condition = doc["Conditions"]["SnapStartOn"]
    assert condition.tag == "Equals" and condition.value[0].value == "SnapStart" and condition.value[1] == "On"
    fn = doc["Resources"]["AnalyzeFunction"]["Properties"]
    on, off = fn["SnapStart"].value[1:]
    assert fn["SnapStart"].tag == "If" and fn["SnapStart"].value[0] == "SnapStartOn"
    assert on == {"ApplyOn": "PublishedVersions"} and off.tag == "Ref" and off.value == "AWS::NoValue"
    for name in ("JobsFunction", "BatchFunction", "PageFunction"):
        assert "SnapStart" not in doc["Resources"][name]["Properties"], name


def test_the_api_invokes_a_published_version_through_an_alias():
    """SnapStart applies to published versions: the API invokes the alias SAM publishes. Switching the
    parameter must publish a new version (SAM's version hash does not see parameter values: the
    version's description names the setting), and replaced versions go (a kept one would go on paying
    for its cached snapshot)."""
    fn = raw_template()["Resources"]["AnalyzeFunction"]["Properties"]
    assert fn["AutoPublishAlias"] == "live" and fn["VersionDeletionPolicy"] == "Delete"
    assert fn["VersionDescription"].tag == "Sub" and "${SnapStart}" in fn["VersionDescription"].value
    assert all(e["Type"] == "Api" for e in fn["Events"].values())  # SAM points Api events at the alias



def test_s3_buckets_are_private_encrypted_tls_only_and_outputs_expire():
    res = raw_template()["Resources"]
    for name in ("InputBucket", "OutputBucket"):
        props = res[name]["Properties"]
        assert props["PublicAccessBlockConfiguration"] == {"BlockPublicAcls": True, "BlockPublicPolicy": True,
                                                           "IgnorePublicAcls": True, "RestrictPublicBuckets": True}
        rule = props["BucketEncryption"]["ServerSideEncryptionConfiguration"][0]
        assert rule["ServerSideEncryptionByDefault"] == {"SSEAlgorithm": "AES256"}
        assert props["OwnershipControls"]["Rules"] == [{"ObjectOwnership": "BucketOwnerEnforced"}]
        (deny,) = res[f"{name}Policy"]["Properties"]["PolicyDocument"]["Statement"]
        assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    (expire,) = res["OutputBucket"]["Properties"]["LifecycleConfiguration"]["Rules"]
    assert expire["ExpirationInDays"].value == "ResultsTtlDays" and "Prefix" not in expire
    assert expire["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 1}


def test_s3_grants_are_least_privilege():
    res = raw_template()["Resources"]

    def grants(name):
        out = {}
        for policy in res[name]["Properties"]["Policies"]:
            for st in policy.get("Statement", []):
                actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
                if any(a.startswith("s3:") for a in actions):
                    resources = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
                    out[st["Sid"]] = (sorted(actions), [getattr(r, "value", r) for r in resources])
        return out

    jobs, batch = grants("JobsFunction"), grants("BatchFunction")
    assert jobs["PresignUploads"] == (["s3:PutObject"], ["${InputBucket.Arn}/uploads/*"])
    assert jobs["DropFolderMarkers"] == (["s3:PutObject"], ["${InputBucket.Arn}/incoming/*.job.json"])
    assert jobs["ReadSourcesAndOutputs"][0] == batch["ReadSourcesAndParts"][0] == ["s3:GetObject"]
    assert batch["WriteOutputs"] == (["s3:AbortMultipartUpload", "s3:PutObject"], ["${OutputBucket.Arn}/*"])
    assert batch["MissingPartIs404"] == (["s3:ListBucket"], ["OutputBucket.Arn"])
    for sid, (actions, _) in {**jobs, **batch}.items():
        assert not any("*" in a or a.startswith("s3:Delete") for a in actions), sid


def test_the_drop_folder_goes_through_eventbridge_so_the_bucket_does_not_depend_on_the_function():
    """A bucket notification to JobsFunction would make InputBucket depend on the function, which names the bucket
    (a circular dependency): S3 sends its events to EventBridge, and the function's rule picks incoming/."""
    res = raw_template()["Resources"]
    notify = res["InputBucket"]["Properties"]["NotificationConfiguration"]
    assert notify == {"EventBridgeConfiguration": {"EventBridgeEnabled": True}}
    (rule,) = [e for e in res["JobsFunction"]["Properties"]["Events"].values() if e["Type"] == "EventBridgeRule"]
    pattern = rule["Properties"]["Pattern"]
    assert pattern["source"] == ["aws.s3"] and pattern["detail-type"] == ["Object Created"]
    assert pattern["detail"]["bucket"]["name"][0].value == "InputBucket"
    assert pattern["detail"]["object"]["key"] == [{"prefix": "incoming/"}]
