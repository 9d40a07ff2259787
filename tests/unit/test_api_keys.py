"""API keys: format, hashing, lookup by hash, listing newest first, the public record."""

from __future__ import annotations

import base64
import hashlib
import re
import time

import boto3

from webcapture.auth import api_keys
from webcapture.settings import get_settings


def test_key_format_and_entropy() -> None:
    keys = {api_keys.generate_key() for _ in range(200)}
    assert len(keys) == 200
    for key in keys:
        assert re.fullmatch(r"wc_[A-Za-z]{64}", key)


def test_hash_is_sha256_base64url_without_padding() -> None:
    key = "wc_" + "a" * 64
    expected = base64.urlsafe_b64encode(hashlib.sha256(key.encode()).digest()).decode().rstrip("=")
    assert api_keys.hash_key(key) == expected
    assert "=" not in expected and len(expected) == 43


def test_only_the_hash_is_stored_and_lookup_is_by_hash(aws_resources: None) -> None:
    key, record = api_keys.create_key("user-1", "ci", remaining=10, metadata={"team": "a", "n": 2})
    items = boto3.resource("dynamodb").Table(get_settings().api_keys_table).scan()["Items"]
    assert len(items) == 1
    assert key not in str(items)
    assert items[0]["keyHash"] == api_keys.hash_key(key)
    found = api_keys.find_by_key(key)
    assert found is not None and found.id == record.id
    assert api_keys.find_by_key(api_keys.generate_key()) is None


def test_public_record_shape(aws_resources: None) -> None:
    key, record = api_keys.create_key("user-1", "ci", remaining=10, metadata={"team": "a", "n": 2})
    public = record.public()
    assert set(public) == {"id", "name", "start", "prefix", "userId", "enabled", "requestCount", "remaining",
                           "lastRequest", "expiresAt", "createdAt", "updatedAt", "metadata"}
    assert public["start"] == key[:6] and public["prefix"] == "wc_"
    assert public["remaining"] == 10 and public["requestCount"] == 0
    assert public["lastRequest"] is None and public["expiresAt"] is None
    assert public["metadata"] == {"team": "a", "n": 2}
    assert "keyHash" not in public


def test_list_is_per_user_and_newest_first(aws_resources: None) -> None:
    ids = []
    for name in ("first", "second", "third"):
        ids.append(api_keys.create_key("user-1", name)[1].id)
        time.sleep(0.002)  # distinct createdAt milliseconds
    api_keys.create_key("user-2", "other")
    listed = api_keys.list_for_user("user-1")
    assert [r.id for r in listed] == list(reversed(ids))


def test_disable_and_delete_by_id(aws_resources: None) -> None:
    key, record = api_keys.create_key("user-1", "x")
    found = api_keys.find_by_id(record.id)
    assert found is not None
    api_keys.set_enabled(found, enabled=False)
    refreshed = api_keys.find_by_key(key)
    assert refreshed is not None and not refreshed.is_usable()
    api_keys.delete_key(refreshed)
    assert api_keys.find_by_key(key) is None


def test_expired_key_is_not_usable(aws_resources: None) -> None:
    _, record = api_keys.create_key("user-1", "old", expires_at="2020-01-01T00:00:00.000Z")
    assert not record.is_usable()
    _, fresh = api_keys.create_key("user-1", "new", expires_at="2999-01-01T00:00:00.000Z")
    assert fresh.is_usable()
