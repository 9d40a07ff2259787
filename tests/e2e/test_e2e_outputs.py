"""Over real HTTP against the local API, with real Chromium: Markdown, rendered HTML and PDF
(docs/api.md#more-outputs)."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
import requests

from tests.support.api_answers import assert_envelope_error, assert_success, remaining
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi, start_local_api
from webcapture.auth import api_keys
from webcapture.browser.pdf import count_pages
from webcapture.response_limits import ENVELOPE_ALLOWANCE

OUTPUTS = ("/v1/web/markdown", "/v1/web/content", "/v1/web/pdf")


def test_markdown_main_content_or_whole_page(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("reader", "k", remaining=5)
    url = get_server().url("/scripted.html")
    data = assert_success(stack_aws.call("POST", "/v1/web/markdown", key=key, json={"url": url}), 1)["data"]
    assert data["markdown"].startswith("# Static heading") and "Written by JavaScript" in data["markdown"]
    assert "Home menu" not in data["markdown"] and "Footer words" not in data["markdown"]
    meta = data["metadata"]
    assert (meta["url"], meta["title"], meta["statusCode"], meta["truncated"]) == (url, "After scripts", 200, False)
    assert meta["timestamp"].endswith("Z") and "warning" not in data
    assert remaining(key) == 4
    whole = assert_success(stack_aws.call("POST", "/v1/web/markdown", key=key,
                                          json={"url": url, "onlyMainContent": False}), 1)["data"]
    assert "Home menu" in whole["markdown"] and "Footer words" in whole["markdown"]
    assert "Hidden by a stylesheet" not in whole["markdown"]
    assert remaining(key) == 3


def test_content_is_the_rendered_dom(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("scraper", "k", remaining=5)
    url = get_server().url("/scripted.html")
    data = assert_success(stack_aws.call("POST", "/v1/web/content", key=key, json={"url": url}), 1)["data"]
    assert '<p id="made-by-script">Written by JavaScript</p>' in data["html"]
    assert data["html"].startswith("<!DOCTYPE html>")
    meta = data["metadata"]
    assert (meta["url"], meta["title"], meta["statusCode"], meta["truncated"]) == (url, "After scripts", 200, False)
    assert remaining(key) == 4


def test_pdf_bytes_by_default(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("printer", "k", remaining=5)
    response = stack_aws.call("POST", "/v1/web/pdf", key=key, json={"url": get_server().url("/printable.html")})
    assert response.status_code == 200, response.text[:300]
    assert response.headers["Content-Type"] == "application/pdf" and response.headers["X-Request-Id"]
    assert response.content.startswith(b"%PDF-") and count_pages(response.content) == 3
    assert remaining(key) == 4
    ranged = stack_aws.call("POST", "/v1/web/pdf", key=key, headers={"Accept": "application/pdf"},
                            json={"url": get_server().url("/printable.html"), "pdfOptions": {"pageRanges": "2-3"}})
    assert ranged.headers["Content-Type"] == "application/pdf" and count_pages(ranged.content) == 2


def test_pdf_stored_fetchable_and_deletable(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("archivist", "k", remaining=5)
    url = get_server().url("/printable.html")
    response = stack_aws.call("POST", "/v1/web/pdf", key=key,
                              json={"url": url, "base64": True, "pdfOptions": {"format": "Letter"}})
    data = assert_success(response, 1)["data"]
    document = base64.b64decode(data["pdf"])
    meta = data["metadata"]
    assert (meta["url"], meta["size"], meta["pages"], meta["format"]) == (url, len(document), 3, "Letter")
    assert data["permanentUrl"].endswith(f"/pdfs/archivist/{data['fileId']}.pdf")
    stored = requests.get(data["permanentUrl"], timeout=10)
    assert stored.status_code == 200 and stored.content == document
    assert stored.headers["Content-Type"] == "application/pdf"
    deleted = assert_success(stack_aws.call("POST", "/v1/files/delete", key=key,
                                            json={"fileId": data["fileId"], "deleteFromStorage": True}), 0)
    assert deleted["data"]["wasFound"] and deleted["data"]["deletedFromStorage"]
    assert deleted["data"]["deletedFile"]["filename"] == f"{data['fileId']}.pdf"
    assert requests.get(data["permanentUrl"], timeout=10).status_code == 404
    assert remaining(key) == 4


def test_pdf_accept_json_stores_without_inline_pdf(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/pdf", headers={"Accept": "application/json"},
                              json={"url": get_server().url("/printable.html")})
    data = assert_success(response, 1)["data"]
    assert "pdf" not in data and data["metadata"]["pages"] == 3 and data["metadata"]["format"] == "A4"
    assert requests.get(data["permanentUrl"], timeout=10).content.startswith(b"%PDF-")


def test_pdf_page_range_past_the_end_is_422_and_refunded(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("overreach", "k", remaining=2)
    response = stack_aws.call("POST", "/v1/web/pdf", key=key, json={
        "url": get_server().url("/printable.html"), "pdfOptions": {"pageRanges": "7"}})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["issues"][0]["path"] == ["pdfOptions", "pageRanges"]
    assert remaining(key) == 2


def test_bad_pdf_options_are_422(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/pdf", json={
        "url": get_server().url("/printable.html"), "pdfOptions": {"format": "B5", "margin": {"top": "1em"}}})
    assert response.status_code == 422
    paths = sorted(issue["path"] for issue in response.json()["error"]["issues"])
    assert paths == [["pdfOptions", "format"], ["pdfOptions", "margin", "top"]]


@pytest.mark.parametrize("path", OUTPUTS)
def test_unreachable_page_is_502_and_refunded(stack_aws: LocalApi, path: str) -> None:
    key, _ = api_keys.create_key("unlucky", "k", remaining=3)
    closed_port = get_server().url("/").replace(str(get_server().port), "9")  # discard port: nothing listens
    assert_envelope_error(stack_aws.call("POST", path, key=key, json={"url": closed_port}), 502, "NAVIGATION_FAILED")
    assert remaining(key) == 3


@pytest.mark.parametrize("path", OUTPUTS)
def test_refused_target_is_400_at_no_cost(stack_aws: LocalApi, path: str) -> None:
    key, _ = api_keys.create_key("prober", "k", remaining=3)
    response = stack_aws.call("POST", path, key=key, json={"url": "http://169.254.169.254/latest/meta-data/"})
    assert_envelope_error(response, 400, "URL_NOT_ALLOWED")
    assert remaining(key) == 3


@pytest.mark.parametrize("path", OUTPUTS)
def test_other_methods_are_405(local_api: LocalApi, path: str) -> None:
    assert_envelope_error(local_api.call("GET", path), 405, "METHOD_NOT_ALLOWED")


# ------------------------------------------------------------------ answers too big for Lambda
# A stack whose inline limit leaves 3,000 bytes for the payload: small fixture pages are then "too big".
SMALL_PAYLOAD = 3_000


@pytest.fixture(scope="module")
def tight_api() -> Iterator[LocalApi]:
    stack = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8", "WEBCAPTURE_REQUEST_BUDGET_MS": "15000",
                             "WEBCAPTURE_INLINE_RESPONSE_LIMIT_BYTES": str(ENVELOPE_ALLOWANCE + SMALL_PAYLOAD)})
    yield stack
    stack.stop()


def test_too_big_pdf_is_303_to_the_stored_file(tight_api: LocalApi) -> None:
    body = {"url": get_server().url("/printable.html")}
    response = tight_api.call("POST", "/v1/web/pdf", json=body, allow_redirects=False)
    assert response.status_code == 303, response.text[:300]
    data = response.json()["data"]
    assert response.headers["Location"] == data["permanentUrl"] and data["metadata"]["size"] > SMALL_PAYLOAD
    document = requests.get(response.headers["Location"], timeout=10).content
    assert document.startswith(b"%PDF-") and count_pages(document) == 3 == data["metadata"]["pages"]
    as_json = assert_success(tight_api.call("POST", "/v1/web/pdf", json={**body, "base64": True}), 1)["data"]
    assert "pdf" not in as_json and "warning" in as_json and as_json["permanentUrl"]


@pytest.mark.parametrize(("path", "field"), [("/v1/web/markdown", "markdown"), ("/v1/web/content", "html")])
def test_too_long_text_is_cut_with_a_warning(tight_api: LocalApi, path: str, field: str) -> None:
    url = get_server().url("/many-links?n=2000")
    data = assert_success(tight_api.call("POST", path, json={"url": url, "onlyMainContent": False}), 1)["data"]
    assert data["metadata"]["truncated"] is True and "cut after" in data["warning"]
    assert 0 < len(data[field].encode()) <= SMALL_PAYLOAD
    assert "Link 0" in data[field] and "Link 1999" not in data[field]


@pytest.mark.parametrize(("path", "field"), [("/v1/web/markdown", "markdown"), ("/v1/web/content", "html")])
def test_lone_surrogates_in_the_page_still_answer(local_api: LocalApi, path: str, field: str) -> None:
    data = assert_success(local_api.call("POST", path, json={"url": get_server().url("/surrogate.html")}), 1)["data"]
    assert "before \ufffd after" in data[field] and data["metadata"]["title"] == "Half \ufffd a character"


def test_lone_surrogate_in_the_title_of_a_pdf(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/pdf", headers={"Accept": "application/json"},
                              json={"url": get_server().url("/surrogate.html")})
    assert assert_success(response, 1)["data"]["metadata"]["title"] == "Half \ufffd a character"


def test_a_lone_surrogate_in_a_link_text_still_answers(local_api: LocalApi) -> None:
    # Every JSON answer is written through one function, which replaces what UTF-8 cannot carry.
    data = assert_success(local_api.call("POST", "/v1/web/links",
                                         json={"url": get_server().url("/surrogate.html")}), 1)["data"]
    assert {"url": get_server().url("/plain.html"), "text": "link \ufffd text"} in data["links"]
