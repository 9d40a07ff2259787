"""Credit metering (CONTRACT 3): one atomic conditional update reserves the cost; failures refund it.

The condition does the whole check (key exists, enabled, not expired, enough credits) in DynamoDB, so
concurrent requests can never spend more than `remaining`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from webcapture.auth.api_keys import ApiKeyRecord
from webcapture.auth.caller import Caller
from webcapture.aws import dynamodb_table
from webcapture.envelopes import utc_timestamp
from webcapture.errors import Unauthorized, UsageExceeded
from webcapture.settings import get_settings

_USABLE = (
    "attribute_exists(keyHash) AND enabled = :true"
    " AND (attribute_not_exists(expiresAt) OR expiresAt > :now)"
)
_COUNT = "SET requestCount = if_not_exists(requestCount, :zero) + :one, lastRequest = :now"


# Whether this request has been counted yet (by a reservation); see count_request.
_counted: ContextVar[bool] = ContextVar("webcapture_request_counted", default=False)


@dataclass
class Reservation:
    key_hash: str | None
    cost: int
    charged: bool  # False for session tokens and for keys without a credit limit
    refunded: bool = False


def _table() -> Any:
    return dynamodb_table(get_settings().api_keys_table)


def _update(key_hash: str, cost: int, *, limited: bool, now: str) -> None:
    values: dict[str, Any] = {":true": True, ":now": now, ":zero": 0, ":one": 1}
    if limited:
        expression = _COUNT + ", remaining = remaining - :cost"
        condition = _USABLE + " AND remaining >= :cost"
        values[":cost"] = cost
    else:
        # No limit: no `remaining`, or one set to NULL (CONTRACT 3: null means unlimited).
        expression = _COUNT
        condition = _USABLE + " AND (attribute_not_exists(remaining) OR attribute_type(remaining, :null))"
        values[":null"] = "NULL"
    _table().update_item(
        Key={"keyHash": key_hash},
        UpdateExpression=expression,
        ConditionExpression=condition,
        ExpressionAttributeValues=values,
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )


def _from_wire(item: dict[str, Any]) -> dict[str, Any]:
    """A low-level DynamoDB item ({"S": ...}) as plain values (only the fields we read)."""
    plain: dict[str, Any] = {}
    for name, typed in item.items():
        ((kind, value),) = typed.items()
        plain[name] = None if kind == "NULL" else int(value) if kind == "N" else value
    return plain


def reserve(caller: Caller, cost: int) -> Reservation:
    """Charge `cost` credits to the caller's key and count the request; 401 or 429 when it can't."""
    if caller.key_hash is None:
        return Reservation(key_hash=None, cost=cost, charged=False)
    now = utc_timestamp()
    limited = caller.limited
    for _attempt in range(2):
        try:
            _update(caller.key_hash, cost, limited=limited, now=now)
            _counted.set(True)
            return Reservation(key_hash=caller.key_hash, cost=cost, charged=limited)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            item: dict[str, Any] | None = error.response.get("Item")  # type: ignore[assignment]
            if not item:
                raise Unauthorized("Authentication required. The API key is unknown.") from None
            record = ApiKeyRecord(_from_wire(item))
            if not record.is_usable(now):
                raise Unauthorized("Authentication required. The API key is disabled or expired.") from None
            has_limit = record.item.get("remaining") is not None
            if has_limit == limited:
                raise UsageExceeded() from None
            # The authorizer's hint was stale: the key's limit was added or removed since; try the other form.
            limited = has_limit
    raise UsageExceeded()


def refund(reservation: Reservation) -> None:
    if not reservation.charged or reservation.refunded or reservation.cost == 0 or not reservation.key_hash:
        return
    _table().update_item(
        Key={"keyHash": reservation.key_hash},
        UpdateExpression="SET remaining = remaining + :cost",
        ConditionExpression="attribute_exists(remaining)",
        ExpressionAttributeValues={":cost": reservation.cost},
    )
    reservation.refunded = True


@contextmanager
def metered(caller: Caller, cost: int) -> Iterator[Reservation]:
    """Reserve before the work; give the credits back if the work fails in any way."""
    reservation = reserve(caller, cost)
    try:
        yield reservation
    except BaseException:
        refund(reservation)
        raise


def start_request() -> None:
    _counted.set(False)


def count_request(caller: Caller) -> None:
    """Count a request that failed before any reservation (CONTRACT 3: every authenticated request)."""
    if caller.key_hash is None or _counted.get():
        return
    _counted.set(True)
    now = utc_timestamp()
    # Counting must never turn a 4xx answer into a 500.
    with suppress(ClientError):
        _table().update_item(
            Key={"keyHash": caller.key_hash},
            UpdateExpression=_COUNT,
            ConditionExpression="attribute_exists(keyHash)",
            ExpressionAttributeValues={":zero": 0, ":one": 1, ":now": now},
        )
