"""A monitor's checks on the markdown work function (docs/monitors.md#checks), over moto: the schedule's message
runs as a job item charged to the monitor's key, once however often it is delivered; each check is compared
with the last completed one and stored; a changed page queues one `monitor.changed` event, an unchanged one
none; a failed check is refunded; the checks page newest first without losing one."""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from tests.support.jobs_records import event_of, receive_all, remaining
from webcapture import metering
from webcapture.auth import api_keys
from webcapture.credits import Operation
from webcapture.errors import NavigationFailed
from webcapture.jobs.item_worker import ItemRunner
from webcapture.monitors import check_store, store
from webcapture.monitors.check_worker import MonitorChecks
from webcapture.monitors.schedules import check_message
from webcapture.monitors.store import Monitor
from webcapture.settings import get_settings

pytest_plugins = ["tests.support.jobs_moto"]

PAGE = "http://127.0.0.1:8080/pricing"
BEFORE = "# Pricing\n\nThe plan costs 10 a month.\n\nCancel at any time."
AFTER = "# Pricing\n\nThe plan costs 12 a month.\n\nCancel at any time."


class Page:
    """The markdown operation's stand-in: answers the current text, or fails."""

    def __init__(self) -> None:
        self.text, self.fail, self.loads = BEFORE, False, 0

    def __call__(self, caller: Any, request: Any) -> dict[str, Any]:
        with metering.metered(caller, 1):
            self.loads += 1
            if self.fail:
                raise NavigationFailed("The page could not be loaded")
            return {"markdown": self.text, "url": request.url, "timestamp": str(time.time())}


@pytest.fixture
def checks_aws(jobs_aws: dict[str, str], settings_env: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    settings_env.setenv("MONITORS_TABLE", "MonitorsTable")
    settings_env.setenv("PROFILES_TABLE", "ProfilesTable")
    settings_env.setenv("JOBS_QUEUE_MARKDOWN_URL", jobs_aws["MarkdownJobsQueue"])
    get_settings.cache_clear()
    yield jobs_aws


def _monitor(record: api_keys.ApiKeyRecord, webhook: dict[str, Any] | None) -> Monitor:
    now = "2026-11-27T08:00:00.000Z"
    return store.create(Monitor(
        user_id=record.user_id, monitor_id=store.new_id(), name="pricing", url=PAGE, operation="markdown",
        request={}, schedule="rate(1 minute)", timezone=None, webhook=webhook, threshold=0.1, enabled=True,
        scheduled_at=now, created_at=now, updated_at=now, key_hash=record.key_hash, key_id=record.id,
        limited=True))


def _scheduled(monitor: Monitor, message_id: str) -> dict[str, Any]:
    """The schedule's message as SQS delivers it (sent a moment apart, so the checks sort in order)."""
    time.sleep(0.002)
    return {"MessageId": message_id, "ReceiptHandle": message_id, "Body": check_message(monitor),
            "Attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": str(int(time.time() * 1000))}}


def _deliver(page: Page, *messages: dict[str, Any]) -> None:
    worker = MonitorChecks(ItemRunner(Operation.MARKDOWN, page))
    event = event_of(list(messages), "webcapture-local-MarkdownJobsQueue")
    assert worker.handle(event, lambda: 60_000.0) == {"batchItemFailures": []}


def _events(url: str) -> list[dict[str, Any]]:
    return [json.loads(m["Body"])["payload"] for m in receive_all(url)]


