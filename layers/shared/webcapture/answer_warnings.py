"""How a result's warnings reach the caller: `data.warning` in a JSON answer, `X-Webcapture-Warning` on bytes.

Each warning one clause, joined by "; " into the one string the contract names (CONTRACT 7, 9, 16), as
the extraction's own warnings are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

WARNING_HEADER = "X-Webcapture-Warning"


def with_warnings(data: dict[str, Any], warnings: Iterable[str]) -> dict[str, Any]:
    """`data` with `warning` holding its own warning (if any) and then these."""
    parts = [data["warning"]] if data.get("warning") else []
    parts.extend(warnings)
    return {**data, "warning": "; ".join(parts)} if parts else data


def warning_headers(warnings: Iterable[str]) -> dict[str, str]:
    # Header values travel as latin-1; our warnings are ASCII, anything else is replaced rather than fail.
    text = "; ".join(warnings).encode("ascii", "replace").decode()
    return {WARNING_HEADER: text} if text else {}
