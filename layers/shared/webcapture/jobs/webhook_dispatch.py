"""The webhooks queue's consumer (CONTRACT 17): one delivery attempt per message; a failed one is sent
again as a delayed message (about 5 s, 30 s, 2 min, 10 min, 1 h), with the same event id and body, so the
retries survive the function that made them. Every attempt is recorded on the job (`webhook.deliveries`).
"""

from __future__ import annotations

import json
import time
from typing import Any

from webcapture.envelopes import utc_timestamp
from webcapture.jobs import job_store
from webcapture.jobs.sqs_records import handle_each_record
from webcapture.jobs.webhook_delivery import deliver
from webcapture.jobs.webhook_secrets import current_secret
from webcapture.jobs.work_queue import MAX_DELAY_S, send_webhook_event
from webcapture.observability import metrics
from webcapture.settings import get_settings


def handle_records(event: dict[str, Any]) -> dict[str, Any]:
    return handle_each_record(event, lambda record: _handle(json.loads(record["body"])), "webhook event")


def _handle(message: dict[str, Any]) -> None:
    wait_s = int(message.get("notBefore", 0)) - int(time.time())
    if wait_s > 0:  # a wait longer than SQS's longest delay, in several messages
        send_webhook_event(message, min(wait_s, MAX_DELAY_S))
        return
    job = job_store.get_job(str(message["jobId"]))
    if job is None or job.webhook is None:
        return
    settings = get_settings()
    attempt = int(message.get("attempt", 0))
    outcome = deliver(
        job.webhook["url"],
        current_secret(job.user_id),
        str(message["eventId"]),
        message["payload"],
        settings.webhook_timeout_s,
    )
    delivery: dict[str, Any] = {
        "eventId": message["eventId"],
        "type": message["payload"]["type"],
        "attempt": attempt + 1,
        "at": utc_timestamp(),
        "ok": outcome.ok,
        "status": outcome.status,
    }
    if outcome.error:
        delivery["error"] = outcome.error
    job_store.record_delivery(job.job_id, delivery)
    metrics.add_metric(name="WebhookDelivered" if outcome.ok else "WebhookFailed", unit="Count", value=1)
    delays = settings.webhook_retry_delays_s
    if outcome.ok or attempt >= len(delays):
        return
    delay = delays[attempt]
    send_webhook_event(
        {**message, "attempt": attempt + 1, "notBefore": int(time.time()) + delay}, min(delay, MAX_DELAY_S)
    )
