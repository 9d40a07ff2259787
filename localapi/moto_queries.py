"""moto's DynamoDB Query reads the key range it names, as DynamoDB does, not the whole table.

moto's Table.query (on a table without an index named) sorts every item of the table with its own
comparisons, keeps the partition's, and walks them to the start key. A jobs table holding thousands of
results then makes every page of results, and every crawl's read of its URLs, cost the whole table: at a
20,000-page crawl's 60,000 items a status read took a second and timed out. Here the sort key's condition,
the start key and `Limit + 1` are applied to the keys' plain values before moto's own pass, which then
sees only those items.

A partition read again with no write to its table in between (a crawl's results read back page by page
once it has ended) keeps its keys' order from the previous read: the key range and the start key are then
found by bisection, not by a walk of the partition. The order holds keys only, and the items are taken
from the partition at each read, so it can never answer an item as it was; it is dropped at the table's
next write, which is counted under the same lock as the reads (localapi/moto_atomicity.py).
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any, Final

from moto.dynamodb.comparisons import get_comparison_func
from moto.dynamodb.models.dynamo_type import DynamoType
from moto.dynamodb.models.table import Table

from localapi.moto_atomicity import WRITES_LOCK, table_writes

# Partitions whose order is kept at once (each holds a list of its keys): the newest read.
KEPT_ORDERS: Final = 32
# Every read walks its partition when False (scripts/bench_moto_queries.py compares the two).
keep_orders = True
_patched = False


@dataclass
class _Order:
    """A partition's range keys in order, as of the table's `writes`-th write."""

    partition: dict[Any, Any]
    writes: int
    size: int
    values: list[Any] = field(default_factory=list)  # the range keys' plain values, ascending
    keys: list[Any] | None = None  # the partition's own keys in the same order; None until sorted


_orders: dict[tuple[str, Any], _Order] = {}


def make_queries_read_their_partition() -> None:
    """Patch moto's Table.query (once per process)."""
    global _patched
    if _patched:
        return
    original = Table.query

    @functools.wraps(original)
    def query(self: Any, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
        if index_name or not self.range_key_attr or hash_key is None or len(args) < 5:
            return original(self, hash_key, *args, **kwargs)
        with WRITES_LOCK:  # no write between the order's check and moto's pass, which alone sees all_items
            partition = self.items.get(hash_key, {})
            order = _order(self.name, hash_key, partition) if keep_orders else None
            found = None if order is None else _sorted_range(self, order, args, kwargs)
            items, start = found or _key_range(self, list(partition.values()), args, kwargs)
            self.all_items = lambda: items
            narrowed: tuple[Any, ...] = (*args[:3], start, *args[4:])
            try:
                return original(self, hash_key, *narrowed, **kwargs)
            finally:
                del self.all_items

    Table.query = query  # type: ignore[method-assign]
    _patched = True


def _order(table_name: str, hash_key: Any, partition: dict[Any, Any]) -> _Order | None:
    """The partition's kept order when its table took no write since the previous read of it; None on a
    first read (noted, so that a second read with no write between sorts it once)."""
    writes = table_writes[table_name]
    kept = _orders.get((table_name, hash_key))
    if (kept is None or kept.partition is not partition or kept.writes != writes
            or kept.size != len(partition)):
        _orders.pop((table_name, hash_key), None)
        _orders[(table_name, hash_key)] = _Order(partition, writes, len(partition))
        while len(_orders) > KEPT_ORDERS:
            del _orders[next(iter(_orders))]
        return None
    if kept.keys is None:
        kept.keys = sorted(partition, key=lambda key: partition[key].range_key.cast_value)
        kept.values = [partition[key].range_key.cast_value for key in kept.keys]
    return kept


def _sorted_range(table: Any, order: _Order, args: tuple[Any, ...], kwargs: dict[str, Any],
                  ) -> tuple[list[Any], dict[str, Any] | None] | None:
    """_key_range's answer from the kept order, by bisection; None for a condition it does not bisect."""
    comparison, bounds, limit, start, forward = args[:5]
    try:
        span = _span(order.values, comparison, [bound.cast_value for bound in bounds])
        if span is None:
            return None
        low, high = span
        if start and table.range_key_attr in start:
            after = DynamoType(start[table.range_key_attr]).cast_value
            if forward:
                low = max(low, bisect_right(order.values, after, low, high))
            else:
                high = min(high, bisect_left(order.values, after, low, high))
            start = None
    except TypeError:  # range keys of different types: the walk compares them as moto does
        return None
    if limit and not (set(kwargs) - {"hash_key_conditions", "range_key_conditions"}):
        low, high = (low, min(high, low + limit + 1)) if forward else (max(low, high - limit - 1), high)
    assert order.keys is not None  # _order answers sorted orders only
    keys = order.keys[low:high] if forward else order.keys[low:high][::-1]
    return [order.partition[key] for key in keys], start


def _span(values: list[Any], comparison: str | None, bounds: list[Any]) -> tuple[int, int] | None:
    """The indexes [low, high) of `values` (ascending) that a key condition keeps."""
    if not comparison:
        return 0, len(values)
    operator = {"=": "EQ", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}.get(comparison, comparison.upper())
    if operator == "EQ":
        return bisect_left(values, bounds[0]), bisect_right(values, bounds[0])
    if operator in ("LT", "LE"):
        return 0, (bisect_left if operator == "LT" else bisect_right)(values, bounds[0])
    if operator in ("GT", "GE"):
        return (bisect_right if operator == "GT" else bisect_left)(values, bounds[0]), len(values)
    if operator == "BETWEEN":
        low = bisect_left(values, bounds[0])
        return low, max(low, bisect_right(values, bounds[1]))
    prefix = bounds[0]
    if operator == "BEGINS_WITH" and isinstance(prefix, str) and prefix and ord(prefix[-1]) < 0x10FFFF:
        # Every string that starts with the prefix sorts before the prefix with its last character raised.
        return (bisect_left(values, prefix),
                bisect_left(values, prefix[:-1] + chr(ord(prefix[-1]) + 1)))
    return None


def _key_range(table: Any, items: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any],
               ) -> tuple[list[Any], dict[str, Any] | None]:
    """The items of a partition a query can answer from, in key order, and the start key left for moto:
    the sort key's condition applied, the items up to ExclusiveStartKey skipped and, with no legacy
    QueryFilter, no more than Limit + 1 kept (one past the limit, by which moto knows to give a
    LastEvaluatedKey), all on the keys' plain values."""
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
