"""POST /v1/web/map's gathering against the sample site on loopback, in process, through the real egress
guard (names from the test resolver, the internal canary on 127.0.0.1 counting connections)."""

from __future__ import annotations

import resource
import time
from collections.abc import Iterator

import pytest

from tests.support.dns_server import answering
from tests.support.egress_resolvers import MapResolver
from tests.support.egress_servers import CanaryServer
from tests.support.sample_site import (
    BOMB_ADDRESS,
    OTHER_ADDRESS,
    SITE_ADDRESS,
    Route,
    SampleSite,
    SiteServer,
    bomb_routes,
)
from webcapture.errors import NavigationFailed, UrlNotAllowed
from webcapture.settings import get_settings
from webcapture.site.site_map import MAX_SITEMAP_BYTES, MapOptions, map_site
from webcapture.site.sitemaps import MAX_ELEMENTS


@pytest.fixture(scope="module")
def canary() -> Iterator[CanaryServer]:
    server = CanaryServer("127.0.0.1")
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def _guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", f"{SITE_ADDRESS}/32,{OTHER_ADDRESS}/32,{BOMB_ADDRESS}/32,127.0.8.9/32")
    get_settings.cache_clear()
    names = MapResolver({"site.test": [SITE_ADDRESS], "www.site.test": [SITE_ADDRESS],
                         "blog.site.test": [SITE_ADDRESS], "internal.test": ["127.0.0.1"],
                         "down.test": ["127.0.8.9"]})
    with answering(names):
        yield
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def site(canary: CanaryServer) -> Iterator[tuple[SampleSite, SiteServer]]:
    sample = SampleSite("site.test", canary=f"127.0.0.1:{canary.port}")
    server = SiteServer(sample.routes())
    yield sample, server
    server.stop()


def _deadline(seconds: float = 20) -> float:
    return time.monotonic() + seconds


def _urls(links: list[dict[str, str]]) -> list[str]:
    return [link["url"] for link in links]


def test_map_lists_the_sitemaps_urls_and_the_start_pages_links_in_scope_each_once(
        site: tuple[SampleSite, SiteServer], canary: CanaryServer) -> None:
    sample, server = site
    expected = list(dict.fromkeys(sample.url(p) for p in [
        "/", *sample.sitemap_paths(), *sample.home_link_paths_in_scope(ignore_query=True)]))
    # A limit the sitemaps and the start page fill: no page's links need following (test_map_link_walk).
    result = map_site(sample.url("/"), MapOptions(limit=len(expected)), _deadline())

    urls = _urls(result.links)
    assert urls == expected
    assert len(urls) == len(set(urls))
    assert sum(result.sources.values()) == len(expected) and result.sources["links"] >= 1
    assert result.sources["sitemaps"] >= len(sample.sitemap_paths()) - 1  # "/" came from the start page
    # The calendar trap is one URL: a full map reads the start page, never the pages it links to.
    assert not any(hit.startswith("/calendar") for hit in server.hits)
    assert canary.connections == 0
    assert any("refused by the egress policy" in warning for warning in result.warnings)
    titles = {link["url"]: link.get("title") for link in result.links}
    assert titles[sample.url("/")] == "Home"
    assert titles[sample.url("/about.html")] == "About"  # a bare sitemap URL takes the link's text


def test_query_parameters_are_kept_sorted_when_asked(site: tuple[SampleSite, SiteServer]) -> None:
    sample, _ = site
    expected = list(dict.fromkeys(sample.url(p) for p in [
        "/", *sample.home_link_paths_in_scope(ignore_query=False)]))
    result = map_site(sample.url("/"), MapOptions(ignore_query_parameters=False, sitemap="skip",
                                                  limit=len(expected)), _deadline())
    urls = _urls(result.links)
    assert sample.url("/l1/p2.html?a=1&b=2") in urls
    assert sample.url("/l1/p2.html?b=2&a=1") not in urls
    assert urls == expected


def test_sitemap_only_and_limit_and_search(site: tuple[SampleSite, SiteServer]) -> None:
    sample, _ = site
    only = map_site(sample.url("/"), MapOptions(sitemap="only"), _deadline())
    assert _urls(only.links) == [sample.url(p) for p in sample.sitemap_paths()]

    limited = map_site(sample.url("/"), MapOptions(limit=10), _deadline())
    assert _urls(limited.links) == [sample.url(p) for p in sample.sitemap_paths()[:10]]

    # The sitemap lists fewer than `limit` URLs, so the map walks the site's links until its time is spent
    # (the sample site holds pages that never finish): a short deadline keeps this brief, and the walk adds
    # no match the sitemap did not already list.
    found = map_site(sample.url("/"), MapOptions(search="L4/P15"), _deadline(3))
    assert _urls(found.links) == [sample.url("/l4/p15.html"), *(sample.url(f"/l4/p15{n}.html")
                                                                  for n in range(10))]


