"""API keys on DynamoDB (docs/api.md#authentication, docs/api.md#api-keys-list): creation, lookup by hash,
listing, and their public shape.

Only the SHA-256 of a key is stored; the key itself is shown once, by the operator CLI.
The table's partition key is that hash, so the authorizer finds a key with one GetItem.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import string
import uuid
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.conditions import Key

from webcapture.auth import refusals
from webcapture.aws import dynamodb_table
from webcapture.dynamo_values import from_dynamo, number, to_dynamo
from webcapture.envelopes import utc_timestamp
from webcapture.errors import Unauthorized
from webcapture.settings import get_settings

KEY_PREFIX = "wc_"
KEY_RANDOM_LENGTH = 64
KEY_START_LENGTH = 6
USER_INDEX = "byUser"
ID_INDEX = "byId"
_ALPHABET = string.ascii_letters


def generate_key() -> str:
    """`wc_` + 64 random letters: log2(52) * 64 is about 365 bits."""
    return KEY_PREFIX + "".join(secrets.choice(_ALPHABET) for _ in range(KEY_RANDOM_LENGTH))


def hash_key(key: str) -> str:
    """SHA-256 of the key, base64url without padding (docs/api.md#authentication)."""
    digest = hashlib.sha256(key.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def looks_like_api_key(token: str) -> bool:
    return token.startswith(KEY_PREFIX) and len(token) == len(KEY_PREFIX) + KEY_RANDOM_LENGTH


@dataclass(frozen=True)
class ApiKeyRecord:
    """One item of the ApiKeys table, as stored."""

    item: dict[str, Any]

    @property
    def key_hash(self) -> str:
        return str(self.item["keyHash"])

    @property
    def id(self) -> str:
        return str(self.item["id"])

    @property
    def user_id(self) -> str:
        return str(self.item["userId"])

    @property
    def max_concurrency(self) -> int:
        """Requests of this key allowed in flight at once (docs/api.md#limits); the default when unset."""
        value = self.item.get("maxConcurrency")
        return int(value) if value is not None else get_settings().default_max_concurrency

    def is_usable(self, now_iso: str | None = None) -> bool:
        return bool(self.item.get("enabled")) and not self.has_expired(now_iso)

    def has_expired(self, now_iso: str | None = None) -> bool:
        expires = self.item.get("expiresAt")
        return expires is not None and str(expires) <= (now_iso or utc_timestamp())

    def refusal(self, now_iso: str | None = None) -> Unauthorized | None:
        """Why this key cannot be used, or None. A disabled key reads as not valid, like an unknown one;
        only an enabled key is told it has expired."""
        if not self.item.get("enabled"):
            return refusals.key_refused(expired=False)
        return refusals.key_refused(expired=True) if self.has_expired(now_iso) else None

    def public(self) -> dict[str, Any]:
        """The record as `data.apiKeys[]` shows it (spec 2.7): never the hash or the key."""
        item = self.item
        return {
            "id": item["id"],
            "name": item.get("name", ""),
            "start": item.get("start", ""),
            "prefix": item.get("prefix", KEY_PREFIX),
            "userId": item["userId"],
            "enabled": bool(item.get("enabled")),
            "requestCount": number(item.get("requestCount", 0)),
            "remaining": number(item["remaining"]) if item.get("remaining") is not None else None,
            "lastRequest": item.get("lastRequest"),
            "expiresAt": item.get("expiresAt"),
            "createdAt": item["createdAt"],
            "updatedAt": item.get("updatedAt", item["createdAt"]),
            "metadata": from_dynamo(item.get("metadata") or {}),
        }


def _table() -> Any:
    return dynamodb_table(get_settings().api_keys_table)


def create_key(
    user_id: str,
    name: str,
    *,
    remaining: int | None = None,
    expires_at: str | None = None,
    metadata: dict[str, Any] | None = None,
    max_concurrency: int | None = None,
    key: str | None = None,
) -> tuple[str, ApiKeyRecord]:
    """A new key and its stored record; the key itself is returned here and nowhere else. `key`: store this
    key instead of a new random one (the local API's demo key, kept across restarts)."""
    if key is not None and not looks_like_api_key(key):
        raise ValueError(f"an API key is {KEY_PREFIX} and {KEY_RANDOM_LENGTH} letters")
    key = key or generate_key()
    now = utc_timestamp()
    item: dict[str, Any] = {
        "keyHash": hash_key(key),
        "id": str(uuid.uuid4()),
        "name": name,
        "start": key[:KEY_START_LENGTH],
        "prefix": KEY_PREFIX,
        "userId": user_id,
        "enabled": True,
        "requestCount": 0,
        "createdAt": now,
        "updatedAt": now,
        "metadata": to_dynamo(metadata or {}),
    }
    if remaining is not None:
        item["remaining"] = remaining
    if expires_at is not None:
        item["expiresAt"] = expires_at
    if max_concurrency is not None:
        item["maxConcurrency"] = max_concurrency
    _table().put_item(Item=item, ConditionExpression="attribute_not_exists(keyHash)")
    return key, ApiKeyRecord(item)


def get_by_hash(key_hash: str) -> ApiKeyRecord | None:
    item = _table().get_item(Key={"keyHash": key_hash}).get("Item")
    return ApiKeyRecord(item) if item else None


def find_by_key(key: str) -> ApiKeyRecord | None:
    return get_by_hash(hash_key(key))


def list_for_user(user_id: str) -> list[ApiKeyRecord]:
    """The user's keys, newest first: a query on the userId index, never a scan."""
    records: list[ApiKeyRecord] = []
    query: dict[str, Any] = {
        "IndexName": USER_INDEX,
        "KeyConditionExpression": Key("userId").eq(user_id),
        "ScanIndexForward": False,
    }
    while True:
        page = _table().query(**query)
        records.extend(ApiKeyRecord(item) for item in page.get("Items", []))
        if "LastEvaluatedKey" not in page:
            return records
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def find_by_id(key_id: str) -> ApiKeyRecord | None:
    page = _table().query(IndexName=ID_INDEX, KeyConditionExpression=Key("id").eq(key_id))
    items = page.get("Items", [])
    return get_by_hash(items[0]["keyHash"]) if items else None


def set_enabled(record: ApiKeyRecord, enabled: bool) -> None:
    _table().update_item(
        Key={"keyHash": record.key_hash},
        UpdateExpression="SET enabled = :enabled, updatedAt = :now",
        ExpressionAttributeValues={":enabled": enabled, ":now": utc_timestamp()},
        ConditionExpression="attribute_exists(keyHash)",
    )


def update_limits(record: ApiKeyRecord, *, remaining: int | None = None,
                  max_concurrency: int | None = None) -> ApiKeyRecord:
    """Set the key's credits and/or in-flight limit (operator CLI); returns the record as stored now."""
    assignments = ["updatedAt = :now"]
    values: dict[str, Any] = {":now": utc_timestamp()}
    if remaining is not None:
        assignments.append("remaining = :remaining")
        values[":remaining"] = remaining
    if max_concurrency is not None:
        assignments.append("maxConcurrency = :max")
        values[":max"] = max_concurrency
    answer = _table().update_item(
        Key={"keyHash": record.key_hash},
        UpdateExpression="SET " + ", ".join(assignments),
        ExpressionAttributeValues=values,
        ConditionExpression="attribute_exists(keyHash)",
        ReturnValues="ALL_NEW",
    )
    return ApiKeyRecord(answer["Attributes"])


def delete_key(record: ApiKeyRecord) -> None:
    _table().delete_item(Key={"keyHash": record.key_hash})
