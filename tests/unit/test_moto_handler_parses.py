"""moto's DynamoDB handler with the local API's kept expression parses (localapi/moto_handler_parses.py):
writes, transactions and reads answer exactly what moto's own parses answer (items, refused conditions,
unused names and values, malformed expressions, each error every time); a condition of one form, with new
values each time, is parsed by moto once and answers with each request's own values; an update expression
is parsed by the handler once."""

from __future__ import annotations

import random
from typing import Any

import pytest
from moto import mock_aws

from localapi import moto_conditions, moto_handler_parses
from localapi.moto_kept import Kept
from tests.support.moto_parsers import answer, moto_own_parsers, table_client

TABLE = "keys"
# Shaped like metering's reservation (layers/shared/webcapture/metering.py): count, take credits, mark.
RESERVE = ("SET requestCount = if_not_exists(requestCount, :zero) + :one, lastRequest = :now,"
           " remaining = remaining - :cost ADD charged :marker")
PAYS = ("attribute_exists(pk) AND enabled = :true AND (attribute_not_exists(expiresAt) OR expiresAt > :now)"
        " AND remaining >= :cost AND NOT contains(charged, :request)")
# Shaped like concurrency's lease (layers/shared/webcapture/concurrency.py).
ROOM = ("attribute_exists(pk) AND (attribute_not_exists(leases)"
        " OR (attribute_not_exists(maxConcurrency) AND size(leases) < :default) OR size(leases) < maxConcurrency)")


@pytest.fixture
def fresh_memos(monkeypatch: pytest.MonkeyPatch) -> None:
    moto_conditions.make_conditions_parse_once()
    moto_handler_parses.make_handler_parses_once()
    monkeypatch.setattr(moto_conditions, "_conditions", Kept())
    monkeypatch.setattr(moto_handler_parses, "_updates", Kept())


