"""The jobs API's one client (`kibitz batch`, `kibitz review`): POST /jobs, GET /jobs/{job_id}, GET
/jobs/{job_id}/pgn and POST /jobs/uploads, over one of two transports.

- `Http`: to a served API, `kibitz serve` or a deployed stack (`served(url)`).
- `InProcess`: JobsFunction's own handler run in this process (kibitz/local/runtime.py) on API Gateway's proxy
  event, so its checks, its job record, its SendMessageBatch calls and its error bodies are the function's,
  not a copy of them. Against the caller's table and queue with the caller's credentials
  (`straight_to(table, queue_url)`: `kibitz batch --queue-url/--table`), or against the jobs path embedded on
  this machine, moto and local pollers as `kibitz serve` runs them (`LocalStack`: `kibitz review` without a URL).

Either way a request's answer is (status, the answer's JSON; or the text of GET /jobs/{job_id}/pgn; or, for an
error that is not JSON, its first 500 characters as {"message": ...}).
"""

import contextlib
import io
import json
import os
import pathlib
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from kibitz.local import template
from kibitz.local.apigateway import Router, decode_response, proxy_event
from kibitz.local.runtime import FunctionRuntime
from kibitz.local.services import Services

JOBS_FUNCTION = "JobsFunction"
POLL_S = 0.5
PAGE = 200


class ClientError(Exception):
    """Something to tell the user, then exit 1."""


# --- the transports: (method, path, query, JSON body) -> (status, content type, bytes) ----------------


class Http:
    """Requests to a served API."""

    def __init__(self, url):
        self.url = url.rstrip("/")
        if self.url.endswith("/jobs"):
            self.url = self.url[:-5]

    def send(self, method, path, query, body):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path + (f"?{query}" if query else ""), data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.status, r.headers.get("Content-Type", ""), r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type", ""), e.read()
        except (urllib.error.URLError, OSError) as e:
            raise ClientError(f"cannot reach {self.url}: {getattr(e, 'reason', e)} (is `kibitz serve` running? "
                              f"or give --url)") from e


class InProcess:
    """JobsFunction's handler in this process, as API Gateway would invoke it (the route matched from the
    template, the path parameters decoded); its logs are not for people and go nowhere."""

    def __init__(self, function):
        self.runtime = FunctionRuntime(function)
        self.router = Router({function.name: function})

    def send(self, method, path, query, body):
        path = urllib.parse.unquote(path)
        _, resource, params = self.router.match(method, path)
        event = proxy_event(method, path, query, {"Content-Type": "application/json"} if body is not None else {},
                            json.dumps(body) if body is not None else None, resource, params)
        with contextlib.redirect_stdout(io.StringIO()):
            response = self.runtime.invoke(event)
        status, headers, data = decode_response(response)
        kind = next((v for k, v in headers if k.lower() == "content-type"), "")
        return status, kind, data


# --- the client -------------------------------------------------------------------------------------


class JobsApi:
    def __init__(self, transport, takes_uploads=True):
        self.transport = transport
        self.takes_uploads = takes_uploads  # POST /jobs/uploads: where there is an input bucket

    def call(self, method, path, body=None, query="", text=False):
        status, kind, data = self.transport.send(method, path, query, body)
        if text and status < 400:
            return status, data.decode()
        try:
            return status, json.loads(data or b"null")
        except ValueError:
            if status < 400:
                raise ClientError(f"{method} {path} answered {status} ({kind or 'no content type'}), not JSON: "
                                  f"{data[:200].decode(errors='replace')}") from None
            return status, {"message": data.decode(errors="replace")[:500]}

    def submit(self, body):
        return self.call("POST", "/jobs", body)

    def state(self, job_id, after=-1, limit=PAGE):
        return self.call("GET", f"/jobs/{_quote(job_id)}", query=f"limit={limit}&after={after}")

    def pgn(self, job_id):
        return self.call("GET", f"/jobs/{_quote(job_id)}/pgn", text=True)

    def upload(self, request):
        return self.call("POST", "/jobs/uploads", request)


