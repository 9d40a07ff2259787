"""Canonical URLs, path globs and scope (docs/crawl-and-map.md#crawl-and-map): one spelling per page, and
which pages belong."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from webcapture.path_globs import PathGlobs, matches
from webcapture.site.canonical_urls import (
    MAX_URL_CHARS,
    canonical_url,
    canonical_urls,
    host_of,
    origin_of,
    parsed_canonical_url,
    path_of,
)
from webcapture.site.scope import Scope, site_host


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("http://example.com", "http://example.com/"),
        ("HTTP://Example.COM:80/a#frag", "http://example.com/a"),
        ("https://example.com:443/a", "https://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com/a?b=2&a=1", "http://example.com/a?a=1&b=2"),
        ("http://example.com/a?&b=2&&a=1&", "http://example.com/a?a=1&b=2"),
        ("http://example.com/a/./b/../c", "http://example.com/a/c"),
        ("http://example.com/a/..", "http://example.com/"),
        ("http://example.com/%7euser", "http://example.com/%7Euser"),
        ("http://example.com/a b/é", "http://example.com/a%20b/%C3%A9"),
        ("http://example.com/100%", "http://example.com/100%25"),
        ("http://ex.com/a\\b", "http://ex.com/a/b"),  # a backslash is a slash to browsers
        ("http://0x7f.1:8080/x", "http://127.0.0.1:8080/x"),  # the host as the egress guard reads it
        ("http://[::1]:80/", "http://[::1]/"),
        ("http://EXAMPLE.com./", "http://example.com./"),
        ("http://bücher.example/", "http://xn--bcher-kva.example/"),
        # The authority ends at the first "/", "?" or "#": what follows "@" is the host, escapes decoded.
        ("http://user@example.com/a", "http://example.com/a"),
        ("http://ex%41.com:8080/a", "http://exa.com:8080/a"),
    ],
)
def test_canonical_spelling(url: str, canonical: str) -> None:
    assert canonical_url(url) == canonical


# URLs of the shapes sitemaps and pages hold, and of the shapes that must leave the fast paths: hosts as
# browsers rewrite them, ports, dot segments, escapes, characters to quote, queries and fragments.
_schemes = st.sampled_from(["http", "https", "HTTP", "Https", "ftp"])
_hosts = st.sampled_from(["example.com", "EXAMPLE.com.", "www.Example.com", "a-b.c0.test", "127.0.0.1",
                          "0x7f.1", "2130706433", "[::1]", "bücher.example", "exa mple.com", "a..b", "",
                          "user@example.com", "-.test", "ex%41.com"])
_ports = st.sampled_from(["", ":80", ":443", ":8080", ":0", ":65535", ":65536", ":", ":x"])
_path_parts = st.sampled_from(["/", "a", "B", "~", ".", "..", "%7e", "%7E", "%", "%zz", "é", " ", "\\",
                               "!$&'()*+,;=:@", "-_", "\t", "index.html", "//"])
_paths = st.lists(_path_parts, max_size=8).map(lambda parts: "/" + "".join(parts))
_queries = st.sampled_from(["", "?", "?b=2&a=1", "?a=%31&&c", "?q=a b", "?x=/?y", "?é=1"])
_fragments = st.sampled_from(["", "#", "#top", "#a b"])


@settings(max_examples=500)
@given(_schemes, _hosts, _ports, st.one_of(st.just(""), _paths), _queries, _fragments, st.booleans())
def test_fast_paths_equal_the_parser(scheme: str, host: str, port: str, path: str, query: str,
                                     fragment: str, drop_query: bool) -> None:
    url = f"{scheme}://{host}{port}{path}{query}{fragment}"
    expected = parsed_canonical_url(url, drop_query=drop_query)
    # The first call may meet this spelling of the authority for the first time, the second knows it.
    assert canonical_url(url, drop_query=drop_query) == expected
    assert canonical_url(url, drop_query=drop_query) == expected


_plain_urls = st.sampled_from(["http://a.test/x", "http://A.test:80/y/z.html", "https://a.test/~q-_.!$&'()*+,;=:@",
                               "http://a.test/x\n", "http://a.test/./x", "http://a.test/x?b=1&a=2#f"])
_batches = st.lists(st.one_of(_plain_urls, st.builds(lambda *parts: "".join(parts), _schemes, st.just("://"),
                                                      _hosts, _ports, _paths, _queries, _fragments)),
                    max_size=12)


@settings(max_examples=300)
@given(_batches, st.booleans())
def test_a_batch_is_canonicalised_as_each_url_alone(urls: list[str], drop_query: bool) -> None:
    expected = [parsed_canonical_url(url, drop_query=drop_query) for url in urls]
    assert canonical_urls(urls, drop_query=drop_query) == expected
    assert canonical_urls(urls, drop_query=drop_query) == expected  # every authority known by now


def test_a_known_authority_still_checks_the_rest() -> None:
    assert canonical_url("http://Example.com:80/a") == "http://example.com/a"
    assert canonical_url("http://Example.com:80/a b?y=1&x=2#f") == "http://example.com/a%20b?x=2&y=1"
    assert canonical_url("http://Example.com:80/./a/../b/") == "http://example.com/b/"
    assert canonical_url("http://Example.com:80/a?y=1&x=2", drop_query=True) == "http://example.com/a"
    # A longer authority that starts like a known one is not taken for it.
    assert canonical_url("http://Example.com:8080/a") == "http://example.com:8080/a"
    assert canonical_url("http://Example.com:80@evil.test/a") == parsed_canonical_url(
        "http://Example.com:80@evil.test/a")


def test_query_dropped_on_request() -> None:
    assert canonical_url("http://example.com/a?b=2&a=1#x", drop_query=True) == "http://example.com/a"


@pytest.mark.parametrize("url", ["ftp://example.com/", "mailto:a@example.com", "javascript:alert(1)",
                                 "http://", "http://exa mple.com/", "/relative",
                                 "http://example.com/" + "a" * MAX_URL_CHARS])
def test_not_a_page_url(url: str) -> None:
    assert canonical_url(url) is None


def test_parts_of_a_canonical_url() -> None:
    url = "https://sub.example.com:8443/a/b?x=1"
    assert (host_of(url), path_of(url), origin_of(url)) == ("sub.example.com", "/a/b", "https://sub.example.com:8443")
    assert host_of("http://[::1]:81/") == "[::1]"


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("/blog/*", "/blog/post", True),
        ("/blog/*", "/blog/2026/post", False),
        ("/blog/**", "/blog/2026/post", True),
        ("blog/**", "/blog/2026/post", True),  # anchored as if it began with /
        ("/p?.html", "/p1.html", True),
        ("/p?.html", "/p10.html", False),
        ("**/*.pdf", "/docs/a.pdf", True),
        # A regular expression is a glob whose special characters are literal: it matches itself only.
        ("^/blog/.*$", "/blog/post", False),
        ("/blog/.*", "/blog/post", False),
        ("/blog/.*", "/blog/.hidden", True),  # "." is a dot, "*" the glob's
        ("/a[0-9]", "/a1", False),
        ("/a[0-9]", "/a[0-9]", True),
    ],
)
def test_globs(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_a_pathological_pattern_costs_linear_time() -> None:
    # (a+)+$ is catastrophic as a regular expression; as a glob it is literal text.
    assert not matches("/(a+)+$", "/" + "a" * 50_000 + "!")


def test_include_and_exclude() -> None:
    globs = PathGlobs.of(include=["/docs/**"], exclude=["/docs/private/**"])
    assert globs.allows("/docs/a")
    assert not globs.allows("/docs/private/a")
    assert not globs.allows("/blog/a")
    assert PathGlobs().allows("/anything")


def test_scope_hosts_subdomains_external_and_depth() -> None:
    assert site_host("WWW.Example.com.") == "example.com"
    scope = Scope.of("https://www.example.com/")
    assert scope.allows("http://example.com:8080/a")  # scheme and port are not compared
    assert scope.allows("https://www.example.com/a")
    assert not scope.allows("https://blog.example.com/a")
    assert not scope.allows("https://example.org/a")
    assert not scope.allows("https://notexample.com/a")
    subdomains = Scope.of("https://example.com/", include_subdomains=True)
    assert subdomains.allows("https://a.b.example.com/x")
    assert not subdomains.allows("https://badexample.com/x")
    external = Scope.of("https://example.com/", allow_external=True, max_depth=2,
                        paths=PathGlobs.of(exclude=["/private/**"]))
    assert external.allows("https://example.org/a", depth=2)
    assert not external.allows("https://example.org/a", depth=3)
    assert not external.allows("https://example.org/private/a", depth=1)
