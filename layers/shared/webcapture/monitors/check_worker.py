"""A monitor's check on its operation's work function (docs/monitors.md#checks).

The schedule's message (`{"monitorCheck": {userId, monitorId}}`) and `POST /v1/monitors/{id}/run`'s (the
same with `checkId` and `queuedAt`) arrive on the operation's work queue. The function makes the check a
job of one item, charged like a batch item of the operation (its cost reserved from the monitor's key,
refunded when it fails, never for a bot wall), writes the check `queued` and runs the item at once, the way
every job item runs (claim, cache, profile, page control, webcapture.jobs.item_worker). When the item has
its result the job settles as a check: the result is compared with the monitor's last completed check,
stored, and the monitor's webhook told. A screenshot's check is handed to the comparison function instead
(`MonitorChecks.hand_off`), which compares, stores and tells (webcapture.monitors.screenshot_compare).

A message delivered twice makes one check: a scheduled check's id is derived from the SQS message id and its
time from the message's first send, so the second delivery finds the job and its claimed item.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.errors import ApiError
from webcapture.jobs import job_store
from webcapture.jobs.item_delivery import ItemKind, receive_count
from webcapture.jobs.item_worker import BATCH_ITEM, ItemRunner, run_item
from webcapture.jobs.job_store import Job, NewJob
from webcapture.jobs.sqs_records import handle_each_record
from webcapture.jobs.work_queue import ItemMessage
from webcapture.monitors import check_events, check_store, store
from webcapture.monitors.check_compare import compare
from webcapture.monitors.check_store import CheckKey
from webcapture.monitors.schedules import CHECK_MESSAGE_KEY
from webcapture.monitors.store import Monitor
from webcapture.observability import logger

# An item message of a check carries its check's key under this name (a batch item's has none).
CHECK_KEY_FIELD = "monitorCheckKey"
# The job's item that names its check: written with the job, read when it settles.
CHECK_LINK_SK = "monitorCheck"
_CHECK_IDS = uuid.UUID("6f1d2c4e-9a57-4b8e-8f0e-2d3c4b5a6978")  # namespace of scheduled checks' ids


# A check's completed result to compare elsewhere (a screenshot's, in the function that ships the image
# library: webcapture.monitors.comparison_handoff); None: compared here, as it settles.
HandOff = Callable[[CheckKey], None]
# Set on the check's link once its result was handed off, so a later delivery does not send it again.
HANDED_OFF = "handedOff"


def _item_kind(hand_off: HandOff | None) -> ItemKind:
    def settle(job_id: str) -> Job | None:
        job = job_store.settle(job_id)
        if job is not None:
            check_settled(job, hand_off)
        return job

    return ItemKind(job_noun="monitor check", item_noun="check", metric="MonitorCheck", settle=settle)


@dataclass(frozen=True)
class MonitorChecks:
    """The work function's SQS records: a monitor's check messages, a check's item sent back to wait, and
    every other record a batch item of `runner`. `hand_off`: where a completed check goes to be compared
    (None: compared here)."""

    runner: ItemRunner
    hand_off: HandOff | None = None

    def handle(self, event: dict[str, Any], remaining_ms: Callable[[], float]) -> dict[str, Any]:
        return handle_each_record(event, lambda record: self._record(record, remaining_ms),
                                  "job item or check")

    def _record(self, record: dict[str, Any], remaining_ms: Callable[[], float]) -> None:
        body = json.loads(record["body"])
        receives = receive_count(record)
        kind = _item_kind(self.hand_off)
        if CHECK_MESSAGE_KEY in body:
            item_body = begin_check(body[CHECK_MESSAGE_KEY], record, self.runner.operation)
            if item_body is not None:
                run_item(item_body, receives, remaining_ms, self.runner, kind)
                _settle_missed(CheckKey.from_dict(json.loads(item_body)[CHECK_KEY_FIELD]), self.hand_off)
        elif CHECK_KEY_FIELD in body:
            run_item(record["body"], receives, remaining_ms, self.runner, kind)
            _settle_missed(CheckKey.from_dict(body[CHECK_KEY_FIELD]), self.hand_off)
        else:
            run_item(record["body"], receives, remaining_ms, self.runner, BATCH_ITEM)


def _settle_missed(key: CheckKey, hand_off: HandOff | None) -> None:
    """A check whose job settled but whose comparison did not get written, or handed off (AWS trouble then:
    the record was delivered again and its item found done), is finished now."""
    job = job_store.get_job(key.check_id)
    if job is not None and job.finished_at is not None and check_store.is_queued(key):
        check_settled(job, hand_off)


def _sent_at(record: dict[str, Any]) -> str:
    sent_ms = (record.get("attributes") or {}).get("SentTimestamp")
    moment = datetime.fromtimestamp(int(sent_ms) / 1000, UTC) if sent_ms else datetime.now(UTC)
    return utc_timestamp(moment)


def check_key(message: dict[str, Any], record: dict[str, Any]) -> CheckKey:
    """A run's check key as the route chose it; a schedule's from its SQS message (the same on every
    delivery of one message)."""
    check_id = message.get("checkId") or uuid.uuid5(_CHECK_IDS, str(record.get("messageId", uuid.uuid4())))
    queued_at = message.get("queuedAt") or _sent_at(record)
    return CheckKey(str(message["userId"]), str(message["monitorId"]), str(queued_at), str(check_id))


def _caller(monitor: Monitor) -> Caller:
    if monitor.key_hash is None:
        return Caller(user_id=monitor.user_id, kind="session")
    return Caller(user_id=monitor.user_id, kind="api_key", key_id=monitor.key_id, key_hash=monitor.key_hash,
                  limited=monitor.limited)


def _item_message(monitor: Monitor, key: CheckKey) -> str:
    request = {k: v for k, v in monitor.request.items() if k != "timeout"}
    timeout = monitor.request.get("timeout")
    message = ItemMessage(job_id=key.check_id, index=0, user_id=monitor.user_id, key_hash=monitor.key_hash,
                          key_id=monitor.key_id, request={**request, "url": monitor.url},
                          timeout_ms=int(timeout) if isinstance(timeout, int) else None)
    body = {**json.loads(message.to_json()), CHECK_KEY_FIELD: key.as_dict()}
    return json.dumps(body, separators=(",", ":"))


def begin_check(message: dict[str, Any], record: dict[str, Any], operation: Operation) -> str | None:
    """The check's job and `queued` item (once), and the item message to run; None when there is nothing to
    run: the monitor is gone, a scheduled check of a disabled monitor, or the key cannot pay (the check
    is stored failed, free)."""
    key = check_key(message, record)
    monitor = store.find(key.user_id, key.monitor_id)
    if monitor is None or monitor.operation != operation.value:
        return None
    if "checkId" not in message and not monitor.enabled:
        return None  # a schedule's message sent just before it was disabled
    item_body = _item_message(monitor, key)
    if job_store.get_job(key.check_id) is not None:
        return item_body  # delivered again: the item's claim decides whether it still runs
    check_store.add_queued(key)
    link = {"pk": f"job#{key.check_id}", "sk": CHECK_LINK_SK, **key.as_dict(),
            "ttl": int((datetime.now(UTC) + job_store.RETENTION).timestamp())}
    try:
        job_store.create_job(NewJob(
            job_id=key.check_id, caller=_caller(monitor), operation=monitor.operation, total=1,
            cost_each=cost_of(operation), webhook=monitor.webhook, first_items=(link,)))
    except ApiError as error:  # the key cannot pay, or is gone
        check_store.finish(key, "failed", change_status=None, diff=None, data=None, credits_cost=0,
                           error={"code": error.code, "message": error.message})
        return None
    return item_body


def check_settled(job: Job, hand_off: HandOff | None = None) -> None:
    """The check's item has its result: compare (or hand it off to be compared), store and tell the
    webhook."""
    link = job_store.job_part(job.job_id, CHECK_LINK_SK)
    if link is None:
        logger.warning("a settled check has no monitor link", extra={"jobId": job.job_id})
        return
    key = CheckKey.from_dict(link)
    if hand_off is not None and link.get(HANDED_OFF):
        return  # being compared elsewhere
    results, _ = job_store.results_page(job.job_id, -1, 1, budget_bytes=1 << 62)
    result = results[0]
    monitor = store.find(key.user_id, key.monitor_id)
    operation = monitor.operation if monitor is not None else job.operation
    if result["status"] != "completed":
        if check_store.finish(key, "failed", change_status=None, diff=None, data=None,
                              credits_cost=job.credits_cost, error=result.get("error")):
            check_events.check_failed(job, key, monitor, result.get("error"))
        return
    if hand_off is not None:
        hand_off(key)  # sent first, marked after: a failure between sends it again, never loses it
        job_store.mark_part(job.job_id, CHECK_LINK_SK, HANDED_OFF)
        return
    data = result["data"]
    comparison = compare(operation, check_store.last_completed_data(key), data)
    if check_store.finish(key, "completed", change_status=comparison.change_status, diff=comparison.diff,
                          data=data, credits_cost=job.credits_cost, error=None):
        check_events.check_completed(job, key, monitor, comparison)
