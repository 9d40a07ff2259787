"""Jobs, their items and results in DynamoDB (docs/jobs.md#jobs), kept 7 days by the table's TTL.

One table, partition `pk = job#<jobId>`:
- `sk = job`: the job (owner, operation, counts, credits reserved and refunded, webhook, deliveries);
- `sk = item#<index>`: an item's claim, taken before it runs, so two deliveries of one message never run
  it at once, and a claim left by a killed worker runs out (`claimedUntil`) so the item runs again;
- `sk = result#<index>`: its one result, written with the claim's `done` mark, the job's counters and
  its refund in one transaction: an item delivered twice has one result and is charged once.

The whole batch's cost is taken from the key at submit in the same transaction that creates the job (and
the Idempotency-Key's record): either all of it happens or none.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.exceptions import ClientError

from webcapture.auth import refusals
from webcapture.auth.api_keys import ApiKeyRecord
from webcapture.auth.caller import Caller
from webcapture.aws import dynamodb_client, dynamodb_table, s3_client
from webcapture.dynamo_values import from_dynamo
from webcapture.envelopes import utc_timestamp
from webcapture.errors import UsageExceeded
from webcapture.jobs.batch_request import ACCEPTED
from webcapture.jobs.result_bodies import inline_text, stored_bytes, stored_form
from webcapture.metering import key_charge, key_refund_write, transact_with_key_refund
from webcapture.response_limits import response_budget, text_response_size
from webcapture.settings import get_settings
from webcapture.unicode_text import well_formed

RETENTION = timedelta(days=7)
FINAL = ("completed", "failed")
# A job in one of these runs no more items: they finish as cancelled, refunded.
STOPPING = ("cancelling", "cancelled")
# Every write that counts an item on the job holds this condition: an ended job's numbers are final.
NOT_ENDED = "attribute_exists(pk) AND attribute_not_exists(finishedAt)"
# A result whose stored form (jobs.result_bodies) is larger than this goes to S3 (a DynamoDB item holds at
# most 400 KB); the item keeps its key.
INLINE_RESULT_BYTES = 300_000
RESULTS_PREFIX = "jobs/"
# An incremental crawl's counters on its job item, by the names `changes` answers with.
CHANGE_COUNTERS = {"new": "changesNew", "changed": "changesChanged", "same": "changesSame",
                   "removed": "changesRemoved"}
# The job's counter of each result status.
_STATUS_COUNTERS = {"completed": "completed", "failed": "failed", "cancelled": "cancelledItems"}
# finish_unclaimed's results in one transaction: two writes each, with the job's and the key's (DynamoDB
# takes 100 items in a transaction).
MAX_UNCLAIMED = 49
# ... and at most this much of their results (a transaction takes 4 MB; a result inline up to 300 KB).
UNCLAIMED_BYTES = 3_000_000

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def _table() -> Any:
    return dynamodb_table(get_settings().jobs_table)


def _keys_table_name() -> str:
    return get_settings().api_keys_table


def _pk(job_id: str) -> str:
    return f"job#{job_id}"


def _item_sk(index: int) -> str:
    return f"item#{index:05d}"


def _result_sk(index: int) -> str:
    return f"result#{index:05d}"


def _wire(values: dict[str, Any]) -> dict[str, Any]:
    return {name: _serializer.serialize(value) for name, value in values.items()}


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Job:
    job_id: str
    user_id: str
    operation: str
    status: str
    total: int
    cost_each: int
    key_hash: str | None
    charged: bool  # the key had a credit limit: refunds go back to it
    created_at: str
    updated_at: str
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    reserved: int = 0
    refunded: int = 0
    finished_at: str | None = None
    webhook: dict[str, Any] | None = None
    deliveries: list[dict[str, Any]] = field(default_factory=list)
    since: str | None = None  # an incremental crawl's earlier crawl (docs/crawl-and-map.md#incremental-crawl)
    changes: dict[str, int] | None = None  # its new, changed, same and removed pages

    @property
    def done(self) -> int:
        return self.completed + self.failed + self.cancelled

    @property
    def credits_cost(self) -> int:
        return self.reserved - self.refunded

    @property
    def expires_at(self) -> str:
        created = datetime.strptime(self.created_at, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        return utc_timestamp(created + RETENTION)

    @classmethod
    def from_item(cls, item: dict[str, Any]) -> Job:
        item = from_dynamo(item)
        return cls(
            job_id=item["jobId"],
            user_id=item["userId"],
            operation=item["operation"],
            status=item["status"],
            total=item["total"],
            cost_each=item["costEach"],
            key_hash=item.get("keyHash"),
            charged=bool(item.get("charged")),
            created_at=item["createdAt"],
            updated_at=item["updatedAt"],
            completed=item.get("completed", 0),
            failed=item.get("failed", 0),
            cancelled=item.get("cancelledItems", 0),
            reserved=item.get("reserved", 0),
            refunded=item.get("refunded", 0),
            finished_at=item.get("finishedAt"),
            webhook=item.get("webhook"),
            deliveries=item.get("deliveries", []),
            since=item.get("since"),
            changes=None if "since" not in item else {
                name: int(item.get(CHANGE_COUNTERS[name], 0)) for name in CHANGE_COUNTERS},
        )


@dataclass(frozen=True)
class NewJob:
    job_id: str
    caller: Caller
    operation: str
    total: int
    cost_each: int
    webhook: dict[str, Any] | None
    idempotency_pk: str | None = None  # the Idempotency-Key's record, written in the same transaction
    body_hash: str = ""
    # A crawl reserves `limit x cost` while its total grows page by page; a batch, total x cost_each.
    reserve: int | None = None
    # More items of the job's partition written in the same transaction (a crawl's start URL).
    first_items: tuple[dict[str, Any], ...] = ()
    since: str | None = None  # an incremental crawl's earlier crawl


class AlreadyExists(Exception):
    """The Idempotency-Key's record exists already (another submit with that key won)."""


