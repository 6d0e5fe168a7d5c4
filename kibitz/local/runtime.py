"""Run a function's handler in this process, as the Lambda Python runtime would.

The handler module is imported from the function's CodeUri (on sys.path, as /var/task is), once;
every invoke after the first is a warm invocation. The environment gets the template's variables
(the caller's own environment wins, as with `sam local --env-vars`) and the ones Lambda sets.
"""

import contextlib
import importlib.util
import os
import sys
import threading
import time
import uuid


@contextlib.contextmanager
def quiet_logs():
    """For commands whose output is for people (`kibitz analyze`, its --live): the functions' INFO logs and
    metrics out of the way while it is entered (the environment as it was afterwards). Not unittest.mock's
    patch.dict, whose import (asyncio with it) is a tenth of a second of every `kibitz` command."""
    quiet = {"POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_METRICS_DISABLED": "true"}
    before = {key: os.environ.get(key) for key in quiet}
    os.environ.update(quiet)
    try:
        yield
    finally:
        restore_environ(before)


def restore_environ(saved):
    """Put back the variables `saved` took ({name: value, or None where it was unset})."""
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


class LambdaContext:
    """The context object a handler receives (the attributes Powertools reads)."""

    def __init__(self, function, timeout_s=None):
        self.function_name = function.name
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = function.memory_mb
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function.name}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function.name}"
        self.log_stream_name = "local"
        self._deadline = time.monotonic() + (timeout_s if timeout_s is not None else function.timeout_s)

    def get_remaining_time_in_millis(self):
        return max(0, int((self._deadline - time.monotonic()) * 1000))


# Powertools' REST resolver keeps the request in hand on a class (BaseRouter.current_event), one per process:
# right on Lambda, where a process runs one invocation at a time, but two functions of this process serving
# at once would read each other's request. The functions that use it take turns in this process.
_RESOLVER_LOCK = threading.Lock()


def _uses_powertools_resolver(module):
    router = sys.modules.get("aws_lambda_powertools.event_handler.api_gateway")
    return router is not None and any(isinstance(v, router.BaseRouter) for v in vars(module).values())


class FunctionRuntime:
    """One warm "container" for one function: imports the handler once, runs one invocation at a time (and,
    if it uses Powertools' resolver, none while another such function of this process runs one)."""

    def __init__(self, function):
        self.function = function
        self._lock = threading.Lock()
        self._handler = None
        self._turns = None  # _RESOLVER_LOCK, for a function that uses Powertools' resolver
        self.init_ms = None

    def environment(self):
        f = self.function
        return {
            **f.environment,
            "AWS_LAMBDA_FUNCTION_NAME": f.name,
            "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(f.memory_mb),
            "AWS_LAMBDA_FUNCTION_TIMEOUT": str(f.timeout_s),
            "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
            "AWS_REGION": "us-east-1",
            "AWS_SAM_LOCAL": "true",  # what `sam local` sets: Powertools' Tracer stays off
        }

    def load(self):
        if self._handler is None:
            t0 = time.perf_counter()
            for key, value in self.environment().items():
                if not os.environ.get(key):  # the caller's own (non-empty) value wins
                    os.environ[key] = value
            module_name, _, attr = self.function.handler.rpartition(".")
            code_dir = str(self.function.code_dir)
            if code_dir not in sys.path:
                sys.path.insert(0, code_dir)
            spec = importlib.util.spec_from_file_location(
                f"_kibitz_{self.function.name}_{module_name}", self.function.code_dir / f"{module_name}.py")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            self._handler = getattr(module, attr)
            self._turns = _RESOLVER_LOCK if _uses_powertools_resolver(module) else contextlib.nullcontext()
            self.init_ms = (time.perf_counter() - t0) * 1000
        return self._handler

    def invoke(self, event, timeout_s=None):
        with self._lock:
            handler = self.load()
            with self._turns:
                return handler(event, LambdaContext(self.function, timeout_s))
