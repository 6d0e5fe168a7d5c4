"""The page function (functions/page/app.py), its template entries and build, and kibitz serve's
compression, without a browser (tests/test_page_browser.py drives chromium)."""

import gzip
import html.parser
import importlib.util
import json
import re
import subprocess

import pytest
import yaml

from kibitz.local import compression, template
from kibitz.local.apigateway import proxy_event
from tests.conftest import ROOT

PAGE_DIR = ROOT / "functions" / "page"
BUDGET_BYTES = 300 * 1024  # the issue's: the first load ships at most 300 KB, compressed


def load_app():
    spec = importlib.util.spec_from_file_location("_page_app_under_test", PAGE_DIR / "app.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def app():
    return load_app()


class Context:
    aws_request_id = "req-1"


def get(app, path, headers=None, stage_path=None):
    resource, params = ("/", None) if path == "/" else ("/assets/{path+}", {"path": path[len("/assets/"):]})
    event = proxy_event("GET", path, headers=headers or {}, resource=resource, path_parameters=params)
    if stage_path is not None:
        event["requestContext"]["path"] = stage_path
    return app.lambda_handler(event, Context())


class Links(html.parser.HTMLParser):
    """Every src and href of a page."""

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        self.urls += [(tag, dict(attrs).get("rel"), value) for key, value in attrs if key in ("src", "href")]


def page_urls(body):
    parser = Links()
    parser.feed(body)
    return parser.urls


def first_load(app):
    """{asset path: bytes} of everything the page loads at once: what it links, and the modules they import."""
    body = get(app, "/")["body"]
    prefix = f"assets/{app.VERSION}/"
    todo = [url[len(prefix):] for tag, rel, url in page_urls(body) if url.startswith(prefix)]
    seen = {}
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        response = get(app, f"/assets/{app.VERSION}/{path}")
        assert response["statusCode"] == 200, (path, response["body"])
        seen[path] = response["body"].encode()
        if path.endswith(".js"):
            base = path.rsplit("/", 1)[0]
            for spec in re.findall(r'(?:from|import)\s*"(\.{1,2}/[^"]+)"', response["body"]):
                todo.append(normalise(f"{base}/{spec}"))
    return body.encode(), seen


def normalise(path):
    parts = []
    for part in path.split("/"):
        if part == "..":
            parts.pop()
        elif part not in (".", ""):
            parts.append(part)
    return "/".join(parts)


# --- the handler ----------------------------------------------------------------------------------


def test_the_page_names_its_assets_relatively_under_one_version(app):
    response = get(app, "/")
    assert response["statusCode"] == 200
    headers = response["headers"]
    assert headers["Content-Type"] == "text/html; charset=utf-8" and headers["Cache-Control"] == "no-cache"
    urls = [url for _, _, url in page_urls(response["body"])]
    assert urls and all(url.startswith((f"assets/{app.VERSION}/", "data:", "./", "swagger")) for url in urls), urls
    assert "{{" not in response["body"]  # every placeholder filled
    # the sprites cm-chessboard would fetch are in the page already
    for element_id in app.INLINE_SPRITES:
        assert f'id="{element_id}"' in response["body"]
    assert 'id="wp"' in response["body"] and "<?xml" not in response["body"]


def test_the_page_is_revalidated_by_etag(app):
    etag = get(app, "/")["headers"]["ETag"]
    response = get(app, "/", headers={"If-None-Match": etag})
    assert response["statusCode"] == 304 and response["body"] == ""
    assert get(app, "/", headers={"if-none-match": '"other"'})["statusCode"] == 200


def test_under_a_stage_the_page_url_ends_in_a_slash(app):
    """/Prod must become /Prod/, or the page's relative URLs would miss the stage."""
    response = get(app, "/", stage_path="/Prod")
    assert response["statusCode"] == 301 and response["headers"]["Location"] == "/Prod/"
    assert get(app, "/", stage_path="/Prod/")["statusCode"] == 200
    assert get(app, "/", stage_path="/")["statusCode"] == 200


def test_every_asset_the_page_loads_is_served_immutable_with_its_type(app):
    _, assets = first_load(app)
    types = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}
    assert any(p.endswith("app/main.js") for p in assets) and any("chess.js" in p for p in assets)
    for path in assets:
        response = get(app, f"/assets/{app.VERSION}/{path}")
        suffix = path[path.rfind("."):]
        assert response["headers"]["Content-Type"] == types[suffix], path
        assert response["headers"]["Cache-Control"] == "public, max-age=31536000, immutable"
    # and every module is preloaded by the page, so the browser fetches them at once, not level by level
    preloaded = {url.split("/", 2)[2] for tag, rel, url in page_urls(get(app, "/")["body"]) if rel == "modulepreload"}
    assert {p for p in assets if p.endswith(".js")} <= preloaded


def test_no_asset_comes_from_another_origin(app):
    body, assets = first_load(app)
    for path, data in [("index.html", body), *assets.items()]:
        text = data.decode()
        if path.endswith(".js"):
            assert not re.search(r'(?:from|import)\s*"https?://', text), path
            assert not re.search(r'fetch\(\s*["\']https?://', text), path
        if path.endswith((".css", ".html")):
            assert not re.search(r'(?:url\(|@import)\s*["\']?https?://', text), path
            assert not re.search(r'<(?:script|link)[^>]+(?:src|href)="https?://', text), path


def test_the_first_load_fits_the_size_budget(app):
    body, assets = first_load(app)
    compressed = len(gzip.compress(body)) + sum(len(gzip.compress(data)) for data in assets.values())
    assert compressed <= BUDGET_BYTES, f"{compressed} bytes gzipped"


