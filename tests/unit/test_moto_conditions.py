"""moto with the local API's condition-expression memo (localapi/moto_conditions.py): a kept parse answers
what moto's own parse answers, for every item, however often it is used; a malformed expression still
fails each time and is never kept; and a conditional write through boto3 succeeds once, then fails."""

from __future__ import annotations

import random
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from localapi import moto_conditions

EXPRESSIONS = [
    ("attribute_not_exists(remaining)", None, None),
    ("attribute_exists(#t) AND #t = :total AND #st IN (:q, :r)", {"#t": "total", "#st": "status"},
     {":total": {"N": "3"}, ":q": {"S": "queued"}, ":r": {"S": "running"}}),
    ("remaining >= :c OR attribute_not_exists(remaining)", None, {":c": {"N": "2"}}),
    ("contains(leases, :l) AND size(leases) < :n", None, {":l": {"S": "a"}, ":n": {"N": "3"}}),
    ("NOT (#s = :s) AND begins_with(sk, :p)", {"#s": "status"}, {":s": {"S": "done"}, ":p": {"S": "item#"}}),
]


def _item(chosen: random.Random) -> Item:
    attrs: dict[str, Any] = {"pk": {"S": "job#1"}, "sk": {"S": chosen.choice(["item#1", "result#1", "job"])}}
    if chosen.random() < 0.7:
        attrs["total"] = {"N": str(chosen.randint(2, 4))}
    if chosen.random() < 0.7:
        attrs["status"] = {"S": chosen.choice(["queued", "running", "done"])}
    if chosen.random() < 0.5:
        attrs["remaining"] = {"N": str(chosen.randint(0, 4))}
    if chosen.random() < 0.5:
        attrs["leases"] = {"SS": chosen.sample(["a", "b", "c", "d"], chosen.randint(1, 4))}
    return Item(DynamoType(attrs["pk"]), DynamoType(attrs["sk"]), attrs)


def test_a_kept_parse_answers_as_moto_parses() -> None:
    chosen = random.Random(11)
    items = [_item(chosen) for _ in range(300)]
    for expression, names, values in EXPRESSIONS:
        answers = {True: 0, False: 0}
        for item in items:
            expected = moto_conditions._moto_parse(expression, names, values).expr(item)
            assert moto_conditions._parsed_once(expression, names, values).expr(item) == expected
            answers[expected] += 1
        assert answers[True] and answers[False], expression  # each expression told items apart


def test_each_distinct_request_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []
    original = moto_conditions._moto_parse

    def counting(expr: str | None, names: Any, values: Any) -> Any:
        parsed.append(str(expr))
        return original(expr, names, values)

    monkeypatch.setattr(moto_conditions, "_moto_parse", counting)
    monkeypatch.setattr(moto_conditions, "_kept", type(moto_conditions._kept)())
    for _ in range(49):
        moto_conditions._parsed_once("attribute_not_exists(pk)", None, None)
        moto_conditions._parsed_once("a = :v", None, {":v": {"N": "1"}})
        moto_conditions._parsed_once("a = :v", None, {":v": {"N": "2"}})  # other values: parsed apart
    assert sorted(parsed) == ["a = :v", "a = :v", "attribute_not_exists(pk)"]
    for _ in range(2):
        with pytest.raises(Exception) as failed:
            moto_conditions._parsed_once("a = = :v", None, {":v": {"N": "1"}})
        assert "a = = :v" not in str(moto_conditions._kept) and failed.type.__name__ != "KeyError"


def test_conditional_writes_through_boto3_behave_as_before() -> None:
    moto_conditions.make_conditions_parse_once()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(TableName="t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                            BillingMode="PAY_PER_REQUEST")
        seen: set[str] = set()
        for key in ("a", "b", "a", "b"):
            try:
                client.put_item(TableName="t", Item={"pk": {"S": key}},
                                ConditionExpression="attribute_not_exists(pk)")
                outcome = "written"
            except ClientError as error:
                outcome = error.response["Error"]["Code"]
            assert outcome == ("written" if key not in seen else "ConditionalCheckFailedException")
            seen.add(key)
