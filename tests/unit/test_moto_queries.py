"""The local emulator's Query (localapi/moto_queries.py): pages read back with no write between them are
found in a partition's kept key order by bisection, and every answer, with writes between reads or not,
is exactly what the items hold (checked against a plain model of the table)."""

from __future__ import annotations

import random
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Attr, Key

from localapi import moto_queries
from webcapture.settings import get_settings


def _table(settings_env: pytest.MonkeyPatch) -> Any:
    settings_env.setenv("JOBS_TABLE", "JobsTable")
    get_settings.cache_clear()
    return boto3.resource("dynamodb").Table(get_settings().jobs_table)


def _read_all(table: Any, condition: Any, limit: int | None, forward: bool, **more: Any) -> list[tuple[str, int]]:
    read: list[tuple[str, int]] = []
    arguments: dict[str, Any] = {"KeyConditionExpression": condition, "ScanIndexForward": forward, **more}
    if limit:
        arguments["Limit"] = limit
    while True:
        answer = table.query(**arguments)
        read += [(str(item["sk"]), int(item["n"])) for item in answer["Items"]]
        if "LastEvaluatedKey" not in answer:
            return read
        arguments["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def _condition(rng: random.Random, keys: list[str]) -> tuple[Any, Any]:
    """A random key condition on partition job#a, and the test the model applies for it."""
    pick = rng.choice(keys) if keys else "result#00001"
    other = rng.choice(keys) if keys else "result#00009"
    low, high = min(pick, other), max(pick, other)
    sk = Key("sk")
    choices: list[tuple[Any, Any]] = [
        (None, lambda key: True),
        (sk.eq(pick), lambda key: key == pick),
        (sk.lt(pick), lambda key: key < pick),
        (sk.lte(pick), lambda key: key <= pick),
        (sk.gt(pick), lambda key: key > pick),
        (sk.gte(pick), lambda key: key >= pick),
        (sk.between(low, high), lambda key: low <= key <= high),
        (sk.begins_with("result#"), lambda key: key.startswith("result#")),
        (sk.begins_with(pick[:9]), lambda key: key.startswith(pick[:9])),
        (sk.begins_with("zzz"), lambda key: key.startswith("zzz")),
    ]
    condition, test = rng.choice(choices)
    partition = Key("pk").eq("job#a")
    return (partition if condition is None else partition & condition), test


def test_reads_with_and_without_writes_between_them_answer_what_the_items_hold(
        aws_resources: None, settings_env: pytest.MonkeyPatch) -> None:
    table = _table(settings_env)
    rng = random.Random(37)
    model: dict[str, int] = {}
    for n in range(1, 121):
        sk = f"{rng.choice(['item#', 'result#', 'url#'])}{n:05d}"
        table.put_item(Item={"pk": "job#a", "sk": sk, "n": n})
        table.put_item(Item={"pk": "job#b", "sk": sk, "n": -n})  # another partition, never answered
        model[sk] = n
    for step in range(150):
        if rng.random() < 0.3:  # a write between reads: new, changed or gone
            sk = rng.choice([*model, f"result#{rng.randrange(1, 400):05d}"])
            if sk in model and rng.random() < 0.4:
                table.delete_item(Key={"pk": "job#a", "sk": sk})
                del model[sk]
            else:
                table.put_item(Item={"pk": "job#a", "sk": sk, "n": 1000 + step})
                model[sk] = 1000 + step
        condition, test = _condition(rng, sorted(model))
        limit, forward = rng.choice([None, 2, 7, 50]), rng.random() < 0.6
        expected = sorted(((sk, n) for sk, n in model.items() if test(sk)), reverse=not forward)
        assert _read_all(table, condition, limit, forward) == expected, (step, limit, forward)


def test_pages_read_back_with_no_write_between_are_bisected_and_a_later_write_is_seen(
        aws_resources: None, settings_env: pytest.MonkeyPatch, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _table(settings_env)
    with table.batch_writer() as batch:
        for n in range(1, 601):
            for kind in ("item#", "result#", "url#"):
                batch.put_item(Item={"pk": "job#a", "sk": f"{kind}{n:05d}", "n": n})
    walked: list[int] = []  # the partition's size at each read that walked it
    key_range = moto_queries._key_range

    def walking(table_: Any, items: list[Any], *rest: Any) -> Any:
        walked.append(len(items))
        return key_range(table_, items, *rest)

    monkeypatch.setattr(moto_queries, "_key_range", walking)
    condition = Key("pk").eq("job#a") & Key("sk").begins_with("result#")
    for forward in (True, False):
        read = _read_all(table, condition, 25, forward)
        assert [n for _, n in read] == (list(range(1, 601)) if forward else list(range(600, 0, -1)))
    assert walked == [1800]  # 48 pages: the first walked the partition, the rest were bisected
    # Limit counts items before the filter, from the kept order too.
    filtered = table.query(KeyConditionExpression=condition, Limit=5, FilterExpression=Attr("n").gt(3))
    assert [int(item["n"]) for item in filtered["Items"]] == [4, 5]
    table.put_item(Item={"pk": "job#a", "sk": "result#00300x", "n": 9999})  # lands mid-partition
    table.delete_item(Key={"pk": "job#a", "sk": "result#00301"})
    after = [n for _, n in _read_all(table, condition, 100, True)]
    assert after == [*range(1, 301), 9999, *range(302, 601)]
    assert len(walked) == 2  # the write made the next read walk again, then its pages were bisected
