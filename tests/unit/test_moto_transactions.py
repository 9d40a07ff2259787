"""The local emulator's TransactWriteItems (localapi/moto_atomicity.py): its backup is taken once per table
for the whole transaction, and a transaction whose last condition fails still leaves every item it named,
new or changed, as it was."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

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
