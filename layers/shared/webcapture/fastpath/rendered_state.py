"""What a known generator's script or stylesheet hides on the rendered page, hidden on the fetched HTML
(docs/fast-path.md#what-a-known-script-or-stylesheet-hides), so the fast path reads the page as the browser
shows it.

A browser drops what is hidden once the page has loaded (hidden text never reaches the Markdown). The fast
path runs no script and reads no stylesheet, so a page that hides part of itself would read longer over
HTTP than rendered. Where the generator and its markup are known, the hidden part gets an inline
`display: none`, as the script writes it on the DOM, and every later step (visibility, main content,
Markdown, links) treats it as it treats the rendered page:

- Sphinx's collapsed domain index (`py-modindex.html` with `modindex_collapse`, the Python docs' one): the
  page sets `DOCUMENTATION_OPTIONS.COLLAPSE_INDEX = true`, and doctools.js then hides the rows of each
  collapsible group (`<tr class="cg-N">`, after the toggler `<img id="toggle-N">`) until a click opens it.
- Django's console tabs (its docs' `console` directive): each example is written twice, for Linux and
  macOS and for Windows, in `<section class="c-content-unix|win" id="c-content-N-...">` after a radio
  button per tab (`<input class="c-tab-..." id="c-tab-N-..." ... checked>`); its stylesheet shows only
  the checked tab's section.
- Haddock's stylesheet (linuwial.css, the theme every Haddock ships) hides the description's label and
  the labels of a function's arguments and of a record's fields, and, once its script has run, the
  "Instance details" summaries (`hide-when-js-enabled`).
- mdBook's hidden lines: a Rust example's lines a book marks as setup (`<span class="boring">`, the `# `
  lines of its source) are shown only when the reader asks (book.js adds `hide-boring` to each such block,
  and the stylesheet hides them there).
"""

from __future__ import annotations

import re
from typing import Final

_SPHINX_COLLAPSED: Final = re.compile(r"DOCUMENTATION_OPTIONS\.COLLAPSE_INDEX\s*=\s*true")
_SPHINX_TOGGLER: Final = re.compile(r"<img\b[^>]*\bclass=\"toggler\"[^>]*>")
_TOGGLER_ID: Final = re.compile(r"\bid=\"toggle-(\d+)\"")
_GROUP_ROW: Final = re.compile(r"<tr class=\"cg-(\d+)\">")
_CONSOLE_TAB: Final = re.compile(r"<input class=\"c-tab-([a-z]+)\" id=\"c-tab-(\d+)-\1\" type=\"radio\""
                                 r" name=\"console-\2\"( checked)?>")
_CONSOLE_SECTION: Final = re.compile(r"<section class=\"c-content-([a-z]+)\" id=\"c-content-(\d+)-\1\">")
_HADDOCK: Final = '<div id="package-header">'  # Haddock's page header
_HADDOCK_HIDDEN: Final = re.compile(r'(?<=<div id="description">)<p class="caption">'
                                    r'|(?<=<div class="subs arguments">)<p class="caption">'
                                    r'|(?<=<div class="subs fields">)<p class="caption">'
                                    r'|<summary class="hide-when-js-enabled">')
_MDBOOK: Final = 'id="menu-bar-hover-placeholder"'  # a mark only mdBook's page template writes
_MDBOOK_BORING: Final = '<span class="boring">'


def as_rendered(html: str) -> str:
    """The page as its known scripts and stylesheets show it; the HTML itself when none of them is on it."""
    if "COLLAPSE_INDEX" in html and _SPHINX_COLLAPSED.search(html):
        html = _sphinx_index_collapsed(html)
    if "console-block" in html:
        html = _django_console_tabs(html)
    if _HADDOCK in html:
        html = _HADDOCK_HIDDEN.sub(lambda tag: tag.group(0)[:-1] + ' style="display: none">', html)
    if _MDBOOK_BORING in html and _MDBOOK in html:
        html = html.replace(_MDBOOK_BORING, '<span class="boring" style="display: none">')
    return html


def _sphinx_index_collapsed(html: str) -> str:
    """doctools.js's initDomainIndexTable with COLLAPSE_INDEX: the rows of each toggler's group hidden."""
    groups = {found.group(1) for tag in _SPHINX_TOGGLER.findall(html)
              if (found := _TOGGLER_ID.search(tag)) is not None}
    if not groups:
        return html

    def hidden(row: re.Match[str]) -> str:
        if row.group(1) not in groups:
            return row.group(0)
        return f'<tr class="cg-{row.group(1)}" style="display: none">'

    return _GROUP_ROW.sub(hidden, html)


def _django_console_tabs(html: str) -> str:
    """console-tabs.css: of each block's sections, only the checked tab's is shown."""
    unchecked = {(tab.group(2), tab.group(1)) for tab in _CONSOLE_TAB.finditer(html) if not tab.group(3)}
    if not unchecked:
        return html

    def hidden(section: re.Match[str]) -> str:
        kind, block = section.group(1), section.group(2)
        if (block, kind) not in unchecked:
            return section.group(0)
        return f'<section class="c-content-{kind}" id="c-content-{block}-{kind}" style="display: none">'

    return _CONSOLE_SECTION.sub(hidden, html)
