"""What every function behind API Gateway shares: the error format, the request checks validation
leaves to the routes, and the handler itself.

    install_error_handlers(app, logger, metrics)

registers, on a Powertools resolver, the handlers that turn InputError, validation errors, unknown
routes and unexpected exceptions into ErrorBody answers (4xx naming the field; 500 with only a
request id, the traceback going to the function's log).

    @app.post("/jobs", middlewares=[refuse_form_bodies])          # 415 for a form body
    @app.get("/analyze", middlewares=[known_query(*names)])        # 422 for any other query parameter

are route middlewares (Powertools runs them after validation, before the route).

    @api_handler(logger, tracer, metrics, docs=SwaggerOnDemand(app, ...))
    def lambda_handler(event, context):
        return app.resolve(event, context)

puts Powertools' logger, tracer and metrics decorators and not_a_proxy_event (an event that is no
API Gateway request answers 400 naming the event) around the handler. SwaggerOnDemand calls
the resolver's enable_swagger on the first request for the docs rather than at init.
"""

import base64
import functools
import json

from aws_lambda_powertools.event_handler.api_gateway import Response
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.metrics import MetricUnit

from functions.common.api.models import ErrorBody, FieldError

MAX_BODY_BYTES = 16 * 1024  # POST /analyze; the jobs API takes more (functions/common/jobs/models.py)
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class InputError(Exception):
    """A request the API refuses: answered with `status` and the field at fault (or several)."""

    def __init__(self, status, field, reason, more=()):
        super().__init__(f"{field}: {reason}")
        self.status, self.field, self.reason = status, field, reason
        self.errors = [{"field": field, "reason": reason}, *more]


def not_json(content_type):
    """The 415 for a body sent as something other than JSON."""
    return InputError(415, "body", f"send the body as JSON with Content-Type: application/json, not {content_type}")


def form_body(event):
    """not_json() for a request whose body is a form, else None. Powertools reads form fields as the body
    (each a list of strings), so a form could pass for a JSON body: `positions=x` for a list of one FEN."""
    content_type = event.headers.get("content-type", "")
    return not_json(content_type) if content_type.startswith(FORM_TYPES) else None


def refuse_form_bodies(app, next_middleware):
    """Route middleware: 415 for a form body (one that failed validation is refused by the same rule,
    in install_error_handlers)."""
    if (refused := form_body(app.current_event)) is not None:
        raise refused
    return next_middleware(app)


def known_query(*names):
    """Route middleware: 422 naming the first query parameter (in sorted order) that is not in `names`."""

    def middleware(app, next_middleware):
        unknown = sorted(set(app.current_event.query_string_parameters or {}) - set(names))
        if unknown:
            raise InputError(422, unknown[0], "unknown query parameter; expected one of " + ", ".join(names))
        return next_middleware(app)

    return middleware


def json_body_reader(max_bytes, over=""):
    """A resolver's JSON body reader that applies a size limit before parsing. over: what the 413 adds
    (the way a larger request goes)."""

    def read(text):
        if text is None:
            return None  # no body: validation answers "body: Field required"
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise InputError(413, "body", f"the body is {size} bytes; the limit is {max_bytes}" +
                             (over and f": {over}"))
        return json.loads(text)

    return read


def field_name(loc):
    """("body", "moves", 3) -> "moves[3]"; ("query", "depth") -> "depth"; ("body",) -> "body"."""
    parts = [p for p in loc[1:] if p != "request"] if len(loc) > 1 else list(loc)
    name = ""
    for p in parts:
        name += f"[{p}]" if isinstance(p, int) else (f".{p}" if name else str(p))
    return name or "body"


def install_error_handlers(app, logger, metrics):
    """Register the error handlers on `app`; returns error_response(status, errors) for the routes' own use."""

    def error_response(status, errors):
        context = app.current_event.request_context
        request_id = context.request_id or app.lambda_context.aws_request_id
        first = errors[0]
        body = ErrorBody(status=status, message=f"{first['field']}: {first['reason']}",
                         errors=[FieldError(**e) for e in errors], request_id=request_id)
        return Response(status_code=status, content_type="application/json", body=body.model_dump_json())

    def rejected(status, errors):
        metrics.add_metric("RejectedRequests", MetricUnit.Count, 1)
        logger.info("rejected", extra={"status": status, "errors": errors[:20]})
        return error_response(status, errors)

    @app.exception_handler(InputError)
    def input_error(e):
        return rejected(e.status, e.errors)

    @app.exception_handler(RequestValidationError)
    def validation_error(e):
        errors = e.errors()
        if (refused := form_body(app.current_event)) is not None:
            return input_error(refused)
        if any(err["type"] == "json_invalid" for err in errors):
            err = next(err for err in errors if err["type"] == "json_invalid")
            return rejected(400, [{"field": "body", "reason": f"not valid JSON: {err['ctx']['error']} at character "
                                                              f"{err['loc'][-1]}"}])
        fields = [{"field": field_name(err["loc"]), "reason": err["msg"]} for err in errors]
        unreadable = any(f["field"] == "body" for f in fields)  # a JSON array, string or number, or no body
        return rejected(400 if unreadable else 422, fields)

    @app.exception_handler(RequestUnsupportedContentType)
    def unsupported_content_type(e):
        return input_error(not_json(app.current_event.headers.get("content-type", "")))

    @app.not_found
    def not_found(e):
        event = app.current_event
        return rejected(404, [{"field": "path", "reason": f"no route for {event.http_method} {event.path}"}])

    @app.exception_handler(Exception)
    def unexpected(e):
        logger.exception("unexpected error")
        metrics.add_metric("InternalErrors", MetricUnit.Count, 1)
        return error_response(500, [{"field": "", "reason": "internal error; quote the request id to report it"}])

    return error_response