def _quote(job_id):
    return urllib.parse.quote(job_id, safe="")


def served(url):
    return JobsApi(Http(url))


def straight_to(table, queue_url=None, template_path=template.TEMPLATE):
    """JobsFunction in this process on the caller's table and queue (and credentials): KIBITZ_JOBS_TABLE and
    KIBITZ_JOBS_QUEUE_URL set in this process's environment, which the function reads. No input bucket: a file
    read from S3 goes through a served API."""
    os.environ["KIBITZ_JOBS_TABLE"] = table
    if queue_url:
        os.environ["KIBITZ_JOBS_QUEUE_URL"] = queue_url
    return JobsApi(InProcess(template.load(template_path)[JOBS_FUNCTION]), takes_uploads=False)


class LocalStack:
    """The jobs path on this machine, for as long as it is entered: the template's queues, tables and buckets in
    moto and BatchFunction's pollers (kibitz/local/services.py, as `kibitz serve` runs them), JobsFunction in this
    process. Entering it gives the JobsApi."""

    def __init__(self, template_path=template.TEMPLATE, pollers=None):
        # the pollers' output (the function's logs) goes to a file, kept for a look when something fails
        self.log = pathlib.Path(tempfile.mkstemp(prefix="kibitz-jobs-", suffix=".log")[1])
        self.services = Services(template_path, pollers=pollers, quiet=True, log=self.log)

    def __enter__(self):
        self.services.start()
        return JobsApi(InProcess(self.services.functions[JOBS_FUNCTION]))

    def __exit__(self, exc_type, *exc):
        self.services.stop()
        if exc_type is None:
            self.log.unlink(missing_ok=True)
        else:
            print(f"kibitz: the functions' logs are in {self.log}", file=sys.stderr)


# --- what the verbs share ---------------------------------------------------------------------------


def explain(status, body, lines=None):
    """The error lines for a refused request, with .txt line numbers for positions[i]."""
    errors = (body or {}).get("errors") or [{"field": "", "reason": (body or {}).get("message", "no details")}]
    out = []
    for e in errors:
        field = e.get("field", "")
        if lines and field.startswith("positions["):
            index = int(field[len("positions["):field.index("]")])
            if index in lines:
                field = f"{lines[index]} ({field})"
        out.append(f"error {status}: {field}: {e.get('reason')}" if field else f"error {status}: {e.get('reason')}")
    return out


def wait(api, job_id, progress=True):
    """Poll until the job is finished, with a progress bar on stderr. Returns the last state."""
    from tqdm import tqdm

    bar = None
    try:
        while True:
            status, state = api.state(job_id, limit=1)
            if status != 200:
                raise ClientError("\n".join(explain(status, state)))
            finished = state["done"] + state["failed"]
            if bar is None and progress:
                bar = tqdm(total=state["total"], unit="pos", desc=f"job {job_id[:8]}", file=sys.stderr,
                           dynamic_ncols=True, mininterval=0.2)
            if bar is not None:
                bar.total = max(bar.total or 0, state["total"])  # an S3 job's total grows as it is split
                bar.update(finished - bar.n)  # update(), not n =: tqdm's rate (pos/s) and ETA come from it
                phase = f", {state['s3']['phase']}" if state.get("s3") else ""
                bar.set_postfix_str(f"{state['status']}{phase}, {state['failed']} failed", refresh=False)
                bar.refresh()
            if state["status"] in ("done", "done-with-failures") and (not state.get("s3") or
                                                                       state["s3"]["output"] is not None):
                return state
            time.sleep(POLL_S)
    finally:
        if bar is not None:
            bar.close()


def all_results(api, job_id):
    """(state of the last page, every result so far in index order)."""
    results, after = [], -1
    while True:
        status, state = api.state(job_id, after=after, limit=PAGE)
        if status != 200:
            raise ClientError("\n".join(explain(status, state)))
        results += state["results"]
        if state["next_after"] is None:
            return state, results
        after = state["next_after"]
