"""Map without a sitemap: a real documentation site served on loopback (Debian's Sphinx and git docs have
no sitemap) is mapped by following its links over HTTP, in scope, within `limit`, robots.txt honoured, and
`sources` says where the URLs came from."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.docs_site import GIT_DOCS, SPHINX_DOCS, DocsServer
from webcapture.settings import get_settings
from webcapture.site import link_walk
from webcapture.site.site_map import MapOptions, map_site


@pytest.fixture(autouse=True)
def _guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.2/32,127.0.0.3/32")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def _served(root: Path, address: str) -> Iterator[DocsServer]:
    server = DocsServer(root, address)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sphinx() -> Iterator[DocsServer]:
    yield from _served(SPHINX_DOCS, "127.0.0.2")


@pytest.fixture(scope="module")
def git_docs() -> Iterator[DocsServer]:
    yield from _served(GIT_DOCS, "127.0.0.3")


# What is tested is how much of a site its links reach, not this machine's speed: on a loaded host the map's
# own 28 s would end the walk early, so the tests give it longer.
WALK_S = 90


def _found(server: DocsServer, limit: int = 5000) -> tuple[set[str], dict[str, int], list[str]]:
    result = map_site(server.origin + "/index.html", MapOptions(limit=limit), time.monotonic() + WALK_S)
    urls = {link["url"].removeprefix(server.origin) for link in result.links}
    return urls, result.sources, result.warnings


@pytest.mark.parametrize("name", ["sphinx", "git_docs"])
def test_a_site_without_a_sitemap_is_mapped_by_its_links(name: str, request: pytest.FixtureRequest) -> None:
    server: DocsServer = request.getfixturevalue(name)
    pages = set(server.html_pages())
    found, sources, _ = _found(server)
    share = len(found & pages) / len(pages)
    assert share >= 0.8, f"{len(found & pages)} of {len(pages)} pages"
    assert sources == {"sitemaps": 0, "links": len(found)}


def test_the_walk_stops_at_the_limit(sphinx: DocsServer) -> None:
    found, sources, _ = _found(sphinx, limit=25)
    assert len(found) == 25 and sources["links"] == 25


def test_robots_txt_is_honoured(sphinx: DocsServer, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    original = link_walk._links_of

    def spy(url: str, walk: link_walk.Walk) -> list[tuple[str, str]]:
        read.append(url)
        return original(url, walk)

    monkeypatch.setattr(link_walk, "_links_of", spy)
    monkeypatch.setattr("webcapture.site.site_map.fetch_robots",
                        lambda origin, deadline: __import__("webcapture.site.robots", fromlist=["x"])
                        .parse_robots("User-agent: *\nDisallow: /usage/\n"))
    _found(sphinx)
    assert read and not [url for url in read if "/usage/" in url]
