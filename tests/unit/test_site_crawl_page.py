"""One crawled page against real Chromium and the sample site: loaded once, its formats and its links, and
what discovery makes of them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fixture_server import egress_allows_fixtures_fixture  # noqa: F401 - fixture
from tests.support.sample_site import SampleSite, SiteServer
from webcapture.models.site_requests import CrawlRequest
from webcapture.site.crawl_page import crawl_page
from webcapture.site.discovery import discover
from webcapture.site.scope import Scope
from webcapture.validation import validate_request

pytestmark = pytest.mark.usefixtures("egress_allows_fixtures")
# An address of its own, apart from the one test_site_map serves the sample site on: the two modules may run
# at the same time on two xdist workers.
ADDRESS = "127.0.8.5"


@pytest.fixture(scope="module")
def site() -> Iterator[SampleSite]:
    sample = SampleSite(ADDRESS)
    server = SiteServer(sample.routes(), address=ADDRESS)
    yield sample
    server.stop()


def test_a_page_gives_its_formats_and_its_links(site: SampleSite) -> None:
    request = validate_request(CrawlRequest, {"url": site.url("/"), "formats": ["markdown", "links", "html"],
                                              "engine": "browser"})
    page = crawl_page(site.url("/l2/p3.html"), 2, request)
    assert page.data["metadata"]["engine"] == "browser"
    assert page.data["url"] == site.url("/l2/p3.html")
    assert (page.data["depth"], page.data["statusCode"]) == (2, 200)
    assert "Text of Page /l2/p3.html at depth 2." in page.data["markdown"]
    assert "<h1>Page /l2/p3.html at depth 2</h1>" in page.data["html"]
    children = [site.url(path) for path in site.children["/l2/p3.html"]]
    assert [link["url"] for link in page.data["links"]] == children == page.links
    markdown_only = crawl_page(site.url("/"), 0, validate_request(CrawlRequest, {"url": site.url("/")}))
    assert set(markdown_only.data) == {"url", "depth", "statusCode", "markdown", "metadata"}
    assert markdown_only.data["metadata"]["engine"] == "http"  # auto, a static page
    found = discover(markdown_only.links, 0, Scope.of(site.url("/")), drop_query=True)
    assert [url for url, _ in found.follow] == [site.url(path) for path in [
        *site.children["/"], "/about.html", "/private/", "/calendar/2026/01", "/moved"]]


def test_the_screenshot_and_the_pages_visible_html_come_back_for_the_worker(site: SampleSite) -> None:
    request = validate_request(CrawlRequest, {"url": site.url("/"), "formats": ["screenshot", "json"],
                                              "extract": {"prompt": "the title"}})
    page = crawl_page(site.url("/about.html"), 1, request)
    assert page.screenshot is not None and page.screenshot.startswith(b"\x89PNG")
    assert page.visible_html is not None and "<h1>About</h1>" in page.visible_html
    assert set(page.data) == {"url", "depth", "statusCode", "metadata"}  # stored and asked by the worker


def test_the_http_engine_reads_the_same_page_as_the_browser(site: SampleSite) -> None:
    body = {"url": site.url("/"), "formats": ["markdown", "links"]}
    fetched = crawl_page(site.url("/l2/p3.html"), 2, validate_request(CrawlRequest, {**body, "engine": "http"}))
    rendered = crawl_page(site.url("/l2/p3.html"), 2, validate_request(CrawlRequest,
                                                                        {**body, "engine": "browser"}))
    assert fetched.data["metadata"]["engine"] == "http"
    assert fetched.data["markdown"] == rendered.data["markdown"]
    assert fetched.data["links"] == rendered.data["links"] and fetched.links == rendered.links
