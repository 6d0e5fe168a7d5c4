"""`kibitz serve`'s WebSocket route: API Gateway's WebSocket API (v2) in miniature, on 127.0.0.1 only.

    live = LiveServer(functions).start()       # ws://127.0.0.1:PORT/live, and the Management API stand-in
    live.url, live.endpoint
    live.stop()

The `websockets` library speaks the protocol (handshake, framing, ping/pong, close); this module plays
API Gateway around it, as kibitz/local/server.py plays the REST API:

- each connection gets an id; the `$connect` route runs LiveControlFunction (after the authorizer,
  LiveAuthorizerFunction, when a key is required: `--live-key`, or KIBITZ_API_KEY_VALUE), and a
  handshake it refuses is a 403;
- each text frame is routed on its `action` (the template's `$request.body.action`): `analyze` to
  LiveFunction, `stop` and anything else (`$default`) to LiveControlFunction, each an invocation with
  API Gateway's event (kibitz/local/live_events.py). `$default`'s answer goes back to the client (a two-way
  route); the others answer through the Management API;
- the Management API is an HTTP server of its own on 127.0.0.1 (POST/GET/DELETE /live/@connections/{id},
  GoneException 410 for a connection that is closed), which LiveFunction reaches by boto3 through
  KIBITZ_LIVE_ENDPOINT exactly as it reaches API Gateway's;
- a `stop` is its own invocation, which writes the connections table (moto's DynamoDB here); the
  search learns of it by reading that table, as on AWS, never through this process's memory;
- LiveFunction runs as up to `concurrency` warm containers at once (the template's
  LiveReservedConcurrency unless told otherwise); a message beyond them is refused as throttled;
- API Gateway's limits: a frame over 128 KiB closes the connection (1009), a connection idle for 10
  minutes or open for 2 hours is closed (1001).
"""

import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

from kibitz.local import live_events
from kibitz.local.runtime import FunctionRuntime, restore_environ
from kibitz.local.template import document

LIVE_FUNCTION, CONTROL_FUNCTION, AUTHORIZER_FUNCTION = "LiveFunction", "LiveControlFunction", "LiveAuthorizerFunction"
MAX_MESSAGE_BYTES = 128 * 1024  # API Gateway's WebSocket message limit
IDLE_S, MAX_CONNECTION_S = 600, 7200  # API Gateway's idle timeout and connection duration
ROUTES = ("analyze", "stop")


class Connection:
    def __init__(self, ws, cid, connected_at_ms):
        self.ws, self.cid, self.connected_at_ms = ws, cid, connected_at_ms
        self.opened = time.monotonic()
        self.last_active = self.opened
        self.lock = threading.Lock()
        self.open = True
        self.sent = 0

    def send(self, text):
        """False when the connection is closed (GoneException)."""
        from websockets.exceptions import ConnectionClosed

        if not self.open:
            return False
        try:
            with self.lock:
                self.ws.send(text)
        except ConnectionClosed:
            self.open = False
            return False
        self.sent += 1
        self.last_active = time.monotonic()
        return True


class ContainerPool:
    """Up to `size` warm containers of one function, each running one invocation at a time."""

    def __init__(self, function, size):
        self.function, self.size = function, size
        self.idle, self.made = [], 0
        self.lock = threading.Lock()

    def acquire(self):
        with self.lock:
            if self.idle:
                return self.idle.pop()
            if self.made >= self.size:
                return None
            self.made += 1
        return FunctionRuntime(self.function)

    def release(self, runtime):
        with self.lock:
            self.idle.append(runtime)


def default_concurrency(functions):
    doc, params = document(functions[LIVE_FUNCTION].code_dir.parents[1] / "template.yaml")
    value = params.get("LiveReservedConcurrency")
    return int(value) if value and int(value) > 0 else 10


