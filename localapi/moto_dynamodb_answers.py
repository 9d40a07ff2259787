"""moto's DynamoDB answers items in JSON written directly, as DynamoDB's wire format is.

moto turns every answer into JSON by walking botocore's model of the output, shape by shape: for each
attribute value of each item, each of AttributeValue's ten members is looked up under two or three
spellings. A crawl's incremental re-crawl of 300 pages spent 2.5 s of its 7 s there (104,000 lookups),
in the emulator's process, on the same two cores as the functions it serves; real DynamoDB spends it on
its own servers. The item operations' answers are already wire-shaped dicts ({"S": ...}, {"N": "1"},
raw bytes for B), so they are written as they are: bytes in base64 and timestamps in epoch seconds, as
the JSON protocol writes them, and a None member left out, as the model's walk leaves it out. Errors
and every other operation keep moto's own serializer (tests/unit/test_moto_dynamodb_answers.py compares
the two).
"""

from __future__ import annotations

import base64
import calendar
import functools
import json
from datetime import datetime
from typing import Any, Final

from moto.core.responses import ActionResult
from moto.dynamodb.responses import DynamoHandler

# Operations whose answer is items, keys, counts and consumed capacity: nothing the model renames.
ITEM_OPERATIONS: Final = frozenset({
    "GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems",
    "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems",
})
_CONTENT_TYPE: Final = "application/x-amz-json-1.0"  # DynamoDB's jsonVersion
_patched = False
# moto's own serializer for every answer when False (the tests compare the two).
enabled = True


def _wire(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _wire(member) for key, member in value.items() if member is not None}
    if isinstance(value, list | tuple):
        return [_wire(member) for member in value]
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, datetime):
        seconds = calendar.timegm(value.timetuple())
        return seconds + (value.microsecond // 1000) / 1000.0 if value.microsecond else seconds
    return value


def plain_answer(result: dict[str, Any]) -> str:
    return json.dumps(_wire(result), separators=(",", ":"))


def make_item_answers_plain_json() -> None:
    """DynamoHandler.serialized writes the item operations' answers directly (once per process)."""
    global _patched
    if _patched:
        return
    original = DynamoHandler.serialized

    @functools.wraps(original)
    def serialized(self: DynamoHandler, action_result: ActionResult) -> Any:
        result = action_result.result
        if not enabled or not isinstance(result, dict) or self._get_action() not in ITEM_OPERATIONS:
            return original(self, action_result)
        headers = {"Content-Type": _CONTENT_TYPE}
        headers.update(self.response_headers)
        return 200, headers, plain_answer(result)

    DynamoHandler.serialized = serialized  # type: ignore[method-assign,assignment]
    _patched = True
