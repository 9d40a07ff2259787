"""Everything a reader sees on a page, as Markdown: boilerplate (menus, footers) kept, hidden text dropped."""

from __future__ import annotations

from dataclasses import dataclass

from lxml.html import HtmlElement

from webcapture.content.html_tree import base_url, drop_beyond, page_title, prune
from webcapture.content.markdown_writer import to_markdown


@dataclass(frozen=True)
class PageMarkdown:
    title: str
    markdown: str
    cut: bool  # the page had more text than was converted (max_text_chars)


def visible_markdown_of(tree: HtmlElement, url: str, *, max_text_chars: int = 0) -> PageMarkdown:
    """The visible text of the whole page (a tree from html_tree.parse_page, changed in place) as Markdown;
    stop after `max_text_chars` of text (0: all)."""
    title = page_title(tree)
    prune(tree, base_url(tree, url), images=True)
    root = tree.find("body")
    if root is None:
        root = tree
    cut = drop_beyond(root, max_text_chars)
    return PageMarkdown(title=title, markdown=to_markdown(root, images=True), cut=cut)