class LiveServer:
    def __init__(self, functions, host="127.0.0.1", port=0, concurrency=None, api_key=None):
        self.functions, self.host, self.port = functions, host, port
        self.api_key = api_key or os.environ.get("KIBITZ_API_KEY_VALUE") or None
        self.concurrency = concurrency or default_concurrency(functions)
        self.pool = ContainerPool(functions[LIVE_FUNCTION], self.concurrency)
        self.control = FunctionRuntime(functions[CONTROL_FUNCTION])
        self.authorizer = FunctionRuntime(functions[AUTHORIZER_FUNCTION]) \
            if self.api_key and AUTHORIZER_FUNCTION in functions else None
        self.connections = {}
        self.stats = {"connections": 0, "messages": 0, "invocations": 0, "throttled": 0, "posted": 0, "gone": 0}
        self.ws_server = self.http_server = None
        self.threads = []
        self.domain = None

    # --- lifecycle ----------------------------------------------------------------------------------

    def start(self):
        from websockets.sync.server import serve

        self.http_server = ThreadingHTTPServer(("127.0.0.1", 0), self._management_handler())
        self.http_server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.http_server.server_address[1]}/{live_events.STAGE}"
        self.saved_env = {name: os.environ.get(name) for name in ("KIBITZ_LIVE_ENDPOINT", "KIBITZ_API_KEY_VALUE")}
        os.environ["KIBITZ_LIVE_ENDPOINT"] = self.endpoint  # LiveFunction's Management API (this process's)
        if self.api_key:
            os.environ.setdefault("KIBITZ_API_KEY_VALUE", self.api_key)
        self.ws_server = self._bind(serve)
        host, port = self.ws_server.socket.getsockname()[:2]
        self.domain = f"{host}:{port}"
        self.url = f"ws://{host}:{port}/{live_events.STAGE}"
        for target in (self.http_server.serve_forever, self.ws_server.serve_forever):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self.threads.append(thread)
        return self

    def _bind(self, serve):
        options = dict(process_request=self._handshake, max_size=MAX_MESSAGE_BYTES, compression=None,
                       ping_interval=None, server_header="kibitz-local")
        try:
            return serve(self._connection, self.host, self.port, **options)
        except OSError:
            if not self.port:
                raise
            return serve(self._connection, self.host, 0, **options)  # the port asked is taken: any free one

    def stop(self):
        if self.ws_server is not None:
            self.ws_server.shutdown()
        if self.http_server is not None:
            self.http_server.shutdown()
            self.http_server.server_close()
        for thread in self.threads:
            thread.join(5)
        restore_environ(getattr(self, "saved_env", {}))  # the process's environment as it was

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # --- API Gateway's side -------------------------------------------------------------------------

    def _invoke(self, runtime, event):
        """The functions log to standard output, as kibitz/local/server.py's do (no redirection: it is process-wide,
        and invocations here run on many threads at once)."""
        self.stats["invocations"] += 1
        return runtime.invoke(event)

    def _handshake(self, ws, request):
        """$connect (and the authorizer): None lets the handshake go on; a Response refuses it."""
        cid = live_events.new_connection_id()
        connected_at = int(time.time() * 1000)
        query = dict(parse_qsl(urlsplit(request.path).query))
        headers = {k: v for k, v in request.headers.raw_items()}
        if self.authorizer is not None:
            policy = self._invoke(self.authorizer,
                                  live_events.authorizer_event(cid, self.domain, connected_at, headers, query))
            if policy["policyDocument"]["Statement"][0]["Effect"] != "Allow":
                return ws.respond(403, "Forbidden\n")
        answer = self._invoke(self.control, live_events.connect_event(cid, self.domain, connected_at, headers, query))
        if int(answer.get("statusCode", 200)) != 200:
            return ws.respond(403, "Forbidden\n")
        ws.kibitz = Connection(ws, cid, connected_at)
        return None

    def _connection(self, ws):
        from websockets.exceptions import ConnectionClosed

        conn = ws.kibitz
        self.connections[conn.cid] = conn
        self.stats["connections"] += 1
        try:
            while True:
                now = time.monotonic()
                left = min(conn.last_active + IDLE_S, conn.opened + MAX_CONNECTION_S) - now
                if left <= 0:
                    ws.close(1001, "Going away")
                    break
                try:
                    frame = ws.recv(timeout=left)
                except TimeoutError:
                    continue
                conn.last_active = time.monotonic()
                self.stats["messages"] += 1
                self._route(conn, frame)
        except ConnectionClosed:
            pass
        finally:
            conn.open = False
            self._invoke(self.control, live_events.disconnect_event(conn.cid, self.domain, conn.connected_at_ms,
                                                                    ws.close_code or 1006, ws.close_reason or ""))
            self.connections.pop(conn.cid, None)

    def _route(self, conn, frame):
        route = "$default"
        if isinstance(frame, str):
            try:
                data = json.loads(frame)
            except ValueError:
                data = None
            if isinstance(data, dict) and data.get("action") in ROUTES:
                route = data["action"]
        event = live_events.message_event(route, conn.cid, self.domain, conn.connected_at_ms, frame)
        if route == "analyze":
            runtime = self.pool.acquire()
            if runtime is None:
                self.stats["throttled"] += 1
                conn.send(json.dumps(throttled(event["requestContext"]["requestId"], self.concurrency)))
                return
            threading.Thread(target=self._search, args=(runtime, event), daemon=True).start()
            return
        answer = self._invoke(self.control, event)
        if answer.get("body"):  # a two-way route ($default): its answer goes to the client
            conn.send(answer["body"])

    def _search(self, runtime, event):
        try:
            self._invoke(runtime, event)
        finally:
            self.pool.release(runtime)

    # --- the Management API -------------------------------------------------------------------------

    def _management_handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _connection(self):
                path = urlsplit(self.path).path
                prefix = f"/{live_events.STAGE}/@connections/"
                if not path.startswith(prefix):
                    self._answer(404, {"message": "Not Found"}, "NotFoundException")
                    return None
                conn = server.connections.get(unquote(path[len(prefix):]))
                if conn is None or not conn.open:
                    server.stats["gone"] += 1
                    self._answer(410, {"message": "Connection is gone"}, "GoneException")
                    return None
                return conn

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                conn = self._connection()
                if conn is None:
                    return
                if len(data) > MAX_MESSAGE_BYTES:
                    return self._answer(413, {"message": "Payload too large"}, "PayloadTooLargeException")
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError:
                    text = data
                if not conn.send(text):
                    server.stats["gone"] += 1
                    return self._answer(410, {"message": "Connection is gone"}, "GoneException")
                server.stats["posted"] += 1
                self._answer(200, None)

            def do_GET(self):
                conn = self._connection()
                if conn is not None:
                    self._answer(200, {"connectedAt": conn.connected_at_ms / 1000,
                                       "identity": {"sourceIp": "127.0.0.1"},
                                       "lastActiveAt": time.time() - (time.monotonic() - conn.last_active)})

            def do_DELETE(self):
                conn = self._connection()
                if conn is not None:
                    conn.ws.close(1000, "")
                    self._answer(204, None)

            def _answer(self, status, body, error_type=None):
                data = json.dumps(body).encode() if body is not None else b""
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if error_type:
                    self.send_header("x-amzn-ErrorType", error_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format, *args):
                pass

        return Handler


