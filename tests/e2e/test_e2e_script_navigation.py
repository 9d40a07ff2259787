"""A page that navigates by script just after it loads, over the local API with real Chromium: every browser
endpoint answers the page it lands on; and when that navigation cannot be loaded (here: a port nothing
listens on), the page that did load, with a warning naming the address that failed (data.warning, or
X-Webcapture-Warning beside a binary answer), charged as a capture: not a 502 for a page that was there."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tests.support.api_answers import assert_success
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi

JSON_ENDPOINTS = ["/v1/web/links", "/v1/web/markdown", "/v1/web/content"]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def leaving_for(to: str, by: str = "location") -> str:
    return get_server().url(f"/leaves.html?by={by}&to={to}")


@pytest.fixture(scope="module", autouse=True)
def warm(local_api: LocalApi) -> None:
    """Each function's container started before the tests: a cold start on a busy machine may not fit the
    suite's short budget (its first captures may answer 504 while it finishes)."""
    for path in [*JSON_ENDPOINTS, "/v1/web/screenshot", "/v1/web/pdf"]:
        statuses: list[int] = []
        while 200 not in statuses and len(statuses) < 5:
            statuses.append(local_api.call("POST", path, json={"url": get_server().url("/plain.html")}).status_code)


def page_text(path: str, data: dict[str, Any]) -> str:
    if path == "/v1/web/links":
        return " ".join(link["url"] for link in data["links"])
    return str(data.get("markdown") or data.get("html"))


@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_every_endpoint_answers_the_landing_page(local_api: LocalApi, path: str) -> None:
    data = assert_success(local_api.call("POST", path, json={"url": leaving_for("/links.html")}), 1)["data"]
    text = page_text(path, data)
    assert "/spaces" in text  # links.html's
    assert "Leaving soon" not in text and "left-behind" not in text  # nothing of leaves.html
    assert "warning" not in data


@pytest.mark.parametrize("by", ["location", "meta", "form"])
@pytest.mark.parametrize("path", JSON_ENDPOINTS)
def test_a_failed_navigation_answers_the_page_that_loaded_with_a_warning(
        local_api: LocalApi, path: str, by: str) -> None:
    gone = f"http://127.0.0.1:{closed_port()}/gone"
    data = assert_success(local_api.call("POST", path, json={"url": leaving_for(gone, by)}), 1)["data"]
    text = page_text(path, data)
    assert "Left behind" in text or "left-behind" in text  # leaves.html, the page that did load
    assert gone in data["warning"] and "could not be loaded" in data["warning"]


@pytest.mark.parametrize("path", ["/v1/web/screenshot", "/v1/web/pdf"])
def test_a_binary_answer_carries_the_warning_in_its_header(local_api: LocalApi, path: str) -> None:
    gone = f"http://127.0.0.1:{closed_port()}/gone"
    response = local_api.call("POST", path, json={"url": leaving_for(gone)})
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] in ("image/png", "application/pdf")
    assert gone in response.headers["X-Webcapture-Warning"]