def _expiry_epoch(now: datetime, retention: timedelta = RETENTION) -> int:
    return int((now + retention).timestamp())


def _key_update(caller: Caller, cost: int, limited: bool, now: str) -> dict[str, Any]:
    expression, condition, values = key_charge(cost, limited=limited, now=now)
    return {
        "Update": {
            "TableName": _keys_table_name(),
            "Key": _wire({"keyHash": caller.key_hash}),
            "UpdateExpression": expression,
            "ConditionExpression": condition,
            "ExpressionAttributeValues": _wire(values),
        }
    }


def create_job(new: NewJob) -> Job:
    """Create the job and reserve its whole cost in one transaction. 401 or 429 `USAGE_EXCEEDED` when the
    key cannot pay for all of it (nothing written then); AlreadyExists when its Idempotency-Key is taken."""
    moment = datetime.now(UTC)
    now = utc_timestamp(moment)
    cost = new.reserve if new.reserve is not None else new.total * new.cost_each
    limited = new.caller.key_hash is not None and new.caller.limited
    for _attempt in range(2):
        job_item: dict[str, Any] = {
            "pk": _pk(new.job_id),
            "sk": "job",
            "jobId": new.job_id,
            "userId": new.caller.user_id,
            "operation": new.operation,
            "status": ACCEPTED,
            "total": new.total,
            "costEach": new.cost_each,
            "charged": limited,
            "reserved": cost,
            "refunded": 0,
            "completed": 0,
            "failed": 0,
            "cancelledItems": 0,
            "createdAt": now,
            "updatedAt": now,
            "ttl": _expiry_epoch(moment),
            "deliveries": [],
        }
        if new.caller.key_hash is not None:
            job_item["keyHash"] = new.caller.key_hash
        if new.webhook is not None:
            job_item["webhook"] = new.webhook
        if new.since is not None:
            job_item["since"] = new.since
        writes: list[Any] = [
            {
                "Put": {
                    "TableName": get_settings().jobs_table,
                    "Item": _wire(job_item),
                    "ConditionExpression": "attribute_not_exists(pk)",
                }
            }
        ]
        writes += [
            {"Put": {"TableName": get_settings().jobs_table, "Item": _wire(extra),
                     "ConditionExpression": "attribute_not_exists(pk)"}}
            for extra in new.first_items
        ]
        if new.idempotency_pk is not None:
            writes.append(
                {
                    "Put": {
                        "TableName": get_settings().jobs_table,
                        "Item": _wire(
                            {
                                "pk": new.idempotency_pk,
                                "sk": "idempotency",
                                "jobId": new.job_id,
                                "bodyHash": new.body_hash,
                                "ttl": _expiry_epoch(moment, timedelta(hours=24)),
                            }
                        ),
                        "ConditionExpression": "attribute_not_exists(pk) OR #ttl < :epoch",
                        "ExpressionAttributeNames": {"#ttl": "ttl"},
                        "ExpressionAttributeValues": _wire({":epoch": int(moment.timestamp())}),
                    }
                }
            )
        if new.caller.key_hash is not None:
            writes.append(_key_update(new.caller, cost, limited, now))
        try:
            dynamodb_client().transact_write_items(TransactItems=writes)
            return Job.from_item(job_item)
        except ClientError as error:
            if error.response["Error"]["Code"] != "TransactionCanceledException":
                raise
        # Which condition failed: read what is there.
        if new.idempotency_pk is not None and _idempotency_taken(new.idempotency_pk, moment):
            raise AlreadyExists
        if new.caller.key_hash is None:
            raise RuntimeError("job id collision")  # a fresh uuid4: does not happen
        record = _key_record(new.caller.key_hash)
        if record is None:
            raise refusals.key_refused(expired=False)
        key_refusal = record.refusal(now)
        if key_refusal is not None:
            raise key_refusal
        remaining = record.item.get("remaining")
        if (remaining is not None) == limited:
            raise _not_enough(new, cost, remaining)
        limited = remaining is not None  # the authorizer's hint was stale; the other form once more
    raise _not_enough(new, cost, None)