def test_www_and_subdomains(site: tuple[SampleSite, SiteServer]) -> None:
    sample, _ = site
    # The site's own URLs are http://site.test/...: www.site.test is the same site.
    www = map_site("http://www.site.test/", MapOptions(sitemap="only", limit=3), _deadline())
    assert _urls(www.links) == [sample.url(p) for p in sample.sitemap_paths()[:3]]
    blog = map_site("http://blog.site.test/", MapOptions(sitemap="only"), _deadline())
    assert blog.links == []
    with_subdomains = map_site("http://blog.site.test/", MapOptions(sitemap="only", include_subdomains=True),
                               _deadline())
    assert with_subdomains.links == []  # site.test is the parent, not a subdomain of blog.site.test


def test_an_internal_start_url_or_redirect_is_refused(canary: CanaryServer) -> None:
    with pytest.raises(UrlNotAllowed):
        map_site(f"http://internal.test:{canary.port}/", MapOptions(), _deadline())
    with pytest.raises(UrlNotAllowed):
        map_site(f"http://127.0.0.1:{canary.port}/", MapOptions(), _deadline())
    assert canary.connections == 0


def test_a_start_page_redirected_off_site_lists_no_links(site: tuple[SampleSite, SiteServer]) -> None:
    sample, _ = site
    # /moved answers 302 to 127.0.8.3, where nothing listens: the start page cannot be read, the
    # sitemaps can.
    result = map_site(sample.url("/moved"), MapOptions(), _deadline())
    assert sample.url("/moved") not in _urls(result.links)
    assert len(result.links) == len(sample.sitemap_paths())
    assert any("start page could not be read" in warning for warning in result.warnings)


def test_an_unreachable_site_is_a_navigation_failure() -> None:
    with pytest.raises(NavigationFailed):
        map_site("http://down.test/", MapOptions(), _deadline())


def test_a_gzip_bomb_gives_a_bounded_partial_answer() -> None:
    server = SiteServer(bomb_routes("gzip"), BOMB_ADDRESS)
    try:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = map_site(f"http://{BOMB_ADDRESS}/", MapOptions(), _deadline(60))
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    finally:
        server.stop()
    assert _urls(result.links) == [f"http://{BOMB_ADDRESS}/", f"http://{BOMB_ADDRESS}/a.html"]
    assert any(f"larger than {MAX_SITEMAP_BYTES // 2**20} MB" in warning for warning in result.warnings)
    assert grown_mb < 100  # 1 GB inflated, read in pieces: a few MB at most were ever held


def test_a_nested_sitemap_bomb_is_stopped_with_a_warning_in_little_memory() -> None:
    # One entry of four million children: freed as read, at any depth, and stopped at the element bound.
    server = SiteServer(bomb_routes("nested"), BOMB_ADDRESS)
    try:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        result = map_site(f"http://{BOMB_ADDRESS}/", MapOptions(), _deadline(60))
        grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    finally:
        server.stop()
    assert _urls(result.links) == [f"http://{BOMB_ADDRESS}/", f"http://{BOMB_ADDRESS}/a.html"]
    assert any(f"more than {MAX_ELEMENTS:,} XML elements" in warning for warning in result.warnings)
    assert grown_mb < 50


def test_a_sitemap_on_a_closed_port_is_warned_about_in_our_words() -> None:
    # robots.txt may name any host and port: the warning must not turn map into a port scanner's report.
    robots = Route(body=f"Sitemap: http://{BOMB_ADDRESS}:1/closed.xml\n".encode(),
                   headers=(("Content-Type", "text/plain"),))
    server = SiteServer({**bomb_routes("laughs"), "/robots.txt": robots}, BOMB_ADDRESS)
    try:
        result = map_site(f"http://{BOMB_ADDRESS}/", MapOptions(), _deadline())
    finally:
        server.stop()
    [warning] = [text for text in result.warnings if "closed.xml" in text]
    assert warning.endswith("could not be read completely (could not connect (connection refused))")
    assert "Errno" not in " ".join(result.warnings)


def test_a_billion_laughs_sitemap_is_refused() -> None:
    server = SiteServer(bomb_routes("laughs"), BOMB_ADDRESS)
    try:
        result = map_site(f"http://{BOMB_ADDRESS}/", MapOptions(), _deadline())
    finally:
        server.stop()
    assert _urls(result.links) == [f"http://{BOMB_ADDRESS}/", f"http://{BOMB_ADDRESS}/a.html"]
    # libxml2 refuses the amplification before any entity could be expanded.
    assert any("was not read" in warning and "entit" in warning.lower() for warning in result.warnings)


def test_a_missing_start_page_is_not_listed_but_the_sitemaps_are(site: tuple[SampleSite, SiteServer]) -> None:
    sample, _ = site
    result = map_site(sample.url("/no-such-page"), MapOptions(limit=len(sample.sitemap_paths())), _deadline())
    assert result.start_status == 404
    assert _urls(result.links) == [sample.url(p) for p in sample.sitemap_paths()]
