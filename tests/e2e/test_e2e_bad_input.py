"""Over real HTTP against the local API: bad bodies and odd requests get the contract's answers
(docs/api.md#limits)."""

from __future__ import annotations

import json

import pytest

from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.fake_openai import FakeOpenAI, completion
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size

BAD_BODIES = {
    "not-utf8": b"\xff{}",
    "100k-deep": b"[" * 100_000,
    "50k-deep-closed": b"[" * 50_000 + b"]" * 50_000,
    "65-deep": b'{"a":' * 64 + b"{}" + b"}" * 64,
    "nan": b'{"fileId": "x", "n": NaN}',
    "infinity": b'{"url": "http://example.com/", "waitTime": Infinity}',
}


@pytest.mark.parametrize("content_type", ["application/json", "text/plain; charset=utf-8"])
@pytest.mark.parametrize("name", list(BAD_BODIES))
def test_bad_bodies_are_400_invalid_json(local_api: LocalApi, name: str, content_type: str) -> None:
    # API Gateway base64-encodes these bodies (BinaryMediaTypes lists */*), so both paths are the same here;
    # a missing Content-Type arrives as text.
    for path in ("/v1/files/delete", "/v1/web/screenshot"):
        response = local_api.call("POST", path, data=BAD_BODIES[name], headers={"Content-Type": content_type})
        assert_envelope_error(response, 400, "INVALID_JSON")
    bare = local_api.call("POST", "/v1/files/delete", data=BAD_BODIES[name])
    assert bare.status_code == 400, bare.text


def test_port_out_of_range_is_422(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", json={"url": "http://example.com:99999/"})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["issues"] == [{"code": "invalid_string", "validation": "url", "path": ["url"],
                                                   "message": "Invalid url"}]


# ------------------------------------------------------------------ pixel limits
def test_oversized_capture_is_422_before_any_browser_work(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", json={
        "url": "http://example.com/", "viewport": {"width": 3840, "height": 2160, "deviceScaleFactor": 10}})
    assert response.status_code == 422, response.text
    [issue] = response.json()["error"]["issues"]
    assert issue["code"] == "custom" and issue["path"] == ["viewport"]


def test_a_page_a_million_px_tall_is_cut_with_a_warning(local_api: LocalApi) -> None:
    url = get_server().url("/huge.html")
    response = local_api.call("POST", "/v1/web/screenshot", json={"url": url, "viewport": {"width": 200}})
    assert response.status_code == 200, response.text
    assert png_size(response.content) == (200, 16384)
    assert "cut to 200x16384" in response.headers["X-Webcapture-Warning"]

    as_json = local_api.call("POST", "/v1/web/screenshot", json={"url": url, "viewport": {"width": 200},
                                                                 "base64": True})
    data = assert_success(as_json, 1)["data"]
    assert (data["metadata"]["width"], data["metadata"]["height"]) == (200, 16384)
    assert "cut to 200x16384" in data["warning"]
    assert "X-Webcapture-Warning" not in as_json.headers

    # The browser survived: the next capture works and has nothing to warn about.
    plain = local_api.call("POST", "/v1/web/screenshot", json={"url": get_server().url("/plain.html")})
    assert plain.status_code == 200 and "X-Webcapture-Warning" not in plain.headers


# ------------------------------------------------------------------ hostile pages
def test_a_page_cannot_fake_the_egress_proxys_verdict(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", json={"url": get_server().url("/forged-egress"),
                                                                 "screenshotOptions": {"fullPage": False}})
    assert response.status_code == 200, response.text
    assert png_size(response.content) == (1280, 800)


def test_a_page_with_html_over_the_limit_is_read_in_part(local_api: LocalApi, fake_openai: FakeOpenAI) -> None:
    # The stack's limit (WEBCAPTURE_MAX_HTML_CHARS: 1,000,000 characters here, conftest.py), and a page whose
    # rendered HTML is a little longer.
    fake_openai.script(completion("A page of filler text."))
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": get_server().url("/big-dom.html?n=1100000"), "responseType": "text"})
    data = assert_success(response, 5)["data"]
    assert data["text"] == "A page of filler text."
    assert "exceeds the limit of 1000000 characters" in data["warning"]
    assert "Start of the page" in json.dumps(fake_openai.requests[-1].body)


def test_a_schema_pattern_that_backtracks_without_end_is_422(local_api: LocalApi, fake_openai: FakeOpenAI) -> None:
    fake_openai.requests.clear()  # (a+)+$ on "a" * 30 + "!" would keep `re` busy for minutes: never get there
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "(a+)+$"}}}
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": get_server().url("/product.html"), "prompt": "Extract the code",
        "response_format": {"type": "json_schema", "schema": schema}})
    assert response.status_code == 422, response.text
    [issue] = response.json()["error"]["issues"]
    assert issue["path"] == ["response_format"] and "(a+)+$" in issue["message"]
    assert fake_openai.requests == [] and fake_openai.pending == 0
