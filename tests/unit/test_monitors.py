"""The monitor routes in-process (docs/monitors.md): MonitorsFunction's handler over moto's DynamoDB and
EventBridge Scheduler. A monitor and its schedule are made, changed and removed together; bad schedules,
refused URLs and other users' monitors are answered as the API's errors."""

from __future__ import annotations

import importlib.util
import json
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import boto3
import pytest

from webcapture.settings import get_settings

APP = Path(__file__).resolve().parents[2] / "functions" / "monitors" / "app.py"
GROUP = "monitors-test"
ROLE = "arn:aws:iam::123456789012:role/monitors-scheduler"
QUEUES = {op: f"arn:aws:sqs:us-east-1:123456789012:{op}-jobs" for op in ("SCREENSHOT", "MARKDOWN", "AI_EXTRACT")}
PAGE = "http://127.0.0.1:8080/pricing"
# What Lambda hands a handler: Powertools' logger reads these.
CONTEXT = SimpleNamespace(function_name="monitors", memory_limit_in_mb=256, aws_request_id="r-1",
                          invoked_function_arn="arn:aws:lambda:us-east-1:123456789012:function:monitors",
                          get_remaining_time_in_millis=lambda: 10_000)


@pytest.fixture(scope="module")
def app() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fn_monitors", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def monitors_aws(aws_resources: None, settings_env: pytest.MonkeyPatch) -> Iterator[Any]:
    """The template's monitors and profiles tables, a schedule group (moto), loopback pages allowed."""
    scheduler = boto3.client("scheduler")
    scheduler.create_schedule_group(Name=GROUP)
    settings_env.setenv("MONITORS_TABLE", "MonitorsTable")
    settings_env.setenv("PROFILES_TABLE", "ProfilesTable")
    settings_env.setenv("MONITORS_SCHEDULE_GROUP", GROUP)
    settings_env.setenv("MONITORS_SCHEDULER_ROLE_ARN", ROLE)
    for operation, arn in QUEUES.items():
        settings_env.setenv(f"MONITORS_TARGET_{operation}_ARN", arn)
    settings_env.setenv("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8")
    get_settings.cache_clear()
    yield scheduler
    get_settings.cache_clear()


def call(app: ModuleType, method: str, path: str, body: Any = None, user: str = "ada") -> tuple[int, Any]:
    resource = "/v1/monitors/{monitorId}" if path.count("/") > 2 else "/v1/monitors"
    parameters = {"monitorId": path.rsplit("/", 1)[1]} if path.count("/") > 2 else None
    event = {
        "resource": resource, "path": path, "httpMethod": method,
        "headers": {"Content-Type": "application/json"}, "pathParameters": parameters,
        "queryStringParameters": None, "isBase64Encoded": False,
        "body": None if body is None else json.dumps(body),
        "requestContext": {"resourcePath": resource, "httpMethod": method, "stage": "v1", "requestId": "r-1",
                           "authorizer": {"userId": user, "tokenKind": "session",
                                          "exp": str(int(time.time()) + 3600)}},
    }
    answer = app.lambda_handler(event, CONTEXT)
    return answer["statusCode"], json.loads(answer["body"])


def schedule_names(scheduler: Any) -> list[str]:
    pages = scheduler.get_paginator("list_schedules").paginate(GroupName=GROUP)
    return [schedule["Name"] for page in pages for schedule in page["Schedules"]]


def schedules(scheduler: Any) -> dict[str, dict[str, Any]]:
    return {name: scheduler.get_schedule(Name=name, GroupName=GROUP) for name in schedule_names(scheduler)}


