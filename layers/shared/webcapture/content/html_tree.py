"""A page's HTML as one lxml tree, pruned of what a reader cannot see: the only parse on the way to Markdown.

libxml2 reads the page (with its huge-document option, which lifts the 256-level nesting limit to 2048);
a page nested deeper still is read by BeautifulSoup's html.parser, which takes any depth, and copied into
an lxml tree without recursion, so every later step sees the same kind of tree whatever the page.
"""

from __future__ import annotations

import warnings
from contextlib import suppress
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, Tag, XMLParsedAsHTMLWarning
from bs4.element import NavigableString, PreformattedString
from lxml import etree
from lxml.html import HtmlElement, HTMLParser, document_fromstring

from webcapture.content.link_resolution import resolver_for
from webcapture.content.markdown_writer import is_permalink
from webcapture.content.visibility import NON_CONTENT_TAGS, TELLING_ATTRS, hides

LINK_SCHEMES = ("http", "https", "mailto", "tel")
_EVERY_ELEMENT_HTML = etree.ElementDefaultClassLookup(element=HtmlElement)


def parse_page(html: str) -> HtmlElement:
    """The page as an lxml tree rooted at <html>, comments and processing instructions dropped."""
    parser = HTMLParser(encoding="utf-8", remove_comments=True, remove_pis=True, huge_tree=True)
    # Every element an HtmlElement, chosen in C: lxml.html's own lookup runs a Python function for each
    # element each time a walk reaches it (a fifth of a large page's conversion), to give form fields
    # classes that nothing here uses.
    parser.set_element_class_lookup(_EVERY_ELEMENT_HTML)
    if "\x00" in html:  # a browser's parser drops U+0000 from a page's text; libxml2 would make it U+FFFD
        html = html.replace("\x00", "")
    try:
        # Bytes, so an XML declaration or a <meta charset> in the text cannot make lxml refuse or misread it.
        tree = document_fromstring(html.encode("utf-8", "replace"), parser=parser)
    except (etree.ParserError, ValueError):  # nothing parseable at all, e.g. an empty document
        return document_fromstring("<html><body></body></html>")
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        tree = _parse_any_depth(html)  # nested too deep: libxml2 dropped what lies below its limit
    else:
        _move_content_out_of_head(tree)  # the re-parse puts the head's content in the body itself
    _unnest_links(tree)
    return tree


# HTML's formatting elements: the ones a browser's parser opens again after closing a link early.
_FORMATTING_TAGS = frozenset({"a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike",
                              "strong", "tt", "u"})
_INNER_LINKS = etree.XPath("//a//a")  # the cheaper search (a fifth of the other on a page of 54,000 links)
_NESTED_LINKS = etree.XPath("//a[descendant::a]")


def _unnest_links(tree: HtmlElement) -> None:
    """A link inside a link, as a browser's parser reads it: libxml2 keeps the nesting, but an `<a>` start
    tag inside a link ends that link (HTML's adoption agency algorithm), so the inner link and whatever
    followed it are outside the outer one, inside the formatting elements (`<code>`, `<em>`, ...) that were
    open between them, made again. DocBook's glossary and Haddock's contents nest links."""
    # Found once, in document order: a split leaves the outer link holding no link, and what it moves out
    # (an inner link holding links of its own) is further down the same list; only the copy a block gets
    # is new, and it is split at once.
    if not _INNER_LINKS(tree):
        return
    for outer in _NESTED_LINKS(tree):
        link: HtmlElement | None = outer
        while link is not None and next(link.iterdescendants("a"), None) is not None:
            link = _close_before_inner_link(link)


# HTML's "special" elements that can stand between two links: a block the outer link is taken out of.
_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "center", "dd", "details", "dir", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup",
    "li", "listing", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "xmp",
})  # fmt: skip


def _close_before_inner_link(outer: HtmlElement) -> HtmlElement | None:
    """Split `outer` at its first inner link; the copy of it that a block between them holds, if any."""
    inner = next(outer.iterdescendants("a"))
    block = next((child for child in outer if child.tag in _BLOCK_TAGS and child in inner.iterancestors()),
                 None)
    if block is not None:
        return _take_block_out_of_link(outer, block)
    moved: list[HtmlElement] = [inner, *inner.itersiblings()]
    level = inner.getparent()
    while level is not None and level is not outer:
        following = list(level.itersiblings())
        if level.tag in _FORMATTING_TAGS:  # made again around what left it
            again = level.makeelement(level.tag, dict(level.attrib))
            again.extend(moved)
            again.tail, level.tail = level.tail, None
            moved = [again]
        elif level.tail:  # its text after it follows what left
            last = moved[-1]
            last.tail, level.tail = (last.tail or "") + level.tail, None
        moved += following
        level = level.getparent()
    _put_after(outer, moved)
    return None


