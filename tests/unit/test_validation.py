"""Every constrained field of the five request models gives the contract's Zod-style 422 issue."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from tests.support.validation_issues import issues_for, only_issue
from webcapture.errors import InvalidJson, PayloadTooLarge
from webcapture.models.requests import (
    AiExtractRequest,
    FileDeleteRequest,
    LinksRequest,
    ScreenshotRequest,
)
from webcapture.validation import parse_json_body, validate_request

URL = "https://example.com/"


def shot(**fields: Any) -> dict[str, Any]:
    return {"url": URL, **fields}


RANGE_CASES = [
    # model, payload, path, code, bound key, bound, type
    (ScreenshotRequest, shot(waitTime=-1), ["waitTime"], "too_small", "minimum", 0, "number"),
    (ScreenshotRequest, shot(waitTime=5001), ["waitTime"], "too_big", "maximum", 5000, "number"),
    (LinksRequest, shot(waitTime=5001), ["waitTime"], "too_big", "maximum", 5000, "number"),
    (AiExtractRequest, shot(prompt="p", waitTime=-5), ["waitTime"], "too_small", "minimum", 0, "number"),
    (ScreenshotRequest, shot(viewport={"height": 99}), ["viewport", "height"], "too_small", "minimum", 100, "number"),
    (ScreenshotRequest, shot(viewport={"height": 2161}), ["viewport", "height"], "too_big", "maximum", 2160, "number"),
    (ScreenshotRequest, shot(viewport={"width": 99}), ["viewport", "width"], "too_small", "minimum", 100, "number"),
    (ScreenshotRequest, shot(viewport={"width": 3841}), ["viewport", "width"], "too_big", "maximum", 3840, "number"),
    (ScreenshotRequest, shot(viewport={"deviceScaleFactor": 0.05}), ["viewport", "deviceScaleFactor"],
     "too_small", "minimum", 0.1, "number"),
    (ScreenshotRequest, shot(viewport={"deviceScaleFactor": 11}), ["viewport", "deviceScaleFactor"],
     "too_big", "maximum", 10, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"type": "jpeg", "quality": 0}), ["screenshotOptions", "quality"],
     "too_small", "minimum", 1, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"type": "jpeg", "quality": 101}), ["screenshotOptions", "quality"],
     "too_big", "maximum", 100, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": 0, "width": 1, "x": 0, "y": 0}}),
     ["screenshotOptions", "clip", "height"], "too_small", "minimum", 1, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": 1, "width": 0, "x": 0, "y": 0}}),
     ["screenshotOptions", "clip", "width"], "too_small", "minimum", 1, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": 1, "width": 1, "x": -1, "y": 0}}),
     ["screenshotOptions", "clip", "x"], "too_small", "minimum", 0, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": 1, "width": 1, "x": 0, "y": -1}}),
     ["screenshotOptions", "clip", "y"], "too_small", "minimum", 0, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": 1, "width": 1, "x": 0, "y": 0, "scale": 0.01}}),
     ["screenshotOptions", "clip", "scale"], "too_small", "minimum", 0.1, "number"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": 1, "width": 1, "x": 0, "y": 0, "scale": 10.5}}),
     ["screenshotOptions", "clip", "scale"], "too_big", "maximum", 10, "number"),
    (AiExtractRequest, shot(prompt=""), ["prompt"], "too_small", "minimum", 1, "string"),
    (AiExtractRequest, shot(prompt="x" * 1001), ["prompt"], "too_big", "maximum", 1000, "string"),
    (AiExtractRequest, shot(prompt="p", instructions="x" * 501), ["instructions"], "too_big", "maximum", 500,
     "string"),
    (FileDeleteRequest, {"fileId": ""}, ["fileId"], "too_small", "minimum", 1, "string"),
]


@pytest.mark.parametrize(("model", "payload", "path", "code", "bound_key", "bound", "kind"), RANGE_CASES)
def test_bounds(model: type[BaseModel], payload: dict[str, Any], path: list[str], code: str, bound_key: str,
                bound: float, kind: str) -> None:
    issue = only_issue(model, payload)
    assert issue["code"] == code
    assert issue["path"] == path
    assert issue[bound_key] == bound
    assert issue["inclusive"] is True
    assert issue["type"] == kind
    assert issue["message"]


@pytest.mark.parametrize("value", [0, 5000, 2500])
def test_bounds_are_inclusive(value: int) -> None:
    assert validate_request(ScreenshotRequest, shot(waitTime=value)).waitTime == value


@pytest.mark.parametrize("model", [ScreenshotRequest, LinksRequest, AiExtractRequest])
def test_missing_url_is_invalid_type_undefined(model: type[BaseModel]) -> None:
    issue = issues_for(model, {"prompt": "p"} if model is AiExtractRequest else {})[0]
    assert issue == {"code": "invalid_type", "expected": "string", "received": "undefined", "path": ["url"],
                     "message": "Required"}


def test_missing_file_id() -> None:
    assert only_issue(FileDeleteRequest, {})["path"] == ["fileId"]


def test_missing_clip_fields_name_number() -> None:
    issues = issues_for(ScreenshotRequest, shot(screenshotOptions={"clip": {}}))
    assert [i["path"][-1] for i in issues] == ["height", "width", "x", "y"]
    assert {i["expected"] for i in issues} == {"number"}


TYPE_CASES = [
    (ScreenshotRequest, shot(waitTime="5"), ["waitTime"], "integer", "string"),
    (ScreenshotRequest, shot(waitTime=1.5), ["waitTime"], "integer", "float"),
    (LinksRequest, shot(waitTime=True), ["waitTime"], "integer", "boolean"),
    (ScreenshotRequest, shot(base64="true"), ["base64"], "boolean", "string"),
    (LinksRequest, shot(includeExternal=1), ["includeExternal"], "boolean", "number"),
    (FileDeleteRequest, {"fileId": "f", "deleteFromStorage": "yes"}, ["deleteFromStorage"], "boolean", "string"),
    (FileDeleteRequest, {"fileId": 7}, ["fileId"], "string", "number"),
    (ScreenshotRequest, {"url": 42}, ["url"], "string", "number"),
    (ScreenshotRequest, shot(viewport="big"), ["viewport"], "object", "string"),
    (ScreenshotRequest, shot(screenshotOptions=[]), ["screenshotOptions"], "object", "array"),
    (ScreenshotRequest, shot(viewport={"deviceScaleFactor": "2"}), ["viewport", "deviceScaleFactor"], "number",
     "string"),
    (ScreenshotRequest, shot(viewport={"isMobile": "no"}), ["viewport", "isMobile"], "boolean", "string"),
    (ScreenshotRequest, shot(viewport={"hasTouch": 0}), ["viewport", "hasTouch"], "boolean", "number"),
    (ScreenshotRequest, shot(viewport={"isLandscape": None}), ["viewport", "isLandscape"], "boolean", "null"),
    (ScreenshotRequest, shot(screenshotOptions={"fullPage": "true"}), ["screenshotOptions", "fullPage"], "boolean",
     "string"),
    (ScreenshotRequest, shot(screenshotOptions={"omitBackground": 1}), ["screenshotOptions", "omitBackground"],
     "boolean", "number"),
    (ScreenshotRequest, shot(screenshotOptions={"captureBeyondViewport": "x"}),
     ["screenshotOptions", "captureBeyondViewport"], "boolean", "string"),
    (ScreenshotRequest, shot(screenshotOptions={"fromSurface": "x"}), ["screenshotOptions", "fromSurface"],
     "boolean", "string"),
    (ScreenshotRequest, shot(screenshotOptions={"optimizeForSpeed": "x"}),
     ["screenshotOptions", "optimizeForSpeed"], "boolean", "string"),
    (ScreenshotRequest, shot(screenshotOptions={"type": "jpeg", "quality": 50.5}), ["screenshotOptions", "quality"],
     "integer", "float"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": "1", "width": 1, "x": 0, "y": 0}}),
     ["screenshotOptions", "clip", "height"], "integer", "string"),
    (ScreenshotRequest, shot(screenshotOptions={"clip": {"height": 1, "width": 1, "x": 0, "y": 0, "scale": "2"}}),
     ["screenshotOptions", "clip", "scale"], "number", "string"),
    (AiExtractRequest, shot(prompt=5), ["prompt"], "string", "number"),
    (AiExtractRequest, shot(prompt="p", instructions=[]), ["instructions"], "string", "array"),
    (AiExtractRequest, shot(response_format="json"), ["response_format"], "object", "string"),
]


@pytest.mark.parametrize(("model", "payload", "path", "expected", "received"), TYPE_CASES)
def test_wrong_types(model: type[BaseModel], payload: dict[str, Any], path: list[str], expected: str,
                     received: str) -> None:
    issue = only_issue(model, payload)
    assert issue["code"] == "invalid_type"
    assert issue["path"] == path
    assert issue["expected"] == expected
    assert issue["received"] == received


ENUM_CASES = [
    (ScreenshotRequest, shot(screenshotOptions={"type": "gif"}), ["screenshotOptions", "type"],
     ["png", "jpeg", "webp"], "gif"),
    (ScreenshotRequest, shot(screenshotOptions={"encoding": "hex"}), ["screenshotOptions", "encoding"],
     ["binary", "base64"], "hex"),
    (AiExtractRequest, shot(prompt="p", responseType="xml"), ["responseType"], ["json", "text"], "xml"),
]


@pytest.mark.parametrize(("model", "payload", "path", "options", "received"), ENUM_CASES)
def test_enums(model: type[BaseModel], payload: dict[str, Any], path: list[str], options: list[str],
               received: str) -> None:
    issue = only_issue(model, payload)
    assert issue["code"] == "invalid_enum_value"
    assert issue["path"] == path
    assert issue["options"] == options
    assert issue["received"] == received


@pytest.mark.parametrize("url", ["not a url", "ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)",
                                 "http://", "https:///path", "//example.com", "http://exa mple.com/"])
@pytest.mark.parametrize("model", [ScreenshotRequest, LinksRequest, AiExtractRequest])
def test_bad_urls(model: type[BaseModel], url: str) -> None:
    payload = {"url": url, "prompt": "p"}
    assert only_issue(model, payload) == {"code": "invalid_string", "validation": "url", "path": ["url"],
                                          "message": "Invalid url"}


def test_png_with_quality_is_a_custom_issue() -> None:
    issue = only_issue(ScreenshotRequest, shot(screenshotOptions={"quality": 80}))
    assert issue["code"] == "custom"
    assert issue["path"] == ["screenshotOptions", "quality"]


def test_json_extraction_needs_prompt_or_schema() -> None:
    issue = only_issue(AiExtractRequest, shot())
    assert issue["code"] == "custom"
    assert issue["path"] == ["prompt"]
    assert validate_request(AiExtractRequest, shot(responseType="text")).prompt is None


def test_every_issue_is_listed_not_only_the_first() -> None:
    issues = issues_for(ScreenshotRequest, {"waitTime": -1, "viewport": {"width": 1, "height": 1}})
    assert [i["path"] for i in issues] == [["url"], ["waitTime"], ["viewport", "height"], ["viewport", "width"]]


def test_unknown_fields_are_ignored_and_defaults_hold() -> None:
    request = validate_request(ScreenshotRequest, shot(somethingElse=True))
    assert request.screenshotOptions.fullPage is True
    assert request.screenshotOptions.type == "png"
    assert (request.viewport.width, request.viewport.height, request.viewport.deviceScaleFactor) == (1280, 800, 1)
    assert request.waitTime == 0 and request.base64 is False


@pytest.mark.parametrize(("payload", "received"), [([], "array"), ("x", "string"), (3, "number"), (None, "null")])
def test_json_that_is_not_an_object(payload: Any, received: str) -> None:
    assert only_issue(LinksRequest, payload) == {"code": "invalid_type", "expected": "object", "received": received,
                                                 "path": [], "message": f"Expected object, received {received}"}


def test_body_parsing_errors() -> None:
    with pytest.raises(InvalidJson):
        parse_json_body("{nope", 1000)
    with pytest.raises(InvalidJson):
        parse_json_body("", 1000)
    with pytest.raises(PayloadTooLarge):
        parse_json_body(b"x" * 1001, 1000)
    assert parse_json_body(b'{"a": 1}', 1000) == {"a": 1}
