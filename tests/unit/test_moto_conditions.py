"""moto with the local API's condition parses kept per form (localapi/moto_conditions.py): the backend's
condition, for every request's own values (of whatever type), answers for every item what moto's own parse
answers; conditional writes whose values change at each call answer through boto3 exactly as unpatched
moto does, refusals included; a form is parsed by moto once however its values change, a value of another
type makes another form; a malformed expression fails each time and is never kept."""

from __future__ import annotations

import random
from typing import Any

import pytest
from moto import mock_aws
from moto.dynamodb import comparisons
from moto.dynamodb.comparisons import ConditionExpressionParser
from moto.dynamodb.models.dynamo_type import DynamoType, Item

from localapi import moto_conditions, moto_handler_parses
from localapi.moto_kept import Kept
from tests.support.moto_parsers import answer, moto_own_parsers, table_client

TABLE = "keys"
# Shaped like metering's reservation (layers/shared/webcapture/metering.py) and concurrency's lease
# (layers/shared/webcapture/concurrency.py): a new request id and timestamp every call.
CHARGE = "ADD charged :id SET remaining = remaining - :c, lastRequest = :now"
PAYS = "attribute_exists(keyHash) AND remaining >= :c AND NOT contains(charged, :request)"
LEASE = "ADD leases :lease SET lastLease = :now"
ROOM = "attribute_exists(keyHash) AND (attribute_not_exists(leases) OR size(leases) < :most)"
RELEASE = "DELETE leases :lease SET lastRelease = :now"
HELD = "contains(leases, :held)"

# Each expression with what each of its placeholders may be, a new choice at every call: values of each
# type, and of types moto refuses or compares differently.
_NUMBERS = [{"N": str(n)} for n in range(6)]
_TEXTS = [{"S": text} for text in ("r1", "r2", "r3", "N", "S", "SS")]
EXPRESSIONS: list[tuple[str, dict[str, str] | None, dict[str, list[dict[str, Any]]]]] = [
    (PAYS, None, {":c": [*_NUMBERS, {"S": "3"}], ":request": _TEXTS}),
    ("contains(#l, :held) AND size(#l) < :n", {"#l": "leases"}, {":held": _TEXTS, ":n": _NUMBERS}),
    ("attribute_type(remaining, :t) OR attribute_type(charged, :t)", None, {":t": _TEXTS}),
    ("attribute_exists(#r) AND remaining BETWEEN :low AND :high", {"#r": "remaining"},
     {":low": [*_NUMBERS, {"NULL": True}], ":high": _NUMBERS}),
    ("#s IN (:a, :b) OR remaining IN (:a, :b)", {"#s": "status"}, {":a": [*_TEXTS, *_NUMBERS], ":b": _TEXTS}),
    ("size(charged) >= :n AND NOT begins_with(#s, :p)", {"#s": "status"}, {":n": _NUMBERS, ":p": _TEXTS}),
]


def _item(chosen: random.Random) -> Item:
    attrs: dict[str, Any] = {"keyHash": {"S": "key"}}
    if chosen.random() < 0.7:
        attrs["remaining"] = {"N": str(chosen.randint(0, 5))}
    if chosen.random() < 0.6:
        attrs["charged"] = {"SS": chosen.sample(["r1", "r2", "r3"], chosen.randint(1, 3))}
    if chosen.random() < 0.6:
        attrs["leases"] = {"SS": chosen.sample(["r1", "r2", "r3", "N"], chosen.randint(1, 4))}
    if chosen.random() < 0.7:
        attrs["status"] = chosen.choice([*_TEXTS, {"N": "1"}])
    return Item(DynamoType(attrs["keyHash"]), None, attrs)


def _outcome(condition: Any, item: Item) -> tuple[Any, ...]:
    try:
        return ("answered", condition.expr(item))
    except Exception as error:
        return ("raised", type(error).__name__, str(error))


def _answers(parse: Any, expression: str, names: Any, values: Any, items: list[Item]) -> tuple[Any, ...]:
    try:
        condition = parse(expression, names, values)
    except Exception as error:
        return ("refused", type(error).__name__, str(error))
    return ("parsed", repr(condition), *(_outcome(condition, item) for item in items))


