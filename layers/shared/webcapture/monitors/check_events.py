"""A monitor's webhook events (docs/monitors.md#webhooks), delivered as a job's are (the same queue, signature
and retries, webcapture.jobs.webhook_dispatch): each check is a job whose webhook is the monitor's, so the
deliveries are recorded on the check's job.

`monitor.changed` (the default) after a check whose page changed, `monitor.checked` after every completed
check, `monitor.failed` after a failed one; each only when the monitor's webhook lists it.
"""

from __future__ import annotations

from typing import Any

from webcapture.envelopes import utc_timestamp
from webcapture.jobs.job_store import Job
from webcapture.jobs.webhook_events import queue_event
from webcapture.monitors.check_compare import Comparison
from webcapture.monitors.check_store import CheckKey
from webcapture.monitors.store import Monitor

MAX_DIFF_BYTES = 10 * 1024


def _events(job: Job) -> tuple[str, ...]:
    return tuple((job.webhook or {}).get("events", ()))


def _cut(text: str) -> str:
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= MAX_DIFF_BYTES:
        return text
    head = encoded[:MAX_DIFF_BYTES].decode("utf-8", "ignore")
    return head[: head.rfind("\n") + 1] if "\n" in head else head


def _payload(event_type: str, job: Job, key: CheckKey, monitor: Monitor, change_status: str | None,
             diff: dict[str, Any] | None) -> dict[str, Any]:
    unified = (diff or {}).get("unified")
    return {"type": event_type, "monitorId": key.monitor_id, "checkId": key.check_id, "url": monitor.url,
            "changeStatus": change_status, "diff": _cut(unified) if isinstance(unified, str) else None,
            "metadata": (job.webhook or {}).get("metadata", {}), "timestamp": utc_timestamp()}


def check_completed(job: Job, key: CheckKey, monitor: Monitor | None, comparison: Comparison) -> None:
    if monitor is None:
        return  # deleted while its check ran: nobody to tell
    events = _events(job)
    if "monitor.changed" in events and comparison.change_status == "changed":
        queue_event(job, _payload("monitor.changed", job, key, monitor, comparison.change_status,
                                  comparison.diff))
    if "monitor.checked" in events:
        queue_event(job, _payload("monitor.checked", job, key, monitor, comparison.change_status,
                                  comparison.diff))


def check_failed(job: Job, key: CheckKey, monitor: Monitor | None, error: dict[str, Any] | None) -> None:
    if monitor is None or "monitor.failed" not in _events(job):
        return
    payload = _payload("monitor.failed", job, key, monitor, None, None)
    payload["error"] = error
    queue_event(job, payload)
