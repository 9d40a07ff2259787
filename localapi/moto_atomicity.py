"""Give moto's DynamoDB the per-item atomicity real DynamoDB has.

moto evaluates a ConditionExpression and then writes, with nothing between two threads; real DynamoDB
applies each conditional write atomically. Metering depends on that guarantee, so the emulator the local
API and the tests use must keep it too, or it would report overspending that production cannot have.
"""

from __future__ import annotations

import copy
import functools
import threading
from collections import defaultdict
from typing import Any

import moto.dynamodb.models as moto_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table
from moto.dynamodb.responses import DynamoHandler

_WRITES = ("put_item", "update_item", "delete_item", "transact_write_items")
# The handler's UpdateItem deep-copies the stored item before calling the backend, and reads walk the
# stored items while they turn them into JSON, both outside the backend's lock: another thread's write then
# changes a dict mid-walk ("dictionary changed size during iteration"), or a read sees a transaction's
# half-applied items that real DynamoDB never shows. Holding the same (re-entrant) lock for the whole
# request closes that gap.
_HANDLER_CALLS = ("update_item", "get_item", "batch_get_item", "transact_get_items", "query", "scan")
WRITES_LOCK = threading.RLock()
# Writes each table has taken (by its name), counted under the lock with the write: what a query's cached
# order of a partition's keys is checked against (localapi/moto_queries.py).
table_writes: defaultdict[str, int] = defaultdict(int)
_applied = False
_transactions_patched = False


def make_dynamodb_writes_atomic() -> None:
    global _applied
    if _applied:
        return
    for name in _HANDLER_CALLS:
        original = getattr(DynamoHandler, name)

        @functools.wraps(original)
        def serialised(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
            with WRITES_LOCK:
                return __original(*args, **kwargs)

        setattr(DynamoHandler, name, serialised)
    for name in _WRITES:
        original = getattr(DynamoDBBackend, name)

        @functools.wraps(original)
        def counted(*args: Any, __original: Any = original, __name: str = name, **kwargs: Any) -> Any:
            with WRITES_LOCK:
                try:
                    return __original(*args, **kwargs)
                finally:
                    for table in _tables_written(__name, args, kwargs):
                        table_writes[table] += 1

        setattr(DynamoDBBackend, name, counted)
    _applied = True
    make_transactions_copy_only_their_items()


def _tables_written(operation: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[str]:
    """The tables a backend write names (its arguments after the backend itself)."""
    if operation == "transact_write_items":
        entries = args[1] if len(args) > 1 else kwargs.get("transact_items", [])
        return [str(next(iter(entry.values())).get("TableName", "")) for entry in entries]
    return [str(args[1] if len(args) > 1 else kwargs.get("table_name", ""))]


class _TouchedItemsCopy:
    """Stands in for the `copy` module inside moto's TransactWriteItems, whose rollback backup deep-copies
    every table the transaction names, whole, on every call: a cost that grows with the table (a jobs
    table holding thousands of results) and that real DynamoDB does not have. Under the writes' lock
    nothing else changes a table meanwhile, so a backup needs its own copy only of the items this
    transaction may change; the others are shared, unchanged. moto asks for the backup once per item of
    the transaction, before any is written: the first one of each table stands for all of them."""

    def __init__(self, keys: dict[str, list[dict[str, Any]]]) -> None:
        self._keys = keys
        self._backups: dict[int, Table] = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)

    def deepcopy(self, value: Any, memo: Any = None) -> Any:
        if not isinstance(value, Table):
            return copy.deepcopy(value, memo)
        if id(value) in self._backups:
            return self._backups[id(value)]
        clone = copy.copy(value)
        ranged = value.range_key_attr is not None
        items: Any = defaultdict(dict)
        for hash_value, stored in value.items.items():
            items[hash_value] = dict(stored) if ranged else stored
        for key in self._keys.get(value.name, []):
            if value.hash_key_attr not in key:
                continue
            hash_value = DynamoType(key[value.hash_key_attr])
            if ranged and value.range_key_attr in key:
                range_value = DynamoType(key[value.range_key_attr])
                if range_value in items.get(hash_value, {}):
                    items[hash_value][range_value] = copy.deepcopy(items[hash_value][range_value])
            elif not ranged and hash_value in items:
                items[hash_value] = copy.deepcopy(items[hash_value])
        clone.items = items
        self._backups[id(value)] = clone
        return clone


def make_transactions_copy_only_their_items() -> None:
    """TransactWriteItems backs up only the items it names (see _TouchedItemsCopy)."""
    global _transactions_patched
    if _transactions_patched:
        return
    original = DynamoDBBackend.transact_write_items

    @functools.wraps(original)
    def transact_write_items(self: Any, transact_items: list[dict[str, Any]]) -> Any:
        keys: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for entry in transact_items:
            operation = next(iter(entry.values()))
            keys[operation.get("TableName", "")].append(operation.get("Key") or operation.get("Item") or {})
        with WRITES_LOCK:
            moto_models.copy = _TouchedItemsCopy(keys)  # type: ignore[attr-defined,assignment]
            try:
                return original(self, transact_items)
            finally:
                moto_models.copy = copy  # type: ignore[attr-defined]

    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    _transactions_patched = True
