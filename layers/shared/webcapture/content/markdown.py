"""A page's HTML as Markdown: the one entry point for every caller (POST /v1/web/markdown, a batch's items,
a crawl's pages, a page fetched over HTTP without the browser). The rules are docs/markdown.md's.

Needs lxml and trafilatura, which only the BrowserLayer ships: only browser functions may import this.
"""

from __future__ import annotations

from webcapture.content.html_tree import parse_page, tree_links
from webcapture.content.main_content import full_page_markdown, main_content_markdown


def html_to_markdown(html: str, url: str, *, only_main_content: bool = True) -> str:
    """`html` (the page as served or as the browser rendered it) as Markdown, links absolute against `url`
    (the page's final URL): its main content, or with `only_main_content=False` everything visible.
    Text the markup hides is never included; a browser-rendered page also arrives without what its
    stylesheets hide (browser/page_load.py)."""
    return main_content_markdown(html, url) if only_main_content else full_page_markdown(html, url)


def markdown_and_links(html: str, url: str, *, only_main_content: bool = True) -> tuple[str, list[str]]:
    """html_to_markdown's Markdown and the page's links (html_tree.tree_links: what a crawl discovers from
    it), from one parse of the page: the links are read before the Markdown step prunes the tree."""
    tree = parse_page(html)
    links = tree_links(tree, url)
    if only_main_content:
        return main_content_markdown(html, url, tree), links
    return full_page_markdown(html, url, tree), links
