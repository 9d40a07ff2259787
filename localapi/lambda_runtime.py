"""Each function as Lambda runs it: a pool of warm containers, one invocation at a time in each.

A container is its own process (localapi.container_worker): it imports the handler once and keeps its
module globals (the browser, AWS clients, caches) warm across invocations, exactly as a Lambda execution
environment does, and separate from every other container's. Concurrent invocations of one function go to
an idle container, or to a new one when all are busy, up to `max_containers` (Lambda's concurrency, 10 by
default here); beyond that they wait their turn. A container whose process dies (killed, crashed, out of
memory) is dropped and its invocation fails, which API Gateway answers with a 502; the next invocation
starts a fresh one. An invocation that runs past the function's Timeout (template.yaml) is ended the way
Lambda ends it: the container is killed.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import threading
import time
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from localapi.cfn_template import FunctionSpec
from localapi.container_worker import container_main, receive_message, send_message
from webcapture.browser.launch import processes

DEFAULT_MAX_CONTAINERS = 10
_STOP_GRACE_S = 10.0
# Lambda allows an init 10 s; a loaded 2-core machine needs longer to import the browser functions' code.
_INIT_TIMEOUT_S = 60.0


class InvocationTimeout(Exception):
    """The caller's wait (API Gateway's 29 s) or the function's own Timeout ran out."""


class FunctionError(Exception):
    """The handler raised: the message is what Lambda reports as errorMessage."""


class ContainerDied(Exception):
    """The container's process ended during the invocation (killed, crashed, out of memory)."""


# Containers are forked from a server process that has already imported what every handler needs, so a
# new container costs milliseconds, not the seconds of a fresh interpreter importing boto3, Powertools,
# pydantic and Playwright (on a busy 2-core machine, tens of seconds). The server is started (lazily, with
# this process's environment at that moment) with no threads running, so the fork is safe.
# A module missing here (renamed, say) is skipped by the fork server: it only costs that saving.
_PRELOAD = ["boto3", "botocore.client", "pydantic", "aws_lambda_powertools.event_handler", "jsonschema",
            "playwright.sync_api", "openai", "webcapture.edge.middleware", "webcapture.edge.lambda_entry",
            "webcapture.auth.authorizer",
            "webcapture.operations.take_screenshot", "webcapture.operations.collect_page_links",
            "webcapture.operations.extract_from_page", "localapi.container_worker"]
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(_PRELOAD)


