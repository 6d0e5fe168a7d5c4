"""The web page to try the API: `GET /` answers the page, `GET /assets/{path+}` its scripts, styles and
sprites. Standard library only, no layer: everything it serves is read from static/ once, at init.

Asset URLs carry one hash of all the assets (`assets/<hash>/app/main.js`): a deploy that changes any
file changes every URL, so assets are cached as immutable for a year, while the page itself, which
names the hash, is revalidated on every load (ETag). The page names its assets by relative URLs, so it
works under a stage prefix (`/Prod/`) as at the root. Compression is API Gateway's
(`MinimumCompressionSize` on the API; `kibitz serve` does the same), so bodies leave here as text.
"""

import hashlib
import html
import json
import os
import pathlib
import re

STATIC = pathlib.Path(__file__).resolve().parent / "static"
PAGE_TEMPLATE = "index.html"
CONTENT_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"  # the page may be stored, but is checked (ETag) before every use
# Sprites put into the page itself: cm-chessboard looks for these element ids before it fetches a
# sprite, so the pieces are drawn with the board, without waiting for another request.
INLINE_SPRITES = {
    "cm-chessboard-sprite": "vendor/cm-chessboard/assets/pieces/standard.svg",
    "cm-chessboard-markers": "vendor/cm-chessboard/assets/extensions/markers/markers.svg",
    "cm-chessboard-arrows": "vendor/cm-chessboard/assets/extensions/arrows/arrows.svg",
}


def read_assets(root=STATIC):
    """{path relative to root: bytes} for every file the page may load (by suffix; licences and notes stay out)."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and p.suffix in CONTENT_TYPES}


def version_of(assets):
    """A short hash of every asset's path and content: the URL prefix that changes when any file does."""
    digest = hashlib.sha256()
    for path, data in sorted(assets.items()):
        digest.update(path.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:12]


def render_page(template, assets, prefix, live_url=""):
    """The page: its template with the asset prefix, module preloads, inline sprites and the live stream's
    address (KIBITZ_LIVE_URL: the template's LiveUrl, or `kibitz serve`'s; empty: POST /analyze only) filled in."""
    preloads = "\n".join(f'<link rel="modulepreload" href="{prefix}/{path}">'
                         for path in sorted(assets) if path.endswith(".js"))
    sprites = "\n".join(
        f'<div id="{element_id}" class="sprite" aria-hidden="true">'
        f'{re.sub(r"<[?]xml[^>]*>", "", assets[path].decode())}</div>'
        for element_id, path in INLINE_SPRITES.items())
    return (template.replace("{{preloads}}", preloads).replace("{{sprites}}", sprites)
            .replace("{{assets}}", prefix).replace("{{live}}", html.escape(live_url, quote=True)))


ASSETS = read_assets()
VERSION = version_of(ASSETS)
PAGE = render_page((STATIC / PAGE_TEMPLATE).read_text(), ASSETS, f"assets/{VERSION}",
                   os.environ.get("KIBITZ_LIVE_URL", "")).encode()
PAGE_ETAG = f'"{hashlib.sha256(PAGE).hexdigest()[:16]}"'


def lambda_handler(event, context):
    request_id = getattr(context, "aws_request_id", "")
    if not isinstance(event, dict) or not isinstance(event.get("httpMethod"), str) \
            or not isinstance(event.get("path"), str):
        return error(400, "event", "expected an API Gateway REST proxy event (httpMethod and path)", request_id)
    method, resource = event["httpMethod"], event.get("resource") or event["path"]
    if method not in ("GET", "HEAD"):
        return error(404, "path", f"no route for {method} {event['path']}", request_id)
    if resource == "/":
        return page(event)
    if resource == "/assets/{path+}":
        name = ((event.get("pathParameters") or {}).get("path") or "")
        return asset(name, request_id)
    return error(404, "path", f"no route for {method} {event['path']}", request_id)


def page(event):
    # Under a stage (/Prod) the page must end in a slash, or its relative URLs would miss the stage.
    full_path = (event.get("requestContext") or {}).get("path") or "/"
    if not full_path.endswith("/"):
        return {"statusCode": 301, "headers": {"Location": full_path + "/", "Cache-Control": REVALIDATE},
                "body": "", "isBase64Encoded": False}
    headers = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": REVALIDATE, "ETag": PAGE_ETAG,
               "X-Content-Type-Options": "nosniff"}
    request_headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    if PAGE_ETAG in (request_headers.get("if-none-match") or ""):
        return {"statusCode": 304, "headers": headers, "body": "", "isBase64Encoded": False}
    return {"statusCode": 200, "headers": headers, "body": PAGE.decode(), "isBase64Encoded": False}


def asset(name, request_id):
    version, _, path = name.partition("/")
    if version != VERSION or path not in ASSETS:
        elsewhere = "" if version == VERSION else f" (this deployment's assets are under {VERSION}/)"
        reason = f"no asset {name!r}{elsewhere}"
        return error(404, "path", reason, request_id)
    headers = {"Content-Type": CONTENT_TYPES[pathlib.PurePosixPath(path).suffix], "Cache-Control": IMMUTABLE,
               "X-Content-Type-Options": "nosniff"}
    return {"statusCode": 200, "headers": headers, "body": ASSETS[path].decode(), "isBase64Encoded": False}


def error(status, field, reason, request_id):
    """The API's error shape (docs/api.md, "Errors")."""
    body = {"status": status, "message": f"{field}: {reason}", "errors": [{"field": field, "reason": reason}],
            "request_id": request_id}
    return {"statusCode": status, "headers": {"Content-Type": "application/json"}, "body": json.dumps(body),
            "isBase64Encoded": False}
