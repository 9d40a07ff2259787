"""Each user's signing secret (docs/cache-and-signed-links.md#cache-and-signed-links), one item per user in
the signing-secrets table.

The item also names the API key that fetched or rotated the secret: a signed link has no key of its own,
so its screenshots are charged to that key (none for a session token: not metered, as its requests).
The secret is kept as it is, not hashed: verifying an HMAC needs it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_table
from webcapture.envelopes import utc_timestamp
from webcapture.settings import get_settings

SECRET_PREFIX = "wcs_"  # noqa: S105 - what every secret starts with, for recognising one


@dataclass(frozen=True)
class SigningRecord:
    user_id: str
    secret: str
    key_hash: str | None  # charged for the user's signed links

    def public(self) -> dict[str, str]:
        return {"secret": self.secret, "userId": self.user_id}


def _table() -> Any:
    return dynamodb_table(get_settings().signing_secrets_table)


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)  # 256 bits


def _record(item: dict[str, Any]) -> SigningRecord:
    key_hash = item.get("keyHash")
    return SigningRecord(user_id=str(item["userId"]), secret=str(item["secret"]),
                         key_hash=str(key_hash) if key_hash else None)


def find(user_id: str) -> SigningRecord | None:
    item = _table().get_item(Key={"userId": user_id}).get("Item")
    return _record(item) if item else None


def _item(user_id: str, key_hash: str | None) -> dict[str, Any]:
    item = {"userId": user_id, "secret": new_secret(), "updatedAt": utc_timestamp()}
    return {**item, "keyHash": key_hash} if key_hash else item


def get_or_create(user_id: str, key_hash: str | None) -> SigningRecord:
    """The user's secret, made on first use. Two first uses at once agree on one secret. The key asking is
    from now on the one the user's links are charged to (the last key that fetched the secret, as the
    docs say): another key of the user, disabled later, then does not break the links."""
    item = _table().get_item(Key={"userId": user_id}, ConsistentRead=True).get("Item")
    if item:
        if item.get("keyHash") != key_hash:
            item = _charge_to(user_id, key_hash) or item
        return _record(item)
    fresh = _item(user_id, key_hash)
    try:
        _table().put_item(Item=fresh, ConditionExpression="attribute_not_exists(userId)")
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        item = _table().get_item(Key={"userId": user_id}, ConsistentRead=True).get("Item")
        if item:
            return _record(item)
        raise
    return _record(fresh)


def _charge_to(user_id: str, key_hash: str | None) -> dict[str, Any] | None:
    """Make `key_hash` (None: a session, not metered) the key the user's links are charged to; the secret
    stays. The updated item, or None when the item went away meanwhile."""
    update = "SET keyHash = :key, updatedAt = :now" if key_hash else "REMOVE keyHash SET updatedAt = :now"
    values: dict[str, Any] = {":now": utc_timestamp(), **({":key": key_hash} if key_hash else {})}
    try:
        answer = _table().update_item(Key={"userId": user_id}, UpdateExpression=update,
                                      ConditionExpression="attribute_exists(userId)",
                                      ExpressionAttributeValues=values, ReturnValues="ALL_NEW")
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return None
    attributes: dict[str, Any] = answer["Attributes"]
    return attributes


def rotate(user_id: str, key_hash: str | None) -> SigningRecord:
    """A new secret; every link signed with the old one stops working at once."""
    fresh = _item(user_id, key_hash)
    _table().put_item(Item=fresh)
    return _record(fresh)
