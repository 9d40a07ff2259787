"""The local emulator's DynamoDB answers (localapi/moto_dynamodb_answers.py): every item operation's answer,
written directly, reads back through boto3 exactly as moto's own serializer's does, for items holding every
attribute type (binary, sets, maps, lists, null, booleans, numbers), with consumed capacity asked for, keys
to continue from, and unprocessed keys; an error keeps moto's own answer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import boto3
import pytest
from boto3.dynamodb.types import Binary
from botocore.exceptions import ClientError
from moto import mock_aws

from localapi import moto_dynamodb_answers

TABLE = "answers"
_ITEM: dict[str, Any] = {
    "s": "text with \"quotes\" and é", "n": Decimal("12.5"), "big": Decimal("123456789012345678901234567890"),
    "b": Binary(b"\x00\xff binary"), "ss": {"a", "b"}, "ns": {Decimal(1), Decimal("2.5")},
    "bs": {Binary(b"x"), Binary(b"\x01")}, "m": {"inner": {"deep": [1, "two", None, True]}},
    "l": [Decimal(1), "x", {"k": Binary(b"\x02")}], "nothing": None, "yes": True, "no": False,
}


@pytest.fixture
def table() -> Iterator[Any]:
    with mock_aws():
        resource = boto3.resource("dynamodb", region_name="us-east-1")
        made = resource.create_table(
            TableName=TABLE, BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "sk", "AttributeType": "S"}])
        for number in range(5):
            made.put_item(Item={"pk": "p", "sk": f"s{number}", **_ITEM})
        yield made


def _both(call: Callable[[], Any]) -> tuple[Any, Any]:
    """The call's answer with moto's serializer, then written directly (each on the same stored items)."""
    moto_dynamodb_answers.enabled = False
    try:
        theirs = call()
    finally:
        moto_dynamodb_answers.enabled = True
    return theirs, call()


def _without_metadata(answer: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in answer.items() if key != "ResponseMetadata"}


def _same(call: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    theirs, ours = _both(call)
    assert _without_metadata(ours) == _without_metadata(theirs)
    return ours


def test_reads_answer_as_motos_own_serializer(table: Any) -> None:
    client = table.meta.client
    key = {"pk": "p", "sk": "s1"}
    got = _same(lambda: table.get_item(Key=key, ReturnConsumedCapacity="TOTAL"))
    assert got["Item"]["b"] == Binary(b"\x00\xff binary") and got["Item"]["nothing"] is None
    assert got["ConsumedCapacity"]["TableName"] == TABLE
    paged = _same(lambda: table.query(KeyConditionExpression="pk = :p", Limit=2,
                                      ExpressionAttributeValues={":p": "p"}))
    assert paged["Count"] == 2 and paged["LastEvaluatedKey"] == {"pk": "p", "sk": "s1"}
    _same(lambda: table.query(KeyConditionExpression="pk = :p", ProjectionExpression="sk, m.inner",
                              ExpressionAttributeValues={":p": "p"}, Select="SPECIFIC_ATTRIBUTES"))
    _same(lambda: table.query(KeyConditionExpression="pk = :p", Select="COUNT",
                              ExpressionAttributeValues={":p": "p"}))
    _same(lambda: table.scan(FilterExpression="sk > :s", ExpressionAttributeValues={":s": "s2"}))
    batch = _same(lambda: client.batch_get_item(RequestItems={TABLE: {
        "Keys": [{"pk": "p", "sk": f"s{n}"} for n in range(5)] + [{"pk": "p", "sk": "absent"}],
        "ProjectionExpression": "sk, b, ns"}}, ReturnConsumedCapacity="INDEXES"))
    assert len(batch["Responses"][TABLE]) == 5 and batch["UnprocessedKeys"] == {}
    _same(lambda: client.transact_get_items(TransactItems=[{"Get": {"TableName": TABLE, "Key": key}}]))


def test_writes_answer_as_motos_own_serializer(table: Any) -> None:
    """Each write is made to answer the same twice: it leaves the item as it found it."""
    client = table.meta.client
    old = _same(lambda: table.put_item(Item={"pk": "p", "sk": "s0", **_ITEM}, ReturnValues="ALL_OLD",
                                       ReturnConsumedCapacity="TOTAL"))
    assert old["Attributes"]["bs"] == {Binary(b"x"), Binary(b"\x01")}
    new = _same(lambda: table.update_item(Key={"pk": "p", "sk": "s2"}, UpdateExpression="SET n = :n",
                                          ExpressionAttributeValues={":n": 7}, ReturnValues="ALL_NEW"))
    assert new["Attributes"]["n"] == Decimal(7) and new["Attributes"]["m"] == _ITEM["m"]

    def reset_then_update() -> Any:
        table.put_item(Item={"pk": "p", "sk": "s3", **_ITEM})
        return table.update_item(Key={"pk": "p", "sk": "s3"}, UpdateExpression="SET s = :s",
                                 ExpressionAttributeValues={":s": "x"}, ReturnValues="UPDATED_OLD")

    assert _same(reset_then_update)["Attributes"] == {"s": _ITEM["s"]}

    def put_then_delete() -> Any:
        table.put_item(Item={"pk": "d", "sk": "1", **_ITEM})
        return table.delete_item(Key={"pk": "d", "sk": "1"}, ReturnValues="ALL_OLD")

    assert _same(put_then_delete)["Attributes"]["l"] == _ITEM["l"]
    _same(lambda: client.batch_write_item(RequestItems={TABLE: [
        {"PutRequest": {"Item": {"pk": "bw", "sk": "1", "s": "x"}}}]}, ReturnItemCollectionMetrics="SIZE"))
    _same(lambda: client.transact_write_items(TransactItems=[
        {"Put": {"TableName": TABLE, "Item": {"pk": "tw", "sk": "1", "s": "x"}}}],
        ReturnConsumedCapacity="TOTAL"))


def test_an_error_keeps_motos_answer(table: Any) -> None:
    def failing() -> Any:
        with pytest.raises(ClientError) as raised:
            table.put_item(Item={"pk": "p", "sk": "s0"}, ConditionExpression="attribute_not_exists(pk)",
                           ReturnValuesOnConditionCheckFailure="ALL_OLD")
        return raised.value.response

    theirs, ours = _both(failing)
    assert ours["Error"] == theirs["Error"] and ours["Error"]["Code"] == "ConditionalCheckFailedException"
    assert ours["Item"]["b"] == {"B": b"\x00\xff binary"}
