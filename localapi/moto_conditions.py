"""moto parses each condition expression once per distinct request, not once per item.

Every conditional write (and every item of a TransactWriteItems) has moto build a ConditionExpressionParser
and parse its expression anew, though the parsed form depends only on the expression, its names and its
values, and evaluating it changes nothing. A crawl's transactions write 49 pages' items with the same
`attribute_not_exists(pk)`, and parsing was about an eighth of the emulator's CPU during a re-crawl. The
parsed form is kept per (expression, names, values); tests/unit/test_moto_conditions.py holds its answers
to moto's own.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any

from moto.dynamodb import comparisons
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.models import table as dynamodb_table

# moto's own parser, kept when the memo replaces it (a module global, so a test can count its calls).
_moto_parse = comparisons.get_filter_expression
KEPT = 512  # distinct (expression, names, values): a crawl's writes use a few dozen
_kept: OrderedDict[str, Any] = OrderedDict()
_lock = threading.Lock()
_patched = False


def _parsed_once(expr: str | None, names: dict[str, str] | None, values: dict[str, Any] | None) -> Any:
    try:
        key = json.dumps([expr, names, values], sort_keys=True)
    except (TypeError, ValueError):  # a value JSON cannot write (bytes of a B attribute): parsed each time
        return _moto_parse(expr, names, values)
    with _lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    parsed = _moto_parse(expr, names, values)  # raises for a malformed expression: nothing is kept
    with _lock:
        _kept[key] = parsed
        if len(_kept) > KEPT:
            _kept.popitem(last=False)
    return parsed


def make_conditions_parse_once() -> None:
    """Put the memo where moto's backend and tables call the parser (once per process)."""
    global _patched
    with _lock:
        if not _patched:
            dynamodb_models.get_filter_expression = _parsed_once  # type: ignore[attr-defined]
            dynamodb_table.get_filter_expression = _parsed_once  # type: ignore[attr-defined]
            _patched = True
