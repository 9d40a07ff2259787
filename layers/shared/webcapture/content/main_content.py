"""A page's main content (the article, the product, the documentation page) as Markdown, from its HTML.

On a documentation page whose layout we know (webcapture.content.docs_layouts) the article region is kept
whole, less the site's navigation. Elsewhere the choice is trafilatura's (Apache-2.0, maintained, the best
F1 we measured on the main-content benchmark: docs/benchmarks.md), with the options that scored best there:
no comments, favour precision, keep tables, links and formatting. trafilatura judges what is boilerplate,
not what is visible, so it gets the tree only after everything hidden is gone: the browser removed what
stylesheets hide, and webcapture.content.html_tree.prune what the markup hides. Either way the region is
written by the one Markdown writer (webcapture.content.markdown_writer), from the one parse of the page.

Needs lxml and trafilatura, which only the BrowserLayer ships: only browser functions may import this.
"""

from __future__ import annotations

import re

import trafilatura
from lxml import etree
from lxml.html import HtmlElement, document_fromstring

from webcapture.content.docs_layouts import docs_article, drop_navigation, rewrite_article
from webcapture.content.html_tree import base_url, drop_beyond, page_title, parse_page, prune
from webcapture.content.markdown_writer import code_language, to_markdown
from webcapture.content.visible_markdown import PageMarkdown, visible_markdown_of

# Past this much visible text a page is cut before extraction: trafilatura's time grows with the tree
# (a 15,000-element listing took 6 s on a busy 2-core machine), and no article is this long.
DEFAULT_MAX_TEXT_CHARS = 300_000


# trafilatura treats a leading <h1> as the title, not the content: right for an article (whose title the
# benchmark leaves out of the body too), wrong for a short page, where it is the product's or the
# subject's name. Below this much Markdown the headline is put back (F1 0.974 with it, 0.976 without).
SHORT_PAGE_CHARS = 1_000

# trafilatura's fallback (jusText) writes each element's whole ancestor path as it walks, so its time grows
# with the square of the nesting: 2,000 nested <div>s took 7.5 s, 5,000 over 30 s. Real pages stay far
# below this depth (637 pages of four documentation sites and the 54 main-content benchmark pages: at most
# 31); past it the fallback is skipped.
FALLBACK_MAX_DEPTH = 200
_INLINE_MARKS = re.compile(r"[`*]")


def main_content_markdown(html: str, url: str, tree: HtmlElement | None = None) -> str:
    """The main content of the page (article, product) as Markdown; hidden text never included.
    `tree`: the page already parsed by html_tree.parse_page (changed in place), else `html` is parsed."""
    return main_content(html, url, tree=tree).markdown


def full_page_markdown(html: str, url: str, tree: HtmlElement | None = None) -> str:
    """Everything visible on the page as Markdown, menus and footers included; hidden text never included."""
    tree = parse_page(html) if tree is None else tree
    return visible_markdown_of(tree, url, max_text_chars=DEFAULT_MAX_TEXT_CHARS).markdown


def main_content(html: str, url: str, *, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
                 tree: HtmlElement | None = None) -> PageMarkdown:
    """Main content with the page's title; the page is read up to `max_text_chars` of visible text.

    A page trafilatura finds no main content in (a bare link list, a very short page) gives its whole
    visible text instead. `tree`: `html` already parsed by html_tree.parse_page (changed in place).
    """
    tree = parse_page(html) if tree is None else tree
    _alive = list(tree.iter())  # every element's Python object made once, not again at each later walk
    title = page_title(tree)
    base = base_url(tree, url)
    article = docs_article(tree)
    prune(tree, base, images=False)  # alt texts and captions cost precision on the benchmark
    if article is not None and _still_in(tree, article.region):  # not inside something the markup hides
        cut = drop_beyond(article.region, max_text_chars)
        drop_navigation(article)
        rewrite_article(article)
        markdown = to_markdown(article.region, images=False)
        if markdown:
            return PageMarkdown(title=title, markdown=markdown, cut=cut)
    cut = drop_beyond(tree, max_text_chars)
    headline = _headline(tree)
    _mark_code_blocks(tree)
    extracted = _extract(tree, url)
    markdown = to_markdown(extracted, images=False) if extracted is not None else ""
    if not markdown:
        return visible_markdown_of(parse_page(html), url, max_text_chars=max_text_chars)
    if headline and len(markdown) < SHORT_PAGE_CHARS and headline not in _plain(markdown):
        markdown = f"# {headline}\n\n{markdown}"
    return PageMarkdown(title=title, markdown=markdown, cut=cut)


