"""A small client for the live analysis stream (docs/live.md): `kibitz analyze --live` and your own code.

    from kibitz.clients.live import LiveClient

    with LiveClient("ws://127.0.0.1:3001/live") as live:        # or the stack's LiveUrl (+ "?key=..." if keys)
        result = live.analyse({"fen": "...", "movetime_ms": 2000, "multipv": 3},
                              on_info=lambda info: print(info["depth"], info["pv_san"]))
        result["best_move"], result["score"]                         # POST /analyze's answer

    live.stop()   # from another thread: the search answers its best line at once

analyse() sends one `analyze` message and returns its `result` message (a dict without `type`), calling
on_info(info) for each `info` message as it arrives; an `error` message raises LiveError with the
API's status and errors. Messages are matched to the request by an `id` the client sets, so the
answers of an earlier request on the same connection are never mistaken for this one's.
"""

import itertools
import json
import threading


class LiveError(Exception):
    def __init__(self, message):
        super().__init__(message.get("message") or "error")
        self.status, self.errors, self.request_id = message.get("status"), message.get("errors", []), \
            message.get("request_id")
        self.message = message


class LiveClient:
    def __init__(self, url, open_timeout_s=10):
        from websockets.sync.client import connect

        # entered at once: connect() is a context manager, and websockets 17 warns when it is used as a connection
        self.ws = connect(url, open_timeout=open_timeout_s, max_size=2**20, compression=None).__enter__()
        self._ids = itertools.count(1)
        self._send_lock = threading.Lock()

    def close(self):
        self.ws.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, message):
        with self._send_lock:
            self.ws.send(json.dumps(message))

    def stop(self):
        """Ask the running search to stop; its result still arrives (through analyse())."""
        self.send({"action": "stop"})

    def analyse(self, request, on_info=None, timeout_s=60):
        """The result (POST /analyze's answer) for `request` (POST /analyze's fields)."""
        id_ = f"k{next(self._ids)}"
        self.send({"action": "analyze", **request, "id": id_})
        while True:
            message = json.loads(self.ws.recv(timeout=timeout_s))
            if message.get("id") != id_:
                continue
            kind = message.pop("type", None)
            message.pop("id", None)
            if kind == "info":
                if on_info is not None:
                    on_info(message)
            elif kind == "result":
                return message
            elif kind == "error":
                raise LiveError(message)
