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
from moto.dynamodb.responses import DynamoHandler

_WRITES = ("put_item", "update_item", "delete_item", "transact_write_items")
# The handler's UpdateItem deep-copies the stored item before calling the backend, outside the backend's
# lock: another thread's write to the same item then changes it mid-copy ("dictionary changed size during
# iteration"). Holding the same (re-entrant) lock for the whole request closes that gap.
_HANDLER_WRITES = ("update_item",)
_lock = threading.RLock()
_applied = False


def make_dynamodb_writes_atomic() -> None:
    global _applied
    if _applied:
        return
    for owner, names in ((DynamoDBBackend, _WRITES), (DynamoHandler, _HANDLER_WRITES)):
        for name in names:
            original = getattr(owner, name)

            @functools.wraps(original)
            def serialised(*args: Any, __original: Any = original, **kwargs: Any) -> Any:
                with _lock:
                    return __original(*args, **kwargs)

            setattr(owner, name, serialised)
    _applied = True