def test_a_monitor_is_made_with_its_schedule_and_deleted_with_it(app: ModuleType, monitors_aws: Any) -> None:
    status, body = call(app, "POST", "/v1/monitors", {
        "url": PAGE, "operation": "markdown", "schedule": "rate(5 minutes)", "request": {"onlyMainContent": True},
        "webhook": {"url": "http://127.0.0.1:9/hook"}})
    assert status == 201, body
    data = body["data"]
    assert body["creditsCost"] == 0 and data["monitorId"].startswith("mon_")
    assert data["request"] == {"onlyMainContent": True} and data["enabled"] is True and data["name"] == PAGE
    assert data["webhook"]["events"] == ["monitor.changed"] and data["diff"] == {"threshold": 0.1}
    assert data["nextRunAt"] > data["createdAt"]
    (schedule,) = schedules(monitors_aws).values()
    assert schedule["Name"] == data["monitorId"] and schedule["ScheduleExpression"] == "rate(5 minutes)"
    assert schedule["State"] == "ENABLED"
    assert schedule["Target"]["Arn"] == QUEUES["MARKDOWN"] and schedule["Target"]["RoleArn"] == ROLE
    assert json.loads(schedule["Target"]["Input"]) == {
        "monitorCheck": {"userId": "ada", "monitorId": data["monitorId"]}}
    listed = call(app, "GET", "/v1/monitors")[1]["data"]
    assert listed["total"] == 1 and listed["monitors"][0]["monitorId"] == data["monitorId"]
    assert call(app, "GET", f"/v1/monitors/{data['monitorId']}")[1]["data"]["url"] == PAGE
    status, deleted = call(app, "DELETE", f"/v1/monitors/{data['monitorId']}")
    assert status == 200 and deleted["data"] == {"monitorId": data["monitorId"], "deleted": True}
    assert schedules(monitors_aws) == {}
    assert call(app, "GET", f"/v1/monitors/{data['monitorId']}")[0] == 404
    assert call(app, "GET", "/v1/monitors")[1]["data"] == {"monitors": [], "total": 0}


def test_a_disabled_monitor_keeps_a_disabled_schedule(app: ModuleType, monitors_aws: Any) -> None:
    status, body = call(app, "POST", "/v1/monitors", {
        "url": PAGE, "operation": "screenshot", "schedule": "cron(0 9 ? * MON-FRI *)", "enabled": False,
        "timezone": "Europe/Berlin", "request": {"fullPage": True}})
    assert status == 201, body
    monitor_id = body["data"]["monitorId"]
    assert body["data"]["nextRunAt"] is None
    schedule = schedules(monitors_aws)[monitor_id]
    assert schedule["State"] == "DISABLED" and schedule["ScheduleExpressionTimezone"] == "Europe/Berlin"
    assert schedule["Target"]["Arn"] == QUEUES["SCREENSHOT"]
    status, body = call(app, "PATCH", f"/v1/monitors/{monitor_id}", {"enabled": True, "schedule": "rate(1 hours)",
                                                                      "name": "pricing"})
    assert status == 200, body
    assert body["data"]["schedule"] == "rate(1 hour)" and body["data"]["name"] == "pricing"
    assert body["data"]["request"] == {"fullPage": True} and body["data"]["nextRunAt"] is not None
    schedule = schedules(monitors_aws)[monitor_id]
    assert schedule["State"] == "ENABLED" and schedule["ScheduleExpression"] == "rate(1 hour)"
    call(app, "PATCH", f"/v1/monitors/{monitor_id}", {"enabled": False})
    assert schedules(monitors_aws)[monitor_id]["State"] == "DISABLED"


@pytest.mark.parametrize("schedule", ["rate(30 seconds)", "cron(nonsense)", "rate(0 minutes)",
                                      "cron(0 9 * * * *)", "at(2026-12-01T00:00:00)"])
def test_a_schedule_more_often_than_a_minute_or_unparsable_is_a_422(app: ModuleType, monitors_aws: Any,
                                                                    schedule: str) -> None:
    status, body = call(app, "POST", "/v1/monitors", {"url": PAGE, "operation": "markdown", "schedule": schedule})
    assert status == 422
    (issue,) = body["error"]["issues"]
    assert issue["code"] == "custom" and issue["path"] == ["schedule"]
    assert body["error"]["message"].startswith("schedule: ")
    assert schedules(monitors_aws) == {} and call(app, "GET", "/v1/monitors")[1]["data"]["total"] == 0


