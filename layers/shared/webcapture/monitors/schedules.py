"""One EventBridge Scheduler schedule per monitor (docs/monitors.md#schedules), in the stack's schedule group,
named by the monitor's id. Its target is the work queue of the monitor's operation; the message it sends
names the monitor, and the check reads the monitor as it is when the message arrives.

A disabled monitor keeps its schedule, DISABLED: it sends nothing until it is enabled again.
"""

from __future__ import annotations

import json
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import scheduler_client
from webcapture.errors import ServiceUnavailable
from webcapture.monitors.store import Monitor
from webcapture.settings import get_settings

# What a check message carries (the work function tells it from a batch item by this key).
CHECK_MESSAGE_KEY = "monitorCheck"


def check_message(monitor: Monitor) -> str:
    return json.dumps({CHECK_MESSAGE_KEY: {"userId": monitor.user_id, "monitorId": monitor.monitor_id}})


def _target(monitor: Monitor) -> dict[str, Any]:
    settings = get_settings()
    queues = dict(settings.monitor_targets)
    if monitor.operation not in queues or not settings.monitors_scheduler_role_arn:
        raise ServiceUnavailable("Monitors are not configured on this deployment (no schedule target)")
    return {"Arn": queues[monitor.operation], "RoleArn": settings.monitors_scheduler_role_arn,
            "Input": check_message(monitor)}


def _schedule(monitor: Monitor) -> dict[str, Any]:
    schedule: dict[str, Any] = {
        "Name": monitor.monitor_id, "GroupName": get_settings().monitors_schedule_group,
        "ScheduleExpression": monitor.schedule, "FlexibleTimeWindow": {"Mode": "OFF"},
        "Target": _target(monitor), "State": "ENABLED" if monitor.enabled else "DISABLED",
        "Description": "webcapture monitor (docs/monitors.md)",
    }
    if monitor.timezone is not None:
        schedule["ScheduleExpressionTimezone"] = monitor.timezone
    return schedule


def add_schedule(monitor: Monitor) -> None:
    scheduler_client().create_schedule(**_schedule(monitor))


def change_schedule(monitor: Monitor) -> None:
    # UpdateSchedule replaces every setting, so it is given the whole schedule.
    scheduler_client().update_schedule(**_schedule(monitor))


def remove_schedule(monitor_id: str) -> None:
    """Remove the schedule; one already gone is what was wanted."""
    try:
        scheduler_client().delete_schedule(Name=monitor_id, GroupName=get_settings().monitors_schedule_group)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
