"""Fields a request sent that its model does not know are named, with the closest known field, and a 422's
one-line message names the first issue's path and what is wrong (docs/api.md#validation-errors)."""

from __future__ import annotations

import time
import uuid

import pytest

from webcapture import request_scope
from webcapture.errors import RequestValidationError
from webcapture.jobs.batch_request import parse_batch
from webcapture.models.requests import AiExtractRequest, PdfRequest, ScreenshotRequest
from webcapture.validation import validate_request, validation_message


def warnings_of(model: type, body: dict[str, object]) -> list[str]:
    scope = request_scope.RequestScope(str(uuid.uuid4()), time.monotonic() + 20, None)
    with request_scope.scoped(scope):
        validate_request(model, body)
        return request_scope.request_warnings()


def test_a_misspelt_field_at_any_depth_is_named_with_the_closest_known_one() -> None:
    assert warnings_of(ScreenshotRequest, {
        "url": "https://example.com/", "screenshotOption": {},
        "screenshotOptions": {"fullpage": False, "clip": {"x": 0, "y": 0, "width": 10, "height": 10, "sacle": 1}},
        "viewport": {"widht": 400}, "cookies": [{"name": "a", "value": "b", "vaule": "c"}],
        "waitForSelector": {"selector": "h1", "visibel": True}, "zzzz": 1,
    }) == [
        "ignored unknown field 'screenshotOption' (did you mean 'screenshotOptions'?)",
        "ignored unknown field 'screenshotOptions.fullpage' (did you mean 'screenshotOptions.fullPage'?)",
        "ignored unknown field 'screenshotOptions.clip.sacle' (did you mean 'screenshotOptions.clip.scale'?)",
        "ignored unknown field 'viewport.widht' (did you mean 'viewport.width'?)",
        "ignored unknown field 'cookies[0].vaule' (did you mean 'cookies[0].value'?)",
        "ignored unknown field 'waitForSelector.visibel' (did you mean 'waitForSelector.visible'?)",
        "ignored unknown field 'zzzz'",
    ]


def test_a_nested_field_sent_at_the_top_is_pointed_to_where_it_belongs() -> None:
    assert warnings_of(ScreenshotRequest, {"url": "https://example.com/", "fullPage": False}) == [
        "ignored unknown field 'fullPage' (did you mean 'screenshotOptions.fullPage'?)"]


@pytest.mark.parametrize(("model", "body"), [
    (ScreenshotRequest, {"url": "https://example.com/", "screenshotOptions": {"fullPage": False, "type": "jpeg",
     "quality": 80}, "viewport": {"width": 390, "height": 844, "isMobile": True}, "waitForSelector": "h1",
     "headers": {"X-Anything": "1"}, "actions": [{"type": "click", "selector": "a"}]}),
    (PdfRequest, {"url": "https://example.com/", "pdfOptions": {"format": "A4", "margin": {"top": "1cm"}}}),
    (AiExtractRequest, {"url": "https://example.com/", "prompt": "the title", "response_format": {
        "type": "json_schema", "json_schema": {"name": "t", "schema": {"type": "object", "whatever": 1}}}}),
])  # fmt: skip
def test_known_fields_and_free_form_values_give_no_warning(model: type, body: dict[str, object]) -> None:
    assert warnings_of(model, body) == []


def test_a_batchs_items_and_its_own_fields_are_named_by_their_place() -> None:
    scope = request_scope.RequestScope(str(uuid.uuid4()), time.monotonic() + 20, None)
    with request_scope.scoped(scope):
        parse_batch({"operation": "links", "requests": [{"url": "https://a.test/", "timeout": 5000},
                                                        {"url": "https://b.test/", "includeExtrenal": False}],
                     "webhok": {}})
        assert request_scope.request_warnings() == [
            "ignored unknown field 'requests[1].includeExtrenal' (did you mean 'requests[1].includeExternal'?)",
            "ignored unknown field 'webhok' (did you mean 'webhook'?)",
        ]


def test_outside_a_request_nothing_is_recorded() -> None:
    validate_request(ScreenshotRequest, {"url": "https://example.com/", "fullpage": True})
    assert request_scope.request_warnings() == []


@pytest.mark.parametrize(("body", "message"), [
    ({"url": "example.com"}, "url: an absolute http(s) URL is needed; did you mean https://example.com?"),
    ({"url": "example.com/a?b=1"}, "url: an absolute http(s) URL is needed; did you mean https://example.com/a?b=1?"),
    ({"url": "ftp://example.com/"}, "url: an absolute http(s) URL is needed"),
    ({}, "url: required (a string)"),
    ({"url": "https://example.com/", "viewport": {"width": 50}},
     "viewport.width: Number must be greater than or equal to 100"),
    ({"url": "https://example.com/", "viewport": {"width": 50, "height": "x"}},
     "viewport.height: Expected integer, received string (and 1 more issue)"),
])  # fmt: skip
def test_the_422_message_names_the_first_issue_and_says_what_to_fix(body: dict[str, object], message: str) -> None:
    with pytest.raises(RequestValidationError) as raised:
        validate_request(ScreenshotRequest, body)
    assert validation_message(raised.value.issues, raised.value.payload) == message


def test_a_batch_items_url_gets_the_hint_too() -> None:
    with pytest.raises(RequestValidationError) as raised:
        parse_batch({"operation": "links", "requests": [{"url": "https://a.test/"}, {"url": "b.test"}]})
    assert validation_message(raised.value.issues, raised.value.payload) == (
        "requests[1].url: an absolute http(s) URL is needed; did you mean https://b.test?")
