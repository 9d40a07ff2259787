"""The article region of a documentation page, for the documentation generators we know by their markup.

A generic extractor judges a reference page by its text density and loses what makes it a reference: short
API signatures, tables, code. A generator's layout says exactly where its article is, so on a page we
recognise we keep that region whole and drop only the site's navigation inside it
(docs/markdown.md#main-content-on-documentation-pages).
A page we do not recognise returns None and goes to the generic extractor.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from webcapture.content.html_tree import remove_keeping_tail

# A layout is known by a mark only its generator writes ("class:x", "id:x", "generator:x" for a word of
# its <meta name="generator">), and has its article at the first of these places that the page has.
_SPHINX = ("attr:itemprop=articleBody", "class:bd-article", "attr:role=main", "class:body",
           "id:furo-main-content")
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
    ("class:theme-doc-markdown", ("class:theme-doc-markdown",)),  # Docusaurus
    ("class:md-content__inner", ("class:md-content__inner",)),  # MkDocs Material
    ("class:rustdoc", ("id:main-content",)),  # rustdoc
    ("class:markdown-section", ("class:markdown-section",)),  # GitBook (legacy, HonKit)
    ("class:markdown-body", ("class:markdown-body",)),  # a README on GitHub (or Gitea, Forgejo)
    ("id:apicontent", ("id:apicontent",)),  # Node.js API docs
    ("class:sphinxsidebar", _SPHINX),
    ("class:headerlink", _SPHINX),
)
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
})  # fmt: skip
_GENERATOR_WORD = re.compile(r"[a-z]+")
_NAVIGATION_IDS = frozenset({"toc", "toctitle", "footer", "footer-text", "title", "banner", "column2", "gtoc",
                             "searchbox", "sidebar", "sidebarbutton", "navbar", "header-nav"})
# Links that are the site's, not the article's, said in words.
EDIT_PHRASES = frozenset({
    "edit this page", "edit on github", "edit on gitlab", "show source", "view page source", "view source",
    "improve this page", "suggest changes", "edit page", "report a bug", "page source",
})  # fmt: skip


def docs_article(tree: HtmlElement) -> HtmlElement | None:
    """The article of a documentation page, or None when the page is not from a layout we know.

    Read before the page is pruned: the generator's <meta> is in <head>, which pruning removes. One walk
    over the page notes the first element of every mark; the layouts are then told from those.
    """
    found: dict[str, HtmlElement] = {}
    for element in tree.iter():
        tag = element.tag
        if not isinstance(tag, str):
            continue
        if tag in _TAGS:
            found.setdefault(f"tag:{tag}", element)
        if tag == "meta" and (element.get("name") or "").lower() == "generator":
            for word in _GENERATOR_WORD.findall((element.get("content") or "").lower()):
                found.setdefault(f"generator:{word}", element)
        cls = element.get("class")
        if cls:
            for token in cls.split():
                if token in _CLASSES:
                    found.setdefault(f"class:{token}", element)
        ident = element.get("id")
        if ident in _IDS:
            found.setdefault(f"id:{ident}", element)
        for name, value in _ATTRS:
            if element.get(name) == value:
                found.setdefault(f"attr:{name}={value}", element)
    for rule, places in _LAYOUTS:
        if rule in found:
            for place in places:
                if place in found:
                    return found[place]
    return None


def drop_navigation(region: HtmlElement) -> None:
    """Remove the site's navigation inside an article region: menus, tables of contents, breadcrumbs,
    previous/next links, version pickers, "edit this page"."""
    doomed = []
    for element in region.iter():
        if element is region or not isinstance(element.tag, str):
            continue
        if (
            element.tag == "nav"
            or element.get("role") in ("navigation", "search")
            or not NAVIGATION.isdisjoint((element.get("class") or "").split())
            or element.get("id") in _NAVIGATION_IDS
            or element.tag == "button"
            or (element.tag == "a" and " ".join(element.text_content().split()).lower() in EDIT_PHRASES)
        ):
            doomed.append(element)
    for element in doomed:
        remove_keeping_tail(element)