def not_a_proxy_event(event, context):
    """A 400 answer in the API's error format for an event API Gateway would never send (a direct
    invoke with another payload), on which the resolver would fail with a KeyError; None for a
    REST API proxy event."""
    if not isinstance(event, dict):
        reason = f"expected an API Gateway REST proxy event (a JSON object), not a {type(event).__name__}"
    elif not isinstance(event.get("httpMethod"), str) or not isinstance(event.get("path"), str):
        reason = "expected an API Gateway REST proxy event: httpMethod and path are missing"
    else:
        return None
    body = ErrorBody(status=400, message=f"event: {reason}", errors=[FieldError(field="event", reason=reason)],
                     request_id=getattr(context, "aws_request_id", ""))
    return {"statusCode": 400, "headers": {"Content-Type": "application/json"}, "body": body.model_dump_json(),
            "isBase64Encoded": False}


def unreadable_body(event, context):
    """A 400 answer naming the body for a body sent as bytes (API Gateway base64-encodes it) that is not
    UTF-8 text, which Powertools would fail to decode (a 500); None for any other event."""
    if not event.get("isBase64Encoded") or not isinstance(event.get("body"), str):
        return None
    try:
        base64.b64decode(event["body"], validate=True).decode("utf-8")
        return None
    except (ValueError, UnicodeDecodeError) as e:
        reason = f"not UTF-8 text ({e.__class__.__name__}: {e}); send JSON as UTF-8"
    request_id = ((event.get("requestContext") or {}).get("requestId")) or getattr(context, "aws_request_id", "")
    body = ErrorBody(status=400, message=f"body: {reason}", errors=[FieldError(field="body", reason=reason)],
                     request_id=request_id)
    return {"statusCode": 400, "headers": {"Content-Type": "application/json"}, "body": body.model_dump_json(),
            "isBase64Encoded": False}


def api_handler(logger, tracer, metrics, docs=None):
    """Decorates the Lambda handler of a function behind API Gateway (REST): Powertools' decorators
    (correlation id from the request, X-Ray, metrics with the cold start), and an event that is no
    API Gateway request answered before the handler sees it. docs: a SwaggerOnDemand to prepare
    before the resolver looks for a route."""

    def decorate(handler):
        @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_REST)
        @tracer.capture_lambda_handler
        @metrics.log_metrics(capture_cold_start_metric=True)
        @functools.wraps(handler)
        def lambda_handler(event, context):
            if (rejected := not_a_proxy_event(event, context) or unreadable_body(event, context)) is not None:
                metrics.add_metric("RejectedRequests", MetricUnit.Count, 1)
                return rejected
            if docs is not None:
                docs.prepare(event)
            return handler(event, context)

        return lambda_handler

    return decorate


class SwaggerOnDemand:
    """Powertools' enable_swagger, called when the first request for the docs arrives.

    enable_swagger imports Powertools' OpenAPI models, some forty pydantic classes whose schemas take
    ~100 ms to build: a quarter of a cold start that a request for /analyze never needs. Until then
    the resolver has no docs route; prepare(event) adds it before the resolver looks for a route.
    """

    def __init__(self, app, path="/swagger", document=None, **options):
        """document(app): adds, before the docs are built, routes the document describes that other functions
        serve (AnalyzeFunction's: the jobs routes), so that one document describes the whole API."""
        self.app, self.path, self.document, self.options = app, path, document, options
        self.enabled = False

    def prepare(self, event):
        """event: a proxy event (not_a_proxy_event has passed it). The route is matched on its path; a
        stage or base-path prefix only makes this test broader, and enabling the docs early costs
        time once and changes no answer."""
        if not self.enabled and self.path in event["path"]:
            if self.document is not None:
                self.document(self.app)
            self.app.enable_swagger(path=self.path, **self.options)
            self.enabled = True
