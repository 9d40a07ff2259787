"""moto's items built with a running size total (localapi/moto_item_size.py): an item of exactly the limit,
one byte over it, its largest attribute first, last or between, is accepted or refused as moto's own build
does, by PutItem, by a TransactWriteItems Put and by an UpdateItem that grows it; and building an item
sizes each attribute once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from localapi import moto_item_size

TABLE = "sized"
# bytesize("pk") + bytesize("small") + 1 + bytesize("n") + len("12345"): the item without its key or filler.
_REST = 2 + 5 + 1 + 1 + 5


@contextmanager
def _moto_own(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with monkeypatch.context() as unpatched:
        unpatched.setattr(Item, "__init__", moto_item_size._moto_item_init)
        yield


def _attributes(total: int, filler_at: int, pk: str = "p") -> dict[str, Any]:
    """An item whose attributes' sizes add up to `total`, its one large attribute at position `filler_at`."""
    attributes: list[tuple[str, Any]] = [("pk", {"S": pk}), ("small", {"S": "x"}), ("n", {"N": "12345"})]
    filler = total - _REST - len(pk) - len("filler")  # in UTF-8 bytes, as moto sizes strings: "é" is two
    attributes.insert(filler_at, ("filler", {"S": "é" * (filler // 2) + "f" * (filler % 2)}))
    return dict(attributes)


def _built(attributes: dict[str, Any]) -> Any:
    try:
        item = Item(DynamoType(attributes["pk"]), None, attributes)
    except ItemSizeTooLarge as refused:
        return "refused", str(refused)
    return "built", item.size(), item.to_json()


@pytest.mark.parametrize("filler_at", [0, 2, 3])
def test_an_item_at_the_limit_is_built_or_refused_as_moto_does(monkeypatch: pytest.MonkeyPatch,
                                                                filler_at: int) -> None:
    moto_item_size.make_item_size_summed_once()
    for total in (moto_item_size.LIMIT - 1, moto_item_size.LIMIT, moto_item_size.LIMIT + 1, 500_000):
        attributes = _attributes(total, filler_at)
        with _moto_own(monkeypatch):
            theirs = _built(attributes)
        assert _built(attributes) == theirs
        assert theirs[0] == ("built" if total <= moto_item_size.LIMIT else "refused"), total
        if theirs[0] == "built":
            assert theirs[1] == total


def _session() -> list[Any]:
    client = boto3.client("dynamodb", region_name="us-east-1")
    client.create_table(TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                        BillingMode="PAY_PER_REQUEST")
    answers: list[Any] = []

    def answer(call: Any, **arguments: Any) -> None:
        try:
            answers.append({key: value for key, value in call(**arguments).items() if key != "ResponseMetadata"})
        except ClientError as error:
            answers.append((error.response["Error"], error.response.get("CancellationReasons")))

    for n, total in enumerate((moto_item_size.LIMIT, moto_item_size.LIMIT + 1)):
        item = _attributes(total, 1, f"put-{n}")
        answer(client.put_item, TableName=TABLE, Item=item)
        item = _attributes(total, 3, f"tx-{n}")
        answer(client.transact_write_items, TransactItems=[
            {"Put": {"TableName": TABLE, "Item": item, "ConditionExpression": "attribute_not_exists(pk)"}}])
    # An update that grows a stored item to the limit, or over it (moto checks each set of an existing item).
    for n, extra in enumerate(("", "y")):
        answer(client.put_item, TableName=TABLE, Item=_attributes(moto_item_size.LIMIT - 5, 0, f"grown-{n}"))
        answer(client.update_item, TableName=TABLE, Key={"pk": {"S": f"grown-{n}"}},
               UpdateExpression="SET more = :v", ExpressionAttributeValues={":v": {"S": "x" + extra}})
    stored = [client.get_item(TableName=TABLE, Key={"pk": {"S": pk}}).get("Item")
              for pk in ("put-0", "put-1", "tx-0", "tx-1", "grown-0", "grown-1")]
    answers.append([item and (item["pk"]["S"], len(item["filler"]["S"]), "more" in item) for item in stored])
    return answers


def test_puts_transactions_and_updates_at_the_limit_answer_as_moto_does(monkeypatch: pytest.MonkeyPatch) -> None:
    moto_item_size.make_item_size_summed_once()
    with _moto_own(monkeypatch), mock_aws():
        theirs = _session()
    with mock_aws():
        ours = _session()
    assert ours == theirs
    refusals = [answer[0]["Message"] for answer in ours if isinstance(answer, tuple)]
    too_large = "Item size has exceeded the maximum allowed size"  # a ValidationException, in a transaction too
    assert refusals == [too_large, too_large, "Item size to update has exceeded the maximum allowed size"]
    assert ours[-1] == [("put-0", 202488, False), None, ("tx-0", 202488, False), None,
                        ("grown-0", 202484, True), ("grown-1", 202484, False)]


def test_building_an_item_sizes_each_attribute_once(monkeypatch: pytest.MonkeyPatch) -> None:
    moto_item_size.make_item_size_summed_once()
    sized: list[int] = []
    moto_size = DynamoType.size

    def counted(self: DynamoType) -> int:
        sized.append(1)
        return moto_size(self)

    monkeypatch.setattr(DynamoType, "size", counted)
    attributes = {"pk": {"S": "p"}, **{f"a{n}": {"S": "v"} for n in range(200)}}
    item = Item(DynamoType(attributes["pk"]), None, attributes)
    assert len(sized) == 201  # moto's own build sizes 201 * 202 / 2 = 20301 times
    with pytest.raises(ItemSizeTooLarge):  # a later set (an update's) keeps moto's own check
        item.attrs["later"] = DynamoType({"S": "x" * moto_item_size.LIMIT})
