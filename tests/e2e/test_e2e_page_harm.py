"""What a page or a request body must not be able to do to the caller or to the answer, over real HTTP to the
local API with real Chromium: the caller's headers stay on the target's origin, lengths and page ranges are
judged as Chromium judges them, a deeply nested selector is found, a refused injected URL is the caller's
error, no message names an implementation detail, and cookie issues name the cookie and field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.api_answers import assert_envelope_error, assert_success, remaining
from tests.support.local_api import LocalApi
from tests.support.recording_origin import RecordingOrigin, recording_origin
from webcapture.auth import api_keys

TOKEN = "Bearer tenant-token"


@pytest.fixture
def target() -> Iterator[RecordingOrigin]:
    with recording_origin("127.0.0.1") as origin:
        yield origin


@pytest.fixture
def elsewhere() -> Iterator[RecordingOrigin]:
    """A second origin (another address and port) that the target's page embeds."""
    with recording_origin("127.0.0.2") as origin:
        yield origin


def issues(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 422, response.text
    found: list[dict[str, Any]] = response.json()["error"]["issues"]
    return found


def embedding_page(target: RecordingOrigin, elsewhere: RecordingOrigin) -> str:
    elsewhere.serve("/frame.html", "<p>frame</p>")
    elsewhere.serve("/pixel.svg", '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>', "image/svg+xml")
    elsewhere.serve("/tag.js", "window.tagged = true;", "text/javascript")
    target.serve("/own.js", "document.title = 'own';", "text/javascript")
    return target.serve("/page.html", f"""<!doctype html><title>t</title>
<img src="{elsewhere.url('/pixel.svg')}"><script src="{elsewhere.url('/tag.js')}"></script>
<script src="/own.js"></script><iframe src="{elsewhere.url('/frame.html')}"></iframe>
<script>fetch("{elsewhere.url('/api')}").catch(() => 0)</script>""")


# -- headers ---------------------------------------------------------------------------------------------


def test_headers_reach_the_targets_origin_and_no_other(
    local_api: LocalApi, target: RecordingOrigin, elsewhere: RecordingOrigin
) -> None:
    url = embedding_page(target, elsewhere)
    response = local_api.call("POST", "/v1/web/content", json={
        "url": url, "headers": {"Authorization": TOKEN, "X-Tenant": "acme"}, "waitUntil": "networkidle0"})
    assert_success(response, 1)
    assert {seen.path for seen in target.requests()} >= {"/page.html", "/own.js"}
    assert target.header_values("Authorization") == [TOKEN, TOKEN]  # the document and its own script
    assert target.header_values("X-Tenant") == ["acme", "acme"]
    assert {seen.path for seen in elsewhere.requests()} >= {"/pixel.svg", "/tag.js", "/frame.html", "/api"}
    assert elsewhere.header_values("Authorization") == []
    assert elsewhere.header_values("X-Tenant") == []


def test_headers_scope_all_sends_them_everywhere(
    local_api: LocalApi, target: RecordingOrigin, elsewhere: RecordingOrigin
) -> None:
    url = embedding_page(target, elsewhere)
    response = local_api.call("POST", "/v1/web/content", json={
        "url": url, "headers": {"X-Tenant": "acme"}, "headersScope": "all", "waitUntil": "networkidle0"})
    assert_success(response, 1)
    # (its fetch carries a header CORS must ask about first, which this origin does not answer)
    assert len(elsewhere.header_values("X-Tenant")) == len(elsewhere.requests()) >= 3


def test_headers_scope_is_origin_or_all(local_api: LocalApi, target: RecordingOrigin) -> None:
    found = issues(local_api.call("POST", "/v1/web/content", json={
        "url": target.url("/page.html"), "headers": {"X-A": "b"}, "headersScope": "everywhere"}))
    assert [(issue["path"], issue["code"]) for issue in found] == [(["headersScope"], "invalid_enum_value")]


# -- lengths and page ranges as Chromium reads them --------------------------------------------------------


@pytest.mark.parametrize("length", ["\u0661\u0660px", "\uff11\uff10px", "1\u06f0mm"])
def test_pdf_margin_takes_ascii_digits_only(local_api: LocalApi, target: RecordingOrigin, length: str) -> None:
    url = target.serve("/doc.html", "<p>doc</p>")
    found = issues(local_api.call("POST", "/v1/web/pdf", json={
        "url": url, "pdfOptions": {"margin": {"top": length}}}))
    assert [issue["path"] for issue in found] == [["pdfOptions", "margin", "top"]]
    assert "ASCII digits" in found[0]["message"]
    assert target.requests() == []  # judged before any browser work


@pytest.mark.parametrize("ranges", ["\u0661", "1-\uff13", "\u0662-3"])
def test_page_ranges_take_ascii_digits_only(local_api: LocalApi, target: RecordingOrigin, ranges: str) -> None:
    url = target.serve("/doc.html", "<p>doc</p>")
    found = issues(local_api.call("POST", "/v1/web/pdf", json={"url": url, "pdfOptions": {"pageRanges": ranges}}))
    assert [issue["path"] for issue in found] == [["pdfOptions", "pageRanges"]]
    assert "ASCII digits" in found[0]["message"]


# -- waitForSelector finds what the other selector fields find ----------------------------------------------


def _nested_is(levels: int) -> str:
    selector = "#goal"
    for level in range(levels):
        selector = f":is({selector}, .x{level})"
    return selector


BIG_PAGE = "<!doctype html><body>" + "".join(
    f'<div class="c{i % 97}"><span class="s{i % 13}">{i}</span></div>' for i in range(6000)
) + '<div><p id="goal" class="z">here</p></div></body>'


@pytest.mark.parametrize("selector", [
    _nested_is(15),
    ":not(" * 60 + "#goal" + ")" * 60,  # an even number of negations: #goal itself
])
def test_wait_for_selector_finds_a_deeply_nested_selector(
    local_api: LocalApi, target: RecordingOrigin, selector: str
) -> None:
    url = target.serve("/big.html", BIG_PAGE)
    # The same selector as hideSelectors answers at once; waitForSelector must find the element too.
    response = local_api.call("POST", "/v1/web/links", json={
        "url": url, "waitForSelector": {"selector": selector, "timeout": 5000}})
    assert_success(response, 1)
    hidden = local_api.call("POST", "/v1/web/links", json={"url": url, "hideSelectors": [selector]})
    assert_success(hidden, 1)


def test_wait_for_selector_still_refuses_a_selector_that_is_not_css(
    local_api: LocalApi, target: RecordingOrigin
) -> None:
    url = target.serve("/plain.html", "<p>plain</p>")
    response = local_api.call("POST", "/v1/web/links", json={"url": url, "waitForSelector": "p:::nonsense("})
    body = assert_envelope_error(response, 400, "ELEMENT_NOT_FOUND")
    assert "not a valid CSS selector" in body["error"]["message"]


# -- injected tags ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["addScriptTag", "addStyleTag"])
def test_injected_url_the_guard_refuses_is_url_not_allowed_and_refunded(
    stack_aws: LocalApi, target: RecordingOrigin, field: str
) -> None:
    key, _ = api_keys.create_key(f"inject-{field}", "k", remaining=3)
    url = target.serve("/plain.html", "<p>plain</p>")
    response = stack_aws.call("POST", "/v1/web/links", key=key, json={
        "url": url, field: [{"url": "http://169.254.169.254/latest/meta-data/x.js"}]})
    body = assert_envelope_error(response, 400, "URL_NOT_ALLOWED")
    assert body["error"]["message"].startswith(f"{field}[0].url: ")
    assert remaining(key) == 3


# -- bodies whose messages must not name our implementation ----------------------------------------------------


def test_a_five_thousand_digit_integer_is_invalid_json_in_neutral_words(
    local_api: LocalApi, target: RecordingOrigin
) -> None:
    body = f'{{"url": "{target.url("/plain.html")}", "waitTime": {"9" * 5000}}}'
    response = local_api.call("POST", "/v1/web/links", data=body, headers={"Content-Type": "application/json"})
    message = assert_envelope_error(response, 400, "INVALID_JSON")["error"]["message"]
    assert "1000 digits" in message
    for word in ("sys.", "int_max_str_digits", "integer string conversion", "Python"):
        assert word not in message


# -- cookies ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("cookie", "field"), [
    ({"name": "a", "value": "x;y"}, "value"),
    ({"name": "a=b", "value": "x"}, "name"),
    ({"name": "a", "value": " padded"}, "value"),
    ({"name": "a", "value": "x", "sameSite": "None"}, "secure"),
    ({"name": "a", "value": "x", "path": "no-slash"}, "path"),
    ({"name": "c", "value": "v" * 4096}, "value"),
])
def test_cookie_issues_name_the_cookie_and_field(
    local_api: LocalApi, target: RecordingOrigin, cookie: dict[str, Any], field: str
) -> None:
    ok = {"name": "ok", "value": "1"}
    found = issues(local_api.call("POST", "/v1/web/links", json={
        "url": target.url("/plain.html"), "cookies": [ok, cookie]}))
    assert [issue["path"] for issue in found] == [["cookies", 1, field]]
    assert "Playwright" not in found[0]["message"] and "BrowserContext" not in found[0]["message"]


def test_a_cookie_at_the_size_limit_reaches_the_page(local_api: LocalApi, target: RecordingOrigin) -> None:
    url = target.serve("/plain.html", "<p>plain</p>")
    value = "v" * 4095  # name and value together: 4096 bytes, Chromium's limit
    response = local_api.call("POST", "/v1/web/links", json={"url": url, "cookies": [{"name": "c", "value": value}]})
    assert_success(response, 1)
    assert target.header_values("Cookie") == [f"c={value}"]