def _not_enough(new: NewJob, cost: int, remaining: Any) -> UsageExceeded:
    """The refusal, with what the job reserves, what the key has left and what to change."""
    left = "" if remaining is None else f", and the key has {int(remaining)} left"
    if new.operation == "crawl":
        return UsageExceeded(f"Not enough credits for this crawl: it reserves {cost} (its limit times a "
                             f"page's cost; what it does not use is given back){left}. Lower limit, or use "
                             "a key with more credits")
    return UsageExceeded(f"Not enough credits for this batch: it reserves {cost} (every item's cost; what is "
                         f"not used is given back){left}. Send fewer items, or use a key with more credits")


def _key_record(key_hash: str) -> ApiKeyRecord | None:
    item = (
        dynamodb_table(_keys_table_name())
        .get_item(Key={"keyHash": key_hash}, ConsistentRead=True)
        .get("Item")
    )
    return None if item is None else ApiKeyRecord(from_dynamo(item))


def _idempotency_taken(pk: str, moment: datetime) -> bool:
    item = _table().get_item(Key={"pk": pk, "sk": "idempotency"}, ConsistentRead=True).get("Item")
    return item is not None and int(item.get("ttl", 0)) >= int(moment.timestamp())


def idempotency_record(pk: str) -> dict[str, Any] | None:
    """The live record of an Idempotency-Key (jobId, bodyHash), or None."""
    item = _table().get_item(Key={"pk": pk, "sk": "idempotency"}, ConsistentRead=True).get("Item")
    if item is None or int(item.get("ttl", 0)) < int(time.time()):
        return None
    return dict(from_dynamo(item))


