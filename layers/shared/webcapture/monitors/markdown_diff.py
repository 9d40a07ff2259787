"""A markdown monitor's diff (docs/monitors.md#checks): the page's Markdown compared line by line with the
last completed check's, as line counts and a unified diff (difflib), the diff cut at 100 KB.

Lines are compared as they are: a paragraph is one line of Markdown, so a changed paragraph is one line
removed and one added.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

MAX_UNIFIED_BYTES = 100 * 1024
CONTEXT_LINES = 3

ChangeStatus = Literal["new", "same", "changed"]


def change_status(before: str | None, after: str) -> ChangeStatus:
    if before is None:
        return "new"
    return "same" if before == after else "changed"


def markdown_diff(before: str, after: str) -> dict[str, Any]:
    """`{added, removed, unified, truncated}`: lines added and removed, and the unified diff (cut at
    100 KB on a line boundary; `truncated` says so). Identical texts: zeros and an empty diff."""
    lines = list(difflib.unified_diff(before.splitlines(), after.splitlines(), "before", "after",
                                      n=CONTEXT_LINES, lineterm=""))
    body = [line for line in lines if not line.startswith(("---", "+++", "@@"))]
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    unified, truncated = _cut("\n".join(lines), MAX_UNIFIED_BYTES)
    return {"added": added, "removed": removed, "unified": unified, "truncated": truncated}


def _cut(text: str, limit: int) -> tuple[str, bool]:
    encoded = text.encode("utf-8", "surrogatepass")
    if len(encoded) <= limit:
        return text, False
    head = encoded[:limit].decode("utf-8", "ignore")
    return head[: head.rfind("\n") + 1] if "\n" in head else head, True
