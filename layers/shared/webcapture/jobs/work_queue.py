"""The SQS messages of jobs (docs/jobs.md#jobs): one per item, on its operation's queue; webhook events on the
webhooks queue. A wait (a busy key, a webhook retry) is a new message with a delay: it survives the
function that sent it, where a sleep would not, and costs no function time."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from webcapture.aws import sqs_client
from webcapture.settings import get_settings

# SQS's longest message delay; a longer wait is made of several delayed messages.
MAX_DELAY_S = 900
_SEND_BATCH = 10  # SendMessageBatch's limit


class Queued(Protocol):
    """A message of a job's queue: its index in the job (unique in one send) and its body."""

    @property
    def index(self) -> int: ...

    def to_json(self) -> str: ...


@dataclass(frozen=True)
class ItemMessage:
    job_id: str
    index: int
    user_id: str
    key_hash: str | None
    key_id: str | None
    request: dict[str, Any]
    timeout_ms: int | None = None

    def to_json(self) -> str:
        return json.dumps(
            {
                "jobId": self.job_id,
                "index": self.index,
                "userId": self.user_id,
                "keyHash": self.key_hash,
                "keyId": self.key_id,
                "request": self.request,
                "timeoutMs": self.timeout_ms,
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> ItemMessage:
        raw = json.loads(text)
        return cls(
            job_id=str(raw["jobId"]),
            index=int(raw["index"]),
            user_id=str(raw["userId"]),
            key_hash=raw.get("keyHash"),
            key_id=raw.get("keyId"),
            request=dict(raw["request"]),
            timeout_ms=raw.get("timeoutMs"),
        )


def queue_url(operation: str) -> str:
    for name, url in get_settings().job_queues:
        if name == operation:
            return url
    raise RuntimeError(f"no work queue is configured for {operation} (JOBS_QUEUE_*_URL)")


def send_items(operation: str, messages: list[ItemMessage]) -> None:
    """Queue every item; raises if any could not be sent (after SQS's own retries of the failed ones)."""
    url, client = queue_url(operation), sqs_client()
    send_in_batches(lambda entries: client.send_message_batch(QueueUrl=url, Entries=entries), messages,
                    "item(s) of the batch")


def send_in_batches(send: Callable[[Any], Any], messages: Sequence[Queued], what: str) -> None:
    """Every message through `send` (a SendMessageBatch on the caller's queue, which the caller names so
    that its IAM grant can be read from the code), ten at a time, sending again the ones SQS refused
    (twice); raises naming `what` when some still could not be sent."""
    for start in range(0, len(messages), _SEND_BATCH):
        chunk = messages[start : start + _SEND_BATCH]
        entries = [{"Id": str(m.index), "MessageBody": m.to_json()} for m in chunk]
        for _attempt in range(3):
            answer = send(entries)
            failed = {f["Id"] for f in answer.get("Failed", [])}
            entries = [e for e in entries if e["Id"] in failed]
            if not entries:
                break
        if entries:
            raise RuntimeError(f"SQS refused {len(entries)} {what}")


def send_item_later(operation: str, body: str, delay_s: float) -> None:
    """An item back on its operation's queue (the event source of the function that runs it), delayed."""
    sqs_client().send_message(
        QueueUrl=queue_url(operation), MessageBody=body, DelaySeconds=sqs_delay(delay_s)
    )


def send_webhook_event(body: dict[str, Any], delay_s: int = 0) -> None:
    sqs_client().send_message(
        QueueUrl=get_settings().webhooks_queue,
        MessageBody=json.dumps(body, separators=(",", ":")),
        DelaySeconds=sqs_delay(delay_s),
    )


def sqs_delay(delay_s: float) -> int:
    """A delay as SQS takes it: whole seconds (rounded up), at most 15 minutes."""
    return max(0, min(math.ceil(delay_s), MAX_DELAY_S))
