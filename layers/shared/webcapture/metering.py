"""Credit metering (docs/api.md#credits): one atomic conditional update reserves the cost; failures refund it.

The condition does the whole check (key exists, enabled, not expired, enough credits, and a free
concurrency slot: webcapture.concurrency) in DynamoDB, so concurrent requests can never spend more than
`remaining` nor hold more than `maxConcurrency` slots. Slot and charge are one write because every write
is a round trip on each request's path (about 5 ms to DynamoDB, more to the local emulator).

Both writes are idempotent per request: botocore retries an UpdateItem whose answer was lost, and a plain
`remaining - :cost` would then charge twice (or refund twice). The reservation adds the request id to the
key's `chargedRequests` string set under the condition that it is not there yet; the refund removes it
under the condition that it is. A retry of either therefore fails its condition, and the item the failure
returns shows the first attempt went through. The marker is cleared when the request's concurrency lease
is released (or expires), so the set only ever holds requests in flight.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from boto3.dynamodb.types import TypeSerializer
from botocore.exceptions import BotoCoreError, ClientError

from webcapture import concurrency, request_scope
from webcapture.auth import refusals
from webcapture.auth.api_keys import ApiKeyRecord
from webcapture.auth.caller import Caller
from webcapture.aws import dynamodb_table
from webcapture.concurrency import Lease
from webcapture.envelopes import utc_timestamp
from webcapture.errors import ApiError, NavigationTimeout, UsageExceeded
from webcapture.observability import logger, metrics
from webcapture.settings import get_settings

_USABLE = (
    "attribute_exists(keyHash) AND enabled = :true"
    " AND (attribute_not_exists(expiresAt) OR expiresAt > :now)"
)
_COUNT = "SET requestCount = if_not_exists(requestCount, :zero) + :one, lastRequest = :now"
# A request counted before its reservation (count_request, beside a cache lookup) is not counted again.
_COUNTED_AHEAD = "SET lastRequest = :now"
_NOT_YET_CHARGED = f" AND NOT contains({concurrency.CHARGED}, :request)"
_MARK = f" ADD {concurrency.CHARGED} :marker"


# Set while a job's item runs (webcapture.jobs.item_worker): its credits were reserved with its whole batch
# at submit, so `metered` only takes the key's concurrency slot (docs/jobs.md#jobs: maxConcurrency spans sync
# and async work) and refunds nothing itself; the job's own transaction does.
_prepaid: ContextVar[bool] = ContextVar("webcapture_prepaid", default=False)


@contextmanager
def prepaid() -> Iterator[None]:
    token = _prepaid.set(True)
    try:
        yield
    finally:
        _prepaid.reset(token)


# Whether this request has been counted yet (by a reservation); see count_request.
_counted: ContextVar[bool] = ContextVar("webcapture_request_counted", default=False)
# The request id that count_request counted ahead of its reservation: that reservation leaves the count
# out. An id, not a flag, so that nothing carries over to another request.
_counted_ahead: ContextVar[str | None] = ContextVar("webcapture_counted_ahead", default=None)


@dataclass
class Reservation:
    key_hash: str | None
    cost: int
    charged: bool  # False for session tokens and for keys without a credit limit
    refunded: bool = False
    request_id: str = ""


def _table() -> Any:
    return dynamodb_table(get_settings().api_keys_table)


def key_charge(
    cost: int, *, limited: bool, now: str, counted: bool = False
) -> tuple[str, str, dict[str, Any]]:
    """The update of a key record that counts a request (unless it was `counted` already) and, for a key
    with a credit limit, takes `cost` credits: its UpdateExpression, ConditionExpression (a usable key that
    can pay) and values. Shared by a request's reservation and a job's, which writes it in its own
    transaction."""
    values: dict[str, Any] = {":true": True, ":now": now}
    expression = _COUNTED_AHEAD if counted else _COUNT
    if not counted:
        values.update({":zero": 0, ":one": 1})
    if limited:
        values[":cost"] = cost
        return expression + ", remaining = remaining - :cost", _USABLE + " AND remaining >= :cost", values
    # No limit: no `remaining`, or one set to NULL (docs/api.md#credits: null means unlimited).
    values[":null"] = "NULL"
    condition = _USABLE + " AND (attribute_not_exists(remaining) OR attribute_type(remaining, :null))"
    return expression, condition, values


def key_refund_write(key_hash: str, credits: int) -> dict[str, Any]:
    """The transaction item (low-level, for transact_write_items) that gives `credits` back to a key with a
    credit limit, written in the transaction that records what they pay back: a job item's failure, a
    cancelled job's unstarted items, a crawl's unused reservation. Its condition fails when the key was
    deleted or lost its limit (nothing to give back to): the caller then writes the rest without it."""
    serialize = TypeSerializer().serialize
    return {"Update": {
        "TableName": get_settings().api_keys_table,
        "Key": {"keyHash": serialize(key_hash)},
        "UpdateExpression": "SET remaining = remaining + :credits",
        "ConditionExpression": "attribute_exists(keyHash) AND attribute_type(remaining, :number)",
        "ExpressionAttributeValues": {":credits": serialize(credits), ":number": serialize("N")},
    }}

def _update(key_hash: str, cost: int, *, limited: bool, now: str, request_id: str,
            lease: Lease | None) -> None:
    counted = request_id == _counted_ahead.get()
    expression, condition, values = key_charge(cost, limited=limited, now=now, counted=counted)
    values.update({":request": request_id, ":marker": {request_id}})
    expression += _MARK
    condition += _NOT_YET_CHARGED
    if lease is not None:
        expression += ", leases :lease"
        condition += " AND " + concurrency.ROOM
        values.update({":lease": {lease.element}, **concurrency.room_values()})
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


def _marked(item: dict[str, Any], request_id: str) -> bool:
    return request_id in item.get(concurrency.CHARGED, {}).get("SS", [])


def reserve(
    caller: Caller, cost: int, request_id: str | None = None, lease: Lease | None = None
) -> Reservation:
    """Charge `cost` credits to the caller's key, count the request and, given a lease
    (concurrency.new_lease), take its slot, all in one write; 401, or 429 (a full key, before credits)
    when it can't.

    Charging twice with one `request_id` charges once (a retried write whose first answer was lost).
    """
    request_id = request_id or str(uuid.uuid4())
    if caller.key_hash is None:
        return Reservation(key_hash=None, cost=cost, charged=False, request_id=request_id)
    now = utc_timestamp()
    limited = caller.limited
    # A second try after a stale limit hint, and after dropping a killed container's expired leases. What
    # the last refused attempt found is the answer when the tries run out.
    refusal: ApiError = UsageExceeded()
    for _attempt in range(3):
        try:
            _update(caller.key_hash, cost, limited=limited, now=now, request_id=request_id, lease=lease)
            _counted.set(True)
            return Reservation(key_hash=caller.key_hash, cost=cost, charged=limited, request_id=request_id)
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            item: dict[str, Any] | None = error.response.get("Item")  # type: ignore[assignment]
            if not item:
                raise refusals.key_refused(expired=False) from None
            if _marked(item, request_id):
                # Already charged for this request (and its slot taken, in the same write): the first write
                # went through, its answer was lost.
                _counted.set(True)
                charged = _from_wire(item).get("remaining") is not None
                return Reservation(caller.key_hash, cost, charged=charged, request_id=request_id)
            record = ApiKeyRecord(_from_wire(item))
            key_refusal = record.refusal(now)
            if key_refusal is not None:
                raise key_refusal from None
            if lease is not None and concurrency.is_full(item):
                refusal = concurrency.limit_exceeded()
                if not concurrency.reclaim_expired(item):
                    raise refusal from None
                continue  # a killed container's slots were freed
            has_limit = record.item.get("remaining") is not None
            refusal = UsageExceeded()
            if has_limit == limited:
                raise refusal from None
            # The authorizer's hint was stale: the key's limit was added or removed since; try the other form.
            limited = has_limit
    raise refusal


def refund(reservation: Reservation) -> None:
    """Give the credits back, once: a second refund of the same request changes nothing."""
    if not reservation.charged or reservation.refunded or reservation.cost == 0 or not reservation.key_hash:
        return
    try:
        _table().update_item(
            Key={"keyHash": reservation.key_hash},
            UpdateExpression=f"SET remaining = remaining + :cost DELETE {concurrency.CHARGED} :marker",
            ConditionExpression=f"attribute_exists(remaining) AND contains({concurrency.CHARGED}, :request)",
            ExpressionAttributeValues={":cost": reservation.cost, ":request": reservation.request_id,
                                       ":marker": {reservation.request_id}},
        )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        # Refunded already (a retried write whose first answer was lost), or the key lost its limit.
    reservation.refunded = True


def _refund_quietly(reservation: Reservation) -> None:
    """Refund; a refund that fails is logged and counted, never allowed to replace the request's answer."""
    try:
        refund(reservation)
    except Exception:
        logger.exception("credit refund failed", extra={"keyHash": reservation.key_hash,
                                                        "requestId": reservation.request_id,
                                                        "cost": reservation.cost})
        metrics.add_metric(name="RefundFailed", unit="Count", value=1)


