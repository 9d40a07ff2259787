"""The batch body (docs/jobs.md#jobs): each item validated as its endpoint's body, issue paths naming it."""

from __future__ import annotations

from typing import Any

import pytest

from webcapture.errors import RequestValidationError
from webcapture.jobs.batch_request import MAX_ITEMS, parse_batch


def issues_of(payload: Any) -> list[dict[str, Any]]:
    with pytest.raises(RequestValidationError) as raised:
        parse_batch(payload)
    return raised.value.issues


def test_a_valid_batch_keeps_every_body_and_its_timeout() -> None:
    batch = parse_batch({"operation": "links", "requests": [{"url": "https://a.example"},
                                                            {"url": "https://b.example", "timeout": 120_000}],
                         "webhook": {"url": "https://hooks.example/x", "metadata": {"run": 7}}})
    assert batch.operation.value == "links"
    assert batch.timeouts_ms == (None, 120_000)
    assert batch.webhook is not None and batch.webhook.events == ("job.completed", "job.failed", "job.cancelled")


def test_every_invalid_item_is_named_by_its_index() -> None:
    issues = issues_of({"operation": "screenshot", "requests": [
        {"url": "https://ok.example"}, {"url": "not a url"}, {"url": "https://x.example", "waitTime": "5"},
        {"url": "https://y.example", "timeout": 120_001}]})
    paths = [issue["path"] for issue in issues]
    assert ["requests", 1, "url"] in paths
    assert ["requests", 2, "waitTime"] in paths
    assert ["requests", 3, "timeout"] in paths
    assert not any(path[:2] == ["requests", 0] for path in paths)


def test_more_than_a_thousand_items_is_one_clear_issue() -> None:
    issues = issues_of({"operation": "screenshot", "requests": [{"url": "https://a.example"}] * (MAX_ITEMS + 1)})
    assert issues == [{"code": "too_big", "maximum": MAX_ITEMS, "inclusive": True, "type": "array",
                       "path": ["requests"], "message": "Array must contain at most 1000 element(s)"}]


@pytest.mark.parametrize(("payload", "path", "code"), [
    ({"requests": [{"url": "https://a.example"}]}, ["operation"], "invalid_type"),
    ({"operation": "crawl", "requests": [{"url": "https://a.example"}]}, ["operation"], "invalid_enum_value"),
    ({"operation": "pdf", "requests": []}, ["requests"], "too_small"),
    ({"operation": "pdf", "requests": [{"url": "https://a.example"}], "webhook": {"url": "ftp://x"}},
     ["webhook", "url"], "invalid_string"),
    ({"operation": "pdf", "requests": [{"url": "https://a.example"}],
      "webhook": {"url": "https://h.example", "events": ["job.done"]}}, ["webhook", "events", 0],
     "invalid_enum_value"),
    ({"operation": "pdf", "requests": [{"url": "https://a.example"}],
      "webhook": {"url": "https://h.example", "metadata": {"blob": "x" * 2100}}}, ["webhook", "metadata"],
     "custom"),
])
def test_the_body_s_own_fields(payload: dict[str, Any], path: list[Any], code: str) -> None:
    assert [(issue["path"], issue["code"]) for issue in issues_of(payload)] == [(path, code)]


def test_a_body_that_is_not_an_object() -> None:
    assert issues_of([1, 2])[0]["path"] == []


def test_a_lone_surrogate_in_metadata_is_measured_and_made_storable() -> None:
    batch = parse_batch({"operation": "links", "requests": [{"url": "https://a.example"}],
                         "webhook": {"url": "https://h.example", "metadata": {"note": "half \ud800 pair"}}})
    assert batch.webhook is not None and batch.webhook.metadata == {"note": "half \ufffd pair"}
