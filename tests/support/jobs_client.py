"""What the jobs end-to-end tests do with a local API: submit, wait for the end, read every result page,
the key's credits, and how many messages the stack's queues still hold."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from typing import Any, Protocol

import boto3
import requests

from tests.support.local_api import LocalApi
from tests.support.stack_processes import containers_under

FINAL = ("completed", "failed", "cancelled")


class CallsApi(Protocol):
    """A local API or a deployed stack's (scripts/deployed_api.py): what reading a job needs."""

    def call(self, method: str, path: str, *, key: str | None = None, **kwargs: Any) -> requests.Response: ...


def credits_left(api: LocalApi, key: str | None = None) -> int:
    answer = api.call("GET", "/v1/api-keys/list", key=key)
    assert answer.status_code == 200, answer.text
    (own,) = [k for k in answer.json()["data"]["apiKeys"] if k["start"] == (key or api.api_key)[:6]]
    return int(own["remaining"])


def job(api: CallsApi, job_id: str, key: str | None = None, **params: Any) -> dict[str, Any]:
    answer = api.call("GET", f"/v1/jobs/{job_id}", key=key, params=params)
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()["data"]
    return data


def settled(data: dict[str, Any]) -> bool:
    """Whether the job (GET /v1/jobs/{id}'s data) has its final status and every item its result."""
    return data["status"] in FINAL and data["completed"] + data["failed"] + data["cancelled"] == data["total"]


def wait_until_settled(api: CallsApi, job_id: str, give_up_s: float, key: str | None = None) -> dict[str, Any]:
    """The job once it has its final status and every item its result (a wait bound, not a timed check)."""
    deadline = time.monotonic() + give_up_s
    while True:
        data = job(api, job_id, key, limit=1)
        if settled(data):
            return data
        if time.monotonic() > deadline:
            raise AssertionError(f"job {job_id} did not settle: {data}")
        time.sleep(0.5)


def all_results(api: CallsApi, job_id: str, limit: int, key: str | None = None) -> list[dict[str, Any]]:
    """Every result, page by page through `next`."""
    results: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": limit}
    while True:
        data = job(api, job_id, key, **params)
        assert len(data["results"]) <= limit
        results.extend(data["results"])
        if data["next"] is None:
            return results
        params = {"limit": limit, "cursor": data["next"]}


def sqs(api: LocalApi) -> Any:
    return boto3.client("sqs", endpoint_url=api.aws_endpoint, region_name="us-east-1",
                        aws_access_key_id="local", aws_secret_access_key="local")


def queue_urls(api: LocalApi) -> dict[str, str]:
    """Every queue of the stack by name (the work queues, the webhooks queue, the dead-letter queue)."""
    client = sqs(api)
    urls = client.list_queues().get("QueueUrls", [])
    return {url.rsplit("/", 1)[-1]: url for url in urls}


def messages_held(api: LocalApi, name_contains: str = "") -> int:
    """Messages visible, in flight or delayed, over the stack's queues whose name contains the text."""
    client, total = sqs(api), 0
    for name, url in queue_urls(api).items():
        if name_contains not in name:
            continue
        attrs = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        total += sum(int(attrs.get(k, 0)) for k in ("ApproximateNumberOfMessages",
                                                     "ApproximateNumberOfMessagesNotVisible",
                                                     "ApproximateNumberOfMessagesDelayed"))
    return total


def drained(api: LocalApi, name_contains: str, give_up_s: float) -> int:
    """What the queues still hold once they have drained, or when give_up_s has passed (a wait bound): a
    message whose worker was killed after its item finished comes back after the visibility timeout, and
    is then acknowledged without running again."""
    deadline = time.monotonic() + give_up_s
    while (held := messages_held(api, name_contains)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return held


def kill_workers_while_it_runs(api: LocalApi, job_id: str, function: str, kills: int, seed: int,
                               every_s: tuple[float, float] = (1.5, 3.5)) -> list[int]:
    """SIGKILL one of `function`'s containers every `every_s` seconds (seeded, 1.5-3.5 s unless told) until
    `kills` are dead or the job has ended; the pids killed."""
    killed: list[int] = []
    stop = threading.Event()
    rng = random.Random(seed)

    def killer() -> None:
        while len(killed) < kills and not stop.wait(rng.uniform(*every_s)):
            running = containers_under(api.process.pid, function)
            if running:
                victim = rng.choice(running)
                try:
                    os.kill(victim, signal.SIGKILL)
                    killed.append(victim)
                except ProcessLookupError:
                    pass

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    while len(killed) < kills and job(api, job_id, limit=1)["status"] not in ("completed", "failed"):
        thread.join(timeout=1)
    stop.set()
    thread.join()
    return killed