@contextmanager
def metered(caller: Caller, cost: int) -> Iterator[Reservation]:
    """Hold a concurrency slot (not for a free read) and reserve before the work; give the credits back if
    the work fails in any way, or if API Gateway gave up on the request meanwhile (the caller got its 504).
    The slot is released on every way out."""
    request_id = request_scope.request_id() or str(uuid.uuid4())
    if request_scope.remaining_ms() <= 0:
        raise NavigationTimeout("The request's time budget was spent before the work could start")
    # Free reads (cost 0: keys list, secrets, file deletes) take no slot: the key's maxConcurrency bounds
    # browser work, and a user whose job holds every slot must still see their credits (docs/jobs.md#credits).
    lease = concurrency.new_lease(caller, request_id) if cost > 0 else None
    if _prepaid.get():
        concurrency.take(lease)
        try:
            yield Reservation(caller.key_hash, cost, charged=False, request_id=request_id)
        finally:
            concurrency.release(lease)
        return
    try:
        reservation = reserve(caller, cost, request_id, lease)
    except (BotoCoreError, ClientError):
        # AWS failed after botocore's retries; one of them may have gone through with its answer lost. The
        # refund only applies if this request's charge marker is there, so it gives back exactly that charge;
        # then the slot the same write took. (A refusal, 401 or 429, changed nothing: nothing to give back.)
        _refund_quietly(Reservation(caller.key_hash, cost, charged=True, request_id=request_id))
        concurrency.release(lease)
        raise
    try:
        try:
            yield reservation
        except BaseException as failure:
            # An error marked not refundable is work done (a model that answered, twice, off-format).
            if getattr(failure, "refundable", True):
                _refund_quietly(reservation)
            raise
        if request_scope.gateway_gave_up():
            logger.warning("finished after API Gateway's timeout; the caller got a 504, refunding")
            _refund_quietly(reservation)
    finally:
        concurrency.release(lease)


def start_request() -> None:
    _counted.set(False)


def count_request(caller: Caller) -> bool:
    """Count a request that failed before any reservation (docs/api.md#credits: every authenticated request),
    or one whose cache lookup runs beside the count: its reservation, on a miss, then leaves the count out.

    False when the key is no longer usable (disabled, expired or deleted since the authorizer, or the link's
    signer, vouched for it): a cache hit, which reserves nothing, learns it here, from the write it makes
    anyway. A disabled key's request is then not counted."""
    if caller.key_hash is None or _counted.get():
        return True
    _counted.set(True)
    _counted_ahead.set(request_scope.request_id())
    now = utc_timestamp()
    try:
        _table().update_item(
            Key={"keyHash": caller.key_hash},
            UpdateExpression=_COUNT,
            ConditionExpression=_USABLE,
            ExpressionAttributeValues={":zero": 0, ":one": 1, ":now": now, ":true": True},
        )
    except ClientError as error:
        # Counting must never turn a 4xx answer into a 500; a refused condition is the key's state.
        return error.response["Error"]["Code"] != "ConditionalCheckFailedException"
    return True
