"""What the jobs unit tests read and run on moto: a key record's caller and credits left, a queue's messages,
an SQS event of them, a runner that records the items it ran, and text a result keeps large."""

from __future__ import annotations

import base64
import random
import threading
from typing import Any

import boto3

from webcapture import metering
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller


def caller_of(record: api_keys.ApiKeyRecord) -> Caller:
    return Caller(user_id=record.user_id, kind="api_key", key_id=record.id, key_hash=record.key_hash)


def remaining(record: api_keys.ApiKeyRecord) -> int | None:
    fresh = api_keys.get_by_hash(record.key_hash)
    assert fresh is not None
    value = fresh.public()["remaining"]
    return None if value is None else int(str(value))


def receive_all(url: str) -> list[dict[str, Any]]:
    sqs = boto3.client("sqs")
    got: list[dict[str, Any]] = []
    while True:
        answer = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"])
        messages = answer.get("Messages", [])
        if not messages:
            return got
        got.extend(dict(message) for message in messages)


class Runs:
    """A runner that records what it ran (and may fail, or take its time)."""

    def __init__(self, fail: type[Exception] | None = None, hold: threading.Event | None = None) -> None:
        self.urls: list[str] = []
        self.fail, self.hold = fail, hold
        self.lock = threading.Lock()

    def __call__(self, caller: Any, request: Any) -> dict[str, Any]:
        with metering.metered(caller, 1):  # as every operation does: a slot of the key, no charge here
            with self.lock:
                self.urls.append(request.url)
            if self.hold is not None:
                self.hold.wait(10)
            if self.fail is not None:
                raise self.fail("the page failed")
            return {"links": [], "url": request.url}


def event_of(messages: list[dict[str, Any]], queue: str = "webcapture-local-LinksJobsQueue") -> dict[str, Any]:
    return {"Records": [{"messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
                         "attributes": m.get("Attributes", {"ApproximateReceiveCount": "1"}),
                         "eventSource": "aws:sqs",
                         "eventSourceARN": f"arn:aws:sqs:us-east-1:123456789012:{queue}"} for m in messages]}


def incompressible(chars: int, seed: int) -> str:
    """Text zlib shrinks only to about 3/4 (base64 of random bytes): a result that stays large in its item
    (webcapture.jobs.result_bodies)."""
    return base64.b64encode(random.Random(seed).randbytes(chars * 3 // 4 + 3)).decode()[:chars]