def test_checks_are_charged_compared_stored_and_told(checks_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, {"url": "https://hooks.example/in", "events": ["monitor.changed"],
                                "metadata": {"team": "pricing"}})
    page = Page()
    first = _scheduled(monitor, "m-1")
    _deliver(page, first)
    _deliver(page, first)  # the same message again: still one check, one load, one charge
    assert page.loads == 1 and remaining(record) == 9
    page.text = AFTER
    _deliver(page, _scheduled(monitor, "m-2"))
    events = _events(checks_aws["WebhooksQueue"])
    assert [e["type"] for e in events] == ["monitor.changed"]
    assert events[0]["monitorId"] == monitor.monitor_id and events[0]["metadata"] == {"team": "pricing"}
    assert "-The plan costs 10 a month.\n+The plan costs 12 a month." in events[0]["diff"]
    _deliver(page, _scheduled(monitor, "m-3"))  # unchanged: nothing sent
    assert _events(checks_aws["WebhooksQueue"]) == []
    page.fail = True
    _deliver(page, _scheduled(monitor, "m-4"))  # failed: refunded
    assert remaining(record) == 7

    checks, cursor = check_store.checks_page(record.user_id, monitor.monitor_id, 4, None)
    assert cursor is None
    assert [(c["status"], c["changeStatus"], c["creditsCost"]) for c in checks] == [
        ("failed", None, 0), ("completed", "same", 1), ("completed", "changed", 1), ("completed", "new", 1)]
    changed = checks[2]
    assert (changed["diff"]["added"], changed["diff"]["removed"]) == (1, 1)
    assert changed["data"]["markdown"] == AFTER and checks[0]["error"]["code"] == "NAVIGATION_FAILED"
    assert sum(c["creditsCost"] for c in checks) == 10 - (remaining(record) or 0)


def test_a_long_pages_checks_are_kept_compressed_and_compared(checks_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, None)
    page = Page()
    page.text = "\n\n".join(f"Paragraph {n} of the pricing page: the plan, its terms." for n in range(300))
    _deliver(page, _scheduled(monitor, "m-1"))
    _deliver(page, _scheduled(monitor, "m-2"))
    checks, _ = check_store.checks_page(record.user_id, monitor.monitor_id, 4, None)
    assert [c["changeStatus"] for c in checks] == ["same", "new"]
    assert [c["data"]["markdown"] for c in checks] == [page.text, page.text]
    kept = [item for item in check_store._table().scan()["Items"] if "dataZ" in item or "dataJson" in item]
    assert len(kept) == 2 and all("dataJson" not in item for item in kept)
    assert all(len(item["dataZ"].value) < len(page.text) / 5 for item in kept)


def test_checks_page_newest_first_and_lose_none_to_new_checks(checks_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=None)
    monitor = _monitor(record, None)
    page = Page()
    for i in range(3):
        _deliver(page, _scheduled(monitor, f"p-{i}"))
    first, cursor = check_store.checks_page(record.user_id, monitor.monitor_id, 2, None)
    assert len(first) == 2 and cursor is not None
    _deliver(page, _scheduled(monitor, "p-new"))  # a newer check meanwhile: the next page is unchanged
    rest, last = check_store.checks_page(record.user_id, monitor.monitor_id, 2, cursor)
    assert last is None and len(rest) == 1
    seen = [c["checkId"] for c in first + rest]
    assert len(set(seen)) == 3 and [c["changeStatus"] for c in rest] == ["new"]


def test_a_deleted_or_disabled_monitors_schedule_runs_nothing(checks_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, None)
    page = Page()
    store.save(Monitor(**{**monitor.__dict__, "enabled": False}))
    _deliver(page, _scheduled(monitor, "d-1"))
    store.delete(monitor)
    _deliver(page, _scheduled(monitor, "d-2"))
    assert page.loads == 0 and remaining(record) == 10
    assert boto3.client("dynamodb").scan(TableName="MonitorsTable")["Count"] == 1  # the user's counter


