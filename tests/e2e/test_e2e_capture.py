"""Over real HTTP against the local API, with real Chromium: screenshots and links."""

from __future__ import annotations

import base64

import requests

from tests.support.api_answers import assert_envelope_error, assert_success, remaining
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size
from webcapture.auth import api_keys


def test_binary_png_by_default(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot",
                              json={"url": get_server().url("/tall.html"), "screenshotOptions": {"fullPage": False}})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "image/png"
    assert response.headers["X-Request-Id"]
    assert png_size(response.content) == (1280, 800)


def test_binary_jpeg_and_webp_content_types(local_api: LocalApi) -> None:
    for kind, magic in (("jpeg", b"\xff\xd8\xff"), ("webp", b"RIFF")):
        response = local_api.call("POST", "/v1/web/screenshot", json={
            "url": get_server().url("/plain.html"), "screenshotOptions": {"type": kind, "quality": 60}})
        assert response.status_code == 200
        assert response.headers["Content-Type"] == f"image/{kind}"
        assert response.content.startswith(magic)


def test_base64_form_stores_and_delete_removes_both(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("shooter", "k", remaining=10)
    response = stack_aws.call("POST", "/v1/web/screenshot", key=key, json={
        "url": get_server().url("/plain.html"), "base64": True,
        "viewport": {"width": 400, "height": 300, "deviceScaleFactor": 2}, "screenshotOptions": {"fullPage": False}})
    data = assert_success(response, 1)["data"]
    image = base64.b64decode(data["image"])
    assert png_size(image) == (800, 600)
    meta = data["metadata"]
    assert (meta["width"], meta["height"], meta["format"], meta["size"]) == (800, 600, "png", len(image))
    assert meta["url"] == get_server().url("/plain.html") and meta["statusCode"] == 200
    assert remaining(key) == 9
    # The permanent URL serves the same bytes (moto stands in for CloudFront locally).
    stored = requests.get(data["permanentUrl"], timeout=10)
    assert stored.status_code == 200 and stored.content == image
    deleted = assert_success(stack_aws.call("POST", "/v1/files/delete", key=key,
                                            json={"fileId": data["fileId"], "deleteFromStorage": True}), 0)
    assert deleted["data"]["wasFound"] and deleted["data"]["deletedFromStorage"]
    assert requests.get(data["permanentUrl"], timeout=10).status_code == 404


def test_accept_json_stores_without_inline_image(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", headers={"Accept": "application/json"},
                              json={"url": get_server().url("/plain.html"), "screenshotOptions": {"type": "webp"}})
    data = assert_success(response, 1)["data"]
    assert "image" not in data
    assert data["metadata"]["format"] == "webp"
    assert data["permanentUrl"].endswith(f"{data['fileId']}.webp")
    assert requests.get(data["permanentUrl"], timeout=10).content.startswith(b"RIFF")


def test_too_big_for_lambda_is_303_to_the_stored_file(local_api: LocalApi) -> None:
    body = {"url": get_server().url("/noise.html"), "viewport": {"width": 3000, "height": 2000}}
    response = local_api.call("POST", "/v1/web/screenshot", json=body, allow_redirects=False)
    assert response.status_code == 303, response.text[:300]
    location = response.headers["Location"]
    image = requests.get(location, timeout=30).content
    assert png_size(image) == (3000, 2000)
    assert len(image) > 4_500_000  # really over what fits inline once base64-encoded
    as_json = local_api.call("POST", "/v1/web/screenshot", json={**body, "base64": True})
    data = assert_success(as_json, 1)["data"]
    assert "image" not in data and "warning" in data and data["permanentUrl"]


def test_a_404_page_is_still_captured(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", headers={"Accept": "application/json"},
                              json={"url": get_server().url("/missing")})
    assert assert_success(response, 1)["data"]["metadata"]["statusCode"] == 404


def test_never_loading_page_is_504_and_refunded(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("patient", "k", remaining=3)
    response = stack_aws.call("POST", "/v1/web/screenshot", key=key, json={"url": get_server().url("/hang")})
    assert_envelope_error(response, 504, "NAVIGATION_TIMEOUT")
    assert remaining(key) == 3


def test_unreachable_page_is_502_and_refunded(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("unlucky", "k", remaining=3)
    closed_port = get_server().url("/").replace(str(get_server().port), "9")  # discard port: nothing listens
    response = stack_aws.call("POST", "/v1/web/links", key=key, json={"url": closed_port})
    assert_envelope_error(response, 502, "NAVIGATION_FAILED")
    assert remaining(key) == 3


def test_out_of_credits_is_429_before_any_browser_work(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("broke", "k", remaining=0)
    for path in ("/v1/web/screenshot", "/v1/web/links"):
        response = stack_aws.call("POST", path, key=key, json={"url": get_server().url("/plain.html")})
        assert_envelope_error(response, 429, "USAGE_EXCEEDED")


def test_links_with_and_without_externals(local_api: LocalApi) -> None:
    url = get_server().url("/many-links?n=100")
    data = assert_success(local_api.call("POST", "/v1/web/links", json={"url": url}), 1)["data"]
    assert data["metadata"]["totalLinks"] == len(data["links"]) == 100
    assert (data["metadata"]["internalLinks"], data["metadata"]["externalLinks"]) == (90, 10)
    assert data["links"][0] == {"url": get_server().url("/p/0"), "text": "Link 0"}
    assert data["links"][9] == {"url": "https://ext9.example/", "text": "External 9"}
    internal = assert_success(local_api.call("POST", "/v1/web/links", json={"url": url, "includeExternal": False}),
                              1)["data"]
    assert internal["metadata"]["totalLinks"] == 90 and internal["metadata"]["externalLinks"] == 0
    assert all(link["url"].startswith(get_server().url("/p/")) for link in internal["links"])