def _still_in(tree: HtmlElement, element: HtmlElement) -> bool:
    return any(ancestor is tree for ancestor in element.iterancestors())


def _plain(markdown: str) -> str:
    """The words of `markdown` without its inline marks, spaces collapsed."""
    return " ".join(_INLINE_MARKS.sub("", markdown).split())


def _mark_code_blocks(tree: HtmlElement) -> None:
    """Tell trafilatura that every <pre> is code, with the language the page names ("-": none): it keeps
    a <pre> with a `lang` as a code block, attribute included, where it would otherwise turn a <pre> that
    does not look like code into a quotation and drop the classes that name the language."""
    for pre in tree.iter("pre"):
        pre.set("lang", code_language(pre) or "-")


def _headline(tree: HtmlElement) -> str:
    """The text of the page's first visible, non-empty <h1>."""
    for heading in tree.iter("h1"):
        text = " ".join(heading.text_content().split())
        if text:
            return text
    return ""


def _extract(tree: HtmlElement, url: str) -> etree._Element | None:
    """trafilatura's choice of main content, as an lxml tree in HTML tags (no text round trip)."""
    document = trafilatura.bare_extraction(
        tree,
        url=url,
        fast=_deeper_than(tree, FALLBACK_MAX_DEPTH),
        include_comments=False,  # readers' comments are not the article
        favor_precision=True,
        include_tables=True,
        include_links=True,
        include_formatting=True,
        include_images=False,
    )
    body = getattr(document, "body", None)
    return None if body is None else _as_html(body)


def _deeper_than(tree: HtmlElement, limit: int) -> bool:
    depth = 0
    for event, _ in etree.iterwalk(tree, events=("start", "end")):
        depth += 1 if event == "start" else -1
        if depth > limit:
            return True
    return False


# trafilatura's own tags, as the HTML the writer reads. Its <code> is both inline code and a code block:
# a block when it holds more than one line, as trafilatura's own Markdown output decides.
_TRAFILATURA_TAGS = {"list": "ul", "item": "li", "quote": "blockquote", "lb": "br", "graphic": "img",
                     "ref": "a", "row": "tr", "table": "table"}
_HI_TAGS = {"#b": "strong", "#i": "em", "#u": "u", "#t": "code", "#s": "del", "#sub": "sub", "#sup": "sup"}


def _as_html(body: etree._Element) -> etree._Element:
    for element in body.iter():
        tag = element.tag
        if not isinstance(tag, str):
            continue
        rend = element.get("rend") or ""
        if tag == "head":
            element.tag = rend if rend in ("h1", "h2", "h3", "h4", "h5", "h6") else "h3"
        elif tag == "list":
            element.tag = "ol" if rend == "ol" else "ul"
        elif tag == "hi":
            element.tag = _HI_TAGS.get(rend, "em")
        elif tag == "cell":
            element.tag = "th" if element.get("role") == "head" else "td"
        elif tag == "code":
            language = element.attrib.pop("lang", None)
            if language is not None:  # a <pre> of the page (_mark_code_blocks)
                element.tag = "pre"
                if language != "-":
                    element.set("class", f"language-{language}")
            else:
                element.tag = "pre" if "\n" in "".join(element.itertext()).strip() else "code"
        elif tag == "ref":
            element.tag = "a"
            target = element.attrib.pop("target", None)
            if target:
                element.set("href", target)
        else:
            element.tag = _TRAFILATURA_TAGS.get(tag, tag)
    return body


# trafilatura's fallback on short pages (jusText) builds its stoplist, every language's, on first use: a
# second or more that would fall on the first request. Done at import, it falls in Lambda's init instead.
_extract(document_fromstring("<html><body><p>A short page warms the extractor up.</p></body></html>"), "")
