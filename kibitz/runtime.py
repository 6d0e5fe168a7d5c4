"""Run a function's handler in this process, as the Lambda Python runtime would.

The handler module is imported from the function's CodeUri (on sys.path, as /var/task is), once;
every invoke after the first is a warm invocation. The environment gets the template's variables
(the caller's own environment wins, as with `sam local --env-vars`) and the ones Lambda sets.
"""

import importlib.util
import os
import sys
import threading
import time
import uuid


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


class FunctionRuntime:
    """One warm "container" for one function: imports the handler once, runs one invocation at a time."""

    def __init__(self, function):
        self.function = function
        self._lock = threading.Lock()
        self._handler = None
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
            self.init_ms = (time.perf_counter() - t0) * 1000
        return self._handler

    def invoke(self, event, timeout_s=None):
        with self._lock:
            handler = self.load()
            return handler(event, LambdaContext(self.function, timeout_s))
