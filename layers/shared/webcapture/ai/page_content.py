"""Rendered HTML to the Markdown the model reads (CONTRACT 9): main content only, visible text only.

Why BeautifulSoup + markdownify: we must decide ourselves what is hidden or chrome (an injection attempt
hidden in the page must never reach the model), so we need a DOM we can prune before conversion.
markdownify converts exactly the tree we hand it, is MIT-licensed, small and actively released.
html2text is GPL-3.0; trafilatura applies its own boilerplate heuristics (it tends to drop short pages
such as product pages) and would hide our pruning rules behind its own.

The browser may already have removed elements hidden by stylesheets (computed style); here we handle what
the HTML itself says is hidden.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, MarkupResemblesLocatorWarning, Tag, XMLParsedAsHTMLWarning
from bs4.element import NavigableString, PageElement, PreformattedString
from markdownify import ATX, MarkdownConverter

# Never content: code, styling, embedded documents and form plumbing.
_NON_CONTENT_TAGS = (
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "frame", "frameset",
    "object", "embed", "link", "meta", "base", "head", "select", "datalist",
)  # fmt: skip
# Site chrome: menus, sidebars, page-level banners and footers.
_CHROME_TAGS = ("nav", "aside")
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})
# A header/footer inside one of these belongs to that section (an article's title), not to the page.
_SECTIONING = ("article", "section", "main", "aside", "nav")
_LINK_SCHEMES = ("http", "https", "mailto", "tel")
# An <article> smaller than this share of the page's text is probably a review or a teaser, not the page.
_ARTICLE_MIN_SHARE = 0.5
TRUNCATION_NOTE = "\n\n[Content truncated: the page continues beyond this point.]"


@dataclass(frozen=True)
class PageContent:
    """What the model gets to read about the page."""

    url: str
    title: str
    markdown: str
    truncated: bool  # the page had more content than the budget allowed
    budget_chars: int


def page_to_markdown(html: str, url: str, budget_chars: int) -> PageContent:
    """Main visible content of `html` as Markdown, cut to `budget_chars` (no cut when <= 0)."""
    soup = _parse(html)
    title = _title(soup)
    base = _base_url(soup, url)
    root = _prune(soup, keep_chrome=False)
    if not _text_length(root):
        # A page that is all chrome (a bare link list) still gets its visible text rather than nothing.
        soup = _parse(html)
        root = _prune(soup, keep_chrome=True)
    dropped = _drop_beyond_budget(root, budget_chars)
    _absolutise(root, base)
    markdown, truncated = cut_to_budget(_convert(root), budget_chars, more=dropped)
    return PageContent(
        url=url, title=title, markdown=markdown, truncated=truncated, budget_chars=budget_chars
    )


def _parse(html: str) -> BeautifulSoup:
    with warnings.catch_warnings():
        # XHTML pages and bare text are still pages to us; bs4's hints about them are noise in our logs.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        warnings.simplefilter("ignore", MarkupResemblesLocatorWarning)
        return BeautifulSoup(html, "html.parser")


def cut_to_budget(text: str, budget_chars: int, *, more: bool = False) -> tuple[str, bool]:
    """Cut `text` to at most `budget_chars`, at a line break when one is near, saying that it was cut.

    `more`: the text is already known to be only the start of the content, so it is marked as cut.
    """
    if budget_chars <= 0 or (len(text) <= budget_chars and not more):
        return text, False
    room = max(budget_chars - len(TRUNCATION_NOTE), 0)
    if len(text) <= room:
        return text.rstrip() + TRUNCATION_NOTE, True
    head = text[:room]
    line_end = head.rfind("\n")
    if line_end >= room * 0.8:  # don't throw away more than a fifth to end on a whole line
        head = head[:line_end]
    return (head.rstrip() + TRUNCATION_NOTE)[:budget_chars], True


def _attr(tag: Tag, name: str) -> str:
    value = tag.attrs.get(name)
    if value is None:
        return ""
    return " ".join(value) if isinstance(value, list) else str(value)


def _title(soup: BeautifulSoup) -> str:
    tag = soup.find("title")
    return " ".join(tag.get_text(" ").split()) if isinstance(tag, Tag) else ""


def _base_url(soup: BeautifulSoup, url: str) -> str:
    tag = soup.find("base", href=True)
    if isinstance(tag, Tag):
        candidate = urljoin(url, _attr(tag, "href").strip())
        if urlsplit(candidate).scheme in ("http", "https"):
            return candidate
    return url


# Attributes that can make an element hidden or chrome; most elements carry none of them.
_TELLING_ATTRS = frozenset({"hidden", "aria-hidden", "style", "role", "type"})


def _prune(soup: BeautifulSoup, *, keep_chrome: bool) -> Tag:
    """Remove what is not visible content, in one walk; return the main-content root.

    An explicit stack rather than recursion (pages nest thousands deep), and nothing below a removed
    element is visited. bs4's `decomposed` is not used: on a Tag it is a slow child lookup.
    """
    body = soup.body or soup
    doomed: list[tuple[PageElement, int]] = []  # with its index in its parent, for a cheap extract
    mains: list[Tag] = []
    articles: list[Tag] = []
    # Pre-order, in document order: (element, its index, inside a sectioning element, inside an article).
    stack = [(child, index, False, False) for index, child in reversed(list(enumerate(soup.contents)))]
    while stack:
        node, index, in_section, in_article = stack.pop()
        if not isinstance(node, Tag):
            if isinstance(node, PreformattedString):  # comments, CDATA, doctype, processing instructions
                doomed.append((node, index))
            continue
        name = node.name
        if (
            name in _NON_CONTENT_TAGS
            # is_hidden only when an attribute could hide it: most elements have none of them.
            or ((name == "dialog" or node.attrs.keys() & _TELLING_ATTRS) and is_hidden(node))
            or (not keep_chrome and _is_chrome(node, in_section))
        ):
            doomed.append((node, index))
            continue
        if name == "main" or _attr(node, "role").strip().lower() == "main":
            mains.append(node)
        if name == "article" and not in_article:
            articles.append(node)
        in_section = in_section or name in _SECTIONING
        in_article = in_article or name == "article"
        stack.extend(
            (child, i, in_section, in_article) for i, child in reversed(list(enumerate(node.contents)))
        )
    # Last first, so the indexes of the ones before stay right (doomed elements never nest).
    for element, index in reversed(doomed):
        element.extract(_self_index=index)
    return _main_root(body, mains, articles)


def _is_chrome(tag: Tag, in_section: bool) -> bool:
    if tag.name in _CHROME_TAGS or _attr(tag, "role").strip().lower() in _CHROME_ROLES:
        return True
    # A header/footer inside a section belongs to it (an article's title); at page level it is chrome.
    return tag.name in ("header", "footer") and not in_section


def is_hidden(tag: Tag) -> bool:
    """Whether the HTML itself hides `tag` from a sighted reader (attributes and inline style)."""
    if "hidden" in tag.attrs:
        return True
    if _attr(tag, "aria-hidden").strip().lower() == "true":
        return True
    if tag.name == "input" and _attr(tag, "type").strip().lower() == "hidden":
        return True
    if tag.name == "dialog" and "open" not in tag.attrs:
        return True
    style = _attr(tag, "style")
    return bool(style) and _style_hides(style)


_ZERO = re.compile(r"^[+-]?0*\.?0*(px|em|rem|pt|%|vw|vh)?$")


def _style_hides(style: str) -> bool:
    for declaration in style.split(";"):
        prop, _, value = declaration.partition(":")
        prop = prop.strip().lower()
        value = value.lower().replace("!important", "").strip()
        if (
            (prop == "display" and value == "none")
            or (prop == "visibility" and value in ("hidden", "collapse"))
            or (prop == "content-visibility" and value == "hidden")
            # Text nobody can see is a classic way to smuggle instructions to a model.
            or (prop in ("opacity", "font-size") and value and _ZERO.match(value))
        ):
            return True
    return False


def _absolutise(soup: Tag, base: str) -> None:
    """Absolute links the model can quote; no script links; no inline data images eating the budget."""
    for tag in soup.find_all("a", href=True):
        href = urljoin(base, _attr(tag, "href").strip())
        if urlsplit(href).scheme.lower() in _LINK_SCHEMES:
            tag["href"] = href
        else:
            del tag["href"]
    for tag in soup.find_all("img"):
        src = urljoin(base, _attr(tag, "src").strip()) if tag.has_attr("src") else ""
        if urlsplit(src).scheme.lower() in ("http", "https"):
            tag["src"] = src
        else:
            tag.replace_with(_attr(tag, "alt"))


def _text_length(tag: Tag) -> int:
    return len("".join(tag.get_text().split()))


def _main_root(body: Tag, mains: list[Tag], articles: list[Tag]) -> Tag:
    """The element holding the page's main content: <main>, else a dominant <article>, else the body."""
    for main in mains:
        if _text_length(main):
            return main
    articles = [article for article in articles if _text_length(article)]
    if len(articles) == 1 and _text_length(articles[0]) >= _ARTICLE_MIN_SHARE * _text_length(body):
        return articles[0]
    return body


def _drop_beyond_budget(root: Tag, budget_chars: int) -> bool:
    """Remove everything after the first `budget_chars` of visible text; whether anything was removed.

    Markdown has at least as many characters as the text's non-space characters, so what is left still
    fills the budget, and we don't convert megabytes of page only to throw them away.
    """
    if budget_chars <= 0:
        return False
    seen = 0
    last: PageElement | None = None
    for element in root.descendants:  # plain iteration: find_all's filters cost more than the walk
        if isinstance(element, NavigableString):
            seen += len(element) - element.count(" ") - element.count("\n") - element.count("\t")
            if seen > budget_chars:
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


def _convert(root: Tag) -> str:
    try:
        markdown = _CONVERTER.convert_soup(root)
    except RecursionError:
        # markdownify recurses per element; absurdly deep pages still give their text, without layout.
        markdown = root.get_text("\n")
    markdown = _TRAILING_SPACE.sub("\n", markdown)
    return _BLANK_RUNS.sub("\n\n", markdown).strip()
