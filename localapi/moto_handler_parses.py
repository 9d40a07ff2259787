"""moto's DynamoDB handler parses each request's expressions once per distinct form, not once per request.

Before it calls the backend, moto's handler (PutItem, DeleteItem, UpdateItem, TransactWriteItems, Query,
Scan) parses the condition or filter expression, and UpdateItem's and each transaction Update's update
expression, only to learn which `#name` and `:value` placeholders they use (an unused one is a
ValidationException) and whether they parse; the backend then parses them again for itself. Under
cProfile these first parses were 15% of the CPU of metering's UpdateItem and 11% of a TransactWriteItems
of 99 items.

A condition's parse is kept per form (expression, names, placeholders with their types) in the memo
localapi/moto_conditions.py keeps for the backend too, so the handler's parse of a form is the backend's:
metering's and concurrency's updates, which carry a new timestamp or request id every time, are parsed
once. An update expression's syntax tree depends on its text alone; the handler only reads the placeholders
in it, so that tree is kept per text and handed only to the handler, never to the backend, whose validator
changes its own tree. A parse that fails is never kept. tests/unit/test_moto_handler_parses.py holds the
answers to moto's.
"""

from __future__ import annotations

import threading
from typing import Any

from moto.dynamodb import responses as dynamodb_responses
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]

from localapi.moto_conditions import ConditionParse
from localapi.moto_kept import Kept

# moto's own, kept when the memo replaces it (a module global, so a test can count its calls).
_moto_update_parse = UpdateExpressionParser.make
_updates: Kept[_KeptUpdateExpression] = Kept()
_lock = threading.Lock()
_patched = False


class _KeptUpdateExpression:
    """An update expression's syntax tree as the handler uses it: read for the placeholders it holds."""

    def __init__(self, tree: Any) -> None:
        self._tree = tree
        self._clauses: dict[tuple[type, ...], list[Any]] = {}

    def find_clauses(self, clause_types: list[type]) -> list[Any]:
        types = tuple(clause_types)
        with _lock:
            if types not in self._clauses:
                self._clauses[types] = self._tree.find_clauses(clause_types)
            return list(self._clauses[types])


class _HandlerUpdateExpressionParser:
    """Stands in for moto's UpdateExpressionParser in the handler's module only."""

    @staticmethod
    def make(expression: str) -> _KeptUpdateExpression:
        kept = _updates.get(expression)
        if kept is None:
            kept = _KeptUpdateExpression(_moto_update_parse(expression))  # raises when malformed: not kept
            _updates.put(expression, kept)
        return kept


def make_handler_parses_once() -> None:
    """Put the memos where moto's DynamoDB handler parses expressions (once per process); the backend's
    update expressions keep moto's own parser."""
    global _patched
    with _lock:
        if not _patched:
            dynamodb_responses.create_condition_expression_parser = ConditionParse  # type: ignore[attr-defined,assignment]
            dynamodb_responses.UpdateExpressionParser = _HandlerUpdateExpressionParser  # type: ignore[attr-defined]
            _patched = True
