"""Monitors in the monitors table (docs/monitors.md#storage): one item per monitor under its user, and one
counter item per user that holds the 100-monitor limit.

Items: `{userId, monitorId, name, url, operation, requestJson, schedule, timezone?, webhookJson?, threshold,
enabled, scheduledAt, createdAt, updatedAt}`. The operation's body and the webhook are kept as JSON text:
what the caller sent comes back as it was (DynamoDB would turn its numbers into decimals).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_client, dynamodb_table
from webcapture.envelopes import utc_timestamp
from webcapture.errors import LimitReached, NotFound
from webcapture.monitors.schedule_expressions import parse_schedule
from webcapture.settings import get_settings

MAX_MONITORS = 100
ID_PREFIX = "mon_"
# The counter's sort key: outside the monitor ids' prefix, so a listing never sees it.
_COUNTER = "#count"


@dataclass(frozen=True)
class Monitor:
    user_id: str
    monitor_id: str
    name: str
    url: str
    operation: str
    request: dict[str, Any]
    schedule: str
    timezone: str | None
    webhook: dict[str, Any] | None
    threshold: float
    enabled: bool
    scheduled_at: str  # when the schedule was last set: a rate counts its runs from here
    created_at: str
    updated_at: str
    # The key its checks are charged to: the one that created it (None for a session's monitor).
    key_hash: str | None = None
    key_id: str | None = None
    limited: bool = True  # the key had a credit limit when the monitor was made (a hint)

    def next_run_at(self, now: datetime) -> str | None:
        if not self.enabled:
            return None
        started = datetime.fromisoformat(self.scheduled_at.replace("Z", "+00:00"))
        upcoming = parse_schedule(self.schedule).next_run(now, self.timezone, started)
        return None if upcoming is None else utc_timestamp(upcoming)

    def public(self, now: datetime) -> dict[str, Any]:
        return {"monitorId": self.monitor_id, "name": self.name, "url": self.url, "operation": self.operation,
                "request": self.request, "schedule": self.schedule, "timezone": self.timezone,
                "webhook": self.webhook, "diff": {"threshold": self.threshold}, "enabled": self.enabled,
                "createdAt": self.created_at, "updatedAt": self.updated_at,
                "nextRunAt": self.next_run_at(now)}

    def item(self) -> dict[str, Any]:
        item: dict[str, Any] = {
            "userId": self.user_id, "monitorId": self.monitor_id, "name": self.name, "url": self.url,
            "operation": self.operation, "requestJson": json.dumps(self.request, ensure_ascii=False),
            "schedule": self.schedule, "threshold": repr(self.threshold), "enabled": self.enabled,
            "scheduledAt": self.scheduled_at, "createdAt": self.created_at, "updatedAt": self.updated_at}
        if self.timezone is not None:
            item["timezone"] = self.timezone
        if self.webhook is not None:
            item["webhookJson"] = json.dumps(self.webhook, ensure_ascii=False)
        if self.key_hash is not None:
            item["keyHash"] = self.key_hash
            item["limited"] = self.limited
        if self.key_id is not None:
            item["keyId"] = self.key_id
        return item


def new_id() -> str:
    return ID_PREFIX + secrets.token_urlsafe(12)


def _table_name() -> str:
    return get_settings().monitors_table


def _table() -> Any:
    return dynamodb_table(get_settings().monitors_table)


def _monitor(item: dict[str, Any]) -> Monitor:
    webhook = item.get("webhookJson")
    timezone = item.get("timezone")
    return Monitor(
        user_id=str(item["userId"]), monitor_id=str(item["monitorId"]), name=str(item["name"]),
        url=str(item["url"]), operation=str(item["operation"]), request=json.loads(str(item["requestJson"])),
        schedule=str(item["schedule"]), timezone=str(timezone) if timezone else None,
        webhook=json.loads(str(webhook)) if webhook else None, threshold=float(str(item["threshold"])),
        enabled=bool(item["enabled"]), scheduled_at=str(item["scheduledAt"]),
        created_at=str(item["createdAt"]), updated_at=str(item["updatedAt"]),
        key_hash=str(item["keyHash"]) if item.get("keyHash") else None,
        key_id=str(item["keyId"]) if item.get("keyId") else None, limited=bool(item.get("limited", True)))


def not_found(monitor_id: str) -> NotFound:
    # The same answer for another user's monitor and for none at all: an id tells nothing about others.
    return NotFound(f"No monitor {monitor_id[:100]} (it may have been deleted)")


def _typed(item: dict[str, Any]) -> dict[str, Any]:
    """A monitor's item in DynamoDB's typed JSON (the low-level client's transactions need it)."""
    typed: dict[str, Any] = {}
    for name, value in item.items():
        if isinstance(value, bool):
            typed[name] = {"BOOL": value}
        elif isinstance(value, str):
            typed[name] = {"S": value}
        else:
            raise TypeError(f"unexpected monitor attribute {name}")
    return typed


def create(monitor: Monitor) -> Monitor:
    """Write a new monitor; 409 LIMIT_REACHED when its user has 100 already. The counter and the item are
    written in one transaction, so two creates at once cannot both pass 100."""
    table = _table_name()
    try:
        dynamodb_client().transact_write_items(TransactItems=[
            {"Update": {
                "TableName": table, "Key": {"userId": {"S": monitor.user_id}, "monitorId": {"S": _COUNTER}},
                "UpdateExpression": "ADD monitors :one",
                "ConditionExpression": "attribute_not_exists(monitors) OR monitors < :limit",
                "ExpressionAttributeValues": {":one": {"N": "1"}, ":limit": {"N": str(MAX_MONITORS)}},
            }},
            {"Put": {
                "TableName": table, "Item": _typed(monitor.item()),
                "ConditionExpression": "attribute_not_exists(monitorId)",
            }},
        ])
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "TransactionCanceledException":
            raise LimitReached(f"A user has at most {MAX_MONITORS} monitors; delete one first") from None
        raise
    return monitor


def find(user_id: str, monitor_id: str) -> Monitor | None:
    key = {"userId": user_id, "monitorId": monitor_id}
    item = _table().get_item(Key=key, ConsistentRead=True).get("Item")
    return None if item is None else _monitor(item)


def owned(user_id: str, monitor_id: str) -> Monitor:
    """The caller's monitor, or 404 NOT_FOUND (another user's and an unknown id alike)."""
    found = find(user_id, monitor_id) if monitor_id.startswith(ID_PREFIX) else None
    if found is None:
        raise not_found(monitor_id)
    return found


def list_monitors(user_id: str) -> list[Monitor]:
    """The user's monitors, oldest first (at most 100: one or two pages of a query)."""
    found: list[Monitor] = []
    query: dict[str, Any] = {
        "KeyConditionExpression": "userId = :user AND begins_with(monitorId, :prefix)",
        "ExpressionAttributeValues": {":user": user_id, ":prefix": ID_PREFIX},
    }
    while True:
        page = _table().query(**query)
        found += [_monitor(item) for item in page.get("Items", [])]
        if "LastEvaluatedKey" not in page:
            return sorted(found, key=lambda m: (m.created_at, m.monitor_id))
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def save(monitor: Monitor) -> Monitor:
    """Replace an existing monitor's item (404 when it was deleted meanwhile)."""
    try:
        _table().put_item(Item=monitor.item(), ConditionExpression="attribute_exists(monitorId)")
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
            raise not_found(monitor.monitor_id) from None
        raise
    return monitor


def delete(monitor: Monitor) -> None:
    """Remove the monitor and give its place back under the limit."""
    table = _table_name()
    try:
        dynamodb_client().transact_write_items(TransactItems=[
            {"Delete": {
                "TableName": table,
                "Key": {"userId": {"S": monitor.user_id}, "monitorId": {"S": monitor.monitor_id}},
                "ConditionExpression": "attribute_exists(monitorId)",
            }},
            {"Update": {
                "TableName": table, "Key": {"userId": {"S": monitor.user_id}, "monitorId": {"S": _COUNTER}},
                "UpdateExpression": "ADD monitors :minus",
                "ExpressionAttributeValues": {":minus": {"N": "-1"}},
            }},
        ])
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "TransactionCanceledException":
            raise not_found(monitor.monitor_id) from None  # deleted by another request meanwhile
        raise
