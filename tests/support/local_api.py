"""The local API (`python -m localapi`) in a subprocess, as the end-to-end tests drive it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

from webcapture.browser.launch import processes

REPO = Path(__file__).resolve().parents[2]


@dataclass
class LocalApi:
    url: str
    api_key: str
    user_id: str
    key_id: str
    environment: dict[str, str]
    aws_endpoint: str
    process: subprocess.Popen[str]
    # Everything the stack printed after its first line (the functions' logs), for tests that read them.
    output: list[str] = field(default_factory=list)

    def call(self, method: str, path: str, *, key: str | None = None, auth: str | None = None,
             **kwargs: Any) -> requests.Response:
        headers = dict(kwargs.pop("headers", {}))
        if auth is not None:
            headers["Authorization"] = auth
        elif key is not None or "Authorization" not in headers:
            headers["Authorization"] = f"Bearer {key or self.api_key}"
        return requests.request(method, self.url + path, headers=headers, timeout=60, **kwargs)

    @contextmanager
    def errors_shown(self) -> Iterator[None]:
        """A failure inside the block prints what the functions logged as errors first (a benchmark's
        failure is a finding too)."""
        try:
            yield
        except Exception:
            logged = "".join(line for line in self.output if '"level":"ERROR"' in line)
            print(logged[-6000:], file=sys.stderr)
            raise

    def stop(self) -> None:
        family = _descendants(self.process.pid)
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        _end(family)


def _descendants(root: int) -> list[int]:
    found, todo = [], [root]
    while todo:
        for child in processes.children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def _end(family: list[int]) -> None:
    """What the stack started (containers, fork server, Chromium) is orphaned when it exits; the test process
    is a child subreaper (webcapture.browser.launch.processes), so the orphans come to it: kill them and reap them,
    or they stay as zombies in a test that counts this process's children."""
    for pid in family:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    give_up = time.monotonic() + 10
    left = set(family)
    while left and time.monotonic() < give_up:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:  # not ours (yet, or reaped by its own parent)
                done = pid if processes.state(pid) in (None, "X") else 0
            if done:
                left.discard(pid)
        time.sleep(0.05)


def start_local_api(extra_env: dict[str, str] | None = None, demo_credits: int = 1000,
                    extra_args: list[str] | None = None, prewarm: tuple[str, ...] | None = None) -> LocalApi:
    """`prewarm`: the functions (logical IDs) whose first container starts before the stack serves, those a
    module's first requests use; None: every function's, six Chromiums among them (seconds of both cores)."""
    env = {**os.environ, **(extra_env or {})}
    for name in ("AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3"):
        env.pop(name, None)
    warm = [] if prewarm is None else [arg for function in prewarm for arg in ("--prewarm", function)]
    process = subprocess.Popen(
        [sys.executable, "-m", "localapi", "--port", "0", "--aws-port", "0", "--json",
         "--demo-credits", str(demo_credits), *warm, *(extra_args or [])],
        cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=None, text=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 180  # a loaded machine: the fork server imports every handler's code
    line = process.stdout.readline()
    if not line or time.monotonic() > deadline:
        process.kill()
        raise RuntimeError("local API did not start")
    info = json.loads(line)
    api = LocalApi(url=info["url"], api_key=info["apiKey"], user_id=info["userId"], key_id=info["keyId"],
                   environment=info["environment"], aws_endpoint=info["aws"], process=process)
    # The functions log to the same stdout; a pipe nobody reads fills at 64 KiB and then blocks whichever
    # thread logs next (the egress proxy's, say), and with it every capture.
    stdout = process.stdout
    threading.Thread(target=lambda: api.output.extend(stdout), name="drain-local-api", daemon=True).start()
    return api


def start_jobs_stack(allowed: str, credits: int, **extra_env: str) -> LocalApi:
    """A stack for the job tests: 3 containers and 3 queue pollers per function, started on demand, a busy
    key's items back after 1 s, webhooks retried every second; `allowed` is the egress allow list."""
    return start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": allowed, "WEBCAPTURE_WARM_START": "0", "WEBCAPTURE_JOB_BUSY_DELAY_S": "1",
         "WEBCAPTURE_WEBHOOK_RETRY_DELAYS_S": "1,1,1,1,1", **extra_env},
        demo_credits=credits,
        extra_args=["--max-containers", "3", "--no-prewarm", "--parameter", "JobsWorkerConcurrency=3"])
