"""A newcomer's first mistakes, over real HTTP against the local API: each answer says what to fix
(docs/api.md#validation-errors, #unknown-fields, #authentication)."""

from __future__ import annotations

import requests

from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from webcapture.auth import refusals


def test_a_422_has_the_code_a_one_line_message_and_the_request_id(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/links", json={"url": "example.com", "includeExternal": "no"})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["name"] == "ZodError" and error["code"] == "VALIDATION_ERROR"
    assert error["message"] == ("url: an absolute http(s) URL is needed; did you mean https://example.com? "
                                "(and 1 more issue)")
    assert error["requestId"] == response.headers["X-Request-Id"]
    assert [issue["path"] for issue in error["issues"]] == [["url"], ["includeExternal"]]
    assert error["issues"][0] == {"code": "invalid_string", "validation": "url", "path": ["url"],
                                  "message": "Invalid url"}


def test_a_url_without_its_scheme_gets_the_hint(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", json={"url": "www.example.com/pricing"})
    assert response.status_code == 422
    assert response.json()["error"]["message"] == (
        "url: an absolute http(s) URL is needed; did you mean https://www.example.com/pricing?")


def test_a_misspelt_field_is_named_in_the_json_answers_warning(local_api: LocalApi) -> None:
    body = assert_success(local_api.call("POST", "/v1/web/links", json={
        "url": get_server().url("/links.html"), "includeExtrenal": False}), 1)
    assert body["data"]["warning"] == (
        "ignored unknown field 'includeExtrenal' (did you mean 'includeExternal'?)")


def test_a_misspelt_nested_field_is_named_in_the_bytes_answers_header(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/screenshot", json={
        "url": get_server().url("/plain.html"), "screenshotOptions": {"fullPage": False, "fullpage": False},
        "viewport": {"widht": 400}})
    assert response.status_code == 200 and response.content[:4] == b"\x89PNG"
    assert response.headers["X-Webcapture-Warning"] == (
        "ignored unknown field 'screenshotOptions.fullpage' (did you mean 'screenshotOptions.fullPage'?); "
        "ignored unknown field 'viewport.widht' (did you mean 'viewport.width'?)")


def test_a_batch_names_its_items_unknown_fields(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/batch", json={
        "operation": "links", "requests": [{"url": get_server().url("/links.html"), "includeExtrenal": False}]})
    assert response.status_code == 202, response.text
    assert response.json()["data"]["warning"] == (
        "ignored unknown field 'requests[0].includeExtrenal' (did you mean 'requests[0].includeExternal'?)")


def test_an_x_api_key_header_is_told_to_use_authorization_bearer(local_api: LocalApi) -> None:
    response = requests.get(local_api.url + "/v1/api-keys/list", headers={"x-api-key": local_api.api_key},
                            timeout=30)
    body = assert_envelope_error(response, 401, "UNAUTHORIZED")
    assert body["error"]["message"] == refusals.NO_HEADER
    assert "x-api-key" in body["error"]["message"] and "Authorization: Bearer" in body["error"]["message"]


def test_the_docs_shortcuts_and_the_documents_server(local_api: LocalApi) -> None:
    for shortcut in ("/", "/docs"):
        response = requests.get(local_api.url + shortcut, allow_redirects=False, timeout=30)
        assert response.status_code == 302 and response.headers["Location"] == local_api.url + "/v1/docs"
    assert requests.get(local_api.url + "/docs", timeout=30).text.startswith("<!")  # lands on the page
    document = requests.get(local_api.url + "/v1/openapi.json", timeout=30).json()
    assert document["servers"] == [{"url": local_api.url, "description": "this deployment"}]
