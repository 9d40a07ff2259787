"""Reading what a site serves: bounded bodies (gzip bombs), sitemaps (entities never expanded), robots.txt
through protego, and a page's links without the browser."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from tests.support.sample_site import BILLION_LAUGHS, gzip_bomb, sitemap_index, urlset
from webcapture.content.page_links import page_links
from webcapture.site.bounded_body import BoundedBody
from webcapture.site.robots import MAX_CRAWL_DELAY_S, RobotsRules, parse_robots
from webcapture.site.sitemaps import MAX_ELEMENTS, SitemapRefused, read_sitemap


def _pieces(data: bytes, size: int = 65536) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def test_a_plain_body_is_cut_at_the_limit() -> None:
    body = BoundedBody(_pieces(b"x" * 1000, 300), 700)
    assert b"".join(body) == b"x" * 700 and body.cut and not body.gzipped
    exact = BoundedBody(_pieces(b"x" * 700, 300), 700)
    assert len(b"".join(exact)) == 700 and not exact.cut


def test_gzip_is_inflated_and_a_bomb_stops_at_the_limit() -> None:
    body = BoundedBody(_pieces(gzip.compress(b"<urlset/>")), 100)
    assert b"".join(body) == b"<urlset/>" and body.gzipped and not body.cut
    # A gigabyte once inflated, about 3 MB on the wire: no more than the limit is ever produced.
    bomb = BoundedBody(gzip_bomb(1024)(), 10 * 2**20)
    produced = sum(len(piece) for piece in bomb)
    assert produced == 10 * 2**20 and bomb.cut


def test_concatenated_gzip_members_are_read_as_one_body() -> None:
    data = gzip.compress(b"abc") + gzip.compress(b"def")
    assert b"".join(BoundedBody([data], 100)) == b"abcdef"


def test_broken_gzip_and_deadline() -> None:
    broken = BoundedBody([gzip.compress(b"a" * 1000)[:20] + b"garbage" * 10], 10_000)
    list(broken)
    assert broken.broken
    late = BoundedBody([b"x" * 10], 100, deadline=time.monotonic() - 1)
    assert list(late) == [] and late.timed_out


# Entries whose `<loc>` is in the sitemap namespace, none, another declared on the root or on the entry
# (a default one or a prefix), xml's, or nested deeper (an image's, which is not the page's).
_SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_locs = st.sampled_from([
    "<loc>{u}</loc>", "<s:loc>{u}</s:loc>", '<loc xmlns="">{u}</loc>', "<i:loc>{u}</i:loc>",
    '<loc xmlns="urn:other">{u}</loc>', '<o:loc xmlns:o="urn:o{n}">{u}</o:loc>', "<xml:loc>{u}</xml:loc>",
    "<i:image><i:loc>{u}.png</i:loc></i:image>", "<lastmod>2024-01-01</lastmod>", "<location>{u}</location>",
    "<loc>  {u}\n</loc>", "<loc/>",
])
_roots = st.sampled_from([
    f'<urlset xmlns="{_SITEMAP_NS}" xmlns:s="{_SITEMAP_NS}" xmlns:i="urn:image">',
    '<urlset xmlns:s="urn:s" xmlns:i="urn:image">',
    '<!DOCTYPE urlset [<!ATTLIST url xmlns:i CDATA #FIXED "urn:fixed">]><urlset xmlns:s="urn:s">',
])


@settings(max_examples=150, deadline=None)
@given(_roots, st.lists(st.lists(_locs, min_size=1, max_size=3), min_size=1, max_size=30),
       st.integers(min_value=7, max_value=400), st.integers(min_value=0, max_value=12))
def test_locations_are_every_entrys_loc_in_any_namespace(root: str, entries: list[list[str]],
                                                         piece_bytes: int, extra_namespaces: int) -> None:
    # Many namespaces declared switch the reader to its general test; both must find the same.
    declared = "".join(f' xmlns:x{n}="urn:x{n}"' for n in range(extra_namespaces))
    body = root.replace(">", declared + ">", 1) if root.startswith("<urlset") else root.replace(
        "<urlset ", f"<urlset{declared} ", 1)
    body += "".join("<url>" + "".join(part.format(u=f"http://a.test/{e}/{p}", n=p) for p, part in
                                      enumerate(parts)) + "</url>" for e, parts in enumerate(entries))
    body += "</urlset>"
    tree = etree.fromstring(body.encode())
    expected = [text.strip() for text in tree.xpath("*/*[local-name() = 'loc']/text()") if text.strip()]
    assert read_sitemap(_pieces(body.encode(), piece_bytes), 10_000).locations == expected


def test_urls_selected_a_batch_at_a_time_are_the_first_ones_kept_in_document_order() -> None:
    body = urlset(f"http://a.test/{n}" for n in range(2000)).encode()
    kept = [f"http://a.test/{n}" for n in range(2000) if n % 10 != 7]
    for max_urls in (1, 150, 1800, 10_000):
        batches: list[int] = []

        def select(urls: list[str]) -> list[str]:
            batches.append(len(urls))
            return [url for url in urls if not url.endswith("7")]

        many = read_sitemap(_pieces(body, 5000), max_urls, select=select)
        assert many.locations == kept[:max_urls]
        assert many.stopped == (len(kept) >= max_urls)
        assert len(batches) < len(many.locations) or max_urls == 1
    index = read_sitemap([sitemap_index(["http://a.test/s1.xml"]).encode()], 10, select=lambda urls: [])
    assert index.locations == ["http://a.test/s1.xml"]  # an index's entries are not the caller's to select


def test_a_sitemap_and_an_index() -> None:
    document = read_sitemap(_pieces(urlset(f"http://a.test/{n}" for n in range(5)).encode(), 40), 100)
    assert document.locations == [f"http://a.test/{n}" for n in range(5)] and not document.is_index
    index = read_sitemap([sitemap_index(["http://a.test/s1.xml", "http://a.test/s2.xml"]).encode()], 100)
    assert index.is_index and index.locations == ["http://a.test/s1.xml", "http://a.test/s2.xml"]
    no_namespace = read_sitemap([b"<urlset><url><loc> http://a.test/x </loc></url></urlset>"], 100)
    assert no_namespace.locations == ["http://a.test/x"]


def test_max_urls_and_select() -> None:
    data = urlset(f"http://a.test/{n}" for n in range(100)).encode()
    stopped = read_sitemap([data], 10)
    assert len(stopped.locations) == 10 and stopped.stopped
    even = read_sitemap([data], 1000, select=lambda urls: [url for url in urls
                                                           if int(url.rsplit("/", 1)[1]) % 2 == 0])
    assert len(even.locations) == 50 and not even.stopped


def test_entities_are_never_expanded() -> None:
    declared = (b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY e "http://a.test/e">]>'
                b"<urlset><url><loc>&e;</loc></url></urlset>")
    with pytest.raises(SitemapRefused, match="declares XML entities"):
        read_sitemap([declared], 10)
    with pytest.raises(SitemapRefused, match="ntit"):
        read_sitemap([BILLION_LAUGHS], 10)
    external = (b'<?xml version="1.0"?><!DOCTYPE u SYSTEM "http://127.0.0.1:9/x.dtd">'
                b"<urlset><url><loc>http://a.test/x</loc></url></urlset>")
    assert read_sitemap([external], 10).locations == ["http://a.test/x"]  # the DTD is never loaded


def test_a_document_cut_short_keeps_what_was_read() -> None:
    data = urlset(f"http://a.test/{n}" for n in range(100)).encode()
    document = read_sitemap([data[: len(data) // 2]], 1000)
    assert 40 < len(document.locations) < 60 and document.stopped
    with pytest.raises(SitemapRefused, match="well-formed"):
        read_sitemap([b"this is not xml"], 10)


def test_a_large_sitemap_holds_little_tree() -> None:
    # 50,000 entries fed in pieces; entries are freed as read, so the last one is read like the first.
    data = urlset(f"http://a.test/{n}" for n in range(50_000)).encode()
    document = read_sitemap(_pieces(zlib.decompress(zlib.compress(data))), 50_000)
    assert len(document.locations) == 50_000 and document.locations[-1] == "http://a.test/49999"


# Read in a fresh interpreter, so its peak memory is the reading's alone (this process's peak is whatever
# the tests before reached). Prints the peak's growth over the baseline, in MB, and what was read.
_MEASURE = """
import gzip, json, resource, sys, zlib
from tests.support.sample_site import nested_bomb, urlset
from webcapture.site.bounded_body import BoundedBody
from webcapture.site.sitemaps import read_sitemap
body = nested_bomb() if sys.argv[1] == "nested" else gzip.compress(
    urlset(f"http://a.test/{n}/" + "p" * 200 for n in range(50_000)).encode())
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
document = read_sitemap(BoundedBody([body[i:i + 65536] for i in range(0, len(body), 65536)], 50 * 2**20),
                        50_000)
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
print(json.dumps([grown, len(document.locations), document.too_many_elements]))
"""


@pytest.mark.parametrize(("kind", "urls", "too_many"), [("nested", 0, True), ("50k", 50_000, False)])
def test_memory_stays_flat_on_a_nested_bomb_and_a_full_sitemap(kind: str, urls: int, too_many: bool) -> None:
    done = subprocess.run([sys.executable, "-c", _MEASURE, kind], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    grown_mb, read, stopped = json.loads(done.stdout)
    assert (read, stopped) == (urls, too_many)
    assert grown_mb < 50, grown_mb


def test_an_element_bomb_stops_at_the_bound_and_libxml2_limits_are_named() -> None:
    bomb = [b"<urlset><url><loc>http://a.test/</loc></url><url><loc>http://a.test/b</loc>"]
    bomb += [b"<x><y/></x>" * 8192] * (MAX_ELEMENTS // 8192 // 2 + 2)
    document = read_sitemap(bomb, 100)
    assert document.too_many_elements and document.stopped and document.locations == ["http://a.test/"]
    long_text = read_sitemap([b"<urlset><url><loc>http://a.test/</loc></url><url><loc>", *[b"a" * 2**20] * 11],
                             100)
    assert long_text.broken == "a text longer than 10 MB" and long_text.locations == ["http://a.test/"]
    deep = read_sitemap([b"<urlset><url><loc>http://a.test/</loc></url><url>", b"<d>" * 300], 100)
    assert deep.broken == "elements nested more than 256 deep" and deep.locations == ["http://a.test/"]


def test_robots_rules_for_our_agent() -> None:
    rules = parse_robots("User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n"
                         "User-agent: webcapture\nDisallow: /no-bots/\nCrawl-delay: 500\n"
                         "Sitemap: http://a.test/s.xml\nSitemap: http://a.test/s.xml\n")
    assert not rules.allowed("http://a.test/no-bots/x")
    assert rules.allowed("http://a.test/private/x")  # our own group wins over *
    assert rules.crawl_delay_s == MAX_CRAWL_DELAY_S
    assert rules.sitemaps == ("http://a.test/s.xml",)
    star = parse_robots("User-agent: *\nDisallow: /private/\nCrawl-delay: 1.5\n")
    assert not star.allowed("http://a.test/private/x") and star.crawl_delay_s == 1.5
    assert RobotsRules().allowed("http://a.test/x") and RobotsRules().crawl_delay_s == 0
    assert not RobotsRules(disallow_all=True).allowed("http://a.test/")


def test_page_links_without_a_browser() -> None:
    html = ('<html><head><title> The  page </title><base href="/docs/"></head><body>'
            '<a href="a.html">A <b>link</b></a><a href="#top">top</a><a href=" /b " aria-label="B"></a>'
            '<map><area href="c.html" title="C"></map><a href="mailto:x@y">mail</a><a href="d.html">D')
    found = page_links(html, "http://a.test/index.html")
    assert found.title == "The page"
    assert found.links == [("http://a.test/docs/a.html", "A link"), ("http://a.test/b", "B"),
                           ("http://a.test/docs/c.html", "C"), ("mailto:x@y", "mail"),
                           ("http://a.test/docs/d.html", "D")]


def test_links_no_parser_reads_are_skipped() -> None:
    found = page_links('<base href="http://[::1"><a href="http://[bad">x</a><a href="/ok">ok</a>',
                       "http://a.test/")
    assert found.links == [("http://a.test/ok", "ok")]
