"""The monitor routes (docs/monitors.md#routes): all free, no concurrency slot, no browser. A monitor and its
schedule are written together: when the schedule cannot be set, the monitor is not kept either."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from webcapture import egress
from webcapture.auth.caller import Caller
from webcapture.credits import Operation
from webcapture.envelopes import utc_timestamp
from webcapture.errors import NavigationFailed, ServiceUnavailable, UrlNotAllowed
from webcapture.jobs.job_view import page_limit
from webcapture.jobs.submit import check_webhook_url
from webcapture.monitors import check_runs, check_store, schedules, store
from webcapture.monitors.monitor_request import DEFAULT_THRESHOLD, MAX_NAME, parse_create, parse_update
from webcapture.monitors.store import Monitor
from webcapture.observability import logger
from webcapture.profiles import store as profiles_store


def _now() -> datetime:
    return datetime.now(UTC)


def _check_target(url: str) -> None:
    """400 URL_NOT_ALLOWED for a page the egress policy refuses, or whose host does not resolve: no check
    could ever load it."""
    try:
        egress.check_target(url)
    except NavigationFailed:
        raise UrlNotAllowed("The URL's host could not be resolved") from None


def _check_profile(caller: Caller, request: dict[str, Any]) -> None:
    """A profile the checks would use is the caller's: 404 NOT_FOUND before anything is written."""
    profile = request.get("profile")
    if isinstance(profile, dict):
        profiles_store.owned(caller.user_id, str(profile["id"]))


def create_monitor(caller: Caller, payload: Any) -> dict[str, Any]:
    new = parse_create(payload)
    _check_target(new.url)
    settings = new.settings
    if settings.webhook is not None:
        check_webhook_url(settings.webhook.url)
    request = settings.request or {}
    _check_profile(caller, request)
    assert settings.schedule is not None  # required by parse_create
    now = utc_timestamp()
    monitor = Monitor(
        user_id=caller.user_id, monitor_id=store.new_id(), name=settings.name or new.url[:MAX_NAME],
        url=new.url, operation=new.operation.value, request=request, schedule=settings.schedule.expression,
        timezone=settings.timezone, webhook=None if settings.webhook is None else settings.webhook.as_item(),
        threshold=DEFAULT_THRESHOLD if settings.threshold is None else settings.threshold,
        enabled=True if settings.enabled is None else settings.enabled, scheduled_at=now, created_at=now,
        updated_at=now, key_hash=caller.key_hash, key_id=caller.key_id, limited=caller.limited)
    store.create(monitor)
    try:
        schedules.add_schedule(monitor)
    except Exception:
        logger.exception("creating a monitor's schedule failed; removing the monitor")
        store.delete(monitor)
        raise ServiceUnavailable("The monitor's schedule could not be created; retry") from None
    return monitor.public(_now())


def list_monitors(caller: Caller) -> dict[str, Any]:
    now = _now()
    monitors = store.list_monitors(caller.user_id)
    return {"monitors": [monitor.public(now) for monitor in monitors], "total": len(monitors)}


def get_monitor(caller: Caller, monitor_id: str) -> dict[str, Any]:
    return store.owned(caller.user_id, monitor_id).public(_now())


def update_monitor(caller: Caller, monitor_id: str, payload: Any) -> dict[str, Any]:
    monitor = store.owned(caller.user_id, monitor_id)
    changes = parse_update(payload, Operation(monitor.operation), monitor.url)
    if changes.webhook is not None:
        check_webhook_url(changes.webhook.url)
    if changes.request is not None:
        _check_profile(caller, changes.request)
    now = utc_timestamp()
    timezone = None if changes.clear_timezone else changes.timezone or monitor.timezone
    webhook = None if changes.clear_webhook else (
        changes.webhook.as_item() if changes.webhook is not None else monitor.webhook)
    updated = replace(
        monitor,
        name=changes.name or monitor.name,
        request=monitor.request if changes.request is None else changes.request,
        schedule=monitor.schedule if changes.schedule is None else changes.schedule.expression,
        timezone=timezone, webhook=webhook,
        threshold=monitor.threshold if changes.threshold is None else changes.threshold,
        enabled=monitor.enabled if changes.enabled is None else changes.enabled,
        updated_at=now)
    if (updated.schedule, updated.timezone, updated.enabled) != (monitor.schedule, monitor.timezone,
                                                                monitor.enabled):
        # The scheduler starts a changed schedule's runs afresh: a rate counts from now.
        updated = replace(updated, scheduled_at=now)
    schedules.change_schedule(updated)
    try:
        store.save(updated)
    except Exception:
        # The schedule goes back to what the stored monitor says; the caller is told to retry.
        with suppress(BotoCoreError, ClientError, ServiceUnavailable):
            schedules.change_schedule(monitor)
        raise
    return updated.public(_now())


def delete_monitor(caller: Caller, monitor_id: str) -> dict[str, Any]:
    monitor = store.owned(caller.user_id, monitor_id)
    # The schedule first: a monitor whose item is gone never fires again, and a retry finds the item.
    schedules.remove_schedule(monitor.monitor_id)
    store.delete(monitor)
    return {"monitorId": monitor.monitor_id, "deleted": True}


def run_monitor(caller: Caller, monitor_id: str) -> dict[str, Any]:
    """A check now, whether or not the monitor is enabled (202: it runs on the operation's work queue)."""
    monitor = store.owned(caller.user_id, monitor_id)
    key = check_runs.queue_check(monitor)
    return {"monitorId": monitor.monitor_id, "checkId": key.check_id, "status": "queued"}


def list_checks(caller: Caller, monitor_id: str, limit: str | None, cursor: str | None) -> dict[str, Any]:
    """The monitor's checks, newest first, a page at a time (`limit` and `cursor` as a job's results)."""
    monitor = store.owned(caller.user_id, monitor_id)
    checks, after = check_store.checks_page(monitor.user_id, monitor.monitor_id, page_limit(limit), cursor)
    return {"monitorId": monitor.monitor_id, "checks": checks, "next": after}
