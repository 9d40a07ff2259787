"""An ai-extract monitor's diff: the changed fields by JSON Pointer, with `~` and
`/` escaped, added keys without `before`, removed keys without `after`, arrays by index, equal data none."""

from __future__ import annotations

from typing import Any

import pytest

from webcapture.monitors.check_compare import compare
from webcapture.monitors.json_pointer_diff import json_pointer_diff, pointer_token


def test_a_price_from_10_to_12_is_exactly_one_change() -> None:
    before = {"name": "Basic plan", "price": 10, "currency": "EUR"}
    after = {"name": "Basic plan", "price": 12, "currency": "EUR"}
    assert json_pointer_diff(before, after) == [{"path": "/price", "before": 10, "after": 12}]


@pytest.mark.parametrize("value", [
    {}, [], None, 0, "", {"a": [1, {"b": None}], "c": "x"}, [[1, 2], {"k": True}], 1.5,
])
def test_equal_data_is_no_change(value: Any) -> None:
    assert json_pointer_diff(value, value) == []


def test_nested_changes_are_named_by_their_whole_path() -> None:
    before = {"product": {"offer": {"price": 10, "stock": "in"}, "title": "Lamp"}}
    after = {"product": {"offer": {"price": 10, "stock": "out"}, "title": "Desk lamp"}}
    assert json_pointer_diff(before, after) == [
        {"path": "/product/offer/stock", "before": "in", "after": "out"},
        {"path": "/product/title", "before": "Lamp", "after": "Desk lamp"},
    ]


def test_arrays_are_compared_index_by_index() -> None:
    before = {"prices": [10, 20, 30], "plans": [{"name": "a", "price": 1}]}
    after = {"prices": [10, 25], "plans": [{"name": "a", "price": 2}, {"name": "b", "price": 3}]}
    assert json_pointer_diff(before, after) == [
        {"path": "/prices/1", "before": 20, "after": 25},
        {"path": "/prices/2", "before": 30},
        {"path": "/plans/0/price", "before": 1, "after": 2},
        {"path": "/plans/1", "after": {"name": "b", "price": 3}},
    ]


def test_keys_with_slash_and_tilde_are_escaped() -> None:
    before = {"a/b": 1, "m~n": 2, "~1": 3, "": {"/": 4}}
    after = {"a/b": 5, "m~n": 6, "~1": 7, "": {"/": 8}}
    assert [change["path"] for change in json_pointer_diff(before, after)] == [
        "/a~1b", "/m~0n", "/~01", "//~1"]  # the empty key is an empty token
    assert pointer_token("~/") == "~0~1"
    assert pointer_token(3) == "3"


def test_added_keys_have_no_before_and_removed_keys_no_after() -> None:
    before = {"price": 10, "discount": 2}
    after = {"price": 10, "coupon": "SAVE"}
    assert json_pointer_diff(before, after) == [
        {"path": "/discount", "before": 2},
        {"path": "/coupon", "after": "SAVE"},
    ]


def test_a_value_that_became_null_keeps_both_sides() -> None:
    assert json_pointer_diff({"price": 3}, {"price": None}) == [{"path": "/price", "before": 3, "after": None}]


def test_json_types_differ_where_python_would_call_them_equal() -> None:
    assert json_pointer_diff({"on": 1}, {"on": True}) == [{"path": "/on", "before": 1, "after": True}]
    assert json_pointer_diff({"n": 0}, {"n": False}) == [{"path": "/n", "before": 0, "after": False}]
    assert json_pointer_diff({"n": 1}, {"n": 1.0}) == []
    assert json_pointer_diff({"n": "1"}, {"n": 1}) == [{"path": "/n", "before": "1", "after": 1}]


def test_a_value_changing_type_is_one_change_at_its_path() -> None:
    assert json_pointer_diff({"tags": ["a"]}, {"tags": {"0": "a"}}) == [
        {"path": "/tags", "before": ["a"], "after": {"0": "a"}}]
    assert json_pointer_diff([1], {"x": 1}) == [{"path": "", "before": [1], "after": {"x": 1}}]


def test_an_ai_extract_check_is_compared_field_by_field() -> None:
    before = {"extracted": {"title": "Widget", "price": 10}, "metadata": {"timestamp": "a"}}
    after = {"extracted": {"title": "Widget", "price": 12}, "metadata": {"timestamp": "b"}}
    changed = compare("ai-extract", before, after)
    assert changed.change_status == "changed"
    assert changed.diff == {"fields": [{"path": "/price", "before": 10, "after": 12}]}
    same = compare("ai-extract", before, {**before, "metadata": {"timestamp": "c"}})
    assert (same.change_status, same.diff) == ("same", {"fields": []})
    assert compare("ai-extract", None, after).change_status == "new"
