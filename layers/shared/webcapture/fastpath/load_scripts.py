"""What a generator's own script does to its page as the page loads, done to the fetched HTML where the
script is known (docs/fast-path.md#what-a-known-script-does-at-load), so the fast path reads the page as
the browser shows it.

A browser runs the page's scripts and then drops what they hid (hidden text never reaches the Markdown).
The fast path runs no script, so a page whose script hides part of it at load would read longer over HTTP
than rendered. Where the generator and its script are known, what the script does is written on the HTML
as the script writes it on the DOM (an inline `display: none`), and every later step (visibility, main
content, Markdown, links) treats it as it treats the rendered page.

- Sphinx's collapsed domain index (`py-modindex.html` with `modindex_collapse`, the Python docs' one):
  the page sets `DOCUMENTATION_OPTIONS.COLLAPSE_INDEX = true`, and doctools.js then hides the rows of each
  collapsible group (`<tr class="cg-N">`, after the toggler `<img id="toggle-N">`) until a click opens it.
"""

from __future__ import annotations

import re
from typing import Final

_SPHINX_COLLAPSED: Final = re.compile(r"DOCUMENTATION_OPTIONS\.COLLAPSE_INDEX\s*=\s*true")
_SPHINX_TOGGLER: Final = re.compile(r"<img\b[^>]*\bclass=\"toggler\"[^>]*>")
_TOGGLER_ID: Final = re.compile(r"\bid=\"toggle-(\d+)\"")
_GROUP_ROW: Final = re.compile(r"<tr class=\"cg-(\d+)\">")


def as_loaded(html: str) -> str:
    """The page as its known load-time scripts leave it; the HTML itself when none of them is on it."""
    if "COLLAPSE_INDEX" in html and _SPHINX_COLLAPSED.search(html):
        return _sphinx_index_collapsed(html)
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