def get_job(job_id: str) -> Job | None:
    item = _table().get_item(Key={"pk": _pk(job_id), "sk": "job"}, ConsistentRead=True).get("Item")
    return None if item is None else Job.from_item(item)


def job_part(job_id: str, sk: str) -> dict[str, Any] | None:
    """Another item of the job's partition, written with the job (`NewJob.first_items`), or None."""
    item = _table().get_item(Key={"pk": _pk(job_id), "sk": sk}, ConsistentRead=True).get("Item")
    return None if item is None else dict(from_dynamo(item))


def mark_part(job_id: str, sk: str, flag: str) -> None:
    """Set `flag` (true) on a part of the job's partition (job_part's), if the part is there."""
    _update_if(Key={"pk": _pk(job_id), "sk": sk}, UpdateExpression="SET #flag = :true",
               ConditionExpression="attribute_exists(pk)", ExpressionAttributeNames={"#flag": flag},
               ExpressionAttributeValues={":true": True})


def late_refund_write(job_id: str, credits: int) -> dict[str, Any]:
    """The transaction item (low-level) that counts `credits` refunded on a job that has settled: a
    monitor's check whose comparison failed after its item completed
    (webcapture.monitors.screenshot_compare)."""
    return {"Update": {
        "TableName": get_settings().jobs_table,
        "Key": _wire({"pk": _pk(job_id), "sk": "job"}),
        "UpdateExpression": "ADD refunded :credits SET updatedAt = :now",
        "ConditionExpression": "attribute_exists(pk)",
        "ExpressionAttributeValues": _wire({":credits": credits, ":now": utc_timestamp()}),
    }}


def _update_if(**update: Any) -> bool:
    """One conditional update_item; False when its condition did not hold (nothing written)."""
    try:
        _table().update_item(**update)
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return False
    return True


def mark_running(job_id: str) -> None:
    """queued -> running, once (the first item to start)."""
    _update_if(
        Key={"pk": _pk(job_id), "sk": "job"},
        UpdateExpression="SET #st = :running, updatedAt = :now",
        ConditionExpression="#st = :queued",
        ExpressionAttributeNames={"#st": "status"},
        ExpressionAttributeValues={":running": "running", ":queued": "queued", ":now": utc_timestamp()},
    )


def cancel_job(job_id: str) -> bool:
    """queued or running -> `cancelling`: no item starts from now on. False when the job was cancelling or
    had ended already (an ended job's status is final)."""
    return _update_if(
        Key={"pk": _pk(job_id), "sk": "job"},
        UpdateExpression="SET #st = :cancelling, updatedAt = :now",
        ConditionExpression="attribute_exists(pk) AND attribute_not_exists(finishedAt) AND #st IN (:q, :r)",
        ExpressionAttributeNames={"#st": "status"},
        ExpressionAttributeValues={":cancelling": "cancelling", ":q": "queued", ":r": "running",
                                   ":now": utc_timestamp()},
    )


# ---------------------------------------------------------------- items


def claim_item(job_id: str, index: int, token: str, hold_ms: int) -> str:
    """Take the item to run it: "claimed", "done" (it has its result), or "busy" (another delivery holds
    a claim that has not run out)."""
    return take_item(job_id, index, token, hold_ms)[0]


