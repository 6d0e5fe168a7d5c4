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

from functions.common.api.models import AnalysisAnswer, AnalyzeBody, ErrorBody, FieldError, LineAnswer

MAX_FRAME_BYTES = 16 * 1024  # POST /analyze's body limit (functions/common/api/http.py MAX_BODY_BYTES)
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
    """("moves", 3) -> "moves[3]", as functions/common/api/http.py names a body's fields."""
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


def schemas():
    """The stream's messages as JSON Schema (docs/live-messages.schema.json is this, written out): what a
    client sends (analyze, stop) and what it gets (info, result, error), from the same models as the API's."""
    analyze = AnalyzeBody.model_json_schema(ref_template="#/$defs/{model}")
    answer = AnalysisAnswer.model_json_schema(ref_template="#/$defs/{model}")
    error = ErrorBody.model_json_schema(ref_template="#/$defs/{model}")
    defs = {**analyze.pop("$defs", {}), **answer.pop("$defs", {}), **error.pop("$defs", {})}
    defs["LineAnswer"] = LineAnswer.model_json_schema(ref_template="#/$defs/{model}")
    defs["LineAnswer"].pop("$defs", None)
    id_ = {"description": "yours, echoed in every message that answers this one",
           "anyOf": [{"type": "integer"}, {"type": "string", "maxLength": MAX_ID_CHARS}]}
    kind = lambda name: {"const": name}  # noqa: E731
    analyze["properties"] = {"action": kind("analyze"), "id": id_, **analyze["properties"]}
    analyze["required"] = ["action", *analyze.get("required", [])]
    info = {"title": "info", "type": "object", "description": "a completed iteration of the search (at most one "
            "per 100 ms): the answer's fields less " + ", ".join(NOT_IN_INFO),
            "properties": {"type": kind("info"), "id": id_, **{k: v for k, v in answer["properties"].items()
                                                               if k not in NOT_IN_INFO}},
            "required": ["type", *[k for k in answer["required"] if k not in NOT_IN_INFO]]}
    result = {**answer, "title": "result", "description": "the search's answer: exactly POST /analyze's",
              "properties": {"type": kind("result"), "id": id_, **answer["properties"]},
              "required": ["type", *answer["required"]]}
    err = {**error, "title": "error", "properties": {"type": kind("error"), "id": id_, **error["properties"]},
           "required": ["type", *error["required"]]}
    stop = {"title": "stop", "type": "object", "properties": {"action": kind("stop")}, "required": ["action"],
            "description": "answer the running search's best line now (its result message follows)"}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Kibitz live analysis stream",
            "$defs": {**defs, "analyze": {**analyze, "title": "analyze"}, "stop": stop, "info": info,
                      "result": result, "error": err},
            "oneOf": [{"$ref": f"#/$defs/{name}"} for name in ("analyze", "stop", "info", "result", "error")]}
