"""A page's main content (the article, the product) as Markdown, from the HTML the browser rendered.

The choice of what is main content is trafilatura's (Apache-2.0, maintained, the best F1 we measured on the
main-content benchmark: docs/benchmarks.md), with the options that scored best there: no comments, favour
precision, keep tables, links and formatting. trafilatura judges what is boilerplate, not what is visible,
so it gets the tree only after everything hidden is gone: the browser removed what stylesheets hide, and
`_prune` removes what the markup hides (webcapture.content.visibility), comments and scripts. Its output
(HTML) is converted by the same markdownify setup as the full page, so both read alike.

Needs lxml and trafilatura, which only the BrowserLayer ships: only browser functions may import this.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import trafilatura
from bs4 import BeautifulSoup
from lxml import etree
from lxml.html import HtmlElement, HTMLParser, document_fromstring

from webcapture.content.visibility import NON_CONTENT_TAGS, TELLING_ATTRS, hides
from webcapture.content.visible_markdown import LINK_SCHEMES, PageMarkdown, to_markdown, visible_page_markdown

# Past this much visible text a page is cut before extraction: trafilatura's time grows with the tree
# (a 15,000-element listing took 6 s on a busy 2-core machine), and no article is this long.
DEFAULT_MAX_TEXT_CHARS = 300_000


# trafilatura treats a leading <h1> as the title, not the content: right for an article (whose title the
# benchmark leaves out of the body too), wrong for a short page, where it is the product's or the
# subject's name. Below this much Markdown the headline is put back (F1 0.974 with it, 0.976 without).
SHORT_PAGE_CHARS = 1_000


def main_content_markdown(html: str, url: str) -> str:
    """The main content of the page (article, product) as Markdown; hidden text never included."""
    return main_content(html, url).markdown


def full_page_markdown(html: str, url: str) -> str:
    """Everything visible on the page as Markdown, menus and footers included; hidden text never included."""
    return visible_page_markdown(html, url, max_text_chars=DEFAULT_MAX_TEXT_CHARS).markdown


def main_content(html: str, url: str, *, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS) -> PageMarkdown:
    """Main content with the page's title; the page is read up to `max_text_chars` of visible text.

    A page trafilatura finds no main content in (a bare link list, a very short page) gives its whole
    visible text instead, and so does one libxml2 cannot read whole (nested deeper than it allows).
    """
    tree = _parse(html)
    if tree is None:
        return visible_page_markdown(html, url, max_text_chars=max_text_chars)
    title = " ".join((tree.findtext(".//title") or "").split())
    base = _base_url(tree, url)
    _prune(tree, base)
    cut = _drop_beyond(tree, max_text_chars)
    headline = _headline(tree)
    extracted = _extract(tree, url)
    markdown = to_markdown(BeautifulSoup(extracted, "html.parser")) if extracted else ""
    if not markdown:
        return visible_page_markdown(html, url, max_text_chars=max_text_chars)
    if headline and len(markdown) < SHORT_PAGE_CHARS and headline not in " ".join(markdown.split()):
        markdown = f"# {headline}\n\n{markdown}"
    return PageMarkdown(title=title, markdown=markdown, cut=cut)


def _headline(tree: HtmlElement) -> str:
    """The text of the page's first visible, non-empty <h1>."""
    for heading in tree.iter("h1"):
        text = " ".join(heading.text_content().split())
        if text:
            return text
    return ""


def _extract(tree: HtmlElement, url: str) -> str | None:
    """trafilatura's choice of main content, as HTML, with the options that scored best on the benchmark."""
    return trafilatura.extract(
        tree,
        url=url,
        output_format="html",
        include_comments=False,  # readers' comments are not the article
        favor_precision=True,
        include_tables=True,
        include_links=True,
        include_formatting=True,
        include_images=False,  # alt texts and captions cost precision; full_page_markdown keeps images
    )


def _parse(html: str) -> HtmlElement | None:
    """The page as an lxml tree, or None when libxml2 could not read all of it."""
    parser = HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True)
    try:
        # Bytes, so an XML declaration or a <meta charset> in the text cannot make lxml refuse or misread it.
        tree = document_fromstring(html.encode("utf-8", "replace"), parser=parser)
    except (etree.ParserError, ValueError):  # nothing parseable at all, e.g. an empty document
        return None
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        return None  # nested too deep: libxml2 dropped what lies below its limit
    return tree


def _base_url(tree: HtmlElement, url: str) -> str:
    for base in tree.iter("base"):
        href = base.get("href")
        if href is not None:
            candidate = urljoin(url, str(href).strip())
            if urlsplit(candidate).scheme in ("http", "https"):
                return candidate
            break
    return url


def _prune(tree: HtmlElement, base: str) -> None:
    """Remove what the markup hides and what is never content; make links absolute, drop script links."""
    doomed = []
    for element in tree.iter():
        tag = element.tag
        if (
            not isinstance(tag, str)  # comments, processing instructions, entities the parser kept
            or tag in NON_CONTENT_TAGS
            or (
                (tag == "dialog" or not TELLING_ATTRS.isdisjoint(element.attrib.keys()))
                and hides(tag, dict(element.attrib))
            )
        ):
            doomed.append(element)
        elif tag == "a" and "href" in element.attrib:
            href = urljoin(base, element.attrib["href"].strip())
            if urlsplit(href).scheme.lower() in LINK_SCHEMES:
                element.attrib["href"] = href
            else:
                del element.attrib["href"]
    for element in doomed:
        _remove_keeping_tail(element)


def _remove_keeping_tail(element: etree._Element) -> None:
    """Remove `element` and what is inside it, but not the text that follows it (lxml's tail)."""
    parent = element.getparent()
    if parent is None:
        return
    tail = element.tail
    if tail:
        previous = element.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(element)


def _drop_beyond(tree: HtmlElement, max_text_chars: int) -> bool:
    """Remove everything after the first `max_text_chars` of text; whether anything was removed."""
    if max_text_chars <= 0:
        return False
    seen = 0
    for element in tree.iter():
        for text in (element.text, element.tail):
            if text:
                seen += len(text) - text.count(" ") - text.count("\n") - text.count("\t")
        if seen > max_text_chars:
            break
    else:
        return False
    dropped = False
    node: etree._Element | None = element
    while node is not None and node is not tree:
        following = list(node.itersiblings())
        for sibling in following:
            node.getparent().remove(sibling)
            dropped = True
        node = node.getparent()
    return dropped


# trafilatura's fallback on short pages (jusText) builds its stoplist, every language's, on first use: a
# second or more that would fall on the first request. Done at import, it falls in Lambda's init instead.
_extract(document_fromstring("<html><body><p>A short page warms the extractor up.</p></body></html>"), "")
