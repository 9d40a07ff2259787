"""Page control (docs/api.md#page-control) over real HTTP against the local API, with real Chromium: the
README's recipes, the errors and their refunds, and warnings in both answer forms."""

from __future__ import annotations

from typing import Any

from tests.support.api_answers import assert_envelope_error, assert_success, remaining
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import Pixels, png_size
from webcapture.auth import api_keys

VIEWPORT_ONLY = {"fullPage": False}


def shot(api: LocalApi, body: dict[str, Any], key: str | None = None) -> Pixels:
    response = api.call("POST", "/v1/web/screenshot", key=key, json=body)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "image/png"
    assert "X-Webcapture-Warning" not in response.headers
    return Pixels(response.content)


def test_recipe_wait_for_an_element(local_api: LocalApi) -> None:
    body = {"url": get_server().url("/pc-late-element.html"), "screenshotOptions": VIEWPORT_ONLY}
    assert shot(local_api, body).at(57, 37) == (255, 255, 255, 255)
    waited = shot(local_api, {**body, "waitForSelector": {"selector": "#late", "visible": True}})
    assert waited.at(57, 37) == (0, 0, 255, 255)


def test_recipe_capture_one_element(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", json={
        "url": get_server().url("/pc-parts.html"), "screenshotOptions": {"selector": "#card"}})
    assert response.status_code == 200
    assert png_size(response.content) == (200, 120)


def test_recipe_dark_mode(local_api: LocalApi) -> None:
    body = {"url": get_server().url("/pc-dark.html"), "screenshotOptions": VIEWPORT_ONLY}
    assert shot(local_api, body).at(100, 100) == (255, 255, 255, 255)
    assert shot(local_api, {**body, "colorScheme": "dark"}).at(100, 100) == (0, 0, 0, 255)


def test_recipe_hide_a_cookie_banner(local_api: LocalApi) -> None:
    body = {"url": get_server().url("/pc-parts.html"), "screenshotOptions": VIEWPORT_ONLY}
    assert shot(local_api, body).at(10, 10) == (255, 0, 0, 255)
    hidden = shot(local_api, {**body, "hideSelectors": [".cookie-banner"], "blockCookieBanners": True})
    assert hidden.at(10, 10) == (255, 255, 255, 255)


def test_element_not_found_is_400_and_refunded(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("element-user", "k", remaining=3)
    response = stack_aws.call("POST", "/v1/web/screenshot", key=key, json={
        "url": get_server().url("/pc-parts.html"), "screenshotOptions": {"selector": "#missing"}})
    body = assert_envelope_error(response, 400, "ELEMENT_NOT_FOUND")
    assert "#missing" in body["error"]["message"]
    assert remaining(key) == 3


def test_unsatisfied_wait_is_504_naming_the_selector_and_refunded(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("wait-user", "k", remaining=3)
    response = stack_aws.call("POST", "/v1/web/links", key=key, json={
        "url": get_server().url("/plain.html"), "waitForSelector": {"selector": ".never", "timeout": 500}})
    body = assert_envelope_error(response, 504, "NAVIGATION_TIMEOUT")
    assert ".never" in body["error"]["message"]
    assert remaining(key) == 3


def test_best_attempt_warns_in_json_and_in_a_header(local_api: LocalApi) -> None:
    control = {"url": get_server().url("/plain.html"), "bestAttempt": True,
               "waitForSelector": {"selector": ".never", "timeout": 300}}
    links = assert_success(local_api.call("POST", "/v1/web/links", json=control), 1)["data"]
    assert ".never" in links["warning"]
    image = local_api.call("POST", "/v1/web/screenshot", json={**control, "screenshotOptions": VIEWPORT_ONLY})
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    assert ".never" in image.headers["X-Webcapture-Warning"]
    stored = local_api.call("POST", "/v1/web/screenshot", json={**control, "base64": True})
    assert ".never" in assert_success(stored, 1)["data"]["warning"]


def test_page_control_validation_over_http(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": "https://example.com", "prompt": "p", "headers": {"Host": "x"}, "device": "Toaster",
        "timezoneId": "Mars/Olympus"})
    assert response.status_code == 422
    issues = response.json()["error"]["issues"]
    assert [issue["path"] for issue in issues] == [["headers", "Host"], ["timezoneId"], ["device"]]
    assert [issue["code"] for issue in issues] == ["custom", "custom", "invalid_enum_value"]
