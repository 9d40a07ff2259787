"""A check compared with the monitor's last completed check (docs/monitors.md#checks): its `changeStatus`
(`new`, `same`, `changed`) and its `diff`, by operation.

A markdown check's diff is webcapture.monitors.markdown_diff's. An ai-extract check is `same` or `changed`
by its extracted JSON, a screenshot check has no comparison yet: their diffs (JSON Pointer fields, the
visual diff) are not built here, and their `diff` is null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webcapture.monitors.markdown_diff import ChangeStatus, change_status, markdown_diff

# The part of each operation's answer a check compares (the rest, a timestamp, a file's link, differs on
# every load).
_COMPARED = {"markdown": "markdown", "ai-extract": "extracted"}


@dataclass(frozen=True)
class Comparison:
    change_status: ChangeStatus | None  # None: this operation's checks are not compared yet (screenshot)
    diff: dict[str, Any] | None


def compare(operation: str, before: dict[str, Any] | None, after: dict[str, Any]) -> Comparison:
    field = _COMPARED.get(operation)
    if field is None:
        return Comparison("new" if before is None else None, None)
    if before is None:
        return Comparison("new", None)
    if operation == "markdown":
        earlier, now = str(before.get(field) or ""), str(after.get(field) or "")
        return Comparison(change_status(earlier, now), markdown_diff(earlier, now))
    return Comparison("same" if before.get(field) == after.get(field) else "changed", None)
