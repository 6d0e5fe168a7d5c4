"""Posting the live stream to its client through the API Gateway Management API, without slowing the search.

    poster = Poster.for_event(event)          # POST @connections/{id} on the API's own endpoint
    stream = Stream(poster, cid, id_, on_gone=stop_search).start()
    engine.analyse(..., on_info=stream.info)   # costs the search a list assignment per iteration
    stream.close()

The search thread only hands each completed iteration (engine.result.Analysis) to the stream; a
thread of the stream turns the newest into an info message and posts it, the first at once and then
at most one per INTERVAL_S (iterations that complete sooner are replaced by newer ones: the client
sees the newest). A GoneException (the client left) calls on_gone, which stops the search: nobody pays
for a search nobody reads.

Where: KIBITZ_LIVE_ENDPOINT (a local stand-in: kibitz/local/ws_server.py) or https://{domainName}/{stage}
from the event, as AWS documents for a WebSocket API's callback URL.
"""

import threading
import time

from functions.common import settings
from functions.common.live.messages import encode, info_message

INTERVAL_S = 0.1
_clients = {}
_clients_lock = threading.Lock()


class Gone(Exception):
    """The connection is closed: API Gateway's GoneException (HTTP 410)."""


def management_client(endpoint):
    with _clients_lock:
        if endpoint not in _clients:
            import boto3
            from botocore.config import Config

            _clients[endpoint] = boto3.client("apigatewaymanagementapi", endpoint_url=endpoint, config=Config(
                connect_timeout=1, read_timeout=2, retries={"max_attempts": 2, "mode": "standard"}))
        return _clients[endpoint]


class Poster:
    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.client = management_client(endpoint)
        self.posted = 0

    @classmethod
    def for_event(cls, event):
        local = settings.text("KIBITZ_LIVE_ENDPOINT")
        if local:
            return cls(local)
        ctx = event["requestContext"]
        return cls(f"https://{ctx['domainName']}/{ctx['stage']}")

    def post(self, cid, message):
        """Send one message (a dict); Gone when the client has left."""
        try:
            self.client.post_to_connection(ConnectionId=cid, Data=encode(message))
        except self.client.exceptions.GoneException as e:
            raise Gone(str(e)) from None
        self.posted += 1


class Stream:
    def __init__(self, poster, cid, id_=None, on_gone=None, interval_s=INTERVAL_S):
        self.poster, self.cid, self.id_, self.on_gone, self.interval_s = poster, cid, id_, on_gone, interval_s
        self.gone = False
        self.infos = 0  # posted
        self.first_info_at = None  # time.monotonic() of the first post
        self.started_at = time.monotonic()
        self._pending = None
        self._cond = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name=f"live-post-{cid}", daemon=True)

    def start(self):
        self._thread.start()
        return self

    def info(self, found):
        """engine.analyse's on_info: keep the newest iteration for the poster thread."""
        with self._cond:
            self._pending = found
            self._cond.notify()

    def _run(self):
        last = -1e9
        while True:
            with self._cond:
                while self._pending is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                wait = last + self.interval_s - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)  # newer iterations may replace it meanwhile
                    if self._closed:
                        return
                    continue
                found, self._pending = self._pending, None
            last = time.monotonic()
            try:
                self.poster.post(self.cid, info_message(found, self.id_))
            except Gone:
                self._gone()
                return
            except Exception:  # a lost info is not worth the search; the result is posted by the handler
                continue
            self.infos += 1
            if self.first_info_at is None:
                self.first_info_at = time.monotonic()

    def _gone(self):
        self.gone = True
        if self.on_gone is not None:
            self.on_gone("gone")

    def close(self):
        """Stop posting infos (an iteration not yet posted is dropped: the result follows)."""
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join()

    def send(self, message):
        """Post a message from the handler's own thread (the result, an error); False when the client left."""
        if self.gone:
            return False
        try:
            self.poster.post(self.cid, message)
        except Gone:
            self._gone()
            return False
        return True
