"""Give moto's DynamoDB the per-item atomicity real DynamoDB has.

moto evaluates a ConditionExpression and then writes, with nothing between two threads; real DynamoDB
applies each conditional write atomically. Metering depends on that guarantee, so the emulator the local
API and the tests use must keep it too, or it would report overspending that production cannot have.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from moto.dynamodb.models import DynamoDBBackend

_WRITES = ("put_item", "update_item", "delete_item", "transact_write_items")
_lock = threading.RLock()
_applied = False


def make_dynamodb_writes_atomic() -> None:
    global _applied
    if _applied:
        return
    for name in _WRITES:
        original = getattr(DynamoDBBackend, name)

        @functools.wraps(original)
        def serialised(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
            with _lock:
                return __original(*args, **kwargs)

        setattr(DynamoDBBackend, name, serialised)
    _applied = True
