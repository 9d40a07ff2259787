"""A check compared with the monitor's last completed check (docs/monitors.md#checks): its `changeStatus`
(`new`, `same`, `changed`) and its `diff`, by operation.

A markdown check's diff is webcapture.monitors.markdown_diff's; an ai-extract check's is its extracted JSON's
changes by JSON Pointer (webcapture.monitors.json_pointer_diff), `{fields: [{path, before, after}]}`. A
screenshot check is not compared here: its visual diff needs the image library, which only the monitors'
comparison function ships (webcapture.monitors.screenshot_compare; the screenshot function hands its
checks over, webcapture.monitors.comparison_handoff).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webcapture.monitors.json_pointer_diff import json_pointer_diff
from webcapture.monitors.markdown_diff import ChangeStatus, change_status, markdown_diff

# The part of each operation's answer a check compares (the rest, a timestamp, a file's link, differs on
# every load).
_COMPARED = {"markdown": "markdown", "ai-extract": "extracted"}


@dataclass(frozen=True)
class Comparison:
    change_status: ChangeStatus
    diff: dict[str, Any] | None


def compare(operation: str, before: dict[str, Any] | None, after: dict[str, Any]) -> Comparison:
    field = _COMPARED.get(operation)
    if field is None:
        raise ValueError(f"{operation} checks are not compared in the work function: hand them off")
    if before is None:
        return Comparison("new", None)
    if operation == "markdown":
        earlier, now = str(before.get(field) or ""), str(after.get(field) or "")
        return Comparison(change_status(earlier, now), markdown_diff(earlier, now))
    fields = json_pointer_diff(before.get(field), after.get(field))
    return Comparison("changed" if fields else "same", {"fields": fields})