def test_every_issue_of_a_body_is_listed_the_request_as_its_endpoint_would(app: ModuleType,
                                                                          monitors_aws: Any) -> None:
    status, body = call(app, "POST", "/v1/monitors", {
        "url": "example.com", "operation": "pdf", "schedule": "rate(1 minute)", "timezone": "Mars/Olympus",
        "diff": {"threshold": 2}})
    assert status == 422
    paths = [issue["path"] for issue in body["error"]["issues"]]
    assert paths == [["url"], ["operation"], ["timezone"], ["diff", "threshold"]]
    status, body = call(app, "POST", "/v1/monitors", {
        "url": PAGE, "operation": "ai-extract", "schedule": "rate(1 minute)", "request": {"url": PAGE}})
    assert status == 422
    paths = [issue["path"] for issue in body["error"]["issues"]]
    assert ["request", "url"] in paths and len(paths) == 2 and all(path[0] == "request" for path in paths)


def test_an_internal_url_or_webhook_is_refused_before_anything_is_written(app: ModuleType,
                                                                         monitors_aws: Any) -> None:
    for body in ({"url": "http://169.254.169.254/latest/meta-data/", "operation": "markdown",
                  "schedule": "rate(1 hour)"},
                 {"url": PAGE, "operation": "markdown", "schedule": "rate(1 hour)",
                  "webhook": {"url": "http://10.0.0.1/hook"}}):
        status, answer = call(app, "POST", "/v1/monitors", body)
        assert status == 400 and answer["error"]["code"] == "URL_NOT_ALLOWED", answer
    assert schedules(monitors_aws) == {} and call(app, "GET", "/v1/monitors")[1]["data"]["total"] == 0


def test_another_users_monitor_is_a_404_for_every_route(app: ModuleType, monitors_aws: Any) -> None:
    made = call(app, "POST", "/v1/monitors", {"url": PAGE, "operation": "markdown", "schedule": "rate(1 day)"})
    monitor_id = made[1]["data"]["monitorId"]
    for method, body in (("GET", None), ("PATCH", {"name": "mine now"}), ("DELETE", None)):
        status, answer = call(app, method, f"/v1/monitors/{monitor_id}", body, user="eve")
        assert status == 404 and answer["error"]["code"] == "NOT_FOUND"
    assert call(app, "GET", "/v1/monitors", user="eve")[1]["data"]["total"] == 0
    assert call(app, "GET", f"/v1/monitors/{monitor_id}")[1]["data"]["name"] == PAGE
    assert list(schedules(monitors_aws)) == [monitor_id]


def test_url_and_operation_cannot_be_changed(app: ModuleType, monitors_aws: Any) -> None:
    made = call(app, "POST", "/v1/monitors", {"url": PAGE, "operation": "markdown", "schedule": "rate(1 day)"})
    monitor_id = made[1]["data"]["monitorId"]
    status, body = call(app, "PATCH", f"/v1/monitors/{monitor_id}", {"url": PAGE + "?b", "operation": "screenshot"})
    assert status == 422 and [i["path"] for i in body["error"]["issues"]] == [["url"], ["operation"]]
    status, body = call(app, "PATCH", f"/v1/monitors/{monitor_id}", {"request": {"onlyMainContent": "yes"}})
    assert status == 422 and [i["path"] for i in body["error"]["issues"]] == [["request", "onlyMainContent"]]
    assert call(app, "GET", f"/v1/monitors/{monitor_id}")[1]["data"]["request"] == {}


def test_a_user_has_at_most_100_monitors(app: ModuleType, monitors_aws: Any) -> None:
    body = {"url": PAGE, "operation": "markdown", "schedule": "rate(1 day)"}
    made = [call(app, "POST", "/v1/monitors", body)[1]["data"]["monitorId"] for _ in range(100)]
    status, answer = call(app, "POST", "/v1/monitors", body)
    assert status == 409 and answer["error"]["code"] == "LIMIT_REACHED"
    assert len(schedule_names(monitors_aws)) == 100
    call(app, "DELETE", f"/v1/monitors/{made[0]}")
    assert call(app, "POST", "/v1/monitors", body)[0] == 201
