"""moto's DynamoDB with its own condition and update-expression parsers, in its handler and its backend,
as before localapi/moto_conditions.py and localapi/moto_handler_parses.py: what their tests compare with,
and the calls both tests make to compare answers."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
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


def table_client(table: str, key: str) -> Any:
    """A DynamoDB client (inside mock_aws) with `table` made, its hash key `key`."""
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(TableName=table, KeySchema=[{"AttributeName": key, "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": key, "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    return client


def answer(call: Any, **arguments: Any) -> Any:
    """What a call answered, or how it was refused or raised: comparable between two runs."""
    try:
        answered = call(**arguments)
    except ClientError as error:
        return "refused", error.response["Error"], error.response.get("Item"), error.response.get(
            "CancellationReasons")
    except Exception as error:  # moto's parser's own exceptions reach the caller of mock_aws as they are
        return "raised", type(error).__name__, str(error)
    return {key: value for key, value in answered.items() if key != "ResponseMetadata"}
