"""A crawl's shared state in the jobs table (partition `pk = job#<jobId>`), for workers that never talk to
each other: which URLs were found, and how busy each host is.

- `sk = url#<sha256 of the canonical URL>`: written once, with a condition that it is not there yet, and
  the page's result index. The worker whose write succeeds enqueues the page; every other discovery of
  that URL (from another page, another worker, a message delivered twice) fails the condition and
  enqueues nothing. So each canonical URL is crawled at most once, and the count of such items is the
  job's `total`, which `limit` caps (`claim_urls` moves it in the same transaction).
- `sk = host#<host>`: the host's pages loading now (a set of `<expiry ms>:<lease>` elements, so a
  worker killed mid-page frees its slot when the lease expires) and when the next may start
  (`nextStartMs`), taken and released with conditional updates following site.host_pace's rules.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_client, dynamodb_table
from webcapture.settings import get_settings
from webcapture.site.host_pace import MIN_WAIT_S, HostPace

JOB_SK = "job"


def _table_name() -> str:
    return get_settings().jobs_table


def _table() -> Any:
    return dynamodb_table(get_settings().jobs_table)


def job_pk(job_id: str) -> str:
    return f"job#{job_id}"


def url_sk(canonical: str) -> str:
    return "url#" + hashlib.sha256(canonical.encode()).hexdigest()


def failed_condition(error: ClientError) -> bool:
    code: str = error.response["Error"]["Code"]
    return code == "ConditionalCheckFailedException" or (
        code == "TransactionCanceledException"
        and any(reason.get("Code") == "ConditionalCheckFailed"
                for reason in error.response.get("CancellationReasons", []))
    )


# DynamoDB's limit on the items of one transaction; one of them is the job's counter.
_MAX_TRANSACTION_ITEMS = 100
_BATCH_GET_KEYS = 100
# Claims lost to other workers' (the job's counter moved) before this worker gives up and is retried.
_MAX_ATTEMPTS = 50
_TAKING_PAGES = ("queued", "running")


@dataclass(frozen=True)
class Claimed:
    """A page this worker recorded: its result's index, and the message it must enqueue."""

    index: int
    url: str
    depth: int
    parent: int = field(default=-1, compare=False)  # the page that found it


def _job_total(job_id: str) -> int | None:
    """The crawl's pages so far; None when it is gone or takes no more (cancelling, ended)."""
    item = dynamodb_client().get_item(
        TableName=_table_name(), Key={"pk": {"S": job_pk(job_id)}, "sk": {"S": JOB_SK}}, ConsistentRead=True,
        ProjectionExpression="#t, #st", ExpressionAttributeNames={"#t": "total", "#st": "status"}).get("Item")
    if item is None or item.get("status", {}).get("S") not in _TAKING_PAGES:
        return None
    return int(item.get("total", {}).get("N", "0"))


def _known(job_id: str, urls: list[str]) -> set[str]:
    """The URLs among these recorded before (one read per 100; what DynamoDB leaves unread counts as new,
    and the claim's own condition still keeps it to one)."""
    known: set[str] = set()
    table_name = _table_name()
    by_key = {url_sk(url): url for url in urls}
    keys = list(by_key)
    for start in range(0, len(keys), _BATCH_GET_KEYS):
        chunk = keys[start : start + _BATCH_GET_KEYS]
        answer = dynamodb_client().batch_get_item(RequestItems={table_name: {
            "Keys": [{"pk": {"S": job_pk(job_id)}, "sk": {"S": key}} for key in chunk],
            "ProjectionExpression": "sk",
        }})
        known |= {by_key[item["sk"]["S"]] for item in answer.get("Responses", {}).get(table_name, [])}
    return known


def claim_urls(job_id: str, found: list[tuple[str, int]], *, limit: int, ttl: int,
               parent: int) -> list[Claimed]:
    """Record discovered URLs (canonical, depth), each once across every worker, within `limit`: the ones
    this call recorded, each with the next free result index (enqueue them). `parent` (the index of the
    page that found them) lets a redelivery of that page enqueue them again."""
    return claim_found(job_id, [(url, depth, parent) for url, depth in found], limit=limit, ttl=ttl)


