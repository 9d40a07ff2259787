"""moto's DynamoDB with its own condition and update-expression parsers, in its handler and its backend,
as before localapi/moto_conditions.py and localapi/moto_handler_parses.py: what their tests compare with."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from moto.dynamodb import comparisons
from moto.dynamodb import models as dynamodb_models
from moto.dynamodb import responses as dynamodb_responses
from moto.dynamodb.models import table as dynamodb_table
from moto.dynamodb.parsing.expressions import UpdateExpressionParser  # type: ignore[attr-defined]


@contextmanager
def moto_own_parsers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as unpatched:
        unpatched.setattr(dynamodb_responses, "create_condition_expression_parser",
                          comparisons.create_condition_expression_parser)
        unpatched.setattr(dynamodb_responses, "UpdateExpressionParser", UpdateExpressionParser)
        unpatched.setattr(dynamodb_models, "create_condition_expression_parser",
                          comparisons.create_condition_expression_parser)
        unpatched.setattr(dynamodb_models, "get_filter_expression", comparisons.get_filter_expression)
        unpatched.setattr(dynamodb_table, "get_filter_expression", comparisons.get_filter_expression)
        yield