def test_unknown_assets_and_old_versions_answer_404_in_the_api_error_shape(app):
    for path in ("/assets/nope/app/main.js", f"/assets/{app.VERSION}/app/nope.js",
                 f"/assets/{app.VERSION}/vendor/README.md", f"/assets/{app.VERSION}/../app.py"):
        response = get(app, path)
        body = json.loads(response["body"])
        assert response["statusCode"] == 404 and body["status"] == 404, path
        assert body["errors"][0]["field"] == "path" and body["request_id"] == "req-1"
    body = json.loads(get(app, "/assets/0123456789ab/app/main.js")["body"])
    assert app.VERSION in body["message"]  # says where this deployment's assets are


def test_other_methods_and_events_are_refused(app):
    response = app.lambda_handler(proxy_event("POST", "/", resource="/"), Context())
    assert response["statusCode"] == 404 and json.loads(response["body"])["errors"][0]["field"] == "path"
    response = app.lambda_handler({"hello": "world"}, Context())
    assert response["statusCode"] == 400 and json.loads(response["body"])["errors"][0]["field"] == "event"


def test_the_version_changes_with_any_asset(app):
    assets = dict(app.ASSETS)
    before = app.version_of(assets)
    assets["app/main.js"] = assets["app/main.js"] + b"\n"
    assert app.version_of(assets) != before


# --- vendored dependencies ------------------------------------------------------------------------


def test_vendored_packages_carry_their_licences_and_versions():
    vendor = PAGE_DIR / "static" / "vendor"
    note = (vendor / "README.md").read_text()
    for package, version, licence in (("cm-chessboard", "8.15.1", "MIT"), ("chess.js", "1.4.0", "BSD-2-Clause")):
        assert (vendor / package / "LICENSE").is_file(), package
        assert re.search(rf"{re.escape(package)}\]\([^)]*\) \| {re.escape(version)} \| {re.escape(licence)}", note)
        assert version in (PAGE_DIR / "vendor.sh").read_text()
    assert "Permission is hereby granted" in (vendor / "cm-chessboard" / "LICENSE").read_text()
    assert "Redistribution and use" in (vendor / "chess.js" / "LICENSE").read_text()
    assert not list(ROOT.glob("**/node_modules"))


# --- template and build ---------------------------------------------------------------------------


def raw_template():
    return yaml.load((ROOT / "template.yaml").read_text(), Loader=template._Loader)


def test_the_template_serves_the_page_from_a_function_without_layers():
    doc = raw_template()
    fn = doc["Resources"]["PageFunction"]
    props = fn["Properties"]
    assert props["CodeUri"] == "functions/page/" and props["Handler"] == "app.lambda_handler"
    assert "Layers" not in props and "Policies" not in props  # no engine, no AWS calls
    assert fn["Metadata"]["BuildMethod"] == "makefile"
    routes = {(e["Properties"]["Method"], e["Properties"]["Path"]) for e in props["Events"].values()}
    assert routes == {("GET", "/"), ("GET", "/assets/{path+}")}
    assert all(e["Properties"]["RestApiId"].value == "KibitzApi" for e in props["Events"].values())
    assert doc["Resources"]["KibitzApi"]["Properties"]["MinimumCompressionSize"] == 1024
    assert doc["Outputs"]["PageUrl"]["Value"].value.endswith("/Prod/")
    page = template.load()["PageFunction"]
    assert {(r.method, r.path) for r in page.routes} == routes and page.code_dir == PAGE_DIR


def test_the_makefile_builds_the_handler_its_assets_and_bytecode(tmp_path):
    out = tmp_path / "PageFunction"
    subprocess.run(["make", "-f", str(PAGE_DIR / "Makefile"), "build-PageFunction", f"ARTIFACTS_DIR={out}"],
                   cwd=ROOT, check=True, capture_output=True, text=True, timeout=120)
    assert (out / "app.py").is_file() and list((out / "__pycache__").glob("app.*.pyc"))
    assert (out / "static" / "index.html").is_file() and (out / "static" / "app" / "main.js").is_file()
    assert (out / "static" / "vendor" / "cm-chessboard" / "LICENSE").is_file()
    assert (out / "static" / "vendor" / "chess.js" / "LICENSE").is_file()
    assert not (out / "vendor.sh").exists() and not (out / "Makefile").exists()


# --- kibitz serve's compression, as API Gateway's -------------------------------------------------


def test_the_local_server_reads_the_apis_minimum_compression_size():
    assert compression.minimum_size() == 1024


@pytest.mark.parametrize("header, coding", [
    ("gzip, deflate, br, zstd", "gzip"), ("deflate", "deflate"), ("br", None), ("*", None), (None, None),
    ("gzip;q=0, deflate", "deflate"), ("identity", None), ("GZIP", "gzip"),
])
def test_the_coding_is_api_gateways(header, coding):
    assert compression.accepted_coding(header) == coding


def test_compress_only_what_api_gateway_would():
    data = b"x" * 2000
    headers, body = compression.compress([("Content-Type", "text/plain")], data, "gzip", 1024)
    assert ("Content-Encoding", "gzip") in headers and gzip.decompress(body) == data
    assert compression.compress([], data[:1000], "gzip", 1024) == ([], data[:1000])  # under the minimum
    assert compression.compress([], data, "gzip", None) == ([], data)  # compression off
    already = [("Content-Encoding", "br")]
    assert compression.compress(already, data, "gzip", 1024) == (already, data)
