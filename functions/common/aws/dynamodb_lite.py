"""A small DynamoDB client for the analysis cache: the JSON protocol over one kept-alive HTTP
connection, signed with Signature Version 4, standard library only.

    ddb = DynamoDB(timeout_s=0.5)
    ddb.call("GetItem", {"TableName": t, "Key": {"position": {"S": key}}})   # the low-level API's JSON

Why not boto3: AnalyzeFunction's cold start is counted in tens of milliseconds, and importing boto3
and making a DynamoDB client costs ~450 ms more (measured here, python -c, on this 2-core machine);
two calls of one operation each need none of it. Errors: DynamoDBError (the service answered with
an error: `code` is its type, e.g. ConditionalCheckFailedException, ThrottlingException) or
OSError / http.client.HTTPException (it did not answer in time, or at all). No retries: a caller
that wants one makes it (a kept-alive connection the server closed while idle is reopened once).

Where: AWS_ENDPOINT_URL (moto locally) or https://dynamodb.<region>.amazonaws.com; region from
AWS_REGION / AWS_DEFAULT_REGION; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
AWS_SESSION_TOKEN (what Lambda sets), else from the container credentials endpoint,
AWS_CONTAINER_CREDENTIALS_FULL_URI (what Lambda gives a function with SnapStart instead of the
variables; fetched again before they expire), else botocore's credential chain (a profile, SSO:
`kibitz serve` against AWS).
"""

import datetime
import hashlib
import hmac
import http.client
import json
import os
from urllib.parse import urlsplit

TARGET_PREFIX = "DynamoDB_20120810."
CONTENT_TYPE = "application/x-amz-json-1.0"


class DynamoDBError(Exception):
    def __init__(self, status, code, message):
        super().__init__(f"{code}: {message} (HTTP {status})")
        self.status, self.code, self.message = status, code, message


def _hmac(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


REFRESH_BEFORE_S = 300  # fetch container credentials again this long before they expire


def credentials():
    """(access key, secret key, session token or None, expiry as a UTC datetime or None)."""
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        return key, secret, os.environ.get("AWS_SESSION_TOKEN") or None, None
    if os.environ.get("AWS_CONTAINER_CREDENTIALS_FULL_URI"):
        return container_credentials(os.environ["AWS_CONTAINER_CREDENTIALS_FULL_URI"])
    import botocore.session  # only off Lambda, without credentials in the environment

    found = botocore.session.get_session().get_credentials()
    if found is None:
        raise DynamoDBError(0, "NoCredentials", "no AWS credentials in the environment or botocore's chain")
    frozen = found.get_frozen_credentials()
    return frozen.access_key, frozen.secret_key, frozen.token, None


def container_credentials(uri, timeout_s=1.0):
    """Credentials from the container endpoint (GET, with the authorization token of
    AWS_CONTAINER_AUTHORIZATION_TOKEN or the file AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE names)."""
    token = os.environ.get("AWS_CONTAINER_AUTHORIZATION_TOKEN")
    if not token and os.environ.get("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"):
        with open(os.environ["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"]) as f:
            token = f.read().strip()
    url = urlsplit(uri)
    kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
    conn = kind(url.netloc, timeout=timeout_s)
    try:
        conn.request("GET", url.path + (f"?{url.query}" if url.query else ""),
                     headers={"Authorization": token} if token else {})
        response = conn.getresponse()
        data = response.read()
    finally:
        conn.close()
    try:
        found = json.loads(data) if response.status == 200 else {}
        expiry = datetime.datetime.fromisoformat(found["Expiration"].replace("Z", "+00:00")) \
            if found.get("Expiration") else None
        return found["AccessKeyId"], found["SecretAccessKey"], found.get("Token"), expiry
    except (ValueError, KeyError, TypeError):
        raise DynamoDBError(response.status, "NoCredentials",
                            f"the container credentials endpoint answered {data[:200]!r}") from None


def sign(method, host, path, region, service, headers, body, creds, now):
    """SigV4: the Authorization header for a request whose headers (lower-case names) are all signed."""
    key, secret = creds[0], creds[1]
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    day = stamp[:8]
    headers = {**headers, "host": host, "x-amz-date": stamp}
    names = sorted(headers)
    canonical = "\n".join([method, path, "", *(f"{n}:{str(headers[n]).strip()}" for n in names), "",
                           ";".join(names), hashlib.sha256(body).hexdigest()])
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    k = _hmac(_hmac(_hmac(_hmac(("AWS4" + secret).encode(), day), region), service), "aws4_request")
    signature = hmac.new(k, to_sign.encode(), hashlib.sha256).hexdigest()
    headers["authorization"] = (f"AWS4-HMAC-SHA256 Credential={key}/{scope}, SignedHeaders={';'.join(names)}, "
                                f"Signature={signature}")
    return headers


class DynamoDB:
    def __init__(self, timeout_s=0.5, endpoint=None, region=None):
        self.region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        url = urlsplit(endpoint or os.environ.get("AWS_ENDPOINT_URL") or
                       f"https://dynamodb.{self.region}.amazonaws.com")
        self.https = url.scheme == "https"
        self.host, self.path = url.netloc, url.path or "/"
        self.timeout_s = timeout_s
        self.conn = None
        self.creds = None

    def _connection(self):
        if self.conn is None:
            kind = http.client.HTTPSConnection if self.https else http.client.HTTPConnection
            self.conn = kind(self.host, timeout=self.timeout_s)
        return self.conn

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def call(self, operation, params):
        """The operation's answer (a dict), or DynamoDBError / OSError / http.client.HTTPException."""
        now = datetime.datetime.now(datetime.UTC)
        if self.creds is None or (self.creds[3] is not None and
                                  (self.creds[3] - now).total_seconds() < REFRESH_BEFORE_S):
            self.creds = credentials()
        body = json.dumps(params, separators=(",", ":")).encode()
        headers = {"content-type": CONTENT_TYPE, "x-amz-target": TARGET_PREFIX + operation}
        if self.creds[2]:
            headers["x-amz-security-token"] = self.creds[2]
        headers = sign("POST", self.host, self.path, self.region, "dynamodb", headers, body, self.creds, now)
        for attempt in (1, 2):
            reused = self.conn is not None
            try:
                conn = self._connection()
                conn.request("POST", self.path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                break
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                if not reused or attempt == 2:  # only a connection closed while idle is worth a second try
                    raise
            except Exception:
                self.close()
                raise
        if response.status != 200:
            try:
                error = json.loads(data)
            except ValueError:
                error = {}
            code = str(error.get("__type", "")).rpartition("#")[2] or f"HTTP{response.status}"
            raise DynamoDBError(response.status, code, error.get("message") or error.get("Message") or
                                data[:200].decode(errors="replace"))
        return json.loads(data) if data else {}
