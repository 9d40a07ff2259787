"""A link inside a link, parsed as a browser's parser leaves it (html_tree.parse_page)."""

from __future__ import annotations

import re

from lxml import etree

from tests.support.ai_pages import PAGES
from webcapture.content.html_tree import parse_page

# What Chromium's parser makes of tests/support/pages/nested-links.html (read from its DOM once; the
# browser test holds the Markdown of both to each other).
CHROMIUM = (
    '<ul><li><a href="#g:1">Unsafe <code></code></a><code><a href="IO.html">IO</a></code> operations and more'
    '</li></ul>\n<div><a href="#g:1" id="g:1"></a><h1><a href="#g:1" id="g:1">Unsafe <code></code></a><code>'
    '<a href="IO.html">IO</a></code> operations</h1><p>Some text.</p></div>\n<p>See <a href="glossary.html#term">'
    '<em></em></a><em><a href="glossary.html#term">tuple</a></em>.</p>\n<p><a href="o.html">x <span>y </span></a>'
    '<a href="i.html">z</a> w v t</p>\n')


def test_an_inner_link_ends_the_outer_one_as_in_a_browser() -> None:
    tree = parse_page((PAGES / "nested-links.html").read_text(encoding="utf-8"))
    main = etree.tostring(tree.find(".//main"), encoding=str, method="html")
    assert re.sub(r"^<main>\n|</main>.*$", "", main, flags=re.DOTALL) == CHROMIUM
    assert not tree.xpath("//a[descendant::a]")


def test_a_page_nested_deeper_than_the_parser_reads_splits_its_links_too() -> None:
    page = (PAGES / "nested-links.html").read_text(encoding="utf-8")
    deep = page.replace("<main>", "<main>" + "<div>" * 5000, 1).replace("</main>", "</div>" * 5000 + "</main>", 1)
    tree = parse_page(deep)
    assert len(tree.xpath("//div")) > 5000  # read whole, by the parser for any depth
    assert not tree.xpath("//a[descendant::a]")
    inner = [link.text for link in tree.iter("a") if link.text and link.text.strip() in {"IO", "tuple", "z"}]
    assert sorted(inner) == ["IO", "IO", "tuple", "z"]
