"""A monitor's checks in the monitors table (docs/monitors.md#checks), beside the monitor, kept 30 days by the
table's TTL.

One item per check under the monitor's user: `monitorId = check#<monitorId>#<queuedAt>#<checkId>`. The key
sorts a monitor's checks by when they were queued and never changes afterwards: the item is written when the
check is queued and finished in place, so a page of checks (newest first) and the next one never lose or
repeat a check, however many finish meanwhile. Outside the monitors' `mon_` prefix, so a listing of
monitors never sees them.

A check's `data` is its operation's answer as JSON text; one too large for an item goes to S3 under
`monitors/` and the item keeps its key.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from boto3.dynamodb.types import TypeSerializer
from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_table, s3_client
from webcapture.envelopes import utc_timestamp
from webcapture.errors import RequestValidationError
from webcapture.jobs import job_store
from webcapture.jobs.result_bodies import packed, unpacked
from webcapture.metering import key_refund_write, transact_with_key_refund
from webcapture.response_limits import response_budget, text_response_size
from webcapture.settings import get_settings
from webcapture.unicode_text import well_formed

RETENTION = timedelta(days=30)
PREFIX = "check#"
INLINE_DATA_BYTES = 300_000
DATA_PREFIX = "monitors/"


@dataclass(frozen=True)
class CheckKey:
    """Where one check lives: its user, its monitor, when it was queued and its id."""

    user_id: str
    monitor_id: str
    queued_at: str
    check_id: str

    @property
    def sort_key(self) -> str:
        return f"{PREFIX}{self.monitor_id}#{self.queued_at}#{self.check_id}"

    def as_dict(self) -> dict[str, str]:
        return {"userId": self.user_id, "monitorId": self.monitor_id, "queuedAt": self.queued_at,
                "checkId": self.check_id}

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> CheckKey:
        return cls(str(raw["userId"]), str(raw["monitorId"]), str(raw["queuedAt"]), str(raw["checkId"]))


def _table() -> Any:
    return dynamodb_table(get_settings().monitors_table)


def _ttl() -> int:
    return int((datetime.now(UTC) + RETENTION).timestamp())


def add_queued(key: CheckKey) -> None:
    """The check's item, `queued`, unless it is there already (a message delivered twice)."""
    try:
        _table().put_item(
            Item={"userId": key.user_id, "monitorId": key.sort_key, "checkId": key.check_id,
                  "at": key.queued_at, "status": "queued", "ttl": _ttl()},
            ConditionExpression="attribute_not_exists(monitorId)")
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "ConditionalCheckFailedException":
            raise


def is_queued(key: CheckKey) -> bool:
    item = _table().get_item(Key={"userId": key.user_id, "monitorId": key.sort_key}, ConsistentRead=True)
    return bool(item.get("Item", {}).get("status") == "queued")


def _data_fields(key: CheckKey, data: dict[str, Any] | None) -> dict[str, Any]:
    if data is None:
        return {}
    text = well_formed(json.dumps(data, separators=(",", ":"), ensure_ascii=False))
    squeezed = packed(text)  # kept compressed as a job's result is (jobs.result_bodies)
    if squeezed is not None:
        if len(squeezed) <= INLINE_DATA_BYTES:
            return {"dataZ": squeezed}
    elif len(text.encode()) <= INLINE_DATA_BYTES:
        return {"dataJson": text}
    object_key = f"{DATA_PREFIX}{key.check_id}.json"
    s3_client().put_object(Bucket=get_settings().files_bucket, Key=object_key, Body=text.encode(),
                           ContentType="application/json")
    return {"dataKey": object_key}


def _finished_item(key: CheckKey, status: str, *, change_status: str | None, diff: dict[str, Any] | None,
                   data: dict[str, Any] | None, credits_cost: int,
                   error: dict[str, Any] | None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "userId": key.user_id, "monitorId": key.sort_key, "checkId": key.check_id, "at": key.queued_at,
        "status": status, "creditsCost": credits_cost, "finishedAt": utc_timestamp(), "ttl": _ttl(),
        **_data_fields(key, data)}
    if change_status is not None:
        item["changeStatus"] = change_status
    if diff is not None:
        item["diffJson"] = json.dumps(diff, ensure_ascii=False)
    if error is not None:
        item["errorJson"] = json.dumps(error, ensure_ascii=False)
    return item


# A check is final once finished: only its queued item is ever written over.
_STILL_QUEUED = {"ConditionExpression": "#st = :queued", "ExpressionAttributeNames": {"#st": "status"}}


def finish(key: CheckKey, status: str, *, change_status: str | None, diff: dict[str, Any] | None,
           data: dict[str, Any] | None, credits_cost: int, error: dict[str, Any] | None) -> bool:
    """The check's final fields (completed or failed), written once over its queued item. False when it
    was finished already (a message delivered twice): nothing is written, nothing is to be told."""
    item = _finished_item(key, status, change_status=change_status, diff=diff, data=data,
                          credits_cost=credits_cost, error=error)
    try:
        _table().put_item(Item=item, **_STILL_QUEUED, ExpressionAttributeValues={":queued": "queued"})
    except ClientError as failure:
        if failure.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
            return False
        raise
    return True


