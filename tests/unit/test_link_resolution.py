"""LinkResolver answers exactly what urllib.parse.urljoin (and urlsplit's scheme) answers, on the hrefs of
real documentation sites and on generated ones, against bases of every shape; and an href no URL parser
reads links nowhere instead of failing the page."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from webcapture.content.html_tree import parse_page, prune, tree_links
from webcapture.content.link_resolution import LinkResolver
from webcapture.content.markdown import html_to_markdown, markdown_and_links

BASES = [
    "http://127.0.0.1:8765/library/functions.html", "http://h/", "http://h", "https://H.example:8080/a/b/c/;p?q=1#f",
    "http://h/a/b/", "http://h/a?x#y", "http://user@h/a/./b/../c.html", "http://h/a;b/c;d", "HTTP://h/x.html",
    "https://h/%7Euser/page", " http://h/a/b", "http://h/a\t/b", "ftp://h/x", "mailto:x@y", "http://[::1]/z",
    "http://[::1", "",
]  # fmt: skip
EDGES = [
    "", "#", "##", "#a#b", "#a b", "#a\tb", "a", "a/", ".", "..", "./", "../", "../../../../x", "/", "//", "///x",
    "//other/x", "/a/../b/./c", "a/./b/../../c", "x.html#frag", "x.html?q#f", "x;p", "x:y", "1x:y", "C:/x",
    "javascript:void(0)", "mailto:a@b", "tel:+1", "HTTP://x/", "https:x", "http:x", "http:/x", "http://[::1",
    "//[zz", "a b", "é.html", "a\\b", "a%20b.html", "~u/", "!$&'()*+,=@-", "a//b", "a/b//", "#:x", "a#:b",
    "\x01a", "a\nb", "a\rb#c",
]  # fmt: skip
_HREF = re.compile(r'(?:href|src)\s*=\s*"([^"]*)"')
SITES = [("/usr/share/doc/sphinx-doc/html", "**/*.html", 1), ("/usr/share/doc/git-doc", "*.html", 4),
         ("/usr/share/doc/postgresql-doc-15/html", "*.html", 6), ("/usr/share/doc/python3.11/html", "**/*.html", 4)]


def _expected(base: str, href: str) -> tuple[str, str] | None:
    try:
        absolute = urljoin(base, href)
        return absolute, urlsplit(absolute).scheme.lower()
    except ValueError:
        return None


@cache
def _site_hrefs() -> list[str]:
    hrefs: set[str] = set()
    for folder, pattern, every in SITES:
        pages = sorted(Path(folder).glob(pattern))[::every]
        assert pages, f"{folder}: apt-get install sphinx-doc git-doc postgresql-doc-15 python3.11-doc (.ci/run)"
        for page in pages:
            hrefs.update(href.strip() for href in _HREF.findall(page.read_text(errors="replace")))
    return sorted(hrefs)


def _generated(count: int) -> list[str]:
    pieces = [*"ab./#?;:%@&=+ -_~\t\n\\é[]", "..", "//", "../", "./", "http:", "https://", "mailto:", "#"]
    chosen = random.Random(37)
    return ["".join(chosen.choice(pieces) for _ in range(chosen.randint(0, 8))) for _ in range(count)]


@pytest.mark.parametrize("base", BASES)
def test_every_href_resolves_as_urljoin_does(base: str) -> None:
    hrefs = [*EDGES, *_site_hrefs(), *_generated(6000)]
    assert len(hrefs) > 20_000
    resolver = LinkResolver(base)
    expected = {href: _expected(base, href) for href in hrefs}
    assert [href for href in hrefs if resolver.resolve(href) != expected[href]] == []
    assert [href for href in hrefs if resolver.resolve(href) != expected[href]] == []  # remembered answers


def test_the_short_ways_are_taken_for_the_common_forms() -> None:
    resolver = LinkResolver("http://h/a/b.html")
    urljoin_calls = []

    def counting(base: str, href: str) -> str:
        urljoin_calls.append(href)
        return urljoin(base, href)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("webcapture.content.link_resolution.urljoin", counting)
        for href in ("#x", "c.html", "../d/e.html#f", "/g", "x:y"):
            resolver.resolve(href)
    assert urljoin_calls == ["x:y"]


def test_an_unreadable_href_is_text_not_a_failure() -> None:
    html = ('<html><body><main><p>See <a href="http://[::1">this</a> and <a href="/ok">that</a>.</p>'
            '<p><img src="//[zz" alt="pic"> done</p></main></body></html>')
    assert html_to_markdown(html, "http://h/a") == "See this and [that](http://h/ok).\n\ndone"
    markdown, links = markdown_and_links(html, "http://h/a", only_main_content=False)
    assert links == ["http://h/ok"]
    assert "[that](http://h/ok)" in markdown and "[::1" not in markdown
    tree = parse_page(html)
    prune(tree, "http://h/a", images=True)
    assert [img.get("src") for img in tree.iter("img")] == []
    assert tree_links(parse_page(html), "http://[::1") == []  # the base itself unreadable


@pytest.mark.parametrize("base", ["http://[::1", "//[zz", "http://["])
def test_an_unreadable_base_leaves_the_page_its_own_url(base: str) -> None:
    html = (f'<html><head><base href="{base}"></head><body><main><h1>Title</h1><p>See <a href="/y">y</a>.'
            "</p></main></body></html>")
    for main in (True, False):
        markdown, links = markdown_and_links(html, "http://h/a/b", only_main_content=main)
        assert "[y](http://h/y)" in markdown and links == ["http://h/y"]
        assert html_to_markdown(html, "http://h/a/b", only_main_content=main) == markdown
