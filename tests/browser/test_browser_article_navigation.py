"""A real article page (space.com, from the vendored main-content benchmark) whose own script sends the
browser to http://www.space.com/cc.html right after it loads. Served on loopback, that host cannot be
resolved (the egress guard asks a DNS server that knows no name), so the navigation fails: every browser
core answers the article that did load, with a warning naming the address that failed, never a
NAVIGATION_FAILED for a page that was there."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.dns_server import answering
from tests.support.egress_resolvers import MapResolver
from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import collect_links, load_page, take_screenshot
from webcapture.browser.pdf import print_pdf
from webcapture.browser.rendered_html import rendered_html
from webcapture.models.requests import (
    ContentRequest,
    LinksRequest,
    MarkdownRequest,
    PdfRequest,
    ScreenshotRequest,
)

ARTICLE = "686bb170effe273eaff1c0f88e412172e8d972518a6d1454c896f52aafaa9643"
LEFT_FOR = "http://www.space.com/cc.html"

CORES: dict[str, Callable[[str], Any]] = {
    "screenshot": lambda url: take_screenshot(ScreenshotRequest.model_validate({"url": url, "waitTime": 500})),
    "pdf": lambda url: print_pdf(PdfRequest.model_validate({"url": url, "waitTime": 500})),
    "links": lambda url: collect_links(LinksRequest.model_validate({"url": url, "waitTime": 500})),
    "content": lambda url: rendered_html(ContentRequest.model_validate({"url": url, "waitTime": 500})),
    "markdown": lambda url: load_page(url, 500, MarkdownRequest.model_validate({"url": url})),
}


@pytest.fixture(autouse=True)
def no_outside_names() -> Iterator[None]:
    """Every name unresolvable, whatever the machine's own DNS: nothing leaves loopback."""
    with answering(MapResolver({})):
        yield


@pytest.mark.parametrize("core", CORES)
def test_an_article_whose_script_leaves_for_an_unresolvable_host_is_answered_with_a_warning(
    fixture_server: FixtureHttpServer, core: str
) -> None:
    url = fixture_server.url(f"/article/{ARTICLE}")
    result = CORES[core](url)
    assert result.final_url == url  # the article that loaded, not an error
    (warning,) = [warning for warning in result.warnings if LEFT_FOR in warning]
    assert "could not be loaded" in warning and url in warning
