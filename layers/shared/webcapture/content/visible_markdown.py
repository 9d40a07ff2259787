"""Everything a reader sees on a page, as Markdown: boilerplate (menus, footers) kept, hidden text dropped.

BeautifulSoup's own parser takes any HTML, however deep it nests (libxml2 gives up at 256 levels), so this
is also the way out when the main-content step cannot read a page. markdownify converts exactly the tree
we hand it (MIT, small); html2text is GPL-3.0.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, Tag, XMLParsedAsHTMLWarning
from bs4.element import NavigableString, PageElement, PreformattedString
from markdownify import ATX, MarkdownConverter

from webcapture.content.visibility import NON_CONTENT_TAGS, TELLING_ATTRS, hides

LINK_SCHEMES = ("http", "https", "mailto", "tel")


@dataclass(frozen=True)
class PageMarkdown:
    title: str
    markdown: str
    cut: bool  # the page had more text than was converted (max_text_chars)


def visible_page_markdown(html: str, url: str, *, max_text_chars: int = 0) -> PageMarkdown:
    """The visible text of the whole page as Markdown; stop after `max_text_chars` of text (0: all)."""
    soup = parse(html)
    title = page_title(soup)
    base = base_url(soup, url)
    root = soup.body or soup
    prune_hidden(soup)
    cut = drop_beyond(root, max_text_chars)
    absolutise(root, base)
    return PageMarkdown(title=title, markdown=to_markdown(root), cut=cut)


def parse(html: str) -> BeautifulSoup:
    with warnings.catch_warnings():
        # XHTML pages and bare text are still pages to us; bs4's hints about them are noise in our logs.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        return BeautifulSoup(html, "html.parser")


def _attr(tag: Tag, name: str) -> str:
    value = tag.attrs.get(name)
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else str(value)


def is_hidden(tag: Tag) -> bool:
    """Whether the HTML itself hides `tag` from a sighted reader (attributes and inline style)."""
    return hides(tag.name, {name: _attr(tag, name) for name in tag.attrs})


def page_title(soup: BeautifulSoup) -> str:
    tag = soup.find("title")
    return " ".join(tag.get_text(" ").split()) if isinstance(tag, Tag) else ""


def base_url(soup: BeautifulSoup, url: str) -> str:
    tag = soup.find("base", href=True)
    if isinstance(tag, Tag):
        candidate = urljoin(url, _attr(tag, "href").strip())
        if urlsplit(candidate).scheme in ("http", "https"):
            return candidate
    return url


def prune_hidden(soup: BeautifulSoup) -> None:
    """Remove what is not visible content, in one walk.

    An explicit stack rather than recursion (pages nest thousands deep), and nothing below a removed
    element is visited. bs4's `decomposed` is not used: on a Tag it is a slow child lookup.
    """
    doomed: list[tuple[PageElement, int]] = []  # with its index in its parent, for a cheap extract
    stack = [(child, index) for index, child in reversed(list(enumerate(soup.contents)))]
    while stack:
        node, index = stack.pop()
        if not isinstance(node, Tag):
            if isinstance(node, PreformattedString):  # comments, CDATA, doctype, processing instructions
                doomed.append((node, index))
            continue
        if node.name in NON_CONTENT_TAGS or (
            (node.name == "dialog" or node.attrs.keys() & TELLING_ATTRS) and is_hidden(node)
        ):
            doomed.append((node, index))
            continue
        stack.extend((child, i) for i, child in reversed(list(enumerate(node.contents))))
    # Last first, so the indexes of the ones before stay right (doomed elements never nest).
    for element, index in reversed(doomed):
        element.extract(_self_index=index)


def absolutise(root: Tag, base: str) -> None:
    """Absolute links the model can quote; no script links; no inline data images eating the budget."""
    for tag in root.find_all("a", href=True):
        href = urljoin(base, _attr(tag, "href").strip())
        if urlsplit(href).scheme.lower() in LINK_SCHEMES:
            tag["href"] = href
        else:
            del tag["href"]
    for tag in root.find_all("img"):
        src = urljoin(base, _attr(tag, "src").strip()) if tag.has_attr("src") else ""
        if urlsplit(src).scheme.lower() in ("http", "https"):
            tag["src"] = src
        else:
            tag.replace_with(_attr(tag, "alt"))


def drop_beyond(root: Tag, max_text_chars: int) -> bool:
    """Remove everything after the first `max_text_chars` of visible text; whether anything was removed.

    Markdown has at least as many characters as the text's non-space characters, so what is left still
    fills a budget of that size, and we don't convert megabytes of page only to throw them away.
    """
    if max_text_chars <= 0:
        return False
    seen = 0
    last: PageElement | None = None
    for element in root.descendants:  # plain iteration: find_all's filters cost more than the walk
        if isinstance(element, NavigableString):
            seen += len(element) - element.count(" ") - element.count("\n") - element.count("\t")
            if seen > max_text_chars:
                last = element
                break
    if last is None:
        return False
    dropped = False
    node = last
    while node is not root and node.parent is not None:
        siblings = node.parent.contents
        keep = siblings.index(node) + 1
        while len(siblings) > keep:  # from the end: each extract is then O(1) in the parent
            siblings[-1].extract(_self_index=len(siblings) - 1)
            dropped = True
        node = node.parent
    return dropped


_CONVERTER = MarkdownConverter(
    heading_style=ATX,
    bullets="-",
    # The model reads values verbatim (SKUs, snake_case names): no Markdown escaping of plain text.
    escape_asterisks=False,
    escape_underscores=False,
    escape_misc=False,
)
_BLANK_RUNS = re.compile(r"\n{3,}")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")


def to_markdown(root: Tag) -> str:
    try:
        markdown = _CONVERTER.convert_soup(root)
    except RecursionError:
        # markdownify recurses per element; absurdly deep pages still give their text, without layout.
        markdown = root.get_text("\n")
    markdown = _TRAILING_SPACE.sub("\n", markdown)
    return _BLANK_RUNS.sub("\n\n", markdown).strip()