def take_item(job_id: str, index: int, token: str, hold_ms: int) -> tuple[str, int]:
    """claim_item, and how many claims of the item may have done work, this one included (a claim given
    back unused does not count): more than one, and an earlier run may have left work half done."""
    now = _now_ms()
    try:
        answer = _table().update_item(
            Key={"pk": _pk(job_id), "sk": _item_sk(index)},
            UpdateExpression="SET claimToken = :token, claimedUntil = :until, #ttl = :ttl ADD claims :one",
            ConditionExpression="attribute_not_exists(done)"
            " AND (attribute_not_exists(claimedUntil) OR claimedUntil < :now)",
            ExpressionAttributeNames={"#ttl": "ttl"},
            ExpressionAttributeValues={
                ":token": token,
                ":until": now + hold_ms,
                ":now": now,
                ":one": 1,
                ":ttl": _expiry_epoch(datetime.now(UTC)),
            },
            ReturnValues="UPDATED_NEW",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        old: dict[str, Any] = error.response.get("Item") or {}  # type: ignore[assignment]
        return ("done" if "done" in old else "busy"), 0
    return "claimed", int(answer.get("Attributes", {}).get("claims", 1))


def release_claim(job_id: str, index: int, token: str, *, unused: bool = False) -> None:
    """Give the claim up without a result (the item waits its turn and runs later); `unused`: nothing was
    done under it, so it is not counted among the item's claims (take_item)."""
    _update_if(
        Key={"pk": _pk(job_id), "sk": _item_sk(index)},
        UpdateExpression="REMOVE claimToken, claimedUntil" + (" ADD claims :minus" if unused else ""),
        ConditionExpression="claimToken = :token AND attribute_not_exists(done)",
        ExpressionAttributeValues={":token": token, **({":minus": -1} if unused else {})},
    )


@dataclass(frozen=True)
class Outcome:
    status: str  # completed | failed | cancelled
    data: dict[str, Any] | None = None
    error: dict[str, str] | None = None
    # answered from the cache (maxAge, docs/cache-and-signed-links.md#cache-and-signed-links): completed, and
    # free
    cached: bool = False
    # An incremental crawl's page: new, changed or same (same is free, as a cache hit), counted on the job.
    change: str | None = None
    # Stored on the result's item beside its body, never answered (the page's validators, for the next
    # incremental crawl).
    attributes: dict[str, Any] | None = None
    # Failed, but after work paid for was done (a model that answered, off the schema, twice): kept, as the
    # synchronous endpoint keeps it (docs/decisions.md#markdown-content-pdf-and-ai-extraction).
    charged: bool = False

    @property
    def refund(self) -> bool:
        return not self.charged and (self.status != "completed" or self.cached)


def _result_body(job_id: str, index: int, outcome: Outcome) -> dict[str, Any]:
    """The result's stored form: its JSON inline (jobs.result_bodies), or in S3 when too large for an item."""
    # well_formed: a page's text may hold a lone surrogate, which no UTF-8 store can take.
    text = well_formed(json.dumps(
        {"data": outcome.data} if outcome.data is not None else {"error": outcome.error},
        separators=(",", ":"),
        ensure_ascii=False,
    ))
    stored = stored_form(text)
    if stored_bytes(stored) <= INLINE_RESULT_BYTES:
        return stored
    key = f"{RESULTS_PREFIX}{job_id}/{index:05d}.json"
    s3_client().put_object(
        Bucket=get_settings().files_bucket, Key=key, Body=text.encode(), ContentType="application/json"
    )
    return {"bodyKey": key}


def result_record(job: Job, index: int, outcome: Outcome, moment: datetime) -> dict[str, Any]:
    """The item's result as stored (its body inline or in S3), written once with its job's counters."""
    return {
        "pk": _pk(job.job_id),
        "sk": _result_sk(index),
        "index": index,
        "status": outcome.status,
        "finishedAt": utc_timestamp(moment),
        "ttl": _expiry_epoch(moment),
        **(outcome.attributes or {}),
        **_result_body(job.job_id, index, outcome),
    }


def counted_on_job(job: Job, outcomes: list[Outcome], now: str) -> tuple[dict[str, Any], int]:
    """The job's counters moved by these results (the transaction item) and the credits they give back."""
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counter = _STATUS_COUNTERS[outcome.status]
        counts[counter] = counts.get(counter, 0) + 1
        if outcome.change:
            counts[CHANGE_COUNTERS[outcome.change]] = counts.get(CHANGE_COUNTERS[outcome.change], 0) + 1
    refund = job.cost_each * sum(1 for outcome in outcomes if outcome.refund)
    adds = ", ".join(f"{name} :n{number}" for number, name in enumerate(counts))
    values: dict[str, Any] = {f":n{number}": count for number, count in enumerate(counts.values())}
    update = {"Update": {
        "TableName": get_settings().jobs_table,
        "Key": _wire({"pk": _pk(job.job_id), "sk": "job"}),
        "UpdateExpression": f"ADD {adds}, refunded :refund SET updatedAt = :now",
        "ConditionExpression": NOT_ENDED,
        "ExpressionAttributeValues": _wire({**values, ":refund": refund, ":now": now}),
    }}
    return update, refund


def finish_item(job: Job, index: int, token: str, outcome: Outcome) -> bool:
    """Write the item's one result, count it on the job and refund it when it did not complete, in one
    transaction. False when this claim no longer holds (another delivery finished the item)."""
    moment = datetime.now(UTC)
    table = get_settings().jobs_table
    counters, refund = counted_on_job(job, [outcome], utc_timestamp(moment))
    writes: list[Any] = [
        {
            "Update": {
                "TableName": table,
                "Key": _wire({"pk": _pk(job.job_id), "sk": _item_sk(index)}),
                "UpdateExpression": "SET done = :true",
                "ConditionExpression": "claimToken = :token AND attribute_not_exists(done)",
                "ExpressionAttributeValues": _wire({":token": token, ":true": True}),
            }
        },
        {
            "Put": {
                "TableName": table,
                "Item": _wire(result_record(job, index, outcome, moment)),
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        },
        counters,
    ]
    if refund and job.charged and job.key_hash:
        writes.append(key_refund_write(job.key_hash, refund))
    # False when the claim is no longer ours, the result exists, or the job's numbers are final (its total
    # has every result): never counted twice.
    return transact_with_key_refund(writes, refund_last=len(writes) == 4)


def finish_unclaimed(job: Job, results: list[tuple[int, Outcome]]) -> list[int]:
    """Results of items no delivery ever claimed (a crawl's pages crawled by the worker that recorded them,
    docs/crawl-and-map.md#pages-found-are-crawled-by-their-finder): each item marked done and its result
    written, the job's counters and refunds moved, in transactions of at most MAX_UNCLAIMED items and
    UNCLAIMED_BYTES of results. Answers the indexes not written: a transaction writes nothing when any of
    its items was claimed or finished meanwhile, or the job ended."""
    moment = datetime.now(UTC)
    table = get_settings().jobs_table
    not_written: list[int] = []
    for group in _transaction_groups([(index, outcome, result_record(job, index, outcome, moment))
                                      for index, outcome in results]):
        writes: list[Any] = []
        for index, _, record in group:
            writes.append({"Put": {
                "TableName": table,
                "Item": _wire({"pk": _pk(job.job_id), "sk": _item_sk(index), "done": True,
                               "ttl": _expiry_epoch(moment)}),
                "ConditionExpression": "attribute_not_exists(pk)",
            }})
            writes.append({"Put": {"TableName": table, "Item": _wire(record),
                                   "ConditionExpression": "attribute_not_exists(pk)"}})
        counters, refund = counted_on_job(job, [outcome for _, outcome, _ in group], utc_timestamp(moment))
        writes.append(counters)
        if refund and job.charged and job.key_hash:
            writes.append(key_refund_write(job.key_hash, refund))
        if not transact_with_key_refund(writes, refund_last=len(writes) == 2 * len(group) + 2):
            not_written += [index for index, _, _ in group]
    return not_written


_Unclaimed = tuple[int, Outcome, dict[str, Any]]  # an item's index, its outcome, its result's record


def _transaction_groups(records: list[_Unclaimed]) -> list[list[_Unclaimed]]:
    """`records` cut so that each group fits one transaction (DynamoDB: 100 items, 4 MB)."""
    groups: list[list[_Unclaimed]] = []
    size = 0
    for entry in records:
        entry_size = stored_bytes(entry[2]) + 1_000
        if not groups or len(groups[-1]) >= MAX_UNCLAIMED or size + entry_size > UNCLAIMED_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(entry)
        size += entry_size
    return groups


def final_status(job: Job) -> str:
    """A job being cancelled ends cancelled; one none of whose items completed has failed."""
    return "cancelled" if job.status in STOPPING else "failed" if job.completed == 0 else "completed"


def settle(job_id: str) -> Job | None:
    """Give the job its final status once every item has a result; the one call that does so gets the
    job back (and sends its webhook), every other gets None."""
    job = get_job(job_id)
    if job is None or job.finished_at is not None or job.done < job.total:
        return None
    final = final_status(job)
    now = utc_timestamp()
    if not _update_if(
        Key={"pk": _pk(job_id), "sk": "job"},
        UpdateExpression="SET #st = :final, finishedAt = :now, updatedAt = :now",
        ConditionExpression="attribute_not_exists(finishedAt)",
        ExpressionAttributeNames={"#st": "status"},
        ExpressionAttributeValues={":final": final, ":now": now},
    ):
        return None
    job.status, job.finished_at, job.updated_at = final, now, now
    return job


# ---------------------------------------------------------------- results


def _load_body(item: dict[str, Any]) -> dict[str, Any]:
    text = inline_text(item)
    if text is None:
        obj = s3_client().get_object(Bucket=get_settings().files_bucket, Key=item["bodyKey"])
        text = obj["Body"].read().decode()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def _result_size(result: dict[str, Any]) -> int:
    """Bytes one result takes in the answer: as JSON inside the proxy response's escaped `body`."""
    return text_response_size(json.dumps(result, separators=(",", ":"), ensure_ascii=False))


def results_page(
    job_id: str, after: int, limit: int, budget_bytes: int | None = None
) -> tuple[list[dict[str, Any]], int | None]:
    """Results with index > `after`, in index order: at most `limit`, and no more than fit in
    `budget_bytes` (the first always does: one result was made to fit one answer); and the index to
    continue after, or None when there are no more (yet).

    A DynamoDB query stops at 1 MB of items and says so with `LastEvaluatedKey`: the walk follows it,
    so a page of large results is never mistaken for the last one."""
    budget = response_budget() if budget_bytes is None else budget_bytes
    lower = _result_sk(after + 1) if after >= 0 else "result#"
    query: dict[str, Any] = {
        "KeyConditionExpression": "pk = :pk AND sk BETWEEN :lower AND :upper",
        "ExpressionAttributeValues": {":pk": _pk(job_id), ":lower": lower, ":upper": "result#~"},
        "ConsistentRead": True,
    }
    results: list[dict[str, Any]] = []
    used = 0
    while True:
        # One more than the page holds: whether it exists says if there is a next page.
        answer = _table().query(**query, Limit=limit + 1 - len(results))
        for item in answer.get("Items", []):
            if len(results) == limit:
                return results, results[-1]["index"]
            result = {"index": int(item["index"]), "status": item["status"], **_load_body(item)}
            size = _result_size(result)
            if results and used + size > budget:
                return results, results[-1]["index"]
            results.append(result)
            used += size
        if "LastEvaluatedKey" not in answer:
            return results, None
        query["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def record_delivery(job_id: str, delivery: dict[str, Any], keep: int = 10) -> None:
    """Append one webhook delivery attempt to the job, keeping the last `keep`."""
    job = get_job(job_id)
    if job is None:
        return
    key = {"pk": _pk(job_id), "sk": "job"}
    if len(job.deliveries) >= keep:
        _table().update_item(Key=key, UpdateExpression="REMOVE deliveries[0]")
    _table().update_item(
        Key=key,
        UpdateExpression="SET deliveries = list_append(if_not_exists(deliveries, :empty), :one)",
        ExpressionAttributeValues={":empty": [], ":one": [delivery]},
    )
