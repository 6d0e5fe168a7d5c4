"""The live analysis stream's messages (WebSocket API, docs/live.md): what a client sends, what it gets.

Client -> server, one JSON object a frame, routed on `action` (API Gateway's route selection
expression `$request.body.action`):

    {"action": "analyze", "fen": ..., "moves": [...], "movetime_ms": ..., "depth": ..., "multipv": ...,
     "threads": ..., "nodes": ..., "cache": ..., "id": "any string of yours, echoed"}
    {"action": "stop"}

Server -> client:

    {"type": "info", "id": ..., "depth": ..., "nodes": ..., "nps": ..., "score": ..., "wdl": ..., "lines": [...]}
    {"type": "result", "id": ..., <exactly the fields POST /analyze answers>}
    {"type": "error", "id": ..., "status": 422, "message": ..., "errors": [{"field": ..., "reason": ...}],
     "request_id": ...}

The fields of `analyze` are POST /analyze's, checked by the same model (AnalyzeBody: strict types,
unknown fields refused, the deployment's movetime cap), so the errors name the same fields with the
same words. An info message has the answer's fields that a search in progress has (no `budget_ms`,
`hash_mb`, `threads`, `cached`, `engine`), so that a client draws both with the same code.
Importing this module loads no compiled engine code.
"""

import json

from pydantic import ValidationError

from functions.common.models import AnalysisAnswer, AnalyzeBody, ErrorBody, FieldError

MAX_FRAME_BYTES = 16 * 1024  # POST /analyze's body limit (functions/common/http.py MAX_BODY_BYTES)
MAX_ID_CHARS = 64
ACTIONS = ("analyze", "stop")
# What an info message leaves out of the answer: figures of the whole request, not of an iteration.
NOT_IN_INFO = ("budget_ms", "hash_mb", "threads", "cached", "engine", "game_over", "result")


class MessageError(Exception):
    """A message the stream refuses: answered with an error message; the connection stays open."""

    def __init__(self, status, errors):
        super().__init__(f"{errors[0]['field']}: {errors[0]['reason']}")
        self.status, self.errors = status, errors


def refuse(status, field, reason):
    return MessageError(status, [{"field": field, "reason": reason}])


def read_frame(body):
    """The JSON object a frame holds, or MessageError (413 too large, 400 not JSON or not an object)."""
    if body is None:
        raise refuse(400, "body", "empty message; send a JSON object with an action")
    size = len(body.encode("utf-8", "surrogatepass")) if isinstance(body, str) else len(body)
    if size > MAX_FRAME_BYTES:
        raise refuse(413, "body", f"the message is {size} bytes; the limit is {MAX_FRAME_BYTES}")
    try:
        data = json.loads(body)
    except ValueError as e:
        raise refuse(400, "body", f"not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise refuse(400, "body", f"expected a JSON object, not {type(data).__name__}")
    return data


def action_of(data):
    """The message's action, or MessageError naming `action`."""
    action = data.get("action")
    if action not in ACTIONS:
        shown = json.dumps(action) if action is not None else "none"
        raise refuse(400, "action", f"unknown action {shown}; expected one of {', '.join(ACTIONS)}")
    return action


def client_id(data):
    """The message's own `id` (a string or an integer), echoed in what answers it; None without one."""
    value = data.get("id")
    if value is None or (isinstance(value, int) and not isinstance(value, bool)) or \
            (isinstance(value, str) and len(value) <= MAX_ID_CHARS):
        return value
    raise refuse(422, "id", f"an integer or a string of at most {MAX_ID_CHARS} characters")


def analyze_request(data):
    """AnalyzeBody of an analyze message (its action and id set aside), or MessageError as POST /analyze's."""
    fields = {k: v for k, v in data.items() if k not in ("action", "id")}
    try:
        return AnalyzeBody.model_validate(fields)
    except ValidationError as e:
        raise MessageError(422, [{"field": _field(err["loc"]), "reason": err["msg"]} for err in e.errors()]) \
            from None


def _field(loc):
    """("moves", 3) -> "moves[3]", as functions/common/http.py names a body's fields."""
    name = ""
    for p in loc:
        name += f"[{p}]" if isinstance(p, int) else (f".{p}" if name else str(p))
    return name or "body"


def error_message(status, errors, request_id, id_=None):
    body = ErrorBody(status=status, message=f"{errors[0]['field']}: {errors[0]['reason']}",
                     errors=[FieldError(**e) for e in errors], request_id=request_id or "")
    return _with_type("error", id_, body.model_dump(mode="json"))


def info_message(found, id_=None):
    """The info message of a completed iteration (engine.result.Analysis)."""
    answer = AnalysisAnswer.of(found, 0, 0).model_dump(mode="json", exclude=set(NOT_IN_INFO))
    return _with_type("info", id_, answer)


def result_message(answer, id_=None):
    """The final message: `type`, `id` and exactly the AnalysisAnswer POST /analyze answers."""
    return _with_type("result", id_, answer.model_dump(mode="json"))


def _with_type(kind, id_, fields):
    head = {"type": kind} if id_ is None else {"type": kind, "id": id_}
    return {**head, **fields}


def encode(message):
    return json.dumps(message, separators=(",", ":")).encode()
