"""A crawl's shared state in the jobs table (partition `pk = job#<jobId>`), for workers that never talk to
each other: which URLs were found, and how busy each host is.

- `sk = url#<sha256 of the canonical URL>`: written once, with a condition that it is not there yet. The
  worker whose write succeeds enqueues the page; every other discovery of that URL (from another page,
  another worker, a message delivered twice) fails the condition and enqueues nothing. So each canonical
  URL is crawled at most once, and the count of such items is the crawl's size, which `limit` caps
  (`claim_url` refuses beyond it, in the same conditional write on the job's counter).
- `sk = host#<host>`: the host's pages loading now (a set of `<expiry ms>:<lease>` elements, so a
  worker killed mid-page frees its slot when the lease expires) and when the next may start
  (`nextStartMs`), taken and released with conditional updates following site.host_pace's rules.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from webcapture.site.host_pace import MIN_WAIT_S, HostPace

JOB_SK = "job"


def job_pk(job_id: str) -> str:
    return f"job#{job_id}"


def url_sk(canonical: str) -> str:
    return "url#" + hashlib.sha256(canonical.encode()).hexdigest()


def _failed_condition(error: ClientError) -> bool:
    code: str = error.response["Error"]["Code"]
    return code == "ConditionalCheckFailedException" or (
        code == "TransactionCanceledException"
        and any(reason.get("Code") == "ConditionalCheckFailed"
                for reason in error.response.get("CancellationReasons", []))
    )


def claim_url(client: Any, table_name: str, job_id: str, canonical: str, depth: int, limit: int,
              ttl: int) -> bool:
    """Record a discovered URL, once, within `limit`: True when this call recorded it (enqueue it then),
    False when it was found before or the crawl is full. One transaction: the URL's item (absent before)
    and the job's `discovered` counter (below `limit`)."""
    try:
        client.transact_write_items(TransactItems=[
            {"Put": {
                "TableName": table_name,
                "Item": {"pk": {"S": job_pk(job_id)}, "sk": {"S": url_sk(canonical)},
                         "url": {"S": canonical}, "depth": {"N": str(depth)}, "ttl": {"N": str(ttl)}},
                "ConditionExpression": "attribute_not_exists(pk)",
            }},
            {"Update": {
                "TableName": table_name,
                "Key": {"pk": {"S": job_pk(job_id)}, "sk": {"S": JOB_SK}},
                "UpdateExpression": "ADD discovered :one",
                "ConditionExpression": "attribute_exists(pk) AND (attribute_not_exists(discovered)"
                                       " OR discovered < :limit)",
                "ExpressionAttributeValues": {":one": {"N": "1"}, ":limit": {"N": str(limit)}},
            }},
        ])
    except ClientError as error:
        if _failed_condition(error):
            return False
        raise
    return True


@dataclass
class HostLease:
    host: str
    element: str


def _now_ms() -> int:
    return int(time.time() * 1000)


def enter_host(table: Any, job_id: str, host: str, pace: HostPace, lease_s: float) -> HostLease | float:
    """Take a slot of `host` for one page: the lease, or the seconds to wait before asking again."""
    now = _now_ms()
    element = f"{now + int(lease_s * 1000)}:{uuid.uuid4()}"
    try:
        table.update_item(
            Key={"pk": job_pk(job_id), "sk": f"host#{host}"},
            UpdateExpression="ADD leases :lease SET nextStartMs = :next",
            ConditionExpression="(attribute_not_exists(leases) OR size(leases) < :max)"
                                " AND (attribute_not_exists(nextStartMs) OR nextStartMs <= :now)",
            ExpressionAttributeValues={":lease": {element}, ":max": pace.max_concurrency, ":now": now,
                                       ":next": now + int(pace.delay_s * 1000)},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except ClientError as error:
        if not _failed_condition(error):
            raise
        item: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
        return _wait_s(table, job_id, host, item, pace, now)
    return HostLease(host, element)


def _wait_s(table: Any, job_id: str, host: str, item: dict[str, Any], pace: HostPace, now: int) -> float:
    next_start = int(item.get("nextStartMs", {}).get("N", "0"))
    if next_start > now:
        return max((next_start - now) / 1000, MIN_WAIT_S)
    held = set(item.get("leases", {}).get("SS", []))
    expired = {element for element in held if int(element.partition(":")[0]) <= now}
    if expired:  # a worker killed mid-page: its slot is free again
        table.update_item(Key={"pk": job_pk(job_id), "sk": f"host#{host}"},
                          UpdateExpression="DELETE leases :expired",
                          ExpressionAttributeValues={":expired": expired})
        return 0.0
    return max(pace.delay_s, MIN_WAIT_S)


def leave_host(table: Any, job_id: str, lease: HostLease) -> None:
    """Free the slot (idempotent: deleting an element that is gone changes nothing)."""
    table.update_item(Key={"pk": job_pk(job_id), "sk": f"host#{lease.host}"},
                      UpdateExpression="DELETE leases :lease",
                      ExpressionAttributeValues={":lease": {lease.element}})
