"""A crawl's credits (docs/crawl-and-map.md#crawl-and-map): `limit x cost` reserved when it is submitted, what
was not used given back once when it ends.

The reservation is the job store's: the job, its start page and the key's charge are one transaction
(webcapture.jobs.job_store.create_job with `reserve`), so a crawl that could not be paid for leaves nothing
behind. The crawl's pages are its job's items: a page that fails or is cancelled is refunded in the
transaction that writes its result, as a batch's item is, so a page delivered twice is charged once. What
is left, the pages the crawl never found, `(reserved - total x cost)`, goes back in the same transaction
that gives the job its final status; that write requires the job not to have finished, so settling twice
(a retried write, two workers both seeing the crawl end) gives back once.
"""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.types import TypeSerializer
from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_client
from webcapture.envelopes import utc_timestamp
from webcapture.jobs.job_store import CHANGE_COUNTERS, Job, final_status, get_job
from webcapture.metering import key_refund_write
from webcapture.settings import get_settings

_serializer = TypeSerializer()


def _wire(values: dict[str, Any]) -> dict[str, Any]:
    return {name: _serializer.serialize(value) for name, value in values.items()}


def unused_credits(reserved: int, pages: int, page_cost: int) -> int:
    """What a crawl that recorded `pages` pages did not use of its reservation."""
    return max(reserved - pages * page_cost, 0)



def settle_crawl(job_id: str) -> Job | None:
    """Once every recorded page has its result: the crawl's final status and its unused credits given
    back, in one transaction. The one call that does so gets the job back (and sends its webhook), every
    other gets None."""
    job = get_job(job_id)
    if job is None or job.finished_at is not None or job.done < job.total:
        return None
    settings = get_settings()
    # An incremental crawl's removed pages are results too: written before the status turns terminal, so
    # whoever reads a finished crawl sees all of them, and counted by the settling write itself.
    removed = _write_removed(job)
    final, now = final_status(job), utc_timestamp()
    unused = unused_credits(job.reserved, job.total, job.cost_each)
    names = {"#st": "status", "#t": "total"}
    values: dict[str, Any] = {":final": final, ":now": now, ":unused": unused, ":total": job.total}
    add = "ADD refunded :unused"
    if removed:
        names["#removed"], values[":removed"] = CHANGE_COUNTERS["removed"], removed
        add += ", #removed :removed"
    finish = {"Update": {
        "TableName": settings.jobs_table,
        "Key": _wire({"pk": f"job#{job_id}", "sk": "job"}),
        "UpdateExpression": f"SET #st = :final, finishedAt = :now, updatedAt = :now {add}",
        # The total read is still the total: no page was recorded meanwhile.
        "ConditionExpression": "attribute_not_exists(finishedAt) AND #t = :total",
        "ExpressionAttributeNames": names,
        "ExpressionAttributeValues": _wire(values),
    }}
    writes: list[dict[str, Any]] = [finish]
    if unused and job.charged and job.key_hash:
        writes.append(key_refund_write(job.key_hash, unused))
    try:
        dynamodb_client().transact_write_items(TransactItems=writes)  # type: ignore[arg-type]
    except ClientError as error:
        if error.response["Error"]["Code"] != "TransactionCanceledException":
            raise
        reasons = error.response.get("CancellationReasons") or []
        if len(writes) == 1 or not reasons or reasons[0].get("Code") == "ConditionalCheckFailed":
            return None  # settled by another call, or a page was recorded meanwhile
        # The key was deleted or lost its credit limit: nothing to give back to; the job still ends.
        try:
            dynamodb_client().transact_write_items(TransactItems=[finish])  # type: ignore[list-item]
        except ClientError as again:
            if again.response["Error"]["Code"] != "TransactionCanceledException":
                raise
            return None
    job.status, job.finished_at, job.updated_at = final, now, now
    job.refunded += unused
    if job.changes is not None:
        job.changes["removed"] = job.changes.get("removed", 0) + removed
    return job


def _write_removed(job: Job) -> int:
    if job.since is None:
        return 0
    from webcapture.site.crawl_changes import write_removed  # only incremental crawls need it

    return write_removed(job)
