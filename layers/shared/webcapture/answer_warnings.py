"""How a result's warnings reach the caller: `data.warning` in a JSON answer, `X-Webcapture-Warning` on bytes.

Each warning one clause, joined by "; " into the one string the contract names (docs/api.md#screenshot,
docs/api.md#ai-extract, docs/api.md#page-control, docs/api.md#limits).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from webcapture import request_scope

WARNING_HEADER = "X-Webcapture-Warning"
# Headers are not the place for long prose; the JSON forms carry the whole text.
_MAX_HEADER_CHARS = 1000


def with_warnings(data: dict[str, Any], warnings: Iterable[str]) -> dict[str, Any]:
    """`data` with `warning` holding its own warning (if any) and then these, each once."""
    parts = [data["warning"]] if data.get("warning") else []
    parts += [warning for warning in warnings if warning not in parts]
    return {**data, "warning": "; ".join(parts)} if parts else data


def warning_headers(warnings: Iterable[str]) -> dict[str, str]:
    """The header for a bytes answer: one line of printable ASCII (anything else, such as a selector's
    non-ASCII characters, becomes '?'), bounded. It also names what the request sent that was ignored."""
    parts = list(warnings)
    parts += [warning for warning in request_scope.request_warnings() if warning not in parts]
    text = "".join(ch if " " <= ch <= "~" else "?" for ch in "; ".join(parts))
    return {WARNING_HEADER: text[:_MAX_HEADER_CHARS]} if text else {}
