"""moto parses each form of condition expression once, for its handler and its backend alike.

Every conditional write (and every item of a TransactWriteItems) has moto build a ConditionExpressionParser
and parse its expression anew, in its handler (localapi/moto_handler_parses.py) and again in its backend:
`get_filter_expression` for PutItem, DeleteItem, each transaction item and the filters of Query and Scan,
and the parser itself for UpdateItem. A crawl's transactions write 49 pages' items with the same
`attribute_not_exists(pk)`, and parsing was about an eighth of the emulator's CPU during a re-crawl.

A condition's parse depends on its expression, its names and, of its values, only on which placeholders
there are and each one's type (moto's parser reads a value's first key, its type, and nothing else of it
while parsing). Metering's and concurrency's updates carry a new timestamp or request id every time, so a
memo keyed on the values themselves would never answer them: the parse is kept per (expression, names,
placeholders with their types), in one memo for the handler and the backend, and the kept syntax tree
makes moto's condition with each request's own values, as moto's parser makes it. A parse that fails is
never kept: moto's own parser raises its own error again. tests/unit/test_moto_conditions.py and
tests/unit/test_moto_handler_parses.py hold the answers to moto's.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Any

from moto.dynamodb import comparisons
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb.comparisons import ConditionExpressionParser, Func, Op
from moto.dynamodb.models import table as dynamodb_table

from localapi.moto_kept import Kept

# moto's own parser, kept when the memo replaces it (a module global, so a test can count its calls).
_moto_condition_parser = comparisons.create_condition_expression_parser
_conditions: Kept[_KeptCondition] = Kept()
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


class ConditionParse:
    """Stands in for moto's ConditionExpressionParser (and its create_condition_expression_parser, which
    only makes one): parse() answers, and fills the placeholders found,
    as moto's does, from a kept parse of the same form."""

    def __init__(self, expression: str | None, names: dict[str, str] | None,
                 values: dict[str, dict[str, str]] | None) -> None:
        self.condition_expression = expression
        self.expression_attribute_names = names
        self.expression_attribute_values = values
        # Fresh lists for each request: the handler extends them (TransactWriteItems adds an update's names).
        self.expr_attr_names_found: list[str] = []
        self.expr_attr_values_found: list[str] = []

    def parse(self) -> Op | Func:
        expression, names, values = (self.condition_expression, self.expression_attribute_names,
                                     self.expression_attribute_values)
        if not expression:  # no condition: moto's parser answers its default at once, finding nothing
            return ConditionExpressionParser(expression, names, values).parse()
        try:
            key = json.dumps([expression, names, _values_form(values)], sort_keys=True)
        except (TypeError, ValueError):  # names JSON cannot write: parsed each time
            return self._parsed_by_moto()
        kept = _conditions.get(key)
        if kept is None:
            return self._parsed_by_moto(key)
        self.expr_attr_names_found.extend(kept.names_found)
        self.expr_attr_values_found.extend(kept.values_found)
        # The kept tree, with this request's own values in its value nodes, made into moto's condition.
        parser = ConditionExpressionParser(expression, names, values)
        return parser._make_op_condition(_with_values(kept.tree, values))

    def _parsed_by_moto(self, key: str | None = None) -> Op | Func:
        parser = _moto_condition_parser(self.condition_expression, self.expression_attribute_names,
                                        self.expression_attribute_values)
        trees: list[Any] = []
        make_condition = parser._make_op_condition

        def seen(node: Any) -> Op | Func:  # moto calls this on the whole tree first, then on its branches
            trees.append(node)
            return make_condition(node)

        parser._make_op_condition = seen  # type: ignore[method-assign]
        parsed = parser.parse()  # raises for a malformed expression: nothing is kept
        self.expr_attr_names_found.extend(parser.expr_attr_names_found)
        self.expr_attr_values_found.extend(parser.expr_attr_values_found)
        if key is not None and trees:
            _conditions.put(key, _KeptCondition(trees[0], tuple(parser.expr_attr_names_found),
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


def _parsed_once(expr: str | None, names: dict[str, str] | None,
                 values: dict[str, dict[str, str]] | None) -> Op | Func:
    """Stands in for moto's get_filter_expression."""
    return ConditionParse(expr, names, values).parse()


def make_conditions_parse_once() -> None:
    """Put the memo where moto's backend and tables parse a condition (once per process);
    localapi/moto_handler_parses.py puts it in the handler."""
    global _patched
    with _lock:
        if not _patched:
            dynamodb_models.get_filter_expression = _parsed_once  # type: ignore[attr-defined]
            dynamodb_table.get_filter_expression = _parsed_once  # type: ignore[attr-defined]
            dynamodb_models.create_condition_expression_parser = ConditionParse  # type: ignore[attr-defined,assignment]
            _patched = True