def _update(client: Any, pk: str, expression: str, condition: str | None = None,
            values: dict[str, Any] | None = None, names: dict[str, str] | None = None) -> Any:
    arguments: dict[str, Any] = {"TableName": TABLE, "Key": {"pk": {"S": pk}}, "UpdateExpression": expression,
                                 "ReturnValues": "ALL_NEW", "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
    if condition is not None:
        arguments["ConditionExpression"] = condition
    if values is not None:
        arguments["ExpressionAttributeValues"] = values
    if names is not None:
        arguments["ExpressionAttributeNames"] = names
    return answer(client.update_item, **arguments)


def _put(pk: str, condition: str = "attribute_not_exists(pk)", **attributes: Any) -> dict[str, Any]:
    return {"Put": {"TableName": TABLE, "Item": {"pk": {"S": pk}, **attributes}, "ConditionExpression": condition}}


def _session() -> list[Any]:
    """A key's life in metering's and concurrency's writes, and each way a request can be refused: every
    answer, in order, then the table."""
    client = table_client(TABLE, "pk")
    answers: list[Any] = []
    key = {"pk": {"S": "key"}, "enabled": {"BOOL": True}, "remaining": {"N": "10"}}
    for _ in range(2):  # written, then refused
        answers.append(answer(client.put_item, TableName=TABLE, Item=key,
                               ConditionExpression="attribute_not_exists(pk)"))
    for n in (1, 2, 3, 3, 4, 5):  # three pay, the fourth is a request already charged, then no credit left
        answers.append(_update(client, "key", RESERVE, PAYS, {
            ":zero": {"N": "0"}, ":one": {"N": "1"}, ":true": {"BOOL": True}, ":now": {"S": f"2025-01-0{n}"},
            ":cost": {"N": "3"}, ":marker": {"SS": [f"request-{n}"]}, ":request": {"S": f"request-{n}"}}))
    for n in range(4):  # two leases fit, then the room is full
        answers.append(_update(client, "key", "ADD leases :lease", ROOM,
                               {":lease": {"SS": [f"lease-{n}"]}, ":default": {"N": "2"}}))
    answers.append(_update(client, "key", "DELETE #l :lease, #c :marker", "attribute_exists(#k)",
                           {":lease": {"SS": ["lease-0"]}, ":marker": {"SS": ["request-1", "request-2"]}},
                           {"#l": "leases", "#c": "charged", "#k": "pk"}))
    answers.append(_update(client, "key", "SET remaining = remaining + :credits",
                           "attribute_exists(pk) AND attribute_type(remaining, :number)",
                           {":credits": {"N": "6"}, ":number": {"S": "N"}}))
    for low, high in (({"N": "0"}, {"N": "99"}), ({"N": "50"}, {"N": "99"}), ({"NULL": True}, {"N": "99"})):
        answers.append(_update(client, "key", "SET checked = :yes", "remaining BETWEEN :low AND :high",
                               {":yes": {"BOOL": True}, ":low": low, ":high": high}))
    for _ in range(2):  # each error, every time
        answers.append(_update(client, "key", "SET a = :a", "attribute_exists(pk)", {":a": {"N": "1"}},
                               {"#unused": "x"}))
        answers.append(_update(client, "key", "SET a = :a", "attribute_exists(pk)",
                               {":a": {"N": "1"}, ":unused": {"N": "2"}}))
        answers.append(_update(client, "key", "SET a = :a", "remaining = = :a", {":a": {"N": "1"}}))
        answers.append(_update(client, "key", "SET a = = :a", "attribute_exists(pk)", {":a": {"N": "1"}}))
        answers.append(_update(client, "key", "SET a = :a", "remaining = :missing", {":a": {"N": "1"}}))
        answers.append(_update(client, "key", "SET a = :a", "size = :a", {":a": {"N": "1"}}))
        answers.append(_update(client, "key", "SET a = :a", "((remaining = :a))", {":a": {"N": "1"}}))
    refund = {"Update": {"TableName": TABLE, "Key": {"pk": {"S": "key"}}, "UpdateExpression": "SET #r = #r + :c",
                         "ConditionExpression": "attribute_exists(#r)", "ExpressionAttributeNames": {"#r": "remaining"},
                         "ExpressionAttributeValues": {":c": {"N": "1"}}}}
    pages = [_put(f"page-{n}", n={"N": str(n)}, url={"S": f"https://example.test/{n}"}) for n in range(5)]
    answers.append(answer(client.transact_write_items, TransactItems=[*pages, refund]))
    answers.append(answer(client.transact_write_items, TransactItems=[*pages[:2], refund]))  # pages exist
    # The handler adds an update's names to those its condition's parse found: a name only the first
    # update uses is unused in the second, whose condition, names and values are the same.
    names = {"#r": "remaining", "#x": "x"}
    uses_x = {"Update": {**refund["Update"], "UpdateExpression": "SET #x = :c", "ExpressionAttributeNames": names}}
    unused = {"Update": {**uses_x["Update"], "UpdateExpression": "SET remaining = remaining + :c"}}
    for _ in range(2):
        answers.append(answer(client.transact_write_items, TransactItems=[uses_x]))
    for _ in range(2):  # an unused name in an update's names, each time
        answers.append(answer(client.transact_write_items, TransactItems=[_put("page-9"), unused]))
    answers.append(answer(client.transact_write_items, TransactItems=[_put("page-9"), refund]))
    for least in ("1", "3"):
        answers.append(answer(client.scan, TableName=TABLE, FilterExpression="n >= :low",
                               ExpressionAttributeValues={":low": {"N": least}}))
        answers.append(answer(client.query, TableName=TABLE, KeyConditionExpression="pk = :pk",
                               FilterExpression="attribute_exists(#n) AND #n >= :low",
                               ExpressionAttributeNames={"#n": "n"},
                               ExpressionAttributeValues={":pk": {"S": "page-3"}, ":low": {"N": least}}))
    for n in (1, 1):  # deleted, then refused
        answers.append(answer(client.delete_item, TableName=TABLE, Key={"pk": {"S": f"page-{n}"}},
                               ConditionExpression="attribute_exists(pk) AND n = :n",
                               ExpressionAttributeValues={":n": {"N": str(n)}}))
    answers.append(sorted(client.scan(TableName=TABLE)["Items"], key=lambda item: item["pk"]["S"]))
    return answers


def test_every_answer_is_motos_own(monkeypatch: pytest.MonkeyPatch, fresh_memos: None) -> None:
    with moto_own_parsers(monkeypatch), mock_aws():
        theirs = _session()
    with mock_aws():
        ours = _session()
    assert ours == theirs
    # The session told apart what it means to: writes, refusals, each kind of error, twice each.
    kinds = [answer[0] if isinstance(answer, tuple) else "answered" for answer in ours]
    assert kinds.count("answered") >= 15 and kinds.count("refused") >= 15 and kinds.count("raised") >= 7
    assert any(answer[1] == "IncorrectOperandType" for answer in ours if isinstance(answer, tuple))
    codes = [answer[1]["Code"] for answer in ours if isinstance(answer, tuple) and answer[0] == "refused"]
    assert {"ConditionalCheckFailedException", "ValidationException", "TransactionCanceledException"} <= set(codes)
    assert ours[-1][0]["charged"] == {"SS": ["request-3"]} and ours[-1][0]["leases"] == {"SS": ["lease-1"]}


def test_one_form_is_parsed_once_with_each_requests_own_values(monkeypatch: pytest.MonkeyPatch,
                                                               fresh_memos: None) -> None:
    conditions: list[str | None] = []
    updates: list[str] = []
    moto_condition_parser = moto_conditions._moto_condition_parser
    moto_update_parse = moto_handler_parses._moto_update_parse

    def counted_condition(expression: str | None, names: Any, values: Any) -> Any:
        conditions.append(expression)
        return moto_condition_parser(expression, names, values)

    def counted_update(expression: str) -> Any:
        updates.append(expression)
        return moto_update_parse(expression)

    monkeypatch.setattr(moto_conditions, "_moto_condition_parser", counted_condition)
    monkeypatch.setattr(moto_handler_parses, "_moto_update_parse", counted_update)
    with mock_aws():
        client = table_client(TABLE, "pk")
        client.put_item(TableName=TABLE, Item={"pk": {"S": "key"}, "enabled": {"BOOL": True},
                                               "remaining": {"N": "40"}})
        for n in range(12):  # 36 of the 40 credits, a new timestamp and request every time, as metering sends
            answered = _update(client, "key", RESERVE, PAYS, {
                ":zero": {"N": "0"}, ":one": {"N": "1"}, ":true": {"BOOL": True}, ":now": {"S": f"t{n:02d}"},
                ":cost": {"N": "3"}, ":marker": {"SS": [f"r{n}"]}, ":request": {"S": f"r{n}"}})
            assert answered["Attributes"]["lastRequest"] == {"S": f"t{n:02d}"}
        # Each request's own values decide: the one charged already is refused though its form is kept.
        refused = _update(client, "key", RESERVE, PAYS, {
            ":zero": {"N": "0"}, ":one": {"N": "1"}, ":true": {"BOOL": True}, ":now": {"S": "t99"},
            ":cost": {"N": "3"}, ":marker": {"SS": ["r5"]}, ":request": {"S": "r5"}})
        assert refused[0] == "refused" and refused[1]["Code"] == "ConditionalCheckFailedException"
        assert conditions == [PAYS] and updates == [RESERVE]
        for _ in range(3):  # a malformed expression is parsed, and fails, every time
            assert _update(client, "key", "SET a = :a", "remaining = = :a", {":a": {"N": "1"}})[:2] == (
                "raised", "ValueError")
            assert _update(client, "key", "SET a = = :a")[1]["Code"] == "ValidationException"
        assert conditions.count("remaining = = :a") == 3 and updates.count("SET a = = :a") == 3
        # The same form with a value of another type is parsed apart: moto refuses NULL in BETWEEN.
        for bound in ({"N": "1"}, {"N": "2"}, {"NULL": True}):
            _update(client, "key", "SET b = :b", "remaining BETWEEN :low AND :b", {":b": {"N": "50"}, ":low": bound})
        assert conditions.count("remaining BETWEEN :low AND :b") == 2


EXPRESSIONS = [
    "attribute_exists(#k) AND #s IN (:a, :b) AND n BETWEEN :a AND :b",
    "NOT (contains(#s, :a) OR begins_with(#s, :b)) AND size(#s) < :c",
    "attribute_type(#s, :a) OR (#k = :b AND #s <> :c)",
]
_VALUES = [{"N": "1"}, {"N": "7"}, {"S": "x"}, {"S": "N"}, {"NULL": True}, {"BOOL": False}, {"SS": ["x", "y"]},
           {"L": [{"N": "1"}]}, {}, "plain", None]


def test_a_kept_parse_answers_as_motos_parse_for_any_values(fresh_memos: None) -> None:
    chosen = random.Random(7)
    told_apart: set[str] = set()
    for _ in range(600):
        expression = chosen.choice(EXPRESSIONS)
        names = {"#k": "pk", "#s": chosen.choice(["status", "size"])}
        values = {placeholder: chosen.choice(_VALUES) for placeholder in (":a", ":b", ":c")
                  if chosen.random() < 0.9}
        theirs = _parsed(moto_conditions._moto_condition_parser, expression, names, values)
        assert _parsed(moto_conditions.ConditionParse, expression, names, values) == theirs
        told_apart.add(theirs[0])
    assert told_apart >= {"parsed", "KeyError", "IncorrectOperandType", "IndexError", "AttributeError"}


def _parsed(make: Any, expression: str, names: dict[str, str], values: dict[str, Any]) -> tuple[Any, ...]:
    parser = make(expression, names, values)
    try:
        condition = parser.parse()
    except Exception as error:
        return type(error).__name__, str(error)
    return "parsed", repr(condition), parser.expr_attr_names_found, parser.expr_attr_values_found
