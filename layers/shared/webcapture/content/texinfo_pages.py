"""Texinfo's HTML (makeinfo, texi2any: the GNU manuals, one page or one page per node), known by its
generator <meta>: its article is the page's body, less the navigation Texinfo writes inside it
(docs/markdown.md#texinfo).

Texinfo puts a line of links to the next, previous and parent nodes at the head of each node
(`<div class="header">`, `<div class="nav-panel">` since Texinfo 7), a rule between nodes, and, in an
index, a row of jump-to letters above and below it. None of it is the manual's text. The header's class,
"header", is content elsewhere (Doxygen's and Javadoc's titles stand in one), so these are dropped here, by
this layout, rather than by the navigation every layout shares. A node's menu of its subsections and the
table of contents are kept: they are the manual's outline, as a Sphinx toctree is, and a node that is only a
menu would otherwise read as its heading alone.
"""

from __future__ import annotations

from typing import Final

from lxml.html import HtmlElement

from webcapture.content.html_tree import remove_keeping_tail

_NODE_LINKS: Final = frozenset({"header", "nav-panel"})
# Texinfo 7's index letter rows: `<table class="cp-letters-header-printindex">` and a footer alike.
_LETTER_ROWS: Final = ("-letters-header-printindex", "-letters-footer-printindex")


def rewrite(region: HtmlElement) -> None:
    """Drop Texinfo's navigation from an article region in place (see the module's docstring)."""
    doomed: list[HtmlElement] = []
    for element in region.iter("div", "table", "hr"):
        if _is_navigation(element):
            doomed.append(element)
    for element in doomed:
        remove_keeping_tail(element)


def _is_navigation(element: HtmlElement) -> bool:
    if element.tag == "hr":  # the rule Texinfo puts between nodes: a manual cannot write one
        return True
    classes = (element.get("class") or "").split()
    if element.tag == "div":
        return not _NODE_LINKS.isdisjoint(classes)
    return _is_letter_row(element, classes)


def _is_letter_row(table: HtmlElement, classes: list[str]) -> bool:
    """An index's jump-to letters: Texinfo 7's by class; before it, a table of `a.summary-letter` links."""
    if any(name.endswith(_LETTER_ROWS) for name in classes):
        return True
    return any("summary-letter" in (link.get("class") or "") for link in table.iter("a"))