def _take_block_out_of_link(outer: HtmlElement, block: HtmlElement) -> HtmlElement:
    """A block between the two links (`<a><h1>… <a>…</a></h1></a>`, Haddock's section headings): the
    block leaves the outer link, which a copy of stands in for inside it, around what the block held; what
    followed the block in the outer link follows it, outside any link. The copy still holds the inner link
    and is split as any other."""
    copy = outer.makeelement("a", dict(outer.attrib))
    copy.text, block.text = block.text, None
    copy.extend(list(block))
    block.append(copy)
    _put_after(outer, [block, *block.itersiblings()])
    return copy


def _put_after(element: HtmlElement, moved: list[HtmlElement]) -> None:
    """`moved` (with their tails) right after `element`, before the text that followed it."""
    after = element.tail
    element.tail = None
    for part in reversed(moved):
        element.addnext(part)
    if after:
        moved[-1].tail = (moved[-1].tail or "") + after


_HEAD_TAGS = frozenset({"title", "meta", "link", "base", "style", "script", "noscript", "template"})


def _move_content_out_of_head(tree: HtmlElement) -> None:
    """libxml2 knows no HTML5 element: a page with no <body> tag that starts with <main> or <article> gets
    them in <head>. What is not head content moves to the start of <body>, as a browser would put it."""
    head = tree.find("head")
    if head is None:
        return
    strays: list[etree._Element] = []
    for child in head:
        if strays or (isinstance(child.tag, str) and child.tag not in _HEAD_TAGS):
            strays.append(child)
    if not strays:
        return
    body = tree.find("body")
    if body is None:
        body = etree.SubElement(tree, "body")
    for index, stray in enumerate(strays):
        body.insert(index, stray)


def _parse_any_depth(html: str) -> HtmlElement:
    with warnings.catch_warnings():
        # XHTML pages and bare text are still pages to us; bs4's hints about them are noise in our logs.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        soup = BeautifulSoup(html, "html.parser")
    root: HtmlElement = document_fromstring("<html><body></body></html>")
    body = root.find("body")
    stack: list[tuple[Tag, etree._Element]] = [(soup, body)]
    while stack:
        source, target = stack.pop()
        last: etree._Element | None = None
        for child in source.children:
            if isinstance(child, Tag):
                if child.name in ("html", "body", "head"):
                    stack.append((child, target))  # their content joins the tree's own <body>
                    continue
                attrs = {name: " ".join(value) if isinstance(value, list) else str(value)
                         for name, value in child.attrs.items() if _xml_name(name)}
                last = etree.SubElement(target, child.name if _xml_name(child.name) else "span", attrs)
                stack.append((child, last))
            elif isinstance(child, NavigableString) and not isinstance(child, PreformattedString):
                if last is None:
                    target.text = (target.text or "") + str(child)
                else:
                    last.tail = (last.tail or "") + str(child)
    return root


def _xml_name(name: str) -> bool:
    return bool(name) and (name[0].isalpha() or name[0] == "_") and all(
        c.isalnum() or c in "-_." for c in name
    )


def page_title(tree: HtmlElement) -> str:
    return " ".join((tree.findtext(".//title") or "").split())


def base_url(tree: HtmlElement, url: str) -> str:
    for base in tree.iter("base"):
        href = base.get("href")
        if href is not None:
            with suppress(ValueError):  # an href no URL parser reads: the page's own URL stays the base
                candidate = urljoin(url, str(href).strip())
                if urlsplit(candidate).scheme in ("http", "https"):
                    return candidate
            break
    return url


def tree_links(tree: HtmlElement, page_url: str) -> list[str]:
    """Every `<a href>` and `<area href>` of the parsed page, absolute, in document order: the links
    content.page_links reads from the HTML text (the same base: the first `<base>` with an href, as
    written), here from a tree already parsed, so a crawled page is parsed once."""
    base = page_url
    for element in tree.iter("base"):
        href = element.get("href")
        if href:
            with suppress(ValueError):  # an href no URL parser reads: the page's own URL stays the base
                base = urljoin(page_url, href.strip())
            break
    resolve = resolver_for(base).resolve
    links: list[str] = []
    for element in tree.iter("a", "area"):
        href = (element.get("href") or "").strip()
        if not href or href.startswith("#"):
            continue
        resolved = resolve(href)
        if resolved is not None:  # None: "http://[::1" and the like
            links.append(resolved[0])
    return links


