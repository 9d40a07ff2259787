"""The rendered HTML read for extraction is cut in the browser to WEBCAPTURE_MAX_HTML_CHARS, with a warning
(real Chromium, a fixture page that builds its text in the browser)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.support.docs_site import PYTHON_DOCS, DocsServer
from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture import request_scope
from webcapture.browser import load_page
from webcapture.content.markdown import html_to_markdown, markdown_and_links
from webcapture.fastpath.http_page import fetch_page
from webcapture.settings import get_settings

LIMIT = 200_000


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WEBCAPTURE_MAX_HTML_CHARS", str(LIMIT))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_a_page_over_the_limit_is_cut_with_a_warning(fixture_server: FixtureHttpServer, small_limit: None) -> None:
    snapshot = load_page(fixture_server.url("/big-dom.html?n=1000000"), 0)
    assert len(snapshot.html) == LIMIT
    assert snapshot.html.lower().startswith("<!doctype html><html><head>")
    assert "Start of the page" in snapshot.html
    [warning] = snapshot.warnings
    assert f"limit of {LIMIT} characters" in warning
    assert int(warning.split("(")[1].split(" ")[0]) > 1_000_000  # the page's whole length is reported


def test_a_page_within_the_limit_is_read_whole(fixture_server: FixtureHttpServer, small_limit: None) -> None:
    snapshot = load_page(fixture_server.url("/big-dom.html?n=1000"), 0)
    assert snapshot.warnings == ()
    assert snapshot.html.lower().startswith("<!doctype html>") and snapshot.html.endswith("</html>")
    assert snapshot.html.count("lorem ipsum") == 1000 // 12 and snapshot.title == "A page that builds a huge DOM"


def test_a_large_real_page_is_read_whole_by_both_engines_alike() -> None:
    """python3.11-doc's contents.html: 1.4 MB served, 2.5 million characters rendered. By default the browser
    reads what the http engine reads, the whole page, and both write the same Markdown."""
    site = DocsServer(PYTHON_DOCS, "127.0.0.2")
    try:
        url = site.origin + "/contents.html"
        rendered = load_page(url, 0)
        assert rendered.warnings == () and len(rendered.html) > 2_000_000
        with request_scope.scoped(request_scope.RequestScope("test", time.monotonic() + 60, None)):
            served = fetch_page(url, deadline=time.monotonic() + 60)
        from_browser = html_to_markdown(rendered.html, rendered.final_url)
        assert from_browser == markdown_and_links(served.html, served.final_url)[0]
        assert len(from_browser) > 1_000_000 and "(" + site.origin + "/license.html#audioop)" in from_browser
    finally:
        site.shutdown()
