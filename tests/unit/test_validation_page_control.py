"""Every page-control field (docs/api.md#page-control) and every constraint on it gives the contract's
Zod-style 422 issue, on every browser request model."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from webcapture.errors import RequestValidationError
from webcapture.models.devices import device_names
from webcapture.models.page_control import PageControl
from webcapture.models.requests import AiExtractRequest, LinksRequest, ScreenshotRequest
from webcapture.validation import validate_request

URL = "https://example.com/"
MODELS: list[type[BaseModel]] = [ScreenshotRequest, LinksRequest, AiExtractRequest]


def body(**fields: Any) -> dict[str, Any]:
    return {"url": URL, "prompt": "p", **fields}


def issues_for(model: type[BaseModel], payload: dict[str, Any]) -> list[dict[str, Any]]:
    with pytest.raises(RequestValidationError) as caught:
        validate_request(model, payload)
    return caught.value.issues


def only_issue(payload: dict[str, Any], model: type[BaseModel] = LinksRequest) -> dict[str, Any]:
    issues = issues_for(model, payload)
    assert len(issues) == 1, issues
    return issues[0]


@pytest.mark.parametrize("model", MODELS)
def test_every_browser_request_is_a_page_control(model: type[BaseModel]) -> None:
    assert issubclass(model, PageControl)
    request = validate_request(model, body())
    assert isinstance(request, PageControl)
    # Absent means today's behaviour.
    assert (request.waitUntil, request.waitForSelector, request.bestAttempt, request.scrollPage) == (
        "load", None, False, False)
    assert request.headers == {} and request.cookies == [] and request.device is None


def test_a_full_valid_request() -> None:
    request = validate_request(ScreenshotRequest, body(
        waitUntil="networkidle2", waitForSelector={"selector": "#a", "visible": True, "timeout": 25000},
        bestAttempt=True, scrollPage=True, hideSelectors=[".cookie"] * 50, blockAds=True,
        blockCookieBanners=True, rejectResourceTypes=["image", "media", "font", "stylesheet", "script", "xhr",
        "fetch", "websocket", "eventsource", "manifest", "other"], rejectRequestPattern=["**/*.mp4"] * 50,
        headers={f"X-H{i}": "v" * 2000 for i in range(30)}, cookies=[{"name": "a", "value": "b",
        "domain": "example.com", "path": "/", "secure": True, "httpOnly": True, "sameSite": "Lax",
        "expires": 1900000000}] * 50, userAgent="u" * 500, authenticate={"username": "u", "password": "p"},
        emulateMediaType="print", colorScheme="dark", reducedMotion="reduce", timezoneId="Europe/Berlin",
        locale="de-DE", device="iPhone 15 Pro", addStyleTag=[{"content": "a" * 20000}] * 10,
        addScriptTag=[{"url": "https://cdn.example/x.js"}] * 10, screenshotOptions={"selector": "#card"},
    ))
    assert request.waitForSelector is not None and request.waitForSelector.state == "visible"
    assert request.screenshotOptions.selector == "#card"


def test_wait_for_selector_string_is_shorthand() -> None:
    request = validate_request(LinksRequest, body(waitForSelector="#late"))
    assert request.waitForSelector is not None
    assert (request.waitForSelector.selector, request.waitForSelector.state) == ("#late", "attached")


ENUMS = [
    ("waitUntil", "networkidle", ["load", "domcontentloaded", "networkidle0", "networkidle2"]),
    ("emulateMediaType", "tv", ["screen", "print"]),
    ("colorScheme", "blue", ["light", "dark", "no-preference"]),
    ("reducedMotion", "none", ["reduce", "no-preference"]),
]


@pytest.mark.parametrize(("field", "value", "options"), ENUMS)
def test_enums(field: str, value: str, options: list[str]) -> None:
    issue = only_issue(body(**{field: value}))
    assert issue == {"code": "invalid_enum_value", "options": options, "received": value, "path": [field],
                     "message": issue["message"]}


def test_resource_types_enum_names_the_index() -> None:
    issue = only_issue(body(rejectResourceTypes=["image", "document"]))
    assert (issue["code"], issue["path"], issue["received"]) == ("invalid_enum_value",
                                                                ["rejectResourceTypes", 1], "document")


def test_unknown_device_is_an_enum_issue_listing_playwright_devices() -> None:
    issue = only_issue(body(device="Nokia 3310"))
    assert (issue["code"], issue["path"], issue["received"]) == ("invalid_enum_value", ["device"], "Nokia 3310")
    assert issue["options"] == list(device_names()) and "iPhone 15 Pro" in issue["options"]


LENGTHS = [
    # payload, path, code, bound key, bound, type
    (body(waitForSelector=""), ["waitForSelector", "selector"], "too_small", "minimum", 1, "string"),
    (body(waitForSelector="a" * 501), ["waitForSelector", "selector"], "too_big", "maximum", 500, "string"),
    (body(waitForSelector={"selector": "a", "timeout": -1}), ["waitForSelector", "timeout"], "too_small",
     "minimum", 0, "number"),
    (body(waitForSelector={"selector": "a", "timeout": 25001}), ["waitForSelector", "timeout"], "too_big",
     "maximum", 25000, "number"),
    (body(hideSelectors=["a"] * 51), ["hideSelectors"], "too_big", "maximum", 50, "array"),
    (body(hideSelectors=[""]), ["hideSelectors", 0], "too_small", "minimum", 1, "string"),
    (body(hideSelectors=["a", "a" * 501]), ["hideSelectors", 1], "too_big", "maximum", 500, "string"),
    (body(rejectRequestPattern=["a"] * 51), ["rejectRequestPattern"], "too_big", "maximum", 50, "array"),
    (body(rejectRequestPattern=[""]), ["rejectRequestPattern", 0], "too_small", "minimum", 1, "string"),
    (body(headers={f"X-{i}": "v" for i in range(31)}), ["headers"], "too_big", "maximum", 30, "array"),
    (body(headers={"X-A": "v" * 2001}), ["headers", "X-A"], "too_big", "maximum", 2000, "string"),
    (body(cookies=[{"name": "a", "value": "b"}] * 51), ["cookies"], "too_big", "maximum", 50, "array"),
    (body(cookies=[{"name": "", "value": "b"}]), ["cookies", 0, "name"], "too_small", "minimum", 1, "string"),
    (body(userAgent=""), ["userAgent"], "too_small", "minimum", 1, "string"),
    (body(userAgent="u" * 501), ["userAgent"], "too_big", "maximum", 500, "string"),
    (body(addStyleTag=[{"content": "a"}] * 11), ["addStyleTag"], "too_big", "maximum", 10, "array"),
    (body(addScriptTag=[{"content": "a"}] * 11), ["addScriptTag"], "too_big", "maximum", 10, "array"),
    (body(addScriptTag=[{"content": "a" * 20001}]), ["addScriptTag", 0, "content"], "too_big", "maximum",
     20000, "string"),
]  # fmt: skip


@pytest.mark.parametrize(("payload", "path", "code", "key", "bound", "kind"), LENGTHS)
def test_lengths_and_ranges(
    payload: dict[str, Any], path: list[Any], code: str, key: str, bound: int, kind: str
) -> None:
    issue = only_issue(payload)
    assert (issue["code"], issue["path"], issue[key], issue["type"], issue["inclusive"]) == (
        code, path, bound, kind, True)


def test_screenshot_selector_length_and_clip_conflict() -> None:
    issue = only_issue(shot := body(screenshotOptions={"selector": ""}), ScreenshotRequest)
    assert (issue["code"], issue["path"]) == ("too_small", ["screenshotOptions", "selector"])
    del shot
    issue = only_issue(body(screenshotOptions={"selector": "#a", "clip": {"x": 0, "y": 0, "width": 1,
                                                                          "height": 1}}), ScreenshotRequest)
    assert (issue["code"], issue["path"]) == ("custom", ["screenshotOptions", "selector"])


REFUSED_HEADERS = ["Host", "cookie", "Content-Length", "Connection", "Transfer-Encoding", "Upgrade", "TE",
                   "Trailer", "Keep-Alive", "Proxy-Authorization", "proxy-connection"]


@pytest.mark.parametrize("name", REFUSED_HEADERS)
def test_headers_the_browser_owns_are_refused(name: str) -> None:
    issue = only_issue(body(headers={name: "x", "X-Fine": "y"}))
    assert (issue["code"], issue["path"]) == ("custom", ["headers", name])


@pytest.mark.parametrize("name", ["", "Bad Name", "X:Y", "Ä", "a\r\nb"])
def test_header_names_must_be_tokens(name: str) -> None:
    issue = only_issue(body(headers={name: "x"}))
    assert (issue["code"], issue["path"]) == ("custom", ["headers", name])


@pytest.mark.parametrize("field", ["headers", "userAgent"])
@pytest.mark.parametrize("value", ["a\r\nX-Injected: 1", "a\nb", "nul\x00"])
def test_header_values_cannot_split_the_header(field: str, value: str) -> None:
    payload = body(headers={"X-A": value}) if field == "headers" else body(userAgent=value)
    issue = only_issue(payload)
    assert (issue["code"], issue["path"]) == ("custom", ["headers", "X-A"] if field == "headers" else [field])


def test_every_issue_is_listed() -> None:
    issues = issues_for(LinksRequest, body(headers={"Host": "a", "Cookie": "b"}, timezoneId="Mars/Olympus",
                                           locale="not a tag", bestAttempt="yes"))
    assert [issue["path"] for issue in issues] == [["bestAttempt"], ["headers", "Host"], ["headers", "Cookie"],
                                                   ["timezoneId"], ["locale"]]


@pytest.mark.parametrize("zone", ["Mars/Olympus", "Europe/Nowhere", "localtime", "../etc/passwd", ""])
def test_unknown_time_zone(zone: str) -> None:
    issue = only_issue(body(timezoneId=zone))
    assert (issue["code"], issue["path"]) == ("custom", ["timezoneId"])


@pytest.mark.parametrize("zone", ["Europe/Berlin", "America/New_York", "UTC", "Asia/Kolkata"])
def test_known_time_zones(zone: str) -> None:
    assert validate_request(LinksRequest, body(timezoneId=zone)).timezoneId == zone


@pytest.mark.parametrize("tag", ["", "d", "de_DE", "de-DE-", "toolongtag", "de-" + "x" * 40])
def test_bad_locale(tag: str) -> None:
    issue = only_issue(body(locale=tag))
    assert (issue["code"], issue["path"]) == ("custom", ["locale"])


@pytest.mark.parametrize("tag", ["de", "de-DE", "zh-Hant-TW", "en-US", "es-419"])
def test_good_locale(tag: str) -> None:
    assert validate_request(LinksRequest, body(locale=tag)).locale == tag


def test_wait_for_selector_visible_and_hidden_conflict() -> None:
    issue = only_issue(body(waitForSelector={"selector": "a", "visible": True, "hidden": True}))
    assert (issue["code"], issue["path"]) == ("custom", ["waitForSelector", "hidden"])


@pytest.mark.parametrize("tag", [{}, {"content": "a", "url": "https://x.example/a.css"}])
def test_injected_tag_needs_content_or_url(tag: dict[str, Any]) -> None:
    issue = only_issue(body(addStyleTag=[tag]))
    assert (issue["code"], issue["path"]) == ("custom", ["addStyleTag", 0])


@pytest.mark.parametrize("url", ["file:///etc/passwd", "javascript:alert(1)", "data:text/css,a", "//x/a.css"])
def test_injected_url_must_be_http(url: str) -> None:
    issue = only_issue(body(addScriptTag=[{"url": url}]))
    assert issue == {"code": "invalid_string", "validation": "url", "path": ["addScriptTag", 0, "url"],
                     "message": "Invalid url"}


TYPES = [
    (body(bestAttempt="true"), ["bestAttempt"], "boolean"),
    (body(scrollPage=1), ["scrollPage"], "boolean"),
    (body(blockAds="yes"), ["blockAds"], "boolean"),
    (body(blockCookieBanners=None), ["blockCookieBanners"], "boolean"),
    (body(hideSelectors=".a"), ["hideSelectors"], "array"),
    (body(headers=["X-A"]), ["headers"], "object"),
    (body(headers={"X-A": 1}), ["headers", "X-A"], "string"),
    (body(cookies={"name": "a"}), ["cookies"], "array"),
    (body(authenticate="user:pass"), ["authenticate"], "object"),
    (body(waitForSelector=5), ["waitForSelector"], "object"),
    (body(cookies=[{"name": "a", "value": "b", "secure": "yes"}]), ["cookies", 0, "secure"], "boolean"),
]


@pytest.mark.parametrize(("payload", "path", "expected"), TYPES)
def test_wrong_types(payload: dict[str, Any], path: list[Any], expected: str) -> None:
    issue = only_issue(payload)
    assert (issue["code"], issue["path"], issue["expected"]) == ("invalid_type", path, expected)


def test_cookie_same_site_and_required_fields() -> None:
    issue = only_issue(body(cookies=[{"name": "a", "value": "b", "sameSite": "lax"}]))
    assert (issue["code"], issue["path"]) == ("invalid_enum_value", ["cookies", 0, "sameSite"])
    issue = only_issue(body(authenticate={"username": "u"}))
    assert issue["path"] == ["authenticate", "password"] and issue["message"] == "Required"
