"""The monitor routes' bodies and answers (docs/monitors.md), for the OpenAPI document.

The bodies are validated by webcapture.monitors.monitor_request (the nested `request` as its endpoint's own
body, with issue paths that start `["request"]`); these models state the same shape and limits."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webcapture.jobs.batch_request import MAX_METADATA_BYTES
from webcapture.monitors.monitor_request import EVENTS, MAX_NAME, OPERATIONS
from webcapture.openapi.answer_models import _Answer

MonitorOperation = Literal["screenshot", "markdown", "ai-extract"]
assert MonitorOperation.__args__ == OPERATIONS  # type: ignore[attr-defined]
MonitorEvent = Literal["monitor.changed", "monitor.checked", "monitor.failed"]
assert MonitorEvent.__args__ == EVENTS  # type: ignore[attr-defined]

_SCHEDULE = ("rate(N minute|minutes|hour|hours|day|days), at least 1 minute, or an EventBridge "
             "cron(minutes hours day-of-month month day-of-week year) with ? in one of the two day fields")


class MonitorWebhook(BaseModel):
    model_config = ConfigDict(extra="ignore")
    url: str = Field(description="Where events are POSTed; it passes the egress policy at create and at "
                                 "every delivery", json_schema_extra={"format": "uri"})
    events: list[MonitorEvent] | None = Field(None, min_length=1, description="Default: monitor.changed")
    metadata: dict[str, Any] | None = Field(
        None, description=f"Echoed in every event; at most {MAX_METADATA_BYTES} bytes as JSON")


class MonitorDiff(BaseModel):
    model_config = ConfigDict(extra="ignore")
    threshold: float | None = Field(None, ge=0, le=1, description="Screenshots: how much a pixel's channel "
                                                                  "may differ and still count as the same "
                                                                  "(share of 255; default 0.1)")


class _MonitorSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")
    request: dict[str, Any] | None = Field(
        None, description="The operation's own request body without `url` (validated as that endpoint's "
                          "body; issue paths start with [\"request\"]). `timeout` may go up to 120,000 ms.")
    schedule: str = Field(max_length=256, description=_SCHEDULE)
    timezone: str | None = Field(None, description="An IANA time zone the cron is read in (default UTC)")
    name: str | None = Field(None, min_length=1, max_length=MAX_NAME, description="Default: the URL")
    webhook: MonitorWebhook | None = None
    diff: MonitorDiff | None = None
    enabled: bool | None = Field(None, description="Default true; a disabled monitor's schedule sends "
                                                   "nothing")


class MonitorCreate(_MonitorSettings):
    url: str = Field(description="The page to watch; it passes the egress policy at create",
                     json_schema_extra={"format": "uri"})
    operation: MonitorOperation


class MonitorUpdate(_MonitorSettings):
    """Any field but `url` and `operation` (those are a new monitor's)."""

    schedule: str | None = Field(None, max_length=256, description=_SCHEDULE)  # type: ignore[assignment]


class MonitorData(_Answer):
    monitorId: str
    name: str
    url: str
    operation: MonitorOperation
    request: dict[str, Any]
    schedule: str = Field(description="As the scheduler takes it (rate(1 minutes) is written rate(1 minute))")
    timezone: str | None
    webhook: dict[str, Any] | None
    diff: dict[str, float]
    enabled: bool
    createdAt: str
    updatedAt: str
    nextRunAt: str | None = Field(description="When the schedule next fires (null while disabled)")
    warning: str | None = None


class MonitorsData(_Answer):
    monitors: list[MonitorData]
    total: int


class MonitorDeletedData(_Answer):
    monitorId: str
    deleted: Literal[True]


class MonitorRunData(_Answer):
    monitorId: str
    checkId: str = Field(description="The check's id in GET /v1/monitors/{monitorId}/checks")
    status: Literal["queued"]


class MonitorCheck(_Answer):
    checkId: str
    at: str = Field(description="When the check was queued; the checks are listed by it, newest first")
    status: Literal["queued", "completed", "failed"]
    changeStatus: Literal["new", "same", "changed"] | None = Field(
        description="Against the monitor's last completed check (null until completed, or when failed)")
    diff: dict[str, Any] | None = Field(
        description="markdown: {added, removed, unified, truncated}; null for a first or failed check")
    data: dict[str, Any] | None = Field(description="The operation's answer, as its endpoint's `data`")
    creditsCost: int
    error: dict[str, Any] | None = None


class MonitorChecksData(_Answer):
    monitorId: str
    checks: list[MonitorCheck]
    next: str | None = Field(description="The cursor of the next (older) page; null on the last")