def fail_refunded(key: CheckKey, error: dict[str, Any], *, credits: int, refund_key: str | None) -> bool:
    """The check failed after its job completed (its comparison could not be made): written failed and
    free, its credits counted refunded on its job and given back to `refund_key` (a key with a credit
    limit), in one transaction. False when the check was finished already."""
    serialize = TypeSerializer().serialize
    item = _finished_item(key, "failed", change_status=None, diff=None, data=None, credits_cost=0,
                          error=error)
    writes: list[dict[str, Any]] = [{"Put": {
        "TableName": get_settings().monitors_table,
        "Item": {name: serialize(value) for name, value in item.items()},
        **_STILL_QUEUED, "ExpressionAttributeValues": {":queued": serialize("queued")}}}]
    if credits:
        writes.append(job_store.late_refund_write(key.check_id, credits))
        if refund_key is not None:
            writes.append(key_refund_write(refund_key, credits))
    return transact_with_key_refund(writes, refund_last=len(writes) == 3)


def _data(item: dict[str, Any]) -> dict[str, Any] | None:
    if "dataKey" in item:
        body = s3_client().get_object(Bucket=get_settings().files_bucket, Key=str(item["dataKey"]))["Body"]
        loaded: dict[str, Any] = json.loads(body.read().decode())
        return loaded
    if "dataZ" in item:
        return dict(json.loads(unpacked(item["dataZ"])))
    return json.loads(str(item["dataJson"])) if "dataJson" in item else None


def _public(item: dict[str, Any]) -> dict[str, Any]:
    check: dict[str, Any] = {
        "checkId": str(item["checkId"]), "at": str(item["at"]), "status": str(item["status"]),
        "changeStatus": item.get("changeStatus"),
        "diff": json.loads(str(item["diffJson"])) if "diffJson" in item else None,
        "data": _data(item), "creditsCost": int(item.get("creditsCost", 0))}
    if "errorJson" in item:
        check["error"] = json.loads(str(item["errorJson"]))
    return check


def last_completed_data(key: CheckKey) -> dict[str, Any] | None:
    """The data of the monitor's last completed check queued before `key`'s, or None (this is its first)."""
    query: dict[str, Any] = {
        "KeyConditionExpression": "userId = :user AND monitorId BETWEEN :low AND :high",
        "FilterExpression": "#st = :completed",
        "ExpressionAttributeNames": {"#st": "status"},
        "ExpressionAttributeValues": {":user": key.user_id, ":low": f"{PREFIX}{key.monitor_id}#",
                                      ":high": key.sort_key, ":completed": "completed"},
        "ScanIndexForward": False, "ConsistentRead": True}
    while True:
        page = _table().query(**query)
        for item in page.get("Items", []):
            if item["monitorId"] != key.sort_key:
                return _data(item)
        if "LastEvaluatedKey" not in page:
            return None
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def encode_cursor(sort_key: str) -> str:
    return base64.urlsafe_b64encode(sort_key.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str, monitor_id: str) -> str:
    try:
        decoded = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        decoded = ""
    if not decoded.startswith(f"{PREFIX}{monitor_id}#"):
        message = "Invalid cursor: use the `next` value of this monitor's last page of checks"
        raise RequestValidationError([{"code": "custom", "path": ["cursor"], "message": message}])
    return decoded


def checks_page(user_id: str, monitor_id: str, limit: int, cursor: str | None,
                budget_bytes: int | None = None) -> tuple[list[dict[str, Any]], str | None]:
    """Checks newest first: at most `limit` older than the cursor's, no more than fit in `budget_bytes`
    (the first always does), and the cursor of the next page (None when this one holds the oldest)."""
    prefix = f"{PREFIX}{monitor_id}#"
    high = _decode_cursor(cursor, monitor_id) if cursor else prefix + "\uffff"
    query: dict[str, Any] = {
        "KeyConditionExpression": "userId = :user AND monitorId BETWEEN :low AND :high",
        "ExpressionAttributeValues": {":user": user_id, ":low": prefix, ":high": high},
        "ScanIndexForward": False, "ConsistentRead": True}
    items: list[dict[str, Any]] = []
    while len(items) <= limit:
        page = _table().query(**query, Limit=limit + 1 - len(items))
        # BETWEEN includes the cursor's own item, which the previous page answered.
        items += [item for item in page.get("Items", []) if item["monitorId"] != high]
        if "LastEvaluatedKey" not in page:
            break
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]
    budget = response_budget() if budget_bytes is None else budget_bytes
    checks: list[dict[str, Any]] = []
    used = 0
    for item in items[:limit]:
        check = _public(item)
        size = text_response_size(json.dumps(check, separators=(",", ":"), ensure_ascii=False))
        if checks and used + size > budget:
            break
        checks.append(check)
        used += size
    more = len(items) > len(checks)
    return checks, encode_cursor(_sort_key(checks[-1], monitor_id)) if more else None


def _sort_key(check: dict[str, Any], monitor_id: str) -> str:
    return f"{PREFIX}{monitor_id}#{check['at']}#{check['checkId']}"