def prune(tree: HtmlElement, base: str, *, images: bool) -> None:
    """Remove what the markup hides and what is never content; make links absolute, drop script links.

    `images`: keep <img> with an absolute http(s) source (others become their alt text); without, every
    image goes.
    """
    # The elements that need a look are found in C (by tag, or by an attribute that can hide them): a
    # Python test of every element of a large page cost more than the rest of pruning. What is removed
    # does not depend on the order of removal, so the lists need no merging into document order.
    doomed: dict[etree._Element, None] = dict.fromkeys(tree.iter(*_NOT_ELEMENTS))
    doomed.update(dict.fromkeys(tree.iter(*NON_CONTENT_TAGS)))
    telling = [attribute.getparent() for find in _TELLING_ATTRIBUTES for attribute in find(tree)]
    for element in (*telling, *tree.iter("dialog")):
        if element not in doomed and hides(element.tag, dict(element.attrib)):
            doomed[element] = None
    resolve = resolver_for(base).resolve
    for element in tree.iter("a", "img"):
        if element in doomed:
            continue
        if element.tag == "a":
            written = element.get("href")
            if written is None:
                continue
            if (written.startswith("#") and written[1:] in (element.get("id"), _heading_id(element))
                    and not is_permalink(element)):
                # A link to itself, or a heading written as a link to itself (Haddock's, mdBook's): its
                # text, as a permalink is nothing.
                del element.attrib["href"]
                continue
            resolved = resolve(written.strip())
            if resolved is not None and resolved[1] in LINK_SCHEMES:
                _set(element, "href", resolved[0])
            else:  # a script link, or an href no URL parser reads: text, not a link
                del element.attrib["href"]
        else:
            resolved = resolve(element.get("src", "").strip()) if element.get("src") else None
            if images and resolved is not None and resolved[1] in ("http", "https"):
                _set(element, "src", resolved[0])
            else:
                doomed[element] = None
                if images:  # the alt text stands in for an image we cannot link to
                    element.tail = (element.get("alt") or "") + (element.tail or "")
    for element in doomed:
        remove_keeping_tail(element)


_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def _heading_id(element: etree._Element) -> str | None:
    """The id of the heading the element is written directly in, if it is."""
    parent = element.getparent()
    return parent.get("id") if parent is not None and parent.tag in _HEADING_TAGS else None


# lxml's own attribute write, in C: lxml.html wraps it in Python for a keyword nothing here passes.
_set = etree.ElementBase.set
# Nodes that are not elements: parse_page keeps none, a tree built otherwise may.
_NOT_ELEMENTS = (etree.Comment, etree.ProcessingInstruction, etree.Entity)
# One search per attribute: a union of them costs a sort into document order that nothing here needs.
_TELLING_ATTRIBUTES = tuple(etree.XPath(f"descendant-or-self::*/@{name}") for name in sorted(TELLING_ATTRS))


def remove_keeping_tail(element: etree._Element) -> None:
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


def replace_keeping_tail(element: etree._Element, parts: list[etree._Element]) -> None:
    """Put `parts` where `element` is, and the text that follows it after them."""
    for part in parts:
        element.addprevious(part)
    remove_keeping_tail(element)


_TEXT = etree.XPath("string()", smart_strings=False)  # every text below the element, its own tail excluded


def drop_beyond(tree: HtmlElement, max_text_chars: int) -> bool:
    """Remove everything after the first `max_text_chars` of text; whether anything was removed.

    Markdown has at least as many characters as the text's non-space characters, so what is left still
    fills a budget of that size, and megabytes of page are not converted only to be thrown away.
    """
    if max_text_chars <= 0:
        return False
    if len(_TEXT(tree)) + len(tree.tail or "") <= max_text_chars:
        return False  # all of its text, spaces included, fits: nothing is beyond (joined in C)
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
        parent = node.getparent()
        for sibling in list(node.itersiblings()):
            parent.remove(sibling)
            dropped = True
        node = parent
    return dropped
