"""functions/common/aws/dynamodb_lite.py's credentials: the environment's, else the container endpoint's
(what Lambda gives a SnapStart function), fetched again before they expire."""

import datetime
import http.server
import json
import threading

import pytest

from functions.common.aws import dynamodb_lite
from functions.common.aws.dynamodb_lite import DynamoDB, DynamoDBError


class Endpoint(http.server.BaseHTTPRequestHandler):
    """A container credentials endpoint: answers with the next of `answers`, records what it was asked."""

    answers, seen = [], []

    def do_GET(self):
        Endpoint.seen.append((self.path, self.headers.get("Authorization")))
        status, body = Endpoint.answers.pop(0)
        data = json.dumps(body).encode() if isinstance(body, dict) else body
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint(monkeypatch):
    server = http.server.HTTPServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    Endpoint.answers, Endpoint.seen = [], []
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", f"http://127.0.0.1:{server.server_port}/creds?x=1")
    monkeypatch.setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "the-token")
    yield Endpoint
    server.shutdown()
    server.server_close()


def creds(key, minutes):
    expiry = datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=minutes)
    return 200, {"AccessKeyId": key, "SecretAccessKey": "secret-" + key, "Token": "token-" + key,
                 "Expiration": expiry.strftime("%Y-%m-%dT%H:%M:%SZ")}


def test_the_environment_comes_first(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "t")
    monkeypatch.setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:9/never-asked")
    assert dynamodb_lite.credentials() == ("AKIDENV", "s", "t", None)


def test_without_the_variables_the_container_endpoint_is_asked_with_its_token(endpoint):
    endpoint.answers.append(creds("AKIDONE", 60))
    key, secret, token, expiry = dynamodb_lite.credentials()
    assert (key, secret, token) == ("AKIDONE", "secret-AKIDONE", "token-AKIDONE")
    assert expiry > datetime.datetime.now(datetime.UTC)
    assert endpoint.seen == [("/creds?x=1", "the-token")]


def test_credentials_near_their_expiry_are_fetched_again_before_a_call(endpoint, monkeypatch):
    endpoint.answers += [creds("AKIDOLD", 2), creds("AKIDNEW", 60)]  # 2 minutes left: inside the 5-minute margin
    signed = []
    monkeypatch.setattr(dynamodb_lite, "sign", lambda *a: signed.append(a[7][0]) or {})

    class Answer:
        status = 200

        def read(self):
            return b"{}"

    class Connection:
        def request(self, *a, **k):
            pass

        def getresponse(self):
            return Answer()

    ddb = DynamoDB(endpoint="http://127.0.0.1:1")
    ddb.conn = Connection()
    ddb.call("GetItem", {})
    ddb.call("GetItem", {})
    ddb.call("GetItem", {})
    assert signed == ["AKIDOLD", "AKIDNEW", "AKIDNEW"]  # the fresh ones last an hour: no third fetch
    assert len(endpoint.seen) == 2


@pytest.mark.parametrize("answer", [(403, b'{"message": "denied"}'), (200, b"not json"), (200, {"AccessKeyId": "x"})])
def test_a_bad_endpoint_answer_is_a_clear_error(endpoint, answer):
    endpoint.answers.append(answer)
    with pytest.raises(DynamoDBError, match="container credentials endpoint answered"):
        dynamodb_lite.credentials()
