"""Values between JSON and DynamoDB's resource API, which reads every number as a Decimal and takes no
float."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any


def number(value: Any) -> int | float:
    """A Decimal as the JSON number it was (whole: int); anything else as it is."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value  # type: ignore[no-any-return]


def from_dynamo(value: Any) -> Any:
    """DynamoDB's Decimals back to JSON numbers, in nested dicts and lists too."""
    return _each_leaf(value, lambda leaf: number(leaf) if isinstance(leaf, Decimal) else leaf)


def to_dynamo(value: Any) -> Any:
    """JSON numbers to Decimals, in nested dicts and lists too (booleans stay booleans)."""
    return _each_leaf(
        value, lambda leaf: Decimal(str(leaf)) if isinstance(leaf, int | float) and not isinstance(leaf, bool)
        else leaf)


def _each_leaf(value: Any, change: Callable[[Any], Any]) -> Any:
    if isinstance(value, dict):
        return {k: _each_leaf(v, change) for k, v in value.items()}
    if isinstance(value, list):
        return [_each_leaf(v, change) for v in value]
    return change(value)