def throttled(request_id, concurrency):
    """What a client gets when every LiveFunction container is busy (on AWS: Lambda throttles the invocation
    past LiveReservedConcurrency, and API Gateway answers an error message of its own)."""
    reason = f"busy: {concurrency} live analyses are running; try again in a moment"
    return {"type": "error", "status": 429, "message": f"function: {reason}",
            "errors": [{"field": "", "reason": reason}], "request_id": request_id}


def is_live_function(template_path, name):
    """Whether the template's function `name` is one of the live stream's (it names the connections table)."""
    doc, _ = document(template_path)
    props = (doc.get("Resources") or {}).get(name, {}).get("Properties") or {}
    return "KIBITZ_LIVE_TABLE" in ((props.get("Environment") or {}).get("Variables") or {})


class ManagementRecorder:
    """The Management API for `kibitz invoke` of a live function: POST @connections/{id} answered 200 and kept
    (`posted`: [(connection id, message)]), no WebSocket behind it; KIBITZ_LIVE_ENDPOINT points at it while
    it runs."""

    def __enter__(self):
        recorder = self
        self.posted = []

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                cid = unquote(urlsplit(self.path).path.rpartition("/@connections/")[2])
                try:
                    recorder.posted.append((cid, json.loads(data)))
                except ValueError:
                    recorder.posted.append((cid, data.decode(errors="replace")))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.saved = os.environ.get("KIBITZ_LIVE_ENDPOINT")
        os.environ["KIBITZ_LIVE_ENDPOINT"] = f"http://127.0.0.1:{self.server.server_address[1]}/{live_events.STAGE}"
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        if self.saved is None:
            os.environ.pop("KIBITZ_LIVE_ENDPOINT", None)
        else:
            os.environ["KIBITZ_LIVE_ENDPOINT"] = self.saved
