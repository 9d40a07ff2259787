"""moto's DynamoDB handler parses each request's expressions once per distinct form, not once per request.

Before it calls the backend, moto's handler (PutItem, DeleteItem, UpdateItem, TransactWriteItems, Query,
Scan) parses the condition or filter expression, and UpdateItem's and each transaction Update's update
expression, only to learn which `#name` and `:value` placeholders they use (an unused one is a
ValidationException) and whether they parse; the backend then parses them again for itself. Under
cProfile these first parses were 15% of the CPU of metering's UpdateItem and 11% of a TransactWriteItems
of 99 items. localapi/moto_conditions.py keeps the backend's parse; this module keeps the handler's.

A condition's parse depends on its expression, its names and, of its values, only on which placeholders
there are and each one's type (moto's parser reads a value's first key, its type, and nothing else of it
while parsing). Metering's and concurrency's updates carry a new timestamp or request id every time, so a
memo keyed on the values themselves would never answer them: the parse is kept per (expression, names,
placeholders with their types), and the kept syntax tree makes moto's condition with each request's own
values. A parse that fails is never kept: moto's own parser raises its own error again. An update
expression's syntax tree depends on its text alone; the handler only reads the placeholders in it, so
that tree is kept per text and handed only to the handler, never to the backend, whose validator changes
its own tree. tests/unit/test_moto_handler_parses.py holds the answers to moto's.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from moto.dynamodb import comparisons
from moto.dynamodb import responses as dynamodb_responses
from moto.dynamodb.comparisons import ConditionExpressionParser
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]

# moto's own, kept when the memo replaces them (module globals, so a test can count their calls).
_moto_condition_parser = comparisons.create_condition_expression_parser
_moto_update_parse = UpdateExpressionParser.make
KEPT = 512  # distinct forms of each kind: the service writes a few dozen
_conditions: OrderedDict[str, _KeptCondition] = OrderedDict()
_updates: OrderedDict[str, _KeptUpdateExpression] = OrderedDict()
_lock = threading.Lock()
_patched = False


@dataclass(frozen=True)
class _KeptCondition:
    """moto's syntax tree of a condition (its value nodes hold the values of the request first parsed)
    and the placeholders moto found in it."""

    tree: Any
    names_found: tuple[str, ...]
    values_found: tuple[str, ...]


def _values_form(values: Any) -> Any:
    """What moto's condition parser reads of the values: their placeholders and each one's type. A value
    that is not a non-empty dict stands for its Python type: moto's parse fails wherever it is used."""
    if not isinstance(values, dict):
        return values if values is None else repr(type(values))
    return {name: next(iter(value)) if isinstance(value, dict) and value else repr(type(value))
            for name, value in values.items()}


def _lookup(memo: OrderedDict[str, Any], key: str) -> Any:
    with _lock:
        found = memo.get(key)
        if found is not None:
            memo.move_to_end(key)
        return found


def _store(memo: OrderedDict[str, Any], key: str, parsed: Any) -> None:
    with _lock:
        memo[key] = parsed
        if len(memo) > KEPT:
            memo.popitem(last=False)


class _ConditionParse:
    """Stands in for moto's ConditionExpressionParser in the handler: parse() answers, and fills the
    placeholders found, as moto's does, from a kept parse of the same form."""

    def __init__(self, expression: str | None, names: dict[str, str] | None,
                 values: dict[str, dict[str, str]] | None) -> None:
        self.condition_expression = expression
        self.expression_attribute_names = names
        self.expression_attribute_values = values
        # Fresh lists for each request: the handler extends them (TransactWriteItems adds an update's names).
        self.expr_attr_names_found: list[str] = []
        self.expr_attr_values_found: list[str] = []

    def parse(self) -> Any:
        expression, names, values = (self.condition_expression, self.expression_attribute_names,
                                     self.expression_attribute_values)
        if not expression:  # no condition: moto's parser answers its default at once, finding nothing
            return ConditionExpressionParser(expression, names, values).parse()
        try:
            key = json.dumps([expression, names, _values_form(values)], sort_keys=True)
        except (TypeError, ValueError):  # names JSON cannot write: parsed each time
            return self._parsed_by_moto()
        kept: _KeptCondition | None = _lookup(_conditions, key)
        if kept is None:
            return self._parsed_by_moto(key)
        self.expr_attr_names_found.extend(kept.names_found)
        self.expr_attr_values_found.extend(kept.values_found)
        # The kept tree, with this request's own values in its value nodes, made into moto's condition.
        parser = ConditionExpressionParser(expression, names, values)
        return parser._make_op_condition(_with_values(kept.tree, values))

    def _parsed_by_moto(self, key: str | None = None) -> Any:
        parser = _moto_condition_parser(self.condition_expression, self.expression_attribute_names,
                                        self.expression_attribute_values)
        trees: list[Any] = []
        make_condition = parser._make_op_condition

        def seen(node: Any) -> Any:  # moto calls this on the whole tree first, then on its branches
            trees.append(node)
            return make_condition(node)

        parser._make_op_condition = seen  # type: ignore[method-assign]
        parsed = parser.parse()  # raises for a malformed expression: nothing is kept
        self.expr_attr_names_found.extend(parser.expr_attr_names_found)
        self.expr_attr_values_found.extend(parser.expr_attr_values_found)
        if key is not None and trees:
            _store(_conditions, key, _KeptCondition(trees[0], tuple(parser.expr_attr_names_found),
                                                   tuple(parser.expr_attr_values_found)))
        return parsed


def _with_values(node: Any, values: Any) -> Any:
    """moto's syntax tree with each value node holding this request's value, as moto's parser puts it
    there (a value node's text is its placeholder)."""
    if node.kind == ConditionExpressionParser.Kind.EXPRESSION_ATTRIBUTE_VALUE:
        return node._replace(value=values[node.text])
    if not node.children:
        return node
    return node._replace(children=[_with_values(child, values) for child in node.children])


def _condition_parser(expression: str | None, names: dict[str, str] | None,
                      values: dict[str, dict[str, str]] | None) -> _ConditionParse:
    return _ConditionParse(expression, names, values)


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
        kept: _KeptUpdateExpression | None = _lookup(_updates, expression)
        if kept is None:
            kept = _KeptUpdateExpression(_moto_update_parse(expression))  # raises when malformed: not kept
            _store(_updates, expression, kept)
        return kept


def make_handler_parses_once() -> None:
    """Put the memos where moto's DynamoDB handler parses expressions (once per process); the backend
    keeps its own parser."""
    global _patched
    with _lock:
        if not _patched:
            dynamodb_responses.create_condition_expression_parser = _condition_parser  # type: ignore[attr-defined,assignment]
            dynamodb_responses.UpdateExpressionParser = _HandlerUpdateExpressionParser  # type: ignore[attr-defined]
            _patched = True
