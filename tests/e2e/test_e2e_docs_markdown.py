"""A real documentation page (Sphinx's own, from Debian's sphinx-doc package) through POST /v1/web/markdown:
rendered by a CommonMark renderer, the Markdown gives back the page's code spans, code blocks (with their
languages) and table cells (docs/markdown.md)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from lxml.html import HtmlElement, document_fromstring, fragment_fromstring
from markdown_it import MarkdownIt

from tests.support.api_answers import assert_success
from tests.support.local_api import LocalApi

SPHINX_DOCS = Path("/usr/share/doc/sphinx-doc/html")  # apt: sphinx-doc (.ci/run installs it)
PAGE = "extdev/appapi.html"  # API reference: signatures, tables, code
_SPACE = re.compile(r"\s+")


def norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def docs_site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(SPHINX_DOCS)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def structure(article: HtmlElement) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Inline code texts, code blocks (text, language) and table cells, in document order."""
    spans = [norm(code.text_content()) for code in article.iter("code")
             if not any(a.tag in ("pre", "code") for a in code.iterancestors()) and norm(code.text_content())]
    blocks = []
    for pre in article.iter("pre"):
        language = ""
        for element in (*pre.iterchildren("code"), *list(pre.iterancestors())[:2]):
            for token in (element.get("class") or "").split():
                if token.startswith(("language-", "highlight-")) and not token.endswith(("-default", "-none")):
                    language = token.split("-", 1)[1]
        blocks.append((norm(pre.text_content()), language))
    cells = [norm(cell.text_content()) for cell in article.iter("td", "th")]
    return spans, blocks, cells


def test_a_sphinx_page_renders_back_to_its_code_spans_code_blocks_and_table_cells(
    local_api: LocalApi, docs_site: str
) -> None:
    url = docs_site + PAGE
    data = assert_success(local_api.call("POST", "/v1/web/markdown", json={"url": url}), 1)["data"]
    rendered = fragment_fromstring(
        MarkdownIt("commonmark").enable("table").render(data["markdown"]), create_parent="div"
    )
    source = document_fromstring((SPHINX_DOCS / PAGE).read_bytes())
    article = source.xpath("//div[@role='main']")[0]
    for permalink in article.xpath(".//a[@class='headerlink']"):  # hidden until hovered: not page text
        permalink.drop_tree()
    spans, blocks, cells = structure(article)
    got_spans, got_blocks, got_cells = structure(rendered)
    assert len(spans) > 100 and len(blocks) > 5 and len(cells) > 20  # the page has what is checked
    # An API signature (<dt class="sig">) is code too: it comes back as a code span of its own.
    signatures = {norm(dt.text_content()) for dt in article.xpath(".//dt[contains(@class,'sig')]")}
    assert len(signatures) > 20
    assert [span for span in got_spans if span not in signatures] == spans
    assert got_blocks == blocks
    assert got_cells == cells
    assert data["metadata"]["title"].startswith("Application API")
    assert "Quick search" not in data["markdown"] and "Table of Contents" not in data["markdown"]
