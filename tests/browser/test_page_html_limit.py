"""The rendered HTML read for extraction is cut in the browser to WEBCAPTURE_MAX_HTML_CHARS, with a warning
(real Chromium, a fixture page that builds its text in the browser)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import load_page
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
