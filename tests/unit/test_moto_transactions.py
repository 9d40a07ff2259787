"""The local emulator's DynamoDB (localapi/moto_atomicity.py): TransactWriteItems takes its backup once per
table for the whole transaction, and one whose last condition fails still leaves every item it named, new
or changed, as it was; a query reads its own partition only, in order, page by page."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError
from moto.dynamodb.models.table import Table

from webcapture.settings import get_settings


def _put(pk: str, value: int, condition: str = "attribute_not_exists(pk)") -> dict[str, object]:
    return {"Put": {"TableName": get_settings().jobs_table,
                    "Item": {"pk": {"S": pk}, "sk": {"S": "job"}, "value": {"N": str(value)}},
                    "ConditionExpression": condition}}


def test_a_failed_transaction_of_many_items_changes_none(aws_resources: None,
                                                         settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("JOBS_TABLE", "JobsTable")
    get_settings.cache_clear()
    client = boto3.client("dynamodb")
    table = get_settings().jobs_table
    client.transact_write_items(TransactItems=[_put(f"kept#{n}", n) for n in range(3)])  # type: ignore[misc]
    update = {"Update": {"TableName": table, "Key": {"pk": {"S": "kept#0"}, "sk": {"S": "job"}},
                         "UpdateExpression": "SET #v = :v", "ExpressionAttributeNames": {"#v": "value"},
                         "ExpressionAttributeValues": {":v": {"N": "99"}}}}
    writes = [update, *[_put(f"new#{n}", n) for n in range(60)], _put("kept#1", 7)]  # the last one fails
    with pytest.raises(ClientError) as refused:
        client.transact_write_items(TransactItems=writes)  # type: ignore[arg-type]
    assert refused.value.response["Error"]["Code"] == "TransactionCanceledException"
    stored = client.scan(TableName=table)["Items"]
    assert sorted((item["pk"]["S"], item["value"]["N"]) for item in stored) == [
        ("kept#0", "0"), ("kept#1", "1"), ("kept#2", "2")]


def test_a_query_reads_its_partition_only_in_order_page_by_page(aws_resources: None,
                                                                  settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("JOBS_TABLE", "JobsTable")
    get_settings.cache_clear()
    table = boto3.resource("dynamodb").Table(get_settings().jobs_table)
    for pk in ("job#a", "job#b"):
        for sk in ("x#3", "x#1", "y#1", "x#2", "x#5", "x#4"):
            table.put_item(Item={"pk": pk, "sk": sk, "n": int(sk[-1])})
    condition = Key("pk").eq("job#a") & Key("sk").begins_with("x#")
    read: list[str] = []
    arguments: dict[str, Any] = {"KeyConditionExpression": condition, "Limit": 2}
    while True:
        answer = table.query(**arguments)
        read += [str(item['pk']) + '/' + str(item['sk']) for item in answer["Items"]]
        if "LastEvaluatedKey" not in answer:
            break
        arguments["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    assert read == [f"job#a/x#{n}" for n in range(1, 6)]
    backwards = table.query(KeyConditionExpression=condition, ScanIndexForward=False,
                            FilterExpression=Attr("n").gt(2))["Items"]
    assert [item["sk"] for item in backwards] == ["x#5", "x#4", "x#3"]
    assert table.query(KeyConditionExpression=Key("pk").eq("job#c"))["Items"] == []


def test_a_query_reads_only_its_key_range_page_by_page_either_way(aws_resources: None,
                                                                  settings_env: pytest.MonkeyPatch,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    settings_env.setenv("JOBS_TABLE", "JobsTable")
    get_settings.cache_clear()
    table = boto3.resource("dynamodb").Table(get_settings().jobs_table)
    for n in range(1, 301):
        table.put_item(Item={"pk": "job#a", "sk": f"item#{n:05d}", "n": n})
        table.put_item(Item={"pk": "job#a", "sk": f"result#{n:05d}", "n": n})
    # moto's own walk to the start key compares every item before it: the emulator skips there itself.
    monkeypatch.setattr(Table, "_item_comes_before_dct", _unexpected)
    condition = Key("pk").eq("job#a") & Key("sk").between("result#00011", "result#00290")
    for forward in (True, False):
        read: list[int] = []
        arguments: dict[str, Any] = {"KeyConditionExpression": condition, "Limit": 100,
                                     "ScanIndexForward": forward}
        while True:
            answer = table.query(**arguments)
            read += [int(item["n"]) for item in answer["Items"]]
            if "LastEvaluatedKey" not in answer:
                break
            arguments["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
        assert read == (list(range(11, 291)) if forward else list(range(290, 10, -1)))
    # Limit counts the items read, before the filter, as in DynamoDB.
    filtered = table.query(KeyConditionExpression=Key("pk").eq("job#a") & Key("sk").begins_with("result#"),
                           Limit=5, FilterExpression=Attr("n").gt(3))
    assert [int(item["n"]) for item in filtered["Items"]] == [4, 5]
    assert filtered["LastEvaluatedKey"]["sk"] == "result#00005"


def _unexpected(*_: Any) -> Any:
    raise AssertionError("not expected to be called")
