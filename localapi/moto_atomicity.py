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
from moto.dynamodb.comparisons import get_comparison_func
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
_lock = threading.RLock()
_applied = False
_transactions_patched = False
_queries_patched = False


def make_dynamodb_writes_atomic() -> None:
    global _applied
    if _applied:
        return
    for owner, names in ((DynamoDBBackend, _WRITES), (DynamoHandler, _HANDLER_CALLS)):
        for name in names:
            original = getattr(owner, name)

            @functools.wraps(original)
            def serialised(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
                with _lock:
                    return __original(*args, **kwargs)

            setattr(owner, name, serialised)
    _applied = True
    make_transactions_copy_only_their_items()
    make_queries_read_their_partition()


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
        with _lock:
            moto_models.copy = _TouchedItemsCopy(keys)  # type: ignore[attr-defined,assignment]
            try:
                return original(self, transact_items)
            finally:
                moto_models.copy = copy  # type: ignore[attr-defined]

    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    _transactions_patched = True


def make_queries_read_their_partition() -> None:
    """Query reads the partition it names, as DynamoDB does, rather than sorting every item of the table
    and keeping that partition's (moto's Table.query on a table without an index named): a jobs table
    holding thousands of results otherwise makes every page of results, and every crawl's read of its
    URLs, cost the whole table. The writes' lock is held around the handler's query, so the table's
    shadowed `all_items` is seen by that query alone."""
    global _queries_patched
    if _queries_patched:
        return
    original = Table.query

    @functools.wraps(original)
    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if index_name or not self.range_key_attr or hash_key is None or len(args) < 5:
            return original(self, hash_key, *args, **kwargs)
        with _lock:
            partition, start = _key_range(self, list(self.items.get(hash_key, {}).values()), args, kwargs)
            self.all_items = lambda: partition
            narrowed: tuple[Any, ...] = (*args[:3], start, *args[4:])
            try:
                return original(self, hash_key, *narrowed, **kwargs)
            finally:
                del self.all_items

    Table.query = query  # type: ignore[method-assign]
    _queries_patched = True


def _key_range(table: Any, items: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any],
               ) -> tuple[list[Any], dict[str, Any] | None]:
    """The items of a partition a query can answer from, in key order, and the start key left for moto:
    the sort key's condition applied, the items up to ExclusiveStartKey skipped and, with no legacy
    QueryFilter, no more than Limit + 1 kept (one past the limit, by which moto knows to give a
    LastEvaluatedKey), all on the keys' plain values. moto would sort the whole partition with its own
    comparisons and walk it to the start key for every query: a crawl's partition of 60,000 items made
    each read of a page of results take about a second."""
    comparison, bounds, limit, start, forward = args[:5]
    key = table.range_key_attr
    if comparison:
        test = get_comparison_func(comparison)
        values = [bound.cast_value for bound in bounds]
        items = [item for item in items if test(item.range_key.cast_value, *values)]
    items.sort(key=lambda item: item.range_key.cast_value, reverse=not forward)
    if start and key in start:
        after = DynamoType(start[key]).cast_value
        items = [item for item in items
                 if (item.range_key.cast_value > after if forward else item.range_key.cast_value < after)]
        start = None
    if limit and not (set(kwargs) - {"hash_key_conditions", "range_key_conditions"}):
        items = items[:limit + 1]
    return items, start
