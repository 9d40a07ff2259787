"""EventBridge Scheduler played over moto: moto keeps schedules but never fires them, so `make dev` and the
e2e tests would never see a monitor check itself. Every second this reads the schedules of the template's
schedule groups and, when one is due, sends its target's input to its target queue, as the scheduler does.

- `rate(N unit)`: every N from when the schedule was last set (moto's LastModificationDate), the way the
  service computes a monitor's `nextRunAt` (webcapture.monitors.schedule_expressions);
- `cron(...)`: the next time its fields match in its time zone;
- `at(yyyy-mm-ddThh:mm:ss)`: once, in its time zone.

A DISABLED schedule does not fire; a changed one starts afresh; a deleted one is forgotten. Only SQS targets
are played (the stack's schedules send to its work queues).

`speed` (`python -m localapi --schedule-speed N`) runs each schedule's clock N times as fast from when it was
last set, so end-to-end tests see a `rate(1 minute)` fire every 60/N seconds rather than wait minutes for two
firings. The default, 1, is the service's own timing; the service's `nextRunAt` is never scaled.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from botocore.exceptions import BotoCoreError, ClientError

from webcapture.monitors.schedule_expressions import BadSchedule, parse_schedule

_TICK_S = 1.0
log = logging.getLogger(__name__)


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def next_fire(schedule: dict[str, Any], after: datetime, speed: float = 1.0) -> datetime | None:
    """When `schedule` (GetSchedule's answer) fires next, strictly after `after`; None: never again. At a
    `speed` other than 1 the time since the schedule was set is scaled: its firing N in schedule time is at
    set + (N - set) / speed in real time."""
    if speed != 1.0:
        set_at = _set_at(schedule, after)
        fires = next_fire(schedule, set_at + (after - set_at) * speed)
        return None if fires is None else set_at + (fires - set_at) / speed
    expression = str(schedule["ScheduleExpression"])
    timezone = schedule.get("ScheduleExpressionTimezone") or None
    if expression.startswith("at(") and expression.endswith(")"):
        zone = ZoneInfo(timezone) if timezone else UTC
        when = _utc(datetime.fromisoformat(expression[3:-1]).replace(tzinfo=zone))
        return when if when > after else None
    try:
        return parse_schedule(expression).next_run(after, timezone, _set_at(schedule, after))
    except BadSchedule:
        log.warning("schedule %s: %s is not played", schedule.get("Name"), expression)
        return None


def _set_at(schedule: dict[str, Any], otherwise: datetime) -> datetime:
    return _utc(schedule.get("LastModificationDate") or schedule.get("CreationDate") or otherwise)


@dataclass
class SchedulerPlayer:
    scheduler: Any
    sqs: Any
    groups: tuple[str, ...]
    speed: float = 1.0  # schedule time per real time (see the module's docstring)
    _due: dict[tuple[str, str], tuple[Any, datetime | None]] = field(default_factory=dict)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True, name="scheduler-player")
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=_TICK_S + 5)

    def _run(self) -> None:
        while not self._stopping.wait(_TICK_S):
            with contextlib.suppress(BotoCoreError, ClientError):
                self.tick(datetime.now(UTC))

    def tick(self, now: datetime) -> list[str]:
        """Fire what is due at `now`; the names of the schedules fired."""
        fired: list[str] = []
        seen: set[tuple[str, str]] = set()
        for group in self.groups:
            pages = self.scheduler.get_paginator("list_schedules").paginate(GroupName=group)
            for summary in (s for page in pages for s in page["Schedules"]):
                key = (group, str(summary["Name"]))
                seen.add(key)
                schedule = self.scheduler.get_schedule(Name=key[1], GroupName=group)
                if schedule.get("State") == "DISABLED":
                    self._due.pop(key, None)
                    continue
                version = (schedule["ScheduleExpression"], schedule.get("ScheduleExpressionTimezone"),
                           schedule.get("LastModificationDate"))
                known = self._due.get(key)
                if known is None or known[0] != version:
                    known = (version, next_fire(schedule, now, self.speed))
                    self._due[key] = known
                when = known[1]
                if when is not None and when <= now:
                    self._send(schedule["Target"])
                    fired.append(key[1])
                    self._due[key] = (version, next_fire(schedule, now, self.speed))
        for gone in set(self._due) - seen:
            del self._due[gone]
        return fired

    def _send(self, target: dict[str, Any]) -> None:
        arn = str(target["Arn"])
        if not arn.startswith("arn:aws:sqs:"):
            log.warning("schedule target %s is not a queue: not played", arn)
            return
        url = self.sqs.get_queue_url(QueueName=arn.rsplit(":", 1)[1])["QueueUrl"]
        self.sqs.send_message(QueueUrl=url, MessageBody=str(target.get("Input") or "{}"))
