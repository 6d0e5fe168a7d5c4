"""The live stream's `$connect` authorizer, deployed with ApiKeyRequired=true: a browser cannot set headers
on a WebSocket, so the key comes in the query string (`wss://.../live?key=...`) and this checks it against
the REST API's own key (the ApiKey resource), whose value it reads once per container.

A REQUEST authorizer (identity source: route.request.querystring.key): Allow on execute-api:Invoke for the
connection when the key matches, Deny otherwise (API Gateway answers the handshake 403). API Gateway
caches neither answer here (a WebSocket API's authorizer has no result cache).

Configuration: KIBITZ_API_KEY_ID (the key's id; its value by apigateway:GET), or KIBITZ_API_KEY_VALUE
(the value itself: `kibitz serve` and tests).
"""

import hmac
import os

_key = None


def expected_key():
    global _key
    if _key is None:
        _key = os.environ.get("KIBITZ_API_KEY_VALUE") or _read_key(os.environ["KIBITZ_API_KEY_ID"])
    return _key


def _read_key(key_id):
    import boto3

    return boto3.client("apigateway").get_api_key(apiKey=key_id, includeValue=True)["value"]


def lambda_handler(event, context):
    given = ((event.get("queryStringParameters") or {}).get("key") or "")
    allowed = bool(given) and hmac.compare_digest(given.encode(), expected_key().encode())
    return {"principalId": "live-key" if allowed else "anonymous",
            "policyDocument": {"Version": "2012-10-17", "Statement": [
                {"Action": "execute-api:Invoke", "Effect": "Allow" if allowed else "Deny",
                 "Resource": event.get("methodArn", "*")}]}}
