"""An ai-extract monitor's diff: the extracted data compared with the last completed
check's, as the fields that changed, each named by its JSON Pointer (RFC 6901).

- A change is `{"path": "/price", "before": 10, "after": 12}`. A key only the new data has is added:
  `{"path", "after"}` with no `before`; a key only the old data had is removed: `{"path", "before"}` with no
  `after`. Leaving the side out (not null) keeps an added or removed key apart from a value that became
  null, which is `{"path", "before": 3, "after": null}`.
- Objects are compared key by key (the old data's keys in their order, then the new keys), arrays index by
  index: an item appended is `/items/2` added, the last one dropped is its index removed. An array that
  became shorter or longer in the middle shows as changes at each later index, as an index path must.
- Values of different JSON types are one change at their path, whatever they hold: `1` and `true` differ,
  `1` and `1.0` are the same number. The whole value changing type at the top is the path `""`.
- In a pointer, `~` is written `~0` and `/` is written `~1`: the key `a/b` is `/a~1b`.
- Equal data: no change, `[]`.
"""

from __future__ import annotations

from typing import Any


def json_pointer_diff(before: Any, after: Any) -> list[dict[str, Any]]:
    """The changes from `before` to `after` (JSON values as json.loads gives them), in document order."""
    changes: list[dict[str, Any]] = []
    _compare(before, after, "", changes)
    return changes


def pointer_token(key: str | int) -> str:
    """One reference token: `~` first (so the `~` of `~1` is not escaped again), then `/`."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _compare(before: Any, after: Any, path: str, changes: list[dict[str, Any]]) -> None:
    if isinstance(before, dict) and isinstance(after, dict):
        for key, value in before.items():
            inner = f"{path}/{pointer_token(key)}"
            if key in after:
                _compare(value, after[key], inner, changes)
            else:
                changes.append({"path": inner, "before": value})
        changes.extend({"path": f"{path}/{pointer_token(key)}", "after": value}
                       for key, value in after.items() if key not in before)
    elif isinstance(before, list) and isinstance(after, list):
        for index, (old, new) in enumerate(zip(before, after, strict=False)):
            _compare(old, new, f"{path}/{index}", changes)
        common = min(len(before), len(after))
        changes.extend({"path": f"{path}/{index}", "before": value}
                       for index, value in enumerate(before[common:], common))
        changes.extend({"path": f"{path}/{index}", "after": value}
                       for index, value in enumerate(after[common:], common))
    elif not _same(before, after):
        changes.append({"path": path, "before": before, "after": after})


def _same(before: Any, after: Any) -> bool:
    """Equal JSON values: Python's `True == 1` is not JSON's, so a boolean only equals a boolean."""
    if isinstance(before, bool) or isinstance(after, bool):
        return type(before) is type(after) and before == after
    if type(before) is not type(after) and not _both_numbers(before, after):
        return False
    return bool(before == after)


def _both_numbers(before: Any, after: Any) -> bool:
    return isinstance(before, int | float) and isinstance(after, int | float)
