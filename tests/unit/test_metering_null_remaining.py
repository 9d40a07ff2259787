"""A key whose `remaining` is stored as NULL is unlimited (docs/api.md#credits), like one without the
attribute."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from webcapture import metering
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.settings import get_settings


def key_with_null_remaining() -> tuple[str, api_keys.ApiKeyRecord]:
    key, record = api_keys.create_key("user-1", "k", remaining=5)
    boto3.resource("dynamodb").Table(get_settings().api_keys_table).update_item(
        Key={"keyHash": record.key_hash}, UpdateExpression="SET remaining = :null",
        ExpressionAttributeValues={":null": None})
    return key, record


def stored(record: api_keys.ApiKeyRecord) -> dict[str, Any]:
    table = boto3.resource("dynamodb").Table(get_settings().api_keys_table)
    return dict(table.get_item(Key={"keyHash": record.key_hash}, ConsistentRead=True)["Item"])


@pytest.mark.parametrize("limited_hint", [False, True])  # the authorizer's hint, possibly stale
def test_null_remaining_is_unlimited(aws_resources: None, limited_hint: bool) -> None:
    key, record = key_with_null_remaining()
    caller = Caller(user_id="user-1", kind="api_key", key_id=record.id, key_hash=record.key_hash,
                    limited=limited_hint)
    for _ in range(3):
        with metering.metered(caller, 5) as reservation:
            assert reservation.charged is False
    item = stored(record)
    assert "remaining" in item and item["remaining"] is None  # still NULL: nothing was taken
    assert item["requestCount"] == 3
    found = api_keys.find_by_key(key)
    assert found is not None and found.public()["remaining"] is None
