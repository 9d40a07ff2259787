"""Monitors end to end (docs/monitors.md), over HTTP to a local API of its own: the routes through the gateway
and the authorizer, each monitor's schedule in the stack's group on moto's EventBridge Scheduler, targeting
the operation's work queue, and removed with the monitor. Another user's monitor is a 404. The local API
fires the schedules, here SPEED times as fast (`--schedule-speed`, localapi/scheduler_player.py; the real
timing is unit-tested): a monitor of a loopback page checks itself every minute, `run` checks at once, one
changed paragraph is one `monitor.changed` webhook, and the credits are the checks' cost."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest

from localapi.aws_emulator import local_queue_name, local_schedule_group
from tests.support.jobs_client import credits_left
from tests.support.local_api import LocalApi, start_local_api
from tests.support.stack_stores import stack_stores
from tests.support.webhook_receiver import WebhookReceiver
from webcapture.auth import api_keys

GROUP = local_schedule_group("MonitorsScheduleGroup")
PAGE = "http://127.0.0.1:9/pricing"
SPEED = 5  # a rate(1 minute) fires every 12 s: two firings in half a minute rather than two minutes
MINUTE_S = 60 / SPEED


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8", "WEBCAPTURE_WARM_START": "0"},
                            extra_args=["--max-containers", "1", "--no-prewarm", "--schedule-speed", str(SPEED)])
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
    assert api.call("DELETE", f"/v1/monitors/{made['monitorId']}").status_code == 200


class PricingPage(ThreadingHTTPServer):
    """A page on loopback whose second paragraph the test changes."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _PricingHandler)
        self.price = "10"
        threading.Thread(target=self.serve_forever, daemon=True, name="pricing-page").start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/pricing"

    def html(self) -> bytes:
        return (f"<html><head><title>Pricing</title></head><body><main><h1>Pricing</h1>"
                f"<p>Every plan includes unlimited projects and email support.</p>"
                f"<p>The team plan costs {self.price} dollars a month, billed yearly.</p>"
                f"<p>Cancel at any time from your account page; prices include taxes.</p>"
                f"</main></body></html>").encode()


class _PricingHandler(BaseHTTPRequestHandler):
    server: PricingPage

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = self.server.html()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def checks_of(api: LocalApi, monitor_id: str) -> list[dict[str, Any]]:
    """Every check, newest first, through the pages (two at a time: the cursor is used)."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        answer = api.call("GET", f"/v1/monitors/{monitor_id}/checks", params=params)
        assert answer.status_code == 200, answer.text
        found += answer.json()["data"]["checks"]
        cursor = answer.json()["data"]["next"]
        if cursor is None:
            return found


def wait_for_checks(api: LocalApi, monitor_id: str, count: int, give_up_s: float) -> list[dict[str, Any]]:
    """The checks once `count` of them have ended (a wait bound, not a timed check)."""
    deadline = time.monotonic() + give_up_s
    while True:
        checks = checks_of(api, monitor_id)
        ended = [c for c in checks if c["status"] != "queued"]
        if len(ended) >= count or time.monotonic() > deadline:
            return checks
        time.sleep(1)


def run_check(api: LocalApi, monitor_id: str, done: int) -> str:
    answer = api.call("POST", f"/v1/monitors/{monitor_id}/run")
    assert answer.status_code == 202, answer.text
    check_id = str(answer.json()["data"]["checkId"])
    checks = wait_for_checks(api, monitor_id, done, 90)
    assert any(c["checkId"] == check_id and c["status"] == "completed" for c in checks), checks
    return check_id


def test_a_monitor_checks_on_its_schedule_and_when_run_and_tells_one_change(api: LocalApi,
                                                                          scheduler: Any) -> None:
    page = PricingPage()
    receiver = WebhookReceiver()
    receiver.secret = api.call("GET", "/v1/webhooks/secret").json()["data"]["secret"]
    try:
        before = credits_left(api)
        # Disabled while `run` checks it, so that the schedule's firings come after the runs and are counted.
        created = api.call("POST", "/v1/monitors", json={
            "url": page.url, "operation": "markdown", "schedule": "rate(1 minute)", "enabled": False,
            "webhook": {"url": receiver.url, "metadata": {"team": "pricing"}}})
        assert created.status_code == 201, created.text
        monitor_id = created.json()["data"]["monitorId"]
        paused = api.call("POST", "/v1/monitors", json={
            "url": page.url, "operation": "markdown", "schedule": "rate(1 minute)", "enabled": False})
        paused_id = paused.json()["data"]["monitorId"]

        runs = [run_check(api, monitor_id, 1)]
        page.price = "12"
        runs.append(run_check(api, monitor_id, 2))
        runs.append(run_check(api, monitor_id, 3))
        # Two more, fired by the schedule on its own (a minute and two after it is enabled, in its time),
        # then disabled before a third is due.
        enabled = time.time()
        assert api.call("PATCH", f"/v1/monitors/{monitor_id}", json={"enabled": True}).status_code == 200
        checks = wait_for_checks(api, monitor_id, 5, 6 * MINUTE_S + 60)
        assert api.call("PATCH", f"/v1/monitors/{monitor_id}", json={"enabled": False}).status_code == 200
        scheduled = [c for c in checks if c["checkId"] not in runs]
        assert len(scheduled) == 2, checks
        assert all(c["status"] == "completed" for c in checks), checks
        last_fire = max(datetime.fromisoformat(c["at"].replace("Z", "+00:00")).timestamp() for c in scheduled)
        assert last_fire - enabled <= 2.5 * MINUTE_S

        statuses = [c["changeStatus"] for c in reversed(checks)]  # oldest first
        assert statuses[0] == "new" and statuses.count("changed") == 1 and statuses.count("same") == 3
        (changed,) = [c for c in checks if c["changeStatus"] == "changed"]
        lines = changed["diff"]["unified"].splitlines()
        assert [line for line in lines if line[:1] in "+-" and line[:3] not in ("+++", "---")] == [
            "-The team plan costs 10 dollars a month, billed yearly.",
            "+The team plan costs 12 dollars a month, billed yearly."]
        assert (changed["diff"]["added"], changed["diff"]["removed"]) == (1, 1)

        # One signed webhook, for the one change; the unchanged checks send nothing.
        (delivery,) = receiver.wait_for(1, 30)
        time.sleep(3)
        assert len(receiver.deliveries) == 1
        assert delivery.verified is not None
        assert delivery.verified["type"] == "monitor.changed"
        assert delivery.verified["checkId"] == changed["checkId"]
        assert delivery.verified["metadata"] == {"team": "pricing"}

        assert sum(c["creditsCost"] for c in checks) == len(checks) == before - credits_left(api)
        assert checks_of(api, paused_id) == []  # disabled: never fired
    finally:
        page.shutdown()
        receiver.stop()
    for gone in (monitor_id, paused_id):
        assert api.call("DELETE", f"/v1/monitors/{gone}").status_code == 200
    assert schedule_names(scheduler) == []