@pytest.fixture
def fresh_memo(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """An empty memo, and the expressions moto's own parser parses in full (moto's parse() itself)."""
    monkeypatch.setattr(moto_conditions, "_conditions", Kept())
    monkeypatch.setattr(moto_handler_parses, "_updates", Kept())
    parsed: list[str] = []
    moto_parse = ConditionExpressionParser.parse

    def counted(parser: ConditionExpressionParser) -> Any:
        if parser.condition_expression:
            parsed.append(parser.condition_expression)
        return moto_parse(parser)

    monkeypatch.setattr(ConditionExpressionParser, "parse", counted)
    return parsed


def test_a_kept_form_answers_as_moto_for_each_requests_values(fresh_memo: list[str]) -> None:
    chosen = random.Random(5)
    items = [_item(chosen) for _ in range(40)]
    told_apart: set[Any] = set()
    for _ in range(400):
        expression, names, choices = chosen.choice(EXPRESSIONS)
        values = {placeholder: chosen.choice(options) for placeholder, options in choices.items()}
        theirs = _answers(comparisons.get_filter_expression, expression, names, values, items)
        assert _answers(moto_conditions._parsed_once, expression, names, values, items) == theirs
        told_apart.add(theirs[0])
        told_apart.update(outcome[-1] if outcome[0] == "answered" else outcome[1] for outcome in theirs[2:])
    assert told_apart >= {"parsed", "refused", True, False, "TypeError", "ValueError"}


def _update(client: Any, expression: str, condition: str, values: dict[str, Any],
            names: dict[str, str] | None = None) -> Any:
    arguments: dict[str, Any] = {"TableName": TABLE, "Key": {"keyHash": {"S": "key"}},
                                 "UpdateExpression": expression, "ConditionExpression": condition,
                                 "ExpressionAttributeValues": values, "ReturnValues": "ALL_NEW",
                                 "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
    if names is not None:
        arguments["ExpressionAttributeNames"] = names
    return answer(client.update_item, **arguments)


def _session() -> list[Any]:
    """A key's life in metering's and concurrency's writes, new values each call: every answer, then the
    table."""
    client = table_client(TABLE, "keyHash")
    answers = [answer(client.put_item, TableName=TABLE, ConditionExpression="attribute_not_exists(keyHash)",
                       Item={"keyHash": {"S": "key"}, "remaining": {"N": "10"}}) for _ in range(2)]
    for n, cost in enumerate((3, 4, 2, 2, 1, 5)):  # charged until the credits run out, one charged twice
        request = f"r{min(n, 3)}"
        answers.append(_update(client, CHARGE, PAYS, {":id": {"SS": [request]}, ":c": {"N": str(cost)},
                                                      ":now": {"S": f"t{n}"}, ":request": {"S": request}}))
    for n in range(4):  # two leases fit, then the room is full
        answers.append(_update(client, LEASE, ROOM, {":lease": {"SS": [f"l{n}"]}, ":most": {"N": "2"},
                                                     ":now": {"S": f"t{n}"}}))
    for n in (0, 0, 1):  # released, then no longer held
        answers.append(_update(client, RELEASE, HELD, {":lease": {"SS": [f"l{n}"]}, ":held": {"S": f"l{n}"},
                                                       ":now": {"S": f"t{n}"}}))
    for kind in ("N", "S", "N"):
        answers.append(_update(client, "SET remaining = remaining + :credits",
                               "attribute_exists(keyHash) AND attribute_type(remaining, :kind)",
                               {":credits": {"N": "4"}, ":kind": {"S": kind}}))
    for low, high in (({"N": "0"}, {"N": "9"}), ({"N": "7"}, {"N": "9"}), ({"NULL": True}, {"N": "9"}),
                      ({"N": "1"}, {"N": "5"})):
        answers.append(_update(client, "SET checked = :yes", "remaining BETWEEN :low AND :high",
                               {":yes": {"BOOL": True}, ":low": low, ":high": high}))
    for first, second in (("r1", "r9"), ("r8", "r9"), ("r8", "t4")):  # contains, neither, IN
        answers.append(_update(client, "SET picked = :a", "contains(charged, :a) OR #l IN (:a, :b)",
                               {":a": {"S": first}, ":b": {"S": second}}, {"#l": "lastRequest"}))
    for most in (2, 4, 1):
        answers.append(_update(client, "SET sized = :m", "size(charged) > :m AND size(lastRequest) >= :m",
                               {":m": {"N": str(most)}}))
    answers.append(_update(client, "SET sized = :m", "size(leases) < :m", {":m": {"N": "1"}}))  # none left
    answers.append(_update(client, "SET a = :a", "remaining = = :a", {":a": {"N": "1"}}))
    for n in (1, 1):  # in a transaction with a page's put: the second is cancelled
        answers.append(answer(client.transact_write_items, TransactItems=[
            {"Put": {"TableName": TABLE, "Item": {"keyHash": {"S": f"page-{n}"}},
                     "ConditionExpression": "attribute_not_exists(keyHash)"}},
            {"Update": {"TableName": TABLE, "Key": {"keyHash": {"S": "key"}}, "UpdateExpression": CHARGE,
                        "ConditionExpression": PAYS, "ExpressionAttributeValues": {
                            ":id": {"SS": [f"p{n}"]}, ":c": {"N": "1"}, ":now": {"S": f"p{n}"},
                            ":request": {"S": f"p{n}"}}}}]))
    answers.append(answer(client.scan, TableName=TABLE, FilterExpression="remaining >= :c",
                           ExpressionAttributeValues={":c": {"N": "1"}}))
    answers.append(client.get_item(TableName=TABLE, Key={"keyHash": {"S": "key"}})["Item"])
    return answers


def test_conditional_writes_with_new_values_answer_as_unpatched_moto(monkeypatch: pytest.MonkeyPatch,
                                                                     fresh_memo: list[str]) -> None:
    with moto_own_parsers(monkeypatch), mock_aws():
        theirs = _session()
    with mock_aws():
        ours = _session()
    assert ours == theirs
    refusals = [answer[1]["Code"] for answer in ours if isinstance(answer, tuple) and answer[0] == "refused"]
    assert refusals.count("ConditionalCheckFailedException") >= 8 and "TransactionCanceledException" in refusals
    assert sum(isinstance(answer, dict) for answer in ours) >= 12
    assert any(answer[:2] == ("raised", "ValueError") for answer in ours if isinstance(answer, tuple))
    assert sorted(ours[-1]["charged"]["SS"]) == ["p1", "r0", "r1", "r2", "r3"]


def test_one_form_is_parsed_once_however_its_values_change(fresh_memo: list[str]) -> None:
    with mock_aws():
        client = table_client(TABLE, "keyHash")
        client.put_item(TableName=TABLE, Item={"keyHash": {"S": "key"}, "remaining": {"N": "1000"}})
        for n in range(30):  # through moto's handler and backend, as metering writes
            answered = _update(client, CHARGE, PAYS, {":id": {"SS": [f"r{n}"]}, ":c": {"N": str(n % 4 + 1)},
                                                        ":now": {"S": f"t{n:02d}"}, ":request": {"S": f"r{n}"}})
            assert answered["Attributes"]["lastRequest"] == {"S": f"t{n:02d}"}
        assert fresh_memo == [PAYS]
        # Each request's own values decide: one charged already is refused though its form is kept.
        refused = _update(client, CHARGE, PAYS, {":id": {"SS": ["r5"]}, ":c": {"N": "1"},
                                                 ":now": {"S": "t99"}, ":request": {"S": "r5"}})
        assert refused[1]["Code"] == "ConditionalCheckFailedException" and fresh_memo == [PAYS]
    fresh_memo.clear()
    for n in range(20):  # the backend's own parse, called directly
        moto_conditions._parsed_once("remaining >= :c", None, {":c": {"N": str(n)}, ":now": {"S": f"t{n}"}})
    moto_conditions._parsed_once("remaining >= :c", None, {":c": {"S": "1"}, ":now": {"S": "t"}})  # a type apart
    assert fresh_memo == ["remaining >= :c", "remaining >= :c"]
    kept = len(moto_conditions._conditions)
    null_bound: dict[str, Any] = {":v": {"NULL": True}, ":w": {"N": "1"}}
    for _ in range(3):  # a malformed expression is parsed, and fails, every time, and is never kept
        with pytest.raises(ValueError, match="Bad comparison"):
            moto_conditions._parsed_once("a = = :v", None, {":v": {"N": "1"}})
        with pytest.raises(comparisons.IncorrectOperandType):
            moto_conditions._parsed_once("a BETWEEN :v AND :w", None, null_bound)
    assert fresh_memo[2:] == ["a = = :v", "a BETWEEN :v AND :w"] * 3 and len(moto_conditions._conditions) == kept