def test_a_check_whose_comparison_failed_is_finished_when_delivered_again(
        checks_aws: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, None)
    page = Page()
    finish = check_store.finish
    calls = []

    def failing_once(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        if len(calls) == 1:
            raise ClientError({"Error": {"Code": "ProvisionedThroughputExceededException"}}, "PutItem")
        finish(*args, **kwargs)

    monkeypatch.setattr(check_store, "finish", failing_once)
    message = _scheduled(monitor, "r-1")
    worker = MonitorChecks(ItemRunner(Operation.MARKDOWN, page))
    event = event_of([message], "webcapture-local-MarkdownJobsQueue")
    assert worker.handle(event, lambda: 60_000.0)["batchItemFailures"] != []  # delivered again later
    _deliver(page, message)
    (check,), _ = check_store.checks_page(record.user_id, monitor.monitor_id, 10, None)
    assert (check["status"], check["changeStatus"], page.loads) == ("completed", "new", 1)
    assert remaining(record) == 9


def test_checked_and_failed_events_when_the_webhook_lists_them(checks_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, {"url": "https://hooks.example/in", "events": ["monitor.checked", "monitor.failed"],
                                "metadata": {}})
    page = Page()
    _deliver(page, _scheduled(monitor, "e-1"))
    page.fail = True
    _deliver(page, _scheduled(monitor, "e-2"))
    events = _events(checks_aws["WebhooksQueue"])
    assert sorted((e["type"], e["changeStatus"]) for e in events) == [("monitor.checked", "new"),
                                                                     ("monitor.failed", None)]
    (failed,) = [e for e in events if e["type"] == "monitor.failed"]
    assert failed["error"]["code"] == "NAVIGATION_FAILED" and failed["url"] == PAGE


APP = Path(__file__).resolve().parents[2] / "functions" / "monitors" / "app.py"


def _route(method: str, path: str, resource: str, user: str,
           query: dict[str, str] | None = None) -> tuple[int, Any]:
    spec = importlib.util.spec_from_file_location("fn_monitors_checks", APP)
    assert spec is not None and spec.loader is not None
    app = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(app)
    event = {"resource": resource, "path": path, "httpMethod": method, "headers": {},
             "pathParameters": {"monitorId": path.split("/")[3]}, "queryStringParameters": query,
             "isBase64Encoded": False, "body": None,
             "requestContext": {"resourcePath": resource, "httpMethod": method, "stage": "v1", "requestId": "r",
                                "authorizer": {"userId": user, "tokenKind": "session",
                                               "exp": str(int(time.time()) + 3600)}}}
    context = SimpleNamespace(function_name="monitors", memory_limit_in_mb=256, aws_request_id="r",
                              invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:monitors",
                              get_remaining_time_in_millis=lambda: 10_000)
    answer = app.lambda_handler(event, context)
    return answer["statusCode"], json.loads(answer["body"])


def test_run_queues_a_check_and_the_checks_route_pages_it(checks_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("ada", "k", remaining=10)
    monitor = _monitor(record, None)
    run_path = f"/v1/monitors/{monitor.monitor_id}/run"
    status, body = _route("POST", run_path, "/v1/monitors/{monitorId}/run", record.user_id)
    assert status == 202 and body["data"]["status"] == "queued"
    (message,) = receive_all(checks_aws["MarkdownJobsQueue"])
    sent = json.loads(message["Body"])["monitorCheck"]
    assert (sent["monitorId"], sent["checkId"]) == (monitor.monitor_id, body["data"]["checkId"])
    checks_path = f"/v1/monitors/{monitor.monitor_id}/checks"
    status, listed = _route("GET", checks_path, "/v1/monitors/{monitorId}/checks", record.user_id)
    assert status == 200 and [c["status"] for c in listed["data"]["checks"]] == ["queued"]
    _deliver(Page(), message)  # the queued check runs where it was written
    status, listed = _route("GET", checks_path, "/v1/monitors/{monitorId}/checks", record.user_id)
    assert [(c["checkId"], c["status"]) for c in listed["data"]["checks"]] == [
        (body["data"]["checkId"], "completed")]
    status, refused = _route("GET", checks_path, "/v1/monitors/{monitorId}/checks", record.user_id,
                             {"cursor": "bm90LWEtY3Vyc29y"})
    assert status == 422 and refused["error"]["issues"][0]["path"] == ["cursor"]
    for method, path, resource in (("POST", run_path, "/v1/monitors/{monitorId}/run"),
                                   ("GET", checks_path, "/v1/monitors/{monitorId}/checks")):
        status, other = _route(method, path, resource, "someone-else")
        assert status == 404 and other["error"]["code"] == "NOT_FOUND"
