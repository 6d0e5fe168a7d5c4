"""template.yaml's WebSocket API for the live stream (issue 33): its routes, the key on $connect where keys
are required, the throttle, the bill's bounds, and what each function may do."""

import tomllib

from kibitz.local import template
from tests.conftest import ROOT
from tests.test_api_template import raw_template


def resources():
    return raw_template()["Resources"]


def test_a_websocket_api_routes_on_the_action():
    res = resources()
    api = res["LiveApi"]["Properties"]
    assert api["ProtocolType"] == "WEBSOCKET" and api["RouteSelectionExpression"] == "$request.body.action"
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in res.values()
              if r["Type"] == "AWS::ApiGatewayV2::Route"}
    assert set(routes) == {"$connect", "$disconnect", "analyze", "stop", "$default"}
    target = {key: route["Target"].value for key, route in routes.items()}
    assert target["analyze"] == "integrations/${LiveSearchIntegration}"
    assert {target[k] for k in ("$connect", "$disconnect", "stop", "$default")} == \
        {"integrations/${LiveControlIntegration}"}
    # $default answers its error as the route's response (two-way)
    assert routes["$default"]["RouteResponseSelectionExpression"] == "$default"
    assert res["LiveDefaultRouteResponse"]["Properties"]["RouteResponseKey"] == "$default"


def test_connect_needs_the_key_in_the_query_string_only_when_keys_are_on():
    res = resources()
    connect = res["LiveConnectRoute"]["Properties"]
    assert connect["AuthorizationType"].tag == "If" and connect["AuthorizationType"].value[0] == "ApiKeysOn"
    assert connect["AuthorizationType"].value[1:] == ["CUSTOM", "NONE"]
    authorizer = res["LiveAuthorizer"]
    assert authorizer["Condition"] == "ApiKeysOn" and res["LiveAuthorizerFunction"]["Condition"] == "ApiKeysOn"
    assert authorizer["Properties"]["AuthorizerType"] == "REQUEST"
    assert authorizer["Properties"]["IdentitySource"] == ["route.request.querystring.key"]
    env = res["LiveAuthorizerFunction"]["Properties"]["Environment"]["Variables"]
    assert env["KIBITZ_API_KEY_ID"].value == "ApiKey"  # the REST API's own key


def test_the_stage_is_throttled_as_the_rest_api_is():
    stage = resources()["LiveStage"]["Properties"]
    settings = stage["DefaultRouteSettings"]
    assert settings["ThrottlingRateLimit"].value == "ThrottleRateLimit"
    assert settings["ThrottlingBurstLimit"].value == "ThrottleBurstLimit"
    assert stage["AutoDeploy"] is True


def test_the_searching_function_is_bounded_as_analyze_is():
    res, params = resources(), raw_template()["Parameters"]
    live = res["LiveFunction"]["Properties"]
    assert live["ReservedConcurrentExecutions"].value[1].value == "LiveReservedConcurrency"
    assert params["LiveReservedConcurrency"]["Default"] == 5
    assert live["Timeout"] == 30 and live["MemorySize"].value == "AnalyzeMemoryMb"
    env = live["Environment"]["Variables"]
    assert env["KIBITZ_MAX_MOVETIME_MS"].value == "MaxMovetimeMs"
    assert env["KIBITZ_LIVE_TABLE"].value == "LiveConnectionsTable"
    assert env["KIBITZ_CACHE_TABLE"].value == "AnalysisCacheTable"


def test_each_live_function_gets_only_what_it_uses():
    res = resources()
    live = {s["Sid"]: s for s in res["LiveFunction"]["Properties"]["Policies"][0]["Statement"]}
    assert sorted(live) == ["AnalysisCache", "LiveConnections", "PostToConnections"]
    assert sorted(live["LiveConnections"]["Action"]) == ["dynamodb:GetItem", "dynamodb:UpdateItem"]
    assert live["PostToConnections"]["Action"] == ["execute-api:ManageConnections"]
    assert live["PostToConnections"]["Resource"].value.endswith("${LiveApi}/live/POST/@connections/*")
    (control,) = res["LiveControlFunction"]["Properties"]["Policies"][0]["Statement"]
    assert control["Action"] == ["dynamodb:UpdateItem"] and control["Resource"].value == "LiveConnectionsTable.Arn"
    (key,) = res["LiveAuthorizerFunction"]["Properties"]["Policies"][0]["Statement"]
    assert key["Action"] == ["apigateway:GET"] and key["Resource"].value.endswith("/apikeys/${ApiKey}")


def test_the_connections_table_is_on_demand_with_ttl_and_encryption():
    table = resources()["LiveConnectionsTable"]["Properties"]
    assert table["BillingMode"] == "PAY_PER_REQUEST" and table["SSESpecification"]["SSEEnabled"] is True
    assert table["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert template.tables()["LiveConnectionsTable"].keys == (("connection_id", "S", "HASH"),)


def test_the_live_functions_are_built_by_the_one_makefile_with_their_requirements():
    res = resources()
    analyze_makefile = (ROOT / "functions/analyze/Makefile").read_text()
    for name in ("LiveFunction", "LiveControlFunction"):
        assert res[name]["Metadata"]["BuildMethod"] == "makefile"
        assert (ROOT / res[name]["Properties"]["CodeUri"] / "Makefile").read_text() == analyze_makefile
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    # zstandard: for the batch functions' compressed S3 sources, which the live functions never read
    wanted = sorted(extras["api"] + [r for r in extras["batch"] if not r.startswith(("kibitz[", "zstandard"))])
    lines = (ROOT / "functions/live/requirements.txt").read_text().splitlines()
    assert sorted(line for line in lines if line.strip() and not line.startswith("#")) == wanted
    assert any(r.startswith("websockets") for r in extras["local"])


def test_the_outputs_name_the_stream():
    outputs = raw_template()["Outputs"]
    assert outputs["LiveUrl"]["Value"].value.startswith("wss://${LiveApi}.execute-api.")
    assert outputs["LiveUrl"]["Value"].value.endswith("/live")
