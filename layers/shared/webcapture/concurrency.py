"""Per-key in-flight limit (docs/api.md#limits): at most `maxConcurrency` metered requests of one key at a
time.

Each request in flight holds a lease: an element `"<expiry epoch ms>:<requestId>"` of the string set
`leases` on the key's own item. It is taken in the same conditional UpdateItem that reserves the request's
credits (webcapture.metering): `ADD` the element if the set has fewer elements than the key allows, so
DynamoDB's per-item atomicity decides every race (two requests can never both take the last slot), and one
write, not two, stands between a request and its work. A set needs no parent attribute to exist, and
`ADD`/`DELETE` of one element are idempotent, so a botocore retry after a lost response neither takes a
second slot nor fails to free one.

Leases expire on their own: the expiry is set past the moment Lambda must have stopped the function
(its remaining time plus a margin). A container killed mid-request cannot release its lease, so when a
key looks full, the refused attempt's own view of the item (ReturnValuesOnConditionCheckFailure) names
the expired leases, which are deleted, and the attempt is made once more. Release is best effort in
every exit path; whatever it misses, expiry reclaims.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from webcapture import request_scope
from webcapture.auth.caller import Caller
from webcapture.aws import dynamodb_table
from webcapture.errors import ConcurrencyLimitExceeded
from webcapture.observability import logger
from webcapture.settings import get_settings

LEASES = "leases"
MAX_CONCURRENCY = "maxConcurrency"
# Charge markers of requests in flight (see metering): cleared with the lease that covers them.
CHARGED = "chargedRequests"
# A slot frees as soon as any of the key's requests finishes; a typical capture takes a few seconds.
RETRY_AFTER_S = 2
# Past the function's own end (Lambda has stopped it by then), so a live request never loses its slot.
LEASE_GRACE_MS = 2_000
# The condition under which a request may take a slot (`:default` from room_values()).
ROOM = (
    "attribute_exists(keyHash) AND (attribute_not_exists(leases)"
    " OR (attribute_not_exists(maxConcurrency) AND size(leases) < :default)"
    " OR size(leases) < maxConcurrency)"
)


@dataclass
class Lease:
    key_hash: str
    request_id: str
    element: str  # the set element this request added
    released: bool = False


def _table() -> Any:
    return dynamodb_table(get_settings().api_keys_table)


def _now_ms() -> int:
    return int(time.time() * 1000)


def lease_element(request_id: str, expires_ms: int) -> str:
    return f"{expires_ms}:{request_id}"


def _expiry(element: str) -> int:
    head, _, _ = element.partition(":")
    return int(head) if head.isdigit() else 0


def new_lease(caller: Caller, request_id: str) -> Lease | None:
    """The slot this request will ask for; None for callers without a key (no per-key limit)."""
    if caller.key_hash is None:
        return None  # session tokens have no key record (README, Decisions)
    expires = _now_ms() + int(max(request_scope.remaining_ms(), 0)) + request_scope.ANSWER_MARGIN_MS
    return Lease(caller.key_hash, request_id, lease_element(request_id, expires + LEASE_GRACE_MS))


def room_values() -> dict[str, Any]:
    """ROOM's placeholder, for the update that takes the slot."""
    return {":default": get_settings().default_max_concurrency}


def _held(item: dict[str, Any]) -> set[str]:
    return set(item.get(LEASES, {}).get("SS", []))


def is_full(item: dict[str, Any]) -> bool:
    """Whether ROOM fails on this view of the key's item (low-level DynamoDB form, as a refused update
    returns it)."""
    limit_field = item.get(MAX_CONCURRENCY, {}).get("N")
    limit = int(limit_field) if limit_field is not None else get_settings().default_max_concurrency
    return len(_held(item)) >= limit


def reclaim_expired(item: dict[str, Any]) -> bool:
    """Drop the leases on this view of the item that have expired (their holder is gone); False if none
    had: the key is really full."""
    expired = {element for element in _held(item) if _expiry(element) <= _now_ms()}
    if expired:
        _drop_expired(item["keyHash"]["S"], expired)
    return bool(expired)


def limit_exceeded() -> ConcurrencyLimitExceeded:
    return ConcurrencyLimitExceeded(headers={"Retry-After": str(RETRY_AFTER_S)})


def _drop_expired(key_hash: str, expired: set[str]) -> None:
    """Free slots whose holder is gone (killed container): its lease and any charge marker it left."""
    logger.warning("dropping expired concurrency leases", extra={"leases": sorted(expired)})
    markers = {element.partition(":")[2] for element in expired}
    _table().update_item(
        Key={"keyHash": key_hash},
        UpdateExpression=f"DELETE {LEASES} :expired, {CHARGED} :markers",
        ConditionExpression="attribute_exists(keyHash)",
        ExpressionAttributeValues={":expired": expired, ":markers": markers},
    )


def take(lease: Lease | None) -> None:
    """Take a slot without charging (a job's item: its batch paid at submit); 429 CONCURRENCY_LIMIT_EXCEEDED
    when the key is full, after dropping expired leases once."""
    if lease is None:
        return
    for attempt in range(2):
        try:
            _table().update_item(
                Key={"keyHash": lease.key_hash},
                UpdateExpression="ADD leases :lease",
                ConditionExpression=ROOM,
                ExpressionAttributeValues={":lease": {lease.element}, **room_values()},
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
            return
        except ClientError as error:
            if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
                raise
            item: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
            if not item or attempt or not reclaim_expired(item):
                raise limit_exceeded() from None


def release(lease: Lease | None) -> None:
    """Give the slot back (and clear the request's charge marker). Never raises: expiry is the backstop."""
    if lease is None or lease.released:
        return
    try:
        _table().update_item(
            Key={"keyHash": lease.key_hash},
            UpdateExpression=f"DELETE {LEASES} :lease, {CHARGED} :marker",
            ConditionExpression="attribute_exists(keyHash)",  # a deleted key is not brought back
            ExpressionAttributeValues={":lease": {lease.element}, ":marker": {lease.request_id}},
        )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            logger.warning("could not release a concurrency lease; it will expire",
                           extra={"lease": lease.element, "error": str(error)})
    except Exception as error:
        logger.warning("could not release a concurrency lease; it will expire",
                       extra={"lease": lease.element, "error": str(error)})
    lease.released = True
