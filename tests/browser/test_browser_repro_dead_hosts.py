"""A real WordPress article (tests/support/pages/repro/README.md) whose inline script sends its plain-http
page to https while the page is still parsing; served on loopback, that address speaks no TLS, so the
navigation fails and the article is loaded again with that navigation cancelled. It is answered, with the
warning naming the address that failed, under `domcontentloaded` and under `load`. And a document that
arrives but never fires its event is used as it is under bestAttempt, not answered with a 504."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.dns_server import answering
from tests.support.egress_resolvers import MapResolver
from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import load_page
from webcapture.errors import NavigationTimeout
from webcapture.models.requests import MarkdownRequest
from webcapture.settings import get_settings

REPRO = "/repro/wordpress-article-dead-hosts"


@pytest.fixture(autouse=True)
def no_outside_names() -> Iterator[None]:
    """Every name unresolvable, whatever the machine's own DNS: the article's eight hosts are dead."""
    with answering(MapResolver({})):
        yield


@pytest.fixture
def short_budget(monkeypatch: pytest.MonkeyPatch, egress_allows_fixtures: None) -> Iterator[None]:
    monkeypatch.setenv("WEBCAPTURE_REQUEST_BUDGET_MS", "6000")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.parametrize("wait_until", ["domcontentloaded", "load"])
def test_the_article_whose_script_leaves_for_https_is_answered(
    fixture_server: FixtureHttpServer, wait_until: str
) -> None:
    url = fixture_server.url(REPRO)
    page = load_page(url, 0, MarkdownRequest.model_validate({"url": url, "waitUntil": wait_until}))
    assert page.final_url == url and page.status_code == 200
    assert page.title.startswith("Native Ad Platform my6sense Names Mobile Marketing Pioneer Ivan Braiker")
    assert "Chief Strategy Officer" in page.html
    (warning,) = page.warnings
    assert url.replace("http:", "https:") in warning and "ERR_SSL_PROTOCOL_ERROR" in warning


def test_best_attempt_uses_a_document_that_never_fired_its_event(
    fixture_server: FixtureHttpServer, short_budget: None
) -> None:
    url = fixture_server.url("/hang")
    with pytest.raises(NavigationTimeout):
        load_page(url, 0, MarkdownRequest.model_validate({"url": url, "waitUntil": "domcontentloaded"}))
    page = load_page(url, 0, MarkdownRequest.model_validate(
        {"url": url, "waitUntil": "domcontentloaded", "bestAttempt": True}))
    assert "Loading forever" in page.html
    assert any("domcontentloaded event did not fire" in warning for warning in page.warnings)
