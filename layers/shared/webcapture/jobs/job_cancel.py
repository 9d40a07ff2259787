"""Cancelling a job or a crawl (docs/jobs.md#cancelling): `cancelling` at once, every item that has not
started finished as cancelled and refunded right away, the running ones left to finish; the job ends
`cancelled` when the last of them is done, with its final counts (webcapture.jobs.job_store.settle).

An item has started when a worker holds its claim (webcapture.jobs.job_store.claim_item). Each item that
has not is given its `done` mark and a cancelled result, conditioned on no claim being held, in the same
transaction that counts it on the job and gives its cost back to the key: a worker claiming it at the same
moment either wins (the item runs; the transaction fails and this item is left to it) or finds it done.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from botocore.exceptions import ClientError

from webcapture import request_scope
from webcapture.aws import dynamodb_client, dynamodb_table
from webcapture.envelopes import utc_timestamp
from webcapture.jobs import job_store
from webcapture.jobs.job_store import Job
from webcapture.metering import key_refund_write
from webcapture.settings import get_settings

# Two writes per item and two for the job and the key: within DynamoDB's 100 per transaction.
_CHUNK = 49
# What the DELETE keeps of its time budget to settle the job and answer.
_ANSWER_RESERVE_MS = 5_000


def _started(job_id: str) -> set[int]:
    """Indexes whose item has a result, or a claim a worker holds (it runs now, or its claim runs out
    and its message brings it back)."""
    started: set[int] = set()
    query: dict[str, Any] = {
        "KeyConditionExpression": "pk = :pk AND begins_with(sk, :item)",
        "ExpressionAttributeValues": {":pk": job_store._pk(job_id), ":item": "item#"},
        "ProjectionExpression": "sk, done, claimToken",
        "ConsistentRead": True,
    }
    table = dynamodb_table(get_settings().jobs_table)
    while True:
        answer = table.query(**query)
        for item in answer.get("Items", []):
            if "done" in item or "claimToken" in item:
                started.add(int(str(item["sk"]).removeprefix("item#")))
        if "LastEvaluatedKey" not in answer:
            return started
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def _writes(job: Job, indexes: list[int], message: str) -> list[dict[str, Any]]:
    moment = datetime.now(UTC)
    now, ttl = utc_timestamp(moment), job_store._expiry_epoch(moment)
    table = get_settings().jobs_table
    writes: list[dict[str, Any]] = []
    for index in indexes:
        writes.append({"Update": {
            "TableName": table,
            "Key": job_store._wire({"pk": job_store._pk(job.job_id), "sk": job_store._item_sk(index)}),
            "UpdateExpression": "SET done = :true, #ttl = :ttl",
            "ConditionExpression": "attribute_not_exists(claimToken) AND attribute_not_exists(done)",
            "ExpressionAttributeNames": {"#ttl": "ttl"},
            "ExpressionAttributeValues": job_store._wire({":true": True, ":ttl": ttl}),
        }})
        writes.append({"Put": {
            "TableName": table,
            "Item": job_store._wire({
                "pk": job_store._pk(job.job_id), "sk": job_store._result_sk(index), "index": index,
                "status": "cancelled", "finishedAt": now, "ttl": ttl,
                **job_store._result_body(job.job_id, index, job_store.Outcome(
                    "cancelled", error={"code": "CANCELLED", "message": message})),
            }),
            "ConditionExpression": "attribute_not_exists(pk)",
        }})
    refund = len(indexes) * job.cost_each
    writes.append({"Update": {
        "TableName": table,
        "Key": job_store._wire({"pk": job_store._pk(job.job_id), "sk": "job"}),
        "UpdateExpression": "ADD cancelledItems :n, refunded :refund SET updatedAt = :now",
        "ConditionExpression": job_store.NOT_ENDED,
        "ExpressionAttributeValues": job_store._wire({":n": len(indexes), ":refund": refund, ":now": now}),
    }})
    if refund and job.charged and job.key_hash:
        writes.append(key_refund_write(job.key_hash, refund))
    return writes


def _apply(job: Job, indexes: list[int], message: str) -> bool:
    """The items finished as cancelled in one transaction; False when any condition failed."""
    writes = _writes(job, indexes, message)
    try:
        dynamodb_client().transact_write_items(TransactItems=writes)  # type: ignore[arg-type]
    except ClientError as error:
        if error.response["Error"]["Code"] != "TransactionCanceledException":
            raise
        reasons = error.response.get("CancellationReasons") or []
        key_refused = (len(reasons) == len(writes) and len(writes) > 2 * len(indexes) + 1
                       and reasons[-1].get("Code") == "ConditionalCheckFailed"
                       and all(r.get("Code") in (None, "None") for r in reasons[:-1]))
        if not key_refused:
            return False
        # The key was deleted or lost its credit limit: nothing to give back to; the items still end.
        dynamodb_client().transact_write_items(TransactItems=writes[:-1])  # type: ignore[arg-type]
    return True


def cancel_unstarted(job: Job, noun: str = "job") -> int:
    """Finish every item of the job that has not started as cancelled, refunded; how many. Call it once the
    job is `cancelling` (no item starts after that)."""
    message = f"The {noun} was cancelled before this item started"
    started = _started(job.job_id)
    waiting = [index for index in range(job.total) if index not in started]
    finished = 0
    for start in range(0, len(waiting), _CHUNK):
        if request_scope.remaining_ms() < _ANSWER_RESERVE_MS:
            # Out of time for this request: the rest finish as cancelled, refunded, when their messages
            # come up (a worker reads `cancelling` before it runs anything); the job ends after them.
            break
        chunk = waiting[start : start + _CHUNK]
        if _apply(job, chunk, message):
            finished += len(chunk)
            continue
        # A worker claimed one of them meanwhile: one at a time, leaving it the ones it holds.
        finished += sum(1 for index in chunk if _apply(job, [index], message))
    return finished


def cancel(job: Job, settle: Callable[[str], Job | None], noun: str = "job") -> Job | None:
    """DELETE on a job: `cancelling`, the items not started finished now, and the job settled when none
    is running (the settled job, to send its webhook; None while items still run or when it had ended)."""
    if not job_store.cancel_job(job.job_id):
        return None
    fresh = job_store.get_job(job.job_id)
    if fresh is None:
        return None
    cancel_unstarted(fresh, noun)
    return settle(job.job_id)

