"""Each function as a warm Lambda container: its handler imported once, invocations one at a time.

One worker thread per function, like Lambda's one invocation per container. That also keeps Playwright's
sync API (bound to the thread that started it) on one thread for the container's whole life.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Any

from localapi.cfn_template import FunctionSpec

Handler = Callable[[dict[str, Any], Any], Any]


class InvocationTimeout(Exception):
    pass


class _NotStarted(Exception):
    """The caller stopped waiting before the invocation could start: it is dropped, not run."""


@dataclass
class LambdaContext:
    function_name: str
    memory_limit_in_mb: int
    deadline: float
    aws_request_id: str
    invoked_function_arn: str
    function_version: str = "$LATEST"
    log_group_name: str = "/aws/lambda/local"
    log_stream_name: str = "local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


class FunctionContainer:
    def __init__(self, spec: FunctionSpec) -> None:
        self.spec = spec
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=spec.logical_id)
        self._handler: Handler | None = None

    def _load(self) -> Handler:
        if self._handler is None:
            module_name, _, function_name = self.spec.handler.rpartition(".")
            path = self.spec.code_uri / f"{module_name.replace('.', '/')}.py"
            # Every function's module is called `app`: load each under its own name.
            unique = f"webcapture_fn_{self.spec.logical_id}"
            loader_spec = importlib.util.spec_from_file_location(unique, path)
            assert loader_spec is not None and loader_spec.loader is not None
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[unique] = module
            loader_spec.loader.exec_module(module)
            self._handler = getattr(module, function_name)
        return self._handler

    def _run(self, event: dict[str, Any], give_up: float) -> Any:
        # Queued behind a busy container past the moment the gateway answered 504: running it now would do
        # (and charge for) work whose answer nobody reads.
        if time.monotonic() >= give_up:
            raise _NotStarted(self.spec.logical_id)
        handler = self._load()
        context = LambdaContext(
            function_name=self.spec.logical_id,
            memory_limit_in_mb=self.spec.memory_mb,
            # Lambda's clock starts with the invocation and runs for the function's own Timeout.
            deadline=time.monotonic() + self.spec.timeout_s,
            aws_request_id=str(uuid.uuid4()),
            invoked_function_arn=f"arn:aws:lambda:us-east-1:123456789012:function:{self.spec.logical_id}",
        )
        return handler(event, context)

    def invoke(self, event: dict[str, Any], timeout_s: float | None = None) -> Any:
        timeout = min(timeout_s or self.spec.timeout_s, self.spec.timeout_s)
        future = self._executor.submit(self._run, event, time.monotonic() + timeout)
        try:
            return future.result(timeout=timeout)
        except (FutureTimeout, _NotStarted):
            future.cancel()  # still queued: never runs
            raise InvocationTimeout(self.spec.logical_id) from None

    def warm_up(self) -> None:
        self._executor.submit(self._load).result()

    def shutdown(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
