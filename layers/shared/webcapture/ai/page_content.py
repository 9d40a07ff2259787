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
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup, CData, Comment, Declaration, Doctype, ProcessingInstruction, Tag
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
    original_chars: int  # length of the Markdown before the budget cut
    truncated: bool


def page_to_markdown(html: str, url: str, budget_chars: int) -> PageContent:
    """Main visible content of `html` as Markdown, cut to `budget_chars` (no cut when <= 0)."""
    soup = BeautifulSoup(html, "html.parser")
    title = _title(soup)
    base = _base_url(soup, url)
    _remove_non_content(soup)
    _remove_hidden(soup)
    _absolutise(soup, base)
    # A page that is all chrome (a bare link list) still gets its visible text rather than nothing.
    markdown = _convert(_main_root(soup)) or _convert(_visible_soup(html, base))
    cut, truncated = cut_to_budget(markdown, budget_chars)
    return PageContent(url=url, title=title, markdown=cut, original_chars=len(markdown), truncated=truncated)


def cut_to_budget(text: str, budget_chars: int) -> tuple[str, bool]:
    """Cut `text` to at most `budget_chars`, at a line break when one is near, saying that it was cut."""
    if budget_chars <= 0 or len(text) <= budget_chars:
        return text, False
    room = max(budget_chars - len(TRUNCATION_NOTE), 0)
    head = text[:room]
    line_end = head.rfind("\n")
    if line_end >= room * 0.8:  # don't throw away more than a fifth to end on a whole line
        head = head[:line_end]
    return (head.rstrip() + TRUNCATION_NOTE)[:budget_chars], True


def _visible_soup(html: str, base: str) -> BeautifulSoup:
    soup = BeautifulSoup(html, "html.parser")
    _remove_non_content(soup, keep_chrome=True)
    _remove_hidden(soup)
    _absolutise(soup, base)
    return soup


def _attr(tag: Tag, name: str) -> str:
    value = tag.get(name)
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


def _remove_non_content(soup: BeautifulSoup, *, keep_chrome: bool = False) -> None:
    for node in soup.find_all(string=True):
        if isinstance(node, Comment | CData | Declaration | Doctype | ProcessingInstruction):
            node.extract()
    for tag in soup.find_all(list(_NON_CONTENT_TAGS)):
        if not tag.decomposed:
            tag.decompose()
    if keep_chrome:
        return
    for tag in soup.find_all(True):
        if not tag.decomposed and _is_chrome(tag):
            tag.decompose()


def _is_chrome(tag: Tag) -> bool:
    if tag.name in _CHROME_TAGS or _attr(tag, "role").strip().lower() in _CHROME_ROLES:
        return True
    if tag.name in ("header", "footer"):
        return tag.find_parent(_SECTIONING) is None
    return False


def _remove_hidden(soup: BeautifulSoup) -> None:
    # Document order: a hidden parent is decomposed before we reach its children.
    for tag in soup.find_all(True):
        if not tag.decomposed and is_hidden(tag):
            tag.decompose()


def is_hidden(tag: Tag) -> bool:
    """Whether the HTML itself hides `tag` from a sighted reader (attributes and inline style)."""
    if tag.has_attr("hidden"):
        return True
    if _attr(tag, "aria-hidden").strip().lower() == "true":
        return True
    if tag.name == "input" and _attr(tag, "type").strip().lower() == "hidden":
        return True
    if tag.name == "dialog" and not tag.has_attr("open"):
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


def _absolutise(soup: BeautifulSoup, base: str) -> None:
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


def _main_root(soup: BeautifulSoup) -> Tag:
    """The element holding the page's main content: <main>, else a dominant <article>, else the body."""
    body = soup.body or soup
    mains = [t for t in body.select('main, [role="main"]') if _text_length(t)]
    if mains:
        return mains[0]
    articles = [t for t in body.find_all("article") if t.find_parent("article") is None and _text_length(t)]
    if len(articles) == 1 and _text_length(articles[0]) >= _ARTICLE_MIN_SHARE * _text_length(body):
        return articles[0]
    return body


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
    markdown = _CONVERTER.convert_soup(root)
    markdown = _TRAILING_SPACE.sub("\n", markdown)
    return _BLANK_RUNS.sub("\n\n", markdown).strip()
