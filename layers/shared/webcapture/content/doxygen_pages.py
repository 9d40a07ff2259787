"""Doxygen's pages (API references of C, C++, Python, Fortran code, and manuals written with it), rewritten
into the HTML that says what they mean before the Markdown writer reads them (docs/markdown.md#doxygen).

Doxygen writes for its stylesheet: a page's title is a `<div class="title">`, a code listing is a
`<div class="fragment">` of `<div class="line">`s (line numbers in `<span class="lineno">`), a member
summary is a layout table with its section headings in cells, and a member's prototype is a table of its
parameters. Read as they are, titles become paragraphs, each line of code a paragraph of its own, and
prototypes tables of fragments. Rewritten, they are a heading, a code block, and the signature-and-description
lists the writer already makes of Sphinx's API entries.
"""

from __future__ import annotations

import re
from typing import Final

from lxml import etree
from lxml.html import HtmlElement

from webcapture.content.html_tree import remove_keeping_tail, replace_keeping_tail

# Doxygen's header, menus, tree view, search and breadcrumbs (by id, then by class); what its stylesheet
# hides until a script or a hover shows it (a member's card in a source listing, `ttc`; the decoy letters
# in an e-mail address, `obfuscator`); permalink marks, and the letters and arrows drawn as icons.
_NAVIGATION_IDS: Final = frozenset({"top", "titlearea", "main-nav", "side-nav", "nav-path", "MSearchBox",
                                    "MSearchSelectWindow", "MSearchResultsWindow"})
_NOT_ARTICLE_CLASSES: Final = frozenset({"navpath", "summary", "ingroups", "qindex", "ttc", "obfuscator",
                                         "permalink", "icona", "arrow"})
# A member summary's rows of members inherited from a base class, and the header that expands them.
_INHERITED: Final = frozenset({"inherit", "inherit_header"})
_SIGNATURE: Final = "sig"  # the class the writer reads a definition term as code by (markdown_writer._term)
# The spaces a prototype's table layout leaves: after "(", before ")" and ",", between a name and its "(".
_LAYOUT_SPACES: Final = ((re.compile(r"\(\s+"), "("), (re.compile(r"\s+([),])"), r"\1"),
                         (re.compile(r"(\w)\s+\("), r"\1("))
_MORE = "More..."


def rewrite(region: HtmlElement) -> None:
    """Rewrite a Doxygen article region in place (see the module's docstring)."""
    doomed: list[HtmlElement] = []
    for element in list(region.iter("div", "span", "table", "a")):
        names = set((element.get("class") or "").split())
        if element.get("id") in _NAVIGATION_IDS or not names.isdisjoint(_NOT_ARTICLE_CLASSES):
            doomed.append(element)
        elif element.tag == "a" and (element.text or "").strip() == _MORE:
            doomed.append(element)  # "More..." leads to the details further down the same page
    for element in doomed:
        if element.getparent() is not None:
            remove_keeping_tail(element)
    for element in list(region.iter("div", "table")):
        names = set((element.get("class") or "").split())
        if "title" in names and element.tag == "div":
            element.tag = "h1"
        elif "fragment" in names and element.tag == "div":
            _as_code_block(element)
        elif "memberdecls" in names:
            _member_summary(element)
        elif "memitem" in names:
            _member(element)


def _as_code_block(fragment: HtmlElement) -> None:
    """A fragment's lines as one <pre> (the writer leaves out the `lineno` spans inside it)."""
    fragment.tag = "pre"
    for line in fragment:
        if line.tag == "div":
            line.tag = "span"
            if not (line.tail or "").strip():
                line.tail = "\n"


def _member_summary(table: HtmlElement) -> None:
    """A member summary table: each heading row a heading; each member its signature with its brief
    description, a list entry of its own (members without a description must not share the next one's),
    the signature linked where the name leads to the member's page (a class, a file, a group)."""
    parts: list[HtmlElement] = []
    entry: HtmlElement | None = None
    template = ""
    for row in table.iter("tr"):
        written = (row.get("class") or "").split()
        if not _INHERITED.isdisjoint(written):
            continue  # another class's members, documented on its page (the browser has them collapsed)
        kind = written[0].split(":", 1)[0] if written else ""
        if kind == "heading":
            parts.extend(list(row.iter("h2", "h3", "h4")))
            entry = None
        elif kind == "memitem" and row.find_class("memTemplParams"):
            template = _signature(row) + " "  # the template<...> line of the member on the next row
        elif kind == "memitem":
            entry = etree.Element("dl")
            entry.append(_summary_term(row, template + _signature(row)))
            parts.append(entry)
            template = ""
        elif kind == "memdesc" and entry is not None:
            cells = row.findall("td")
            if cells:
                cells[-1].tag = "dd"
                entry.append(cells[-1])
    replace_keeping_tail(table, parts)


def _summary_term(row: HtmlElement, signature: str) -> HtmlElement:
    """The signature as code, inside a link to the member's own page when its name has one."""
    name = next((link for link in row.iter("a") if "el" in (link.get("class") or "").split()
                 and link.get("href")), None)
    if name is None or "#" in (name.get("href") or ""):
        term = etree.Element("dt", {"class": _SIGNATURE})
        term.text = signature
        return term
    term = etree.Element("dt")
    code = etree.SubElement(etree.SubElement(term, "a", {"href": name.get("href") or ""}), "code")
    code.text = signature
    return term


def _member(item: HtmlElement) -> None:
    """A member's documentation: its prototype as the signature, its text as the description."""
    prototype = item.find_class("memproto")
    documentation = item.find_class("memdoc")
    entry = etree.Element("dl")
    term = etree.SubElement(entry, "dt", {"class": _SIGNATURE})
    term.text = _signature(prototype[0]) if prototype else ""
    if documentation:
        documentation[0].tag = "dd"
        entry.append(documentation[0])
    replace_keeping_tail(item, [entry])


def _signature(element: HtmlElement) -> str:
    """The words of a prototype on one line, without the spaces its table layout puts around ( , )."""
    words = " ".join(element.text_content().split())
    for spaces, written in _LAYOUT_SPACES:
        words = spaces.sub(written, words)
    return words
