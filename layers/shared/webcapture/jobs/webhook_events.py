"""The events a job sends to its webhook (docs/jobs.md#jobs), queued on the webhooks queue for delivery:
`job.completed` / `job.failed` / `job.cancelled` when the job ends, `item.completed` after each item when
subscribed.

An event's id (`webhook-id`) and body are fixed here, once: every retry sends the same event."""

from __future__ import annotations

import uuid
from typing import Any

from webcapture.envelopes import utc_timestamp
from webcapture.jobs.job_store import Job, Outcome, get_job
from webcapture.jobs.work_queue import send_webhook_event
from webcapture.settings import get_settings


def _subscribed(job: Job, event_type: str) -> bool:
    return job.webhook is not None and event_type in job.webhook.get("events", ())


def _payload(job: Job, event_type: str, status: str) -> dict[str, Any]:
    return {
        "type": event_type,
        "jobId": job.job_id,
        "status": status,
        "total": job.total,
        "completed": job.completed,
        "failed": job.failed,
        "cancelled": job.cancelled,
        "creditsCost": job.credits_cost,
        "metadata": (job.webhook or {}).get("metadata", {}),
        "timestamp": utc_timestamp(),
    }


def queue_event(job: Job, payload: dict[str, Any]) -> None:
    """One event for the job's webhook, queued for delivery (a monitor's check sends its own through here)."""
    if not get_settings().webhooks_queue:
        return  # no webhooks queue configured (a deployment without webhooks)
    send_webhook_event(
        {
            "eventId": f"msg_{uuid.uuid4().hex}",
            "jobId": job.job_id,
            "userId": job.user_id,
            "attempt": 0,
            "notBefore": 0,
            "payload": payload,
        }
    )


def job_finished(job: Job) -> None:
    """The job has just taken its final status (completed, failed or cancelled)."""
    event_type = f"job.{job.status}"
    if _subscribed(job, event_type):
        queue_event(job, _payload(job, event_type, job.status))


def item_finished(job: Job, index: int, outcome: Outcome) -> None:
    if not _subscribed(job, "item.completed"):
        return
    job = get_job(job.job_id) or job  # the counts with this item in them
    payload = _payload(job, "item.completed", job.status)
    payload["index"] = index
    payload["itemStatus"] = outcome.status
    if outcome.data is not None:
        payload["data"] = outcome.data
    else:
        payload["error"] = outcome.error
    queue_event(job, payload)