class Container:
    """One worker process and the pipe to it. Used by one invocation at a time (the pool sees to it)."""

    def __init__(self, spec: FunctionSpec) -> None:
        self.spec = spec
        ours, theirs = _CONTEXT.Pipe()
        self._conn = ours
        # The handler's logs go to our stdout/stderr, as Lambda's go to CloudWatch.
        self.process = _CONTEXT.Process(
            target=container_main, name=spec.logical_id, daemon=False,
            args=(theirs, str(spec.code_uri), spec.handler, spec.logical_id, spec.timeout_s, spec.memory_mb),
        )
        self.process.start()
        theirs.close()
        # The name of the browser scratch folder the worker will use (webcapture.browser.lifecycle): what
        # identifies its Chromium once the worker is gone and can no longer close it.
        self._scratch_name = processes.scratch_name(self.pid)
        self._init_error: str | None = None
        self._initialised = False

    @property
    def pid(self) -> int:
        assert self.process.pid is not None
        return self.process.pid

    def is_alive(self) -> bool:
        return self.process.is_alive()

    def is_usable(self) -> bool:
        """For an idle container: alive, and its pipe not at end-of-file (an idle worker never writes,
        so a readable pipe means it has gone, even before its exit is visible)."""
        if not self.is_alive() or self._conn.closed:
            return False
        try:
            return not self._conn.poll(0)
        except OSError:
            return False

    def invoke(self, event: dict[str, Any], timeout_s: float) -> bytes:
        """Run one invocation, after the container's init on its first (Lambda allows an init 10 s,
        apart from the function's Timeout): the result as the runtime serialised it."""
        self.wait_initialised()
        if self._init_error is not None:
            raise FunctionError(self._init_error)
        deadline = time.monotonic() + timeout_s
        try:
            send_message(self._conn, event)
        except OSError:
            raise ContainerDied(self.spec.logical_id) from None
        reply = self._receive(deadline)
        if isinstance(reply, bytes):
            return reply
        raise FunctionError(str(reply.get("error")))

    def wait_initialised(self) -> None:
        """Wait for the worker's init (imports, the handler's module code) to finish."""
        if not self._initialised:
            ready = self._receive(time.monotonic() + _INIT_TIMEOUT_S)
            if isinstance(ready, dict) and "initError" in ready:
                self._init_error = str(ready["initError"])
            self._initialised = True

    def _receive(self, deadline: float) -> dict[str, Any] | bytes:
        try:
            ready = self._conn.poll(max(deadline - time.monotonic(), 0.001))
        except OSError:
            ready = True  # a broken pipe: the receive below says so
        if not ready:
            # Lambda ends a timed-out invocation by resetting its execution environment.
            self.kill()
            raise InvocationTimeout(self.spec.logical_id)
        reply = receive_message(self._conn)
        if reply is None:
            self.kill()
            raise ContainerDied(f"{self.spec.logical_id} (pid {self.pid}) exited: {self.process.exitcode}")
        return reply

    def kill(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.process.kill()
        self.process.join()
        self._conn.close()
        self._kill_leftovers()

    def _kill_leftovers(self) -> None:
        """A killed worker could not close its browser: kill the Chromium that ran on its scratch folder.
        (Playwright's driver exits by itself when the worker's end of its pipe closes.)"""
        if not self._scratch_name:
            return
        marker = f"{os.sep}browser-scratch{os.sep}{self._scratch_name}{os.sep}"
        for pid in _all_pids():
            if any(marker in arg for arg in processes.cmdline(pid)):
                processes.kill_tree(pid)

    def stop(self) -> None:
        """Close the pipe (the worker exits at the end of its loop, shutting its browser down), then make
        sure it is gone."""
        self._conn.close()
        self.process.join(timeout=_STOP_GRACE_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


def _all_pids() -> list[int]:
    return [int(entry) for entry in os.listdir("/proc") if entry.isdigit()]


def reap_orphans(keep: set[int]) -> int:
    """Reap zombie children that are not containers (`keep`): the orphans of killed containers (Chromium,
    Playwright's driver) that became ours because the local API is their subreaper. Returns how many."""
    reaped = 0
    for pid in processes.children(os.getpid()):
        if pid not in keep and processes.state(pid) == "Z":
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
                reaped += 1
    return reaped


class FunctionContainers:
    """All the containers of one function: concurrency up to max_containers, each reused while warm."""

    def __init__(self, spec: FunctionSpec, max_containers: int = DEFAULT_MAX_CONTAINERS) -> None:
        self.spec = spec
        self.max_containers = max(1, max_containers)
        # One thread per container that may exist: a queued invocation waits here for a free one.
        self._executor = ThreadPoolExecutor(max_workers=self.max_containers,
                                            thread_name_prefix=f"invoke-{spec.logical_id}")
        self._lock = threading.Lock()
        self._idle: list[Container] = []
        self._all: list[Container] = []
        self._stopped = False

    def invoke(self, event: dict[str, Any], wait_s: float | None = None) -> Any:
        """The function's result (see invoke_payload)."""
        return json.loads(self.invoke_payload(event, wait_s))

    def invoke_payload(self, event: dict[str, Any], wait_s: float | None = None) -> bytes:
        """Invoke the function and wait up to wait_s (default: until it ends, at the latest at its
        Timeout) for its result, serialised as the runtime sends it to Lambda (what Lambda's response
        limit counts).

        When the caller gives up first (API Gateway's 29 s), an invocation that is still queued is
        cancelled here and never runs: the one place where "the gateway gave up" meets "not started yet".
        One that has started runs on until its own Timeout, as in Lambda."""
        future: Future[bytes] = self._executor.submit(self._invoke_in_container, event)
        try:
            return future.result(timeout=wait_s)
        except FutureTimeout:
            future.cancel()
            raise InvocationTimeout(self.spec.logical_id) from None
        except CancelledError:
            raise InvocationTimeout(self.spec.logical_id) from None

    def _invoke_in_container(self, event: dict[str, Any]) -> bytes:
        container = self._acquire()
        try:
            return container.invoke(event, self.spec.timeout_s)
        finally:
            self._release(container)

    def _acquire(self) -> Container:
        with self._lock:
            if self._stopped:
                raise ContainerDied(f"{self.spec.logical_id}: the local API is stopping")
            while self._idle:
                container = self._idle.pop()  # the most recently used is the warmest
                if container.is_usable():
                    return container
                self._forget(container)
            # The executor runs at most max_containers invocations at once, so there is room for one more.
            container = Container(self.spec)
            self._all.append(container)
            return container

    def prewarm(self) -> None:
        """Start one container and wait for its init, so the first request does not pay for it (what
        Lambda's provisioned concurrency does). Only the first request's wait changes: later concurrent
        requests still start their own containers."""
        with self._lock:
            if self._stopped or self._all:
                return
            container = Container(self.spec)
            self._all.append(container)
        try:
            container.wait_initialised()
        except (ContainerDied, InvocationTimeout):
            return  # _receive killed it; the first invocation will start another
        self._release(container)

    def _release(self, container: Container) -> None:
        with self._lock:
            if container.is_alive() and not self._stopped:
                self._idle.append(container)
            else:
                self._forget(container)

    def _forget(self, container: Container) -> None:
        with contextlib.suppress(ValueError):
            self._all.remove(container)
        if container.is_alive():
            container.stop()
        else:
            container.kill()  # reaps it and closes the pipe

    def pids(self) -> list[int]:
        """The live containers' process ids."""
        with self._lock:
            return [c.pid for c in self._all if c.is_alive()]

    def known_pids(self) -> set[int]:
        """Every container process not yet reaped, dead or alive (the orphan reaper leaves these alone)."""
        with self._lock:
            return {c.pid for c in self._all}

    def shutdown(self) -> None:
        with self._lock:
            self._stopped = True
            containers, self._all, self._idle = list(self._all), [], []
        self._executor.shutdown(wait=False, cancel_futures=True)
        stoppers = [threading.Thread(target=c.stop) for c in containers]
        for thread in stoppers:
            thread.start()
        for thread in stoppers:
            thread.join()
