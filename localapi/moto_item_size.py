"""moto builds an item in time proportional to its attributes, not to their square.

moto's Item keeps its attributes in a LimitedSizeDict, whose every set re-sums the size of all the
attributes already set to refuse an item over DynamoDB's size limit: building an item of n attributes sums
n(n+1)/2 sizes, which under cProfile was over a quarter of the CPU of a TransactWriteItems of 98 items of
12 attributes. Here the item keeps the running total as it sets each attribute, in moto's order, with
moto's own sizes and limit, and refuses it with moto's own ItemSizeTooLarge at the same attribute: sizes
are never negative, so the running total passes the limit at the attribute where moto's re-summed total
first does. Sets after the item is built (an UpdateItem's) keep moto's own check.
tests/unit/test_moto_item_size.py holds the answers to moto's at the limit.
"""

from __future__ import annotations

import threading
from typing import Any, Final

from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.utilities import bytesize

# LimitedSizeDict.__setitem__'s own limit on the attributes' total size (moto writes it there, as a number).
LIMIT: Final = 405000
_moto_item_init = Item.__init__
_lock = threading.Lock()
_patched = False


def _item_init(self: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]) -> None:
    self.hash_key = hash_key
    self.range_key = range_key
    self.attrs = LimitedSizeDict()
    total = 0  # what LimitedSizeDict.__setitem__ sums over the attributes already set
    for key, value in attrs.items():
        typed = DynamoType(value)
        size = typed.size()
        if total + bytesize(key) + size > LIMIT:
            raise ItemSizeTooLarge
        dict.__setitem__(self.attrs, key, typed)
        total += bytesize(str(key)) + size  # moto sizes a key already set by its str()


def make_item_size_summed_once() -> None:
    """Build moto's items with the running size total (once per process)."""
    global _patched
    with _lock:
        if not _patched:
            Item.__init__ = _item_init  # type: ignore[method-assign]
            _patched = True
