"""Javadoc's pages (JDK 9 on, known by their generator <meta>), rewritten into the HTML that says what they
mean before the Markdown writer reads them (docs/markdown.md#javadoc).

Javadoc lays a class page out with lists and grids: each summary and detail section is an item of a
`<ul class="summary-list">` (or `details-list`, `member-list`, `blockList` before JDK 16), and since JDK 16
each summary "table" is a CSS grid of `<div>`s (`summary-table three-column-summary`: a header cell per
column, then the cells row by row). Read as they are, a section's heading is written inside a list item and
a summary's cells as one paragraph each, its rows lost. Rewritten, the sections are plain sections and each
grid is the table it draws.
"""

from __future__ import annotations

import re
from typing import Final

from lxml import etree
from lxml.html import HtmlElement

from webcapture.content.html_tree import replace_keeping_tail

_LAYOUT_LISTS: Final = frozenset({"summary-list", "details-list", "member-list", "block-list", "blockList"})
_COLUMNS: Final = re.compile(r"\b(two|three|four)-column-summary\b")
_COUNTS: Final = {"two": 2, "three": 3, "four": 4}
_HEADER_CELL: Final = "table-header"


def rewrite(region: HtmlElement) -> None:
    """Rewrite a Javadoc article region in place (see the module's docstring)."""
    for element in list(region.iter("ul", "div")):
        written = element.get("class") or ""
        if element.tag == "ul" and not _LAYOUT_LISTS.isdisjoint(written.split()):
            _unwrap_list(element)
        elif element.tag == "div" and (columns := _COLUMNS.search(written)) is not None:
            _as_table(element, _COUNTS[columns.group(1)])


def _unwrap_list(layout: HtmlElement) -> None:
    """A list used for layout: its items' contents in its place, in order."""
    for item in list(layout):
        if item.tag == "li":
            item.tag = "div"
    layout.tag = "div"


def _as_table(grid: HtmlElement, columns: int) -> None:
    """A summary grid as a table: its header cells the header row, the other cells rows of `columns`."""
    cells = [child for child in grid if isinstance(child.tag, str)]
    header = [cell for cell in cells if _HEADER_CELL in (cell.get("class") or "").split()]
    body = [cell for cell in cells if cell not in header]
    table = etree.Element("table")
    rows = [header] if header else []
    rows += [body[start:start + columns] for start in range(0, len(body), columns)]
    for number, row in enumerate(rows):
        tr = etree.SubElement(table, "tr")
        for cell in row:
            cell.tag = "th" if header and number == 0 else "td"
            tr.append(cell)
    replace_keeping_tail(grid, [table])
