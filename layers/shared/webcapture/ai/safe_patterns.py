"""Refuse the caller's regular expressions that can backtrack catastrophically (docs/api.md#ai-extract
validation).

A `response_format` schema's `pattern` and `patternProperties` run in Python's `re` on the model's output,
server-side. `re` backtracks and cannot be interrupted, so `(a+)+$` against "a" * 30 + "!" runs for
minutes. Such patterns are refused when the request arrives (422), by looking at the parsed pattern:

- a repeated group (a quantifier allowing more than one pass) that contains any other quantifier but an
  exact count (`(a+)+`, `(a*)*`, `(x?x?)+`, `(.*a){12}`, `(?:a{1,3})*`): the classic exponential and
  high-degree polynomial forms;
- a repeated group containing an alternation that `re` could not reduce to a character class
  (`(a|ab)*`): branches that overlap backtrack the same way;
- backreferences, which no linear-time engine supports either;
- patterns longer than MAX_PATTERN_CHARS.

This refuses a few safe patterns too (`([a-z]+\\.)+`; write `[a-z.]+` or check after the fact). Patterns
without nesting can still take polynomial time on long input; the model's reply is bounded
(ai/extraction.py), and a Lambda invocation ends at its timeout in any case.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from typing import Any

# The parser `re` itself uses (its old names, sre_parse and sre_constants, warn as deprecated since 3.11).
_parser: Any = importlib.import_module("re._parser")
c: Any = importlib.import_module("re._constants")

MAX_PATTERN_CHARS = 1000
_REPEATS = (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT)
_GROUP_REFERENCES = (c.GROUPREF, c.GROUPREF_EXISTS, c.GROUPREF_IGNORE, c.GROUPREF_LOC_IGNORE,
                     c.GROUPREF_UNI_IGNORE)


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is refused, or None when it may run."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"is longer than {MAX_PATTERN_CHARS} characters"
    try:
        parsed = _parser.parse(pattern)
    except re.error as error:
        return f"is not a valid regular expression ({error})"
    return _problem(list(parsed), inside_repeat=False)


def _problem(items: list[tuple[Any, Any]], *, inside_repeat: bool) -> str | None:
    for op, av in items:
        children: list[list[tuple[Any, Any]]] = []
        repeats = inside_repeat
        if op in _REPEATS:
            low, high, body = av
            many = high == c.MAXREPEAT or high > 1
            if inside_repeat and low != high:  # `(x?x?)+` is as bad as `(x+)+`; `(x{3})+` is fine
                return "nests quantifiers (a repeated group holding another quantifier)"
            repeats, children = inside_repeat or many, [list(body)]
        elif op is c.BRANCH:
            if inside_repeat:
                return "repeats a group with alternatives (overlapping branches backtrack exponentially)"
            children = [list(branch) for branch in av[1]]
        elif op is c.SUBPATTERN:
            children = [list(av[-1])]
        elif op in (c.ASSERT, c.ASSERT_NOT):
            children = [list(av[1])]
        elif op is c.ATOMIC_GROUP:
            children = [list(av)]
        elif op in _GROUP_REFERENCES:
            return "uses a backreference"
        for child in children:
            if (found := _problem(child, inside_repeat=repeats)) is not None:
                return found
    return None


def schema_patterns(schema: Any) -> Iterator[str]:
    """Every `pattern` string and `patternProperties` key anywhere in `schema` (every object, not only the
    places the keywords are known to live: a `$ref` can point anywhere)."""
    stack = [schema]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value.get("pattern"), str):
                yield value["pattern"]
            if isinstance(value.get("patternProperties"), dict):
                yield from (key for key in value["patternProperties"] if isinstance(key, str))
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
