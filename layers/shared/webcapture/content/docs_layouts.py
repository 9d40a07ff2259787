"""The article region of a documentation page, for the documentation generators we know by their markup.

A generic extractor judges a reference page by its text density and loses what makes it a reference: short
API signatures, tables, code. A generator's layout says exactly where its article is, so on a page we
recognise we keep that region whole and drop only the site's navigation inside it
(docs/markdown.md#main-content-on-documentation-pages).
A page we do not recognise returns None and goes to the generic extractor.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from lxml import etree
from lxml.html import HtmlElement

from webcapture.content import doxygen_pages, erlang_pages, haddock_pages, javadoc_pages, texinfo_pages
from webcapture.content.html_tree import remove_keeping_tail

# A layout is known by a mark only its generator writes ("class:x", "id:x", "generator:x" for a word of
# its <meta name="generator">), and has its article at the first of these places that the page has.
_SPHINX = ("attr:itemprop=articleBody", "class:bd-article", "attr:role=main", "class:body",
           "id:furo-main-content", "id:yui-main")  # yui-main: Django's theme (YUI grids)
_DOXYGEN = ("id:doc-content", "tag:body")  # the tree view's article pane, else the page less its header
_LAYOUTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("generator:sphinx", _SPHINX),
    ("generator:mkdocs", ("class:md-content__inner", "attr:role=main")),
    ("generator:docusaurus", ("class:theme-doc-markdown", "class:markdown")),
    ("generator:gitbook", ("class:markdown-section", "tag:main")),
    ("generator:rustdoc", ("id:main-content",)),
    ("generator:javadoc", ("tag:main", "class:contentContainer", "tag:body")),
    ("generator:docbook", ("tag:body",)),
    ("generator:asciidoc", ("tag:body",)),  # AsciiDoc and Asciidoctor: title in #header, article in #content
    ("generator:publican", ("tag:body",)),
    ("generator:doxygen", _DOXYGEN),
    ("generator:makeinfo", ("tag:body",)),  # Texinfo before 7
    ("generator:texi", ("tag:body",)),  # Texinfo 7 writes "texi2any", whose words are "texi" and "any"
    ("class:theme-doc-markdown", ("class:theme-doc-markdown",)),  # Docusaurus
    ("class:md-content__inner", ("class:md-content__inner",)),  # MkDocs Material
    ("class:rustdoc", ("id:main-content",)),  # rustdoc
    ("class:markdown-section", ("class:markdown-section",)),  # GitBook (legacy, HonKit)
    ("class:markdown-body", ("class:markdown-body",)),  # a README on GitHub (or Gitea, Forgejo)
    ("id:apicontent", ("id:apicontent",)),  # Node.js API docs
    ("id:menu-bar-hover-placeholder", ("tag:main",)),  # mdBook
    ("id:package-header", ("id:content",)),  # Haddock
    ("class:title-anchors", ("id:content",)),  # Erlang/OTP (erl_docgen)
    ("class:sphinxsidebar", _SPHINX),
    ("class:headerlink", _SPHINX),
    ("class:headertitle", _DOXYGEN),  # Doxygen before 1.8.0 wrote no generator <meta>
)
# Layouts whose article is rewritten before the writer reads it, by the rule that found them.
_REWRITES = {"generator:doxygen": doxygen_pages.rewrite, "class:headertitle": doxygen_pages.rewrite,
             "generator:javadoc": javadoc_pages.rewrite, "generator:makeinfo": texinfo_pages.rewrite,
             "generator:texi": texinfo_pages.rewrite, "id:package-header": haddock_pages.rewrite,
             "class:title-anchors": erlang_pages.rewrite}
_MARKS = frozenset(mark for rule, places in _LAYOUTS for mark in (rule, *places))
_CLASSES = frozenset(mark[6:] for mark in _MARKS if mark.startswith("class:"))
_IDS = frozenset(mark[3:] for mark in _MARKS if mark.startswith("id:"))
_TAGS = frozenset(mark[4:] for mark in _MARKS if mark.startswith("tag:"))
_ATTRS = tuple(mark[5:].split("=", 1) for mark in _MARKS if mark.startswith("attr:"))


# Navigation a documentation layout puts around or inside its article, by class or id.
NAVIGATION = frozenset({
    # Sphinx (basic, alabaster, Read the Docs, pydata, furo, the Python docs)
    "sphinxsidebar", "related", "rst-footer-buttons", "wy-breadcrumbs", "wy-nav-side", "rst-versions",
    "prev-next-area", "prev-next-footer", "bd-sidebar-primary", "bd-sidebar-secondary", "bd-header-article",
    "bd-footer-article", "bd-breadcrumbs", "related-pages", "toc-drawer", "sidebar-drawer", "bottom-of-page",
    "content-icon-container", "edit-this-page", "mobile-nav", "version_switcher_placeholder",
    "language_switcher_placeholder", "this-page-menu",
    # MkDocs Material
    "md-sidebar", "md-footer", "md-source-file", "md-content__button", "md-header", "md-tabs", "md-top",
    # Docusaurus
    "theme-doc-breadcrumbs", "theme-doc-footer", "theme-doc-toc-mobile", "theme-doc-toc-desktop",
    "theme-edit-this-page", "pagination-nav", "theme-doc-version-badge", "theme-doc-version-banner",
    "theme-doc-footer-edit-meta-row", "theme-last-updated",
    # rustdoc, javadoc, GitBook
    "rustdoc-breadcrumbs", "out-of-band", "sub-nav", "subNav", "topNav", "bottomNav", "top-nav", "bottom-nav",
    "navPadding", "page-footer", "navigation",
    # DocBook, Publican, AsciiDoc, Node.js
    "navheader", "navfooter", "docnav", "toc", "toctitle", "footer", "footer-text", "gtoc", "toc-picker",
    "picker", "breadcrumb", "breadcrumbs", "version-switcher", "version-picker",
    # The controls a script puts on code blocks (the Python docs' copybutton.js, sphinx-copybutton): not in
    # the served page, so a rendered page would otherwise read ">>>" above each example
    "copybutton", "copybtn",
})  # fmt: skip
_GENERATOR_WORD = re.compile(r"[a-z]+")
_NAVIGATION_IDS = frozenset({"toc", "toctitle", "footer", "footer-text", "title", "banner", "column2", "gtoc",
                             "searchbox", "sidebar", "sidebarbutton", "navbar", "header-nav"})
# Links that are the site's, not the article's, said in words.
EDIT_PHRASES = frozenset({
    "edit this page", "edit on github", "edit on gitlab", "show source", "view page source", "view source",
    "improve this page", "suggest changes", "edit page", "report a bug", "page source",
})  # fmt: skip


class DocsArticle(NamedTuple):
    region: HtmlElement  # the article
    navigation: list[HtmlElement]  # the page's elements whose class, id or role says navigation
    layout: str = ""  # the mark the layout was known by


def docs_article(tree: HtmlElement) -> DocsArticle | None:
    """The article of a documentation page, or None when the page is not from a layout we know.

    Read before the page is pruned: the generator's <meta> is in <head>, which pruning removes. The first
    element of every mark is noted (tags and attributes found in C, classes by one walk that reads each
    distinct class attribute once); the layouts are then told from those. The same walk notes the
    navigation that drop_navigation removes, so the article is not walked again for it.
    """
    found: dict[str, HtmlElement] = {}
    navigation: list[HtmlElement] = []
    for tag in _TAGS:
        first = next(tree.iter(tag), None)
        if first is not None:
            found[f"tag:{tag}"] = first
    for element in tree.iter("meta"):
        if (element.get("name") or "").lower() == "generator":
            for word in _GENERATOR_WORD.findall((element.get("content") or "").lower()):
                found.setdefault(f"generator:{word}", element)
    attributes = {name: find(tree) for name, find in _ATTRIBUTE_VALUES.items()}
    for ident in attributes["id"]:
        if ident in _IDS:
            found.setdefault(f"id:{ident}", ident.getparent())
        if ident in _NAVIGATION_IDS:
            navigation.append(ident.getparent())
    for role in attributes["role"]:
        if role in ("navigation", "search"):
            navigation.append(role.getparent())
    for name, value in _ATTRS:
        for written in attributes[name]:
            if written == value:
                found.setdefault(f"attr:{name}={value}", written.getparent())
                break
    navigation_classes: dict[str, bool] = {}  # a page repeats the same few class attributes
    for element in tree.iter():
        cls = element.get("class")
        if not cls:
            continue
        if cls not in navigation_classes:  # its first element: the first for each of its marks too
            navigation_classes[cls] = not NAVIGATION.isdisjoint(cls.split())
            for token in cls.split():
                if token in _CLASSES:
                    found.setdefault(f"class:{token}", element)
        if navigation_classes[cls]:
            navigation.append(element)
    for rule, places in _LAYOUTS:
        if rule in found:
            for place in places:
                if place in found:
                    return DocsArticle(found[place], navigation, rule)
    return None


# Attribute values in document order, each with its element (getparent): searches in C, where a Python
# test of every element of a large page cost more than the rest of the step.
_ATTRIBUTE_VALUES = {name: etree.XPath(f"descendant-or-self::*/@{name}")
                     for name in {"id", "role", *(name for name, _ in _ATTRS)}}
# A link whose words are an edit phrase has at least as many characters as the shortest phrase.
_LONG_ENOUGH_LINKS = etree.XPath(f"descendant::a[string-length() >= {min(map(len, EDIT_PHRASES))}]")


# The labels of Django's console example tabs (an icon each, for Linux and macOS, and for Windows): buttons.
_TAB_LABELS = etree.XPath("descendant::div[contains(concat(' ', @class, ' '), ' console-block ')]/label")


def drop_navigation(article: DocsArticle) -> None:
    """Remove the site's navigation inside an article region: menus, tables of contents, breadcrumbs,
    previous/next links, version pickers, "edit this page". The article may have been cut and pruned
    since docs_article found it: what it noted counts only where it is still inside the region."""
    region = article.region
    doomed: dict[HtmlElement, None] = dict.fromkeys(region.iter("nav", "button"))
    doomed.update(dict.fromkeys(_TAB_LABELS(region)))
    for element in article.navigation:
        if any(ancestor is region for ancestor in element.iterancestors()):
            doomed[element] = None
    for link in _LONG_ENOUGH_LINKS(region):
        if " ".join(link.text_content().split()).lower() in EDIT_PHRASES:
            doomed[link] = None
    doomed.pop(region, None)
    for element in doomed:  # what is removed does not depend on the order of removal
        remove_keeping_tail(element)


def rewrite_article(article: DocsArticle) -> None:
    """Rewrite the article into the HTML that says what it means, where its layout writes for its
    stylesheet instead (doxygen_pages, javadoc_pages); other layouts are read as they are."""
    rewrite = _REWRITES.get(article.layout)
    if rewrite is not None:
        rewrite(article.region)
