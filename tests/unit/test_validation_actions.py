"""docs/actions-and-blocked-pages.md#actions-and-blocked-pages's request fields: every issue of `actions`,
`failOnStatus` and `proxy` listed Zod's way."""

from __future__ import annotations

from typing import Any

import pytest

from webcapture.errors import RequestValidationError
from webcapture.models.page_actions import status_refused
from webcapture.models.requests import MarkdownRequest, ScreenshotRequest
from webcapture.validation import validate_request

URL = "https://example.com/"


def issues(body: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(RequestValidationError) as refused:
        validate_request(ScreenshotRequest, {"url": URL, **body})
    return refused.value.issues


@pytest.mark.parametrize(("step", "field"), [
    ({"type": "click"}, "selector"), ({"type": "hover"}, "selector"), ({"type": "type", "selector": "#a"}, "text"),
    ({"type": "press"}, "key"), ({"type": "select", "selector": "#s"}, "value"), ({"type": "wait"}, "ms"),
])  # fmt: skip
def test_a_step_without_what_its_type_needs_is_a_custom_issue_at_that_field(step: dict[str, Any],
                                                                            field: str) -> None:
    [issue] = issues({"actions": [step]})
    assert issue["code"] == "custom" and issue["path"] == ["actions", 0, field]


def test_steps_that_have_what_they_need_are_taken() -> None:
    steps = [{"type": "click", "selector": "#a"}, {"type": "scroll"}, {"type": "scroll", "direction": "up",
             "amount": 300}, {"type": "wait", "ms": 0}, {"type": "wait", "selector": "#b"},
             {"type": "press", "key": "Enter"}, {"type": "type", "selector": "#c", "text": ""}]
    request = validate_request(MarkdownRequest, {"url": URL, "actions": steps, "failOnStatus": [404, "5xx"]})
    assert [step.type for step in request.actions] == ["click", "scroll", "scroll", "wait", "wait", "press", "type"]
    assert request.actions[0].step_timeout_ms == 5000


def test_ranges_and_types_of_the_step_fields() -> None:
    found = issues({"actions": [{"type": "wait", "ms": 25_001}, {"type": "click", "selector": "", "timeout": 0},
                                {"type": "scroll", "direction": "sideways"}, {"type": 5}]})
    assert [(i["code"], i["path"]) for i in found] == [
        ("too_big", ["actions", 0, "ms"]), ("too_small", ["actions", 1, "selector"]),
        ("too_small", ["actions", 1, "timeout"]), ("invalid_enum_value", ["actions", 2, "direction"]),
        ("invalid_type", ["actions", 3, "type"])]


def test_fail_on_status_entries() -> None:
    found = issues({"failOnStatus": [99, 600, "3xx", True, 4.5, "404"]})
    assert [(i["code"], i["path"][1]) for i in found] == [
        ("too_small", 0), ("too_big", 1), ("invalid_enum_value", 2), ("invalid_type", 3), ("invalid_type", 4),
        ("invalid_enum_value", 5)]


def test_a_proxy_name_nobody_configured_lists_the_configured_names() -> None:
    [issue] = issues({"proxy": "mars"})
    assert issue["code"] == "invalid_enum_value" and issue["received"] == "mars" and issue["path"] == ["proxy"]
    assert isinstance(issue["options"], list)


@pytest.mark.parametrize(("status", "refused", "expected"), [
    (404, [404], True), (404, ["4xx"], True), (404, ["5xx", 403], False), (503, ["5xx"], True),
    (None, ["4xx"], False), (200, [], False),
])  # fmt: skip
def test_which_statuses_are_refused(status: int | None, refused: list[int | str], expected: bool) -> None:
    assert status_refused(status, refused) is expected
