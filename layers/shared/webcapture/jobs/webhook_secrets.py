"""Each user's webhook signing secret (docs/jobs.md#jobs): `whsec_` + base64 of 32 random bytes, made on first
use, replaced by a rotation. Kept in the jobs table without an expiry."""

from __future__ import annotations

import base64
import secrets
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_table
from webcapture.envelopes import utc_timestamp
from webcapture.settings import get_settings

PREFIX = "whsec_"
SECRET_BYTES = 32


def _table() -> Any:
    return dynamodb_table(get_settings().jobs_table)


def _key(user_id: str) -> dict[str, str]:
    return {"pk": f"webhook-secret#{user_id}", "sk": "secret"}


def new_secret() -> str:
    return PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def current_secret(user_id: str) -> str:
    """The user's secret, made now if they have none (two first calls at once agree on one)."""
    item = _table().get_item(Key=_key(user_id), ConsistentRead=True).get("Item")
    if item is not None:
        return str(item["secret"])
    secret = new_secret()
    try:
        _table().put_item(
            Item={**_key(user_id), "secret": secret, "createdAt": utc_timestamp()},
            ConditionExpression="attribute_not_exists(pk)",
        )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return current_secret(user_id)
    return secret


def rotate_secret(user_id: str) -> str:
    secret = new_secret()
    _table().put_item(Item={**_key(user_id), "secret": secret, "createdAt": utc_timestamp()})
    return secret
