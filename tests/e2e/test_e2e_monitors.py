"""Monitors end to end (docs/monitors.md), over HTTP to a local API of its own: the routes through the gateway
and the authorizer, each monitor's schedule in the stack's group on moto's EventBridge Scheduler, targeting
the operation's work queue, and removed with the monitor. Another user's monitor is a 404."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from localapi.aws_emulator import local_queue_name, local_schedule_group
from tests.support.local_api import LocalApi, start_local_api
from tests.support.stack_stores import stack_stores
from webcapture.auth import api_keys

GROUP = local_schedule_group("MonitorsScheduleGroup")
PAGE = "http://127.0.0.1:9/pricing"


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8", "WEBCAPTURE_WARM_START": "0"},
                            extra_args=["--max-containers", "1", "--no-prewarm"])
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def scheduler(api: LocalApi) -> Any:
    return boto3.client("scheduler", endpoint_url=api.aws_endpoint, region_name="us-east-1",
                        aws_access_key_id="local", aws_secret_access_key="local")


def schedule_names(scheduler: Any) -> list[str]:
    return [s["Name"] for s in scheduler.list_schedules(GroupName=GROUP)["Schedules"]]


def test_a_monitor_is_scheduled_on_its_operations_queue_and_unscheduled_with_it(api: LocalApi,
                                                                                scheduler: Any) -> None:
    response = api.call("POST", "/v1/monitors", json={"url": PAGE, "operation": "markdown",
                                                      "schedule": "rate(1 minute)", "fullpage": True})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["creditsCost"] == 0 and "fullpage" in body["data"]["warning"]
    monitor_id = body["data"]["monitorId"]
    schedule = scheduler.get_schedule(Name=monitor_id, GroupName=GROUP)
    assert schedule["Target"]["Arn"].endswith(":" + local_queue_name("MarkdownJobsQueue"))
    assert json.loads(schedule["Target"]["Input"])["monitorCheck"]["monitorId"] == monitor_id
    listed = api.call("GET", "/v1/monitors").json()["data"]
    assert [m["monitorId"] for m in listed["monitors"]] == [monitor_id]
    patched = api.call("PATCH", f"/v1/monitors/{monitor_id}", json={"enabled": False})
    assert patched.status_code == 200 and patched.json()["data"]["nextRunAt"] is None
    assert scheduler.get_schedule(Name=monitor_id, GroupName=GROUP)["State"] == "DISABLED"
    assert api.call("DELETE", f"/v1/monitors/{monitor_id}").status_code == 200
    assert schedule_names(scheduler) == []


def test_bad_schedules_internal_urls_and_other_users_monitors_are_refused(api: LocalApi,
                                                                         scheduler: Any) -> None:
    for schedule in ("rate(30 seconds)", "cron(nonsense)"):
        response = api.call("POST", "/v1/monitors", json={"url": PAGE, "operation": "markdown",
                                                          "schedule": schedule})
        assert response.status_code == 422 and response.json()["error"]["issues"][0]["path"] == ["schedule"]
    response = api.call("POST", "/v1/monitors", json={"url": "http://169.254.169.254/", "operation": "markdown",
                                                      "schedule": "rate(1 hour)"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "URL_NOT_ALLOWED"
    made = api.call("POST", "/v1/monitors", json={"url": PAGE, "operation": "screenshot",
                                                  "schedule": "rate(1 hour)"}).json()["data"]
    with pytest.MonkeyPatch.context() as patch, stack_stores(api, patch):
        other, _ = api_keys.create_key("monitors-other-user", "k", remaining=10)
    for method in ("GET", "DELETE"):
        response = api.call(method, f"/v1/monitors/{made['monitorId']}", key=other)
        assert response.status_code == 404 and response.json()["error"]["code"] == "NOT_FOUND"
    assert schedule_names(scheduler) == [made["monitorId"]]
