"""API Gateway (REST, proxy integration) in miniature: HTTP request -> event, route match, response -> HTTP.

The event has the shape `sam local generate-event apigateway aws-proxy` prints and API Gateway sends.
"""

import base64
import re
import time
import uuid
from urllib.parse import parse_qsl

STAGE = "Prod"


def proxy_event(method, path, query="", headers=None, body=None, resource=None, path_parameters=None):
    """An API Gateway proxy event. `query` is the raw query string; `body` is bytes, str or None."""
    headers = dict(headers or {})
    multi_headers = {}
    for key, value in headers.items():
        multi_headers.setdefault(key, []).append(value)
    multi_query = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        multi_query.setdefault(key, []).append(value)
    is_base64 = False
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8")
        except UnicodeDecodeError:
            body, is_base64 = base64.b64encode(body).decode("ascii"), True
    now = time.time()
    resource = resource or path
    return {
        "body": body,
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "isBase64Encoded": is_base64,
        "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": path_parameters or None,
        "stageVariables": None,
        "headers": headers,
        "multiValueHeaders": multi_headers,
        "requestContext": {
            "accountId": "123456789012",
            "resourceId": "123456",
            "stage": STAGE,
            "requestId": str(uuid.uuid4()),
            "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "requestTimeEpoch": int(now * 1000),
            "identity": {
                "sourceIp": "127.0.0.1",
                "userAgent": headers.get("User-Agent", headers.get("user-agent", "")),
                "accountId": None, "caller": None, "user": None, "userArn": None, "accessKey": None,
                "cognitoIdentityPoolId": None, "cognitoIdentityId": None, "cognitoAuthenticationType": None,
                "cognitoAuthenticationProvider": None,
            },
            "path": f"/{STAGE}{path}",
            "resourcePath": resource,
            "httpMethod": method,
            "apiId": "local",
            "protocol": "HTTP/1.1",
        },
    }


def route_pattern(path):
    """A template path (/jobs/{id}, /{proxy+}) as a regex with named groups."""
    out = ""
    for part in re.split(r"(\{[^}]+\})", path):
        if part.startswith("{") and part.endswith("+}"):
            out += f"(?P<{part[1:-2]}>.+)"
        elif part.startswith("{"):
            out += f"(?P<{part[1:-1]}>[^/]+)"
        else:
            out += re.escape(part)
    return re.compile(out + r"\Z")


class Router:
    """Maps (method, path) to the function a template route names, as API Gateway does."""

    def __init__(self, functions):
        self.routes = [(route, route_pattern(route.path), name)
                       for name, fn in functions.items() for route in fn.routes]

    def match(self, method, path):
        """(function name, resource, path parameters) or None. An exact path beats a pattern."""
        found = None
        for route, pattern, name in self.routes:
            m = pattern.match(path)
            if m and route.method in (method, "ANY"):
                candidate = (name, route.path, m.groupdict() or None)
                if route.path == path:
                    return candidate
                found = found or candidate
        return found


def decode_response(response):
    """(status, [(header, value)], body bytes) from a proxy-integration response."""
    status = int(response.get("statusCode", 200))
    headers = []
    multi = response.get("multiValueHeaders") or {}
    for key, values in multi.items():
        headers += [(key, str(v)) for v in values]
    for key, value in (response.get("headers") or {}).items():
        if key not in multi:
            headers.append((key, str(value)))
    body = response.get("body") or ""
    data = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode("utf-8")
    return status, headers, data
