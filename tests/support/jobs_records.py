"""What the jobs unit tests read on moto: a key record's caller and credits left, a queue's messages."""

from __future__ import annotations

from typing import Any

import boto3

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
