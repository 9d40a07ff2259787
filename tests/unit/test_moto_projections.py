"""The local emulator's projections (localapi/moto_projections.py): a ProjectionExpression of top-level
attributes answers exactly what moto's own projection answers, through boto3, for GetItem, BatchGetItem and
Query, with absent attributes, key attributes and every attribute type; a nested path keeps moto's own."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from boto3.dynamodb.types import Binary
from moto import mock_aws
from moto.dynamodb.models.dynamo_type import Item

from localapi import moto_projections

_ITEM: dict[str, Any] = {
    "pk": "p", "sk": "s", "body": "x" * 50_000, "n": Decimal("3"), "b": Binary(b"\x00\x01"),
    "m": {"inner": {"deep": [1, "two", None]}}, "l": [Decimal(1), {"k": "v"}], "ss": {"a", "b"}, "flag": False,
}
_PROJECTIONS = [("#n, b, m", {"#n": "n"}), ("m, l, ss, flag, absent", {}), ("sk, #n", {"#n": "n"}),
                ("absent", {}), ("m.inner.deep[1], l[1].k", {})]


@pytest.fixture
def table() -> Iterator[Any]:
    with mock_aws():
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        made = resource.create_table(
            TableName="projections", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "sk", "AttributeType": "S"}])
        made.put_item(Item=_ITEM)
        yield made


def _reads(table: Any) -> list[Any]:
    answers: list[Any] = []
    client = table.meta.client
    for projection, names in _PROJECTIONS:
        named = {"ExpressionAttributeNames": names} if names else {}
        answers.append(table.get_item(Key={"pk": "p", "sk": "s"}, ProjectionExpression=projection, **named)
                       .get("Item"))
        answers.append(client.batch_get_item(RequestItems={"projections": {
            "Keys": [{"pk": "p", "sk": "s"}], "ProjectionExpression": projection, **named}})["Responses"])
        answers.append(table.query(KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": "p"},
                                   ProjectionExpression=projection, **named)["Items"])
    return answers


def test_a_projection_answers_what_motos_own_answers(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as moto_own:  # whichever test of this process patched it first
        moto_own.setattr(Item, "project", moto_projections._moto_project)
        theirs = _reads(table)
    moto_projections.make_projections_read_only_their_attributes()
    assert Item.project is moto_projections._project
    assert _reads(table) == theirs
    assert theirs[0] == {"n": Decimal("3"), "b": Binary(b"\x00\x01"), "m": _ITEM["m"]}
    assert theirs[9] is None or theirs[9] == {}  # nothing of the item is named


def test_only_the_named_attributes_are_read(table: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    moto_projections.make_projections_read_only_their_attributes()
    monkeypatch.setattr(Item, "to_regular_json", lambda self: pytest.fail("the whole item was converted"))
    assert table.get_item(Key={"pk": "p", "sk": "s"}, ProjectionExpression="n")["Item"] == {"n": Decimal("3")}
