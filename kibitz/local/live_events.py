"""API Gateway WebSocket API (v2) events in miniature: what a Lambda integration receives for `$connect`,
a message and `$disconnect`, and what a REQUEST authorizer receives (the shapes AWS documents and
`sam local generate-event apigateway` does not print for WebSocket APIs; events/live-*.json are samples).
"""

import base64
import time
import uuid

STAGE = "live"
API_ID = "local"


def new_connection_id():
    """An id shaped like API Gateway's (12 random bytes, base64: 'L0SM9cOFvHcCIhw=')."""
    return base64.b64encode(uuid.uuid4().bytes[:10]).decode()


def _context(route, event_type, cid, domain, connected_at_ms, extra=None):
    now = time.time()
    return {
        "routeKey": route,
        "eventType": event_type,
        "extendedRequestId": str(uuid.uuid4()),
        "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "messageDirection": "IN",
        "stage": STAGE,
        "connectedAt": connected_at_ms,
        "requestTimeEpoch": int(now * 1000),
        "identity": {"sourceIp": "127.0.0.1"},
        "requestId": str(uuid.uuid4()),
        "domainName": domain,
        "connectionId": cid,
        "apiId": API_ID,
        **(extra or {}),
    }


def connect_event(cid, domain, connected_at_ms, headers=None, query=None):
    headers = dict(headers or {})
    return {
        "headers": headers,
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": dict(query) if query else None,
        "multiValueQueryStringParameters": {k: [v] for k, v in query.items()} if query else None,
        "requestContext": _context("$connect", "CONNECT", cid, domain, connected_at_ms),
        "isBase64Encoded": False,
    }


def message_event(route, cid, domain, connected_at_ms, body):
    """body: the frame as text (a binary frame is base64, as API Gateway sends it)."""
    is_base64 = isinstance(body, bytes)
    return {
        "requestContext": _context(route, "MESSAGE", cid, domain, connected_at_ms,
                                   {"messageId": str(uuid.uuid4())}),
        "body": base64.b64encode(body).decode() if is_base64 else body,
        "isBase64Encoded": is_base64,
    }


def disconnect_event(cid, domain, connected_at_ms, status=1000, reason="Client-side close frame status code"):
    return {
        "headers": {"Host": domain},
        "multiValueHeaders": {"Host": [domain]},
        "requestContext": _context("$disconnect", "DISCONNECT", cid, domain, connected_at_ms,
                                   {"disconnectStatusCode": status, "disconnectReason": reason}),
        "isBase64Encoded": False,
    }


def authorizer_event(cid, domain, connected_at_ms, headers=None, query=None):
    """A REQUEST authorizer's event for $connect (its methodArn names the $connect route)."""
    event = connect_event(cid, domain, connected_at_ms, headers, query)
    event["type"] = "REQUEST"
    event["methodArn"] = f"arn:aws:execute-api:us-east-1:123456789012:{API_ID}/{STAGE}/$connect"
    return event
