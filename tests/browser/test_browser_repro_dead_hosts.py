"""A real WordPress article (tests/support/pages/repro/README.md) whose inline script sends its plain-http
page to https while the page is still parsing; served on loopback, that address speaks no TLS. The
navigation is held while the page parses, its address tried and found dead, so the article is answered from
its one load, with the warning naming the address that failed, under `domcontentloaded` and under `load`.
A page that leaves while parsing for an address that answers lands there, as any script navigation does.
And a document that arrives but never fires its event is used as it is under bestAttempt, not answered
with a 504."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.support.dns_server import answering
from tests.support.egress_resolvers import MapResolver
from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import collect_links, load_page
from webcapture.errors import NavigationTimeout
from webcapture.models.requests import LinksRequest, MarkdownRequest
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
    loads = [path for _, path in fixture_server.hits].count(REPRO)
    page = load_page(url, 0, MarkdownRequest.model_validate({"url": url, "waitUntil": wait_until}))
    assert page.final_url == url and page.status_code == 200
    # Answered from its one load: the article was requested once.
    assert [path for _, path in fixture_server.hits].count(REPRO) == loads + 1
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


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_page_that_leaves_while_parsing_lands_where_it_asked(fixture_server: FixtureHttpServer) -> None:
    result = collect_links(LinksRequest.model_validate({"url": fixture_server.url("/parsing-leaves.html")}))
    assert result.final_url == fixture_server.url("/links.html") and not result.warnings
    urls = [link.url for link in result.links]
    assert fixture_server.url("/about") in urls and fixture_server.url("/left-behind") not in urls


@pytest.mark.parametrize("gone", ["http://127.0.0.1:{port}/gone", "https://127.0.0.1:{port}/gone",
                                  "http://gone.invalid/"])
def test_a_page_that_leaves_while_parsing_for_a_dead_address_is_answered_from_one_load(
    fixture_server: FixtureHttpServer, gone: str
) -> None:
    gone = gone.format(port=closed_port())
    url = fixture_server.url(f"/parsing-leaves.html?to={gone}")
    before = len(fixture_server.hits)
    result = collect_links(LinksRequest.model_validate({"url": url}))
    assert result.final_url == url
    assert fixture_server.url("/left-behind") in [link.url for link in result.links]
    (warning,) = result.warnings
    assert gone in warning and "could not be loaded" in warning
    assert [path for _, path in fixture_server.hits[before:]].count("/parsing-leaves.html") == 1