def claim_found(job_id: str, found: list[tuple[str, int, int]], *, limit: int, ttl: int,
                sweep: int | None = None) -> list[Claimed]:
    """claim_urls for URLs found by several pages: (canonical URL, depth, the index of the page that found
    it), each URL recorded once (its first finder's). One transaction per chunk: the URLs' items (absent
    before) and the job's `total` moved from the value read to that plus the chunk, so indexes are never
    given twice and `total` counts exactly the pages the crawl will have. `sweep`: the page whose worker
    records them without enqueueing them (site.crawl_sweep); a redelivery of that page enqueues them."""
    first_finder: dict[str, tuple[str, int, int]] = {}
    for entry in found:
        first_finder.setdefault(entry[0], entry)
    pending = list(first_finder.values())
    if not pending:
        return []
    known = _known(job_id, [url for url, _, _ in pending])
    pending = [entry for entry in pending if entry[0] not in known]
    claimed: list[Claimed] = []
    attempts = 0
    while pending:
        total = _job_total(job_id)
        if total is None or total >= limit:
            break
        attempts += 1
        if attempts > _MAX_ATTEMPTS:
            raise RuntimeError("claims kept losing to other workers; the page is delivered again")
        chunk = pending[: min(_MAX_TRANSACTION_ITEMS - 1, limit - total)]
        marks = {} if sweep is None else {"sweep": {"N": str(sweep)}}
        writes: list[dict[str, Any]] = [
            {"Put": {
                "TableName": _table_name(),
                "Item": {"pk": {"S": job_pk(job_id)}, "sk": {"S": url_sk(url)}, "url": {"S": url},
                         "depth": {"N": str(depth)}, "index": {"N": str(total + offset)},
                         "parent": {"N": str(parent)}, "ttl": {"N": str(ttl)}, **marks},
                "ConditionExpression": "attribute_not_exists(pk)",
            }}
            for offset, (url, depth, parent) in enumerate(chunk)
        ]
        writes.append({"Update": {
            "TableName": _table_name(),
            "Key": {"pk": {"S": job_pk(job_id)}, "sk": {"S": JOB_SK}},
            "UpdateExpression": "SET #t = :next",
            # A crawl that began cancelling takes no more pages: its total is what it will have.
            "ConditionExpression": "attribute_exists(pk) AND #t = :total AND #st IN (:q, :r)",
            "ExpressionAttributeNames": {"#t": "total", "#st": "status"},
            "ExpressionAttributeValues": {":next": {"N": str(total + len(chunk))},
                                          ":total": {"N": str(total)},
                                          ":q": {"S": "queued"}, ":r": {"S": "running"}},
        }})
        try:
            dynamodb_client().transact_write_items(TransactItems=writes)  # type: ignore[arg-type]
        except ClientError as error:
            if not failed_condition(error):
                raise
            taken = _taken(job_id, [(url, depth) for url, depth, _ in chunk], error)
            pending = [entry for entry in pending if entry[0] not in taken]
            continue
        claimed += [Claimed(total + offset, url, depth, parent)
                    for offset, (url, depth, parent) in enumerate(chunk)]
        pending = pending[len(chunk):]
    return claimed


def _taken(job_id: str, chunk: list[tuple[str, int]], error: ClientError) -> set[str]:
    """The chunk's URLs another worker recorded first (from the cancellation reasons, else read)."""
    reasons = error.response.get("CancellationReasons") or []
    if len(reasons) == len(chunk) + 1:
        return {url for (url, _), reason in zip(chunk, reasons, strict=False)
                if reason.get("Code") == "ConditionalCheckFailed"}
    return _known(job_id, [url for url, _ in chunk])


def claimed_by(job_id: str, parent: int) -> list[Claimed]:
    """What the page `parent` recorded, itself or in its sweep: a redelivery of it enqueues them again,
    since the worker that recorded them may have died before it enqueued them (a page's second message
    runs nothing twice)."""
    found: list[Claimed] = []
    arguments: dict[str, Any] = {
        "TableName": _table_name(),
        "KeyConditionExpression": "pk = :pk AND begins_with(sk, :url)",
        "FilterExpression": "parent = :parent OR sweep = :parent",
        "ExpressionAttributeValues": {":pk": {"S": job_pk(job_id)}, ":url": {"S": "url#"},
                                      ":parent": {"N": str(parent)}},
        "ConsistentRead": True,
    }
    while True:
        answer = dynamodb_client().query(**arguments)
        found += [Claimed(int(item["index"]["N"]), item["url"]["S"], int(item["depth"]["N"]),
                          int(item["parent"]["N"])) for item in answer.get("Items", [])]
        if "LastEvaluatedKey" not in answer:
            return sorted(found, key=lambda claimed: claimed.index)
        arguments["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


@dataclass
class HostLease:
    host: str
    element: str


def _now_ms() -> int:
    return int(time.time() * 1000)


def enter_host(job_id: str, host: str, pace: HostPace, lease_s: float) -> HostLease | float:
    """Take a slot of `host` for one page: the lease, or the seconds to wait before asking again."""
    now = _now_ms()
    element = f"{now + int(lease_s * 1000)}:{uuid.uuid4()}"
    try:
        _table().update_item(
            Key={"pk": job_pk(job_id), "sk": f"host#{host}"},
            UpdateExpression="ADD leases :lease SET nextStartMs = :next",
            ConditionExpression="(attribute_not_exists(leases) OR size(leases) < :max)"
                                " AND (attribute_not_exists(nextStartMs) OR nextStartMs <= :now)",
            ExpressionAttributeValues={":lease": {element}, ":max": pace.max_concurrency, ":now": now,
                                       ":next": now + int(pace.delay_s * 1000)},
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except ClientError as error:
        if not failed_condition(error):
            raise
        item: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
        return _wait_s(job_id, host, item, pace, now)
    return HostLease(host, element)


def _wait_s(job_id: str, host: str, item: dict[str, Any], pace: HostPace, now: int) -> float:
    next_start = int(item.get("nextStartMs", {}).get("N", "0"))
    if next_start > now:
        return max((next_start - now) / 1000, MIN_WAIT_S)
    held = set(item.get("leases", {}).get("SS", []))
    expired = {element for element in held if int(element.partition(":")[0]) <= now}
    if expired:  # a worker killed mid-page: its slot is free again
        _table().update_item(Key={"pk": job_pk(job_id), "sk": f"host#{host}"},
                             UpdateExpression="DELETE leases :expired",
                             ExpressionAttributeValues={":expired": expired})
        return 0.0
    return max(pace.delay_s, MIN_WAIT_S)


def leave_host(job_id: str, lease: HostLease) -> None:
    """Free the slot (idempotent: deleting an element that is gone changes nothing)."""
    _table().update_item(Key={"pk": job_pk(job_id), "sk": f"host#{lease.host}"},
                         UpdateExpression="DELETE leases :lease",
                         ExpressionAttributeValues={":lease": {lease.element}})
