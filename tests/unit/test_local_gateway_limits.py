"""The local API's time and rate limits: a queued invocation the gateway gave up on never runs, the context's
remaining time is the function's own Timeout, and the stage throttle answers TOO_MANY_REQUESTS."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from werkzeug.test import Client

from localapi.cfn_template import FunctionSpec, Resolver, load_template, read_api
from localapi.gateway import LocalGateway
from localapi.lambda_runtime import FunctionContainers, InvocationTimeout

# The handler runs in a container process of its own: it records its calls in a file beside itself.
HANDLER = '''
import os
import time

CALLS = os.path.join(os.path.dirname(__file__), "calls.txt")


def lambda_handler(event, context):
    with open(CALLS, "a") as calls:
        calls.write(event["name"] + "\\n")
    time.sleep(event.get("sleep", 0))
    return {"name": event["name"], "remaining": context.get_remaining_time_in_millis()}
'''


@pytest.fixture
def container(tmp_path: Path) -> Iterator[FunctionContainers]:
    (tmp_path / "app.py").write_text(HANDLER)
    spec = FunctionSpec(logical_id=f"Probe{tmp_path.name.replace('-', '')}", code_uri=tmp_path,
                        handler="app.lambda_handler", timeout_s=28, memory_mb=128, environment={})
    running = FunctionContainers(spec, max_containers=1)  # one container: a second invocation queues
    running.prewarm()
    yield running
    running.shutdown()


def calls_of(container: FunctionContainers) -> list[str]:
    calls = container.spec.code_uri / "calls.txt"
    return calls.read_text().split() if calls.exists() else []


def test_remaining_time_is_the_functions_timeout_not_the_callers_wait(container: FunctionContainers) -> None:
    answer = container.invoke({"name": "a"}, 2)
    assert 27_000 < answer["remaining"] <= 28_000


def test_an_invocation_queued_past_the_gateways_timeout_never_runs(container: FunctionContainers) -> None:
    first = threading.Thread(target=container.invoke, args=({"name": "busy", "sleep": 1.0}, 5))
    first.start()
    while "busy" not in calls_of(container):
        time.sleep(0.01)
    # The container is busy for a second; the gateway waits 0.2 s for this one, then answers 504.
    with pytest.raises(InvocationTimeout):
        container.invoke({"name": "given-up"}, 0.2)
    first.join()
    container.invoke({"name": "after"}, 5)  # runs after whatever was queued before it
    assert calls_of(container) == ["busy", "after"]


def test_stage_throttle_renders_too_many_requests_from_the_template() -> None:
    template = load_template()
    api = read_api(template, Resolver(template, parameters={"ThrottlingRateLimit": "0.001",
                                                           "ThrottlingBurstLimit": "2"}))
    client = Client(LocalGateway(api, containers={}))
    first, second = client.get("/nowhere"), client.get("/nowhere")
    assert first.status_code == second.status_code == 404  # the burst lets two through
    throttled = client.get("/nowhere")
    assert throttled.status_code == 429
    assert throttled.headers["Retry-After"] == "1"
    body = json.loads(throttled.get_data(as_text=True))
    assert body["success"] is False and body["error"]["code"] == "TOO_MANY_REQUESTS"
    assert body["error"]["requestId"] == throttled.headers["x-amzn-RequestId"]
