"""`kibitz serve`: `sam local start-api` without Docker, on 127.0.0.1.

Each HTTP request becomes an API Gateway proxy event for the function whose template route matches;
each function runs in this process as one warm container (one request at a time). As API Gateway
does, a path or method no route declares answers 403 {"message": "Missing Authentication Token"}.
"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from kibitz.local import compression
from kibitz.local.apigateway import Router, decode_response, proxy_event
from kibitz.local.runtime import FunctionRuntime

MAX_BODY_BYTES = 10 * 1024 * 1024  # API Gateway's payload limit


def make_server(functions, host="127.0.0.1", port=3000, quiet=False, minimum_compression_size=None):
    """minimum_compression_size: the API's MinimumCompressionSize (kibitz/local/compression.py)."""
    router = Router(functions)
    runtimes = {name: FunctionRuntime(fn) for name, fn in functions.items()}

    class Handler(BaseHTTPRequestHandler):
        server_version = "kibitz-local"
        protocol_version = "HTTP/1.1"

        def _handle(self):
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY_BYTES:
                return self._send(413, [("Content-Type", "application/json")],
                                  json.dumps({"message": "Request Too Long"}).encode())
            body = self.rfile.read(length) if length else None
            matched = router.match(self.command, url.path)
            if matched is None:
                return self._send(403, [("Content-Type", "application/json")],
                                  json.dumps({"message": "Missing Authentication Token"}).encode())
            name, resource, params = matched
            event = proxy_event(self.command, url.path, url.query, dict(self.headers.items()), body, resource, params)
            t0 = time.perf_counter()
            status, headers, data = decode_response(runtimes[name].invoke(event))
            headers, data = compression.compress(headers, data, self.headers.get("Accept-Encoding"),
                                                 minimum_compression_size)
            if not quiet:
                print(f"{self.command} {self.path} -> {status} ({(time.perf_counter() - t0) * 1000:.0f} ms, {name})",
                      file=sys.stderr)
            self._send(status, headers, data)

        def _send(self, status, headers, data):
            self.send_response(status)
            for key, value in headers:
                if key.lower() not in ("content-length", "connection"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _handle

        def log_message(self, format, *args):  # the line printed in _handle says more
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    server.runtimes = runtimes
    return server
