"""The markdown, content and PDF cores (docs/api.md#more-outputs) against real Chromium and the loopback
fixture pages."""

from __future__ import annotations

import re
import zlib

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser.page_load import load_page
from webcapture.browser.pdf import count_pages, print_pdf
from webcapture.browser.rendered_html import rendered_html
from webcapture.content.markdown import html_to_markdown
from webcapture.errors import RequestValidationError
from webcapture.models.requests import ContentRequest, PdfRequest

pytestmark = pytest.mark.usefixtures("egress_allows_fixtures")

# Paper sizes in PDF points (1/72 in); Chromium's MediaBox is within a point or two (it works in pixels).
A4_POINTS = (595, 842)
LETTER_LANDSCAPE_POINTS = (792, 612)


def media_boxes(document: bytes) -> list[tuple[int, int]]:
    boxes = re.findall(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", document)
    return [(round(float(w)), round(float(h))) for w, h in boxes]


def about(boxes: list[tuple[int, int]], size: tuple[int, int]) -> bool:
    return bool(boxes) and all(abs(w - size[0]) <= 2 and abs(h - size[1]) <= 2 for w, h in boxes)


# rgb(255, 230, 200), printable.html's background, as a PDF fill colour operator.
BACKGROUND_FILL = b"1 .902 .7843 rg"


def drawing(document: bytes) -> bytes:
    """The page content streams of a PDF, inflated."""
    streams = re.findall(rb"stream\r?\n(.*?)\r?\nendstream", document, re.DOTALL)
    inflated = []
    for stream in streams:
        try:
            inflated.append(zlib.decompress(stream))
        except zlib.error:  # not deflated (or not a content stream): taken as it is
            inflated.append(stream)
    return b"\n".join(inflated)


def test_markdown_main_content_drops_chrome_and_hidden(fixture_server: FixtureHttpServer) -> None:
    page = load_page(fixture_server.url("/scripted.html"), 0)
    markdown = html_to_markdown(page.html, page.final_url, only_main_content=True)
    assert markdown.startswith("# Static heading")
    assert "Written by JavaScript" in markdown  # the rendered DOM, not the HTML the server sent
    for absent in ("Home menu", "Footer words", "Hidden by a stylesheet", "document.createElement"):
        assert absent not in markdown
    assert page.title == "After scripts"


def test_markdown_whole_page_keeps_chrome_not_hidden(fixture_server: FixtureHttpServer) -> None:
    page = load_page(fixture_server.url("/scripted.html"), 0)
    markdown = html_to_markdown(page.html, page.final_url, only_main_content=False)
    assert f"[Home menu]({fixture_server.url('/home')})" in markdown  # links made absolute
    assert "Footer words" in markdown and "Written by JavaScript" in markdown
    assert "Hidden by a stylesheet" not in markdown and "document.createElement" not in markdown
    assert markdown.index("Home menu") < markdown.index("Static heading") < markdown.index("Footer words")


def test_content_is_the_dom_after_scripts(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/scripted.html")
    page = rendered_html(ContentRequest.model_validate({"url": url}))
    assert '<p id="made-by-script">Written by JavaScript</p>' in page.html
    assert "<title>After scripts</title>" in page.html and page.title == "After scripts"
    # Nothing pruned: the hidden paragraph and the script itself are part of the DOM.
    assert "Hidden by a stylesheet" in page.html and "document.createElement" in page.html
    assert page.html.startswith("<!DOCTYPE html>")
    assert (page.final_url, page.status_code, page.requested_url) == (url, 200, url)


def test_content_of_a_404_page_has_its_status(fixture_server: FixtureHttpServer) -> None:
    page = rendered_html(ContentRequest.model_validate({"url": fixture_server.url("/missing")}))
    assert page.status_code == 404 and "<h1>" in page.html


def pdf_of(url: str, **options: object) -> tuple[bytes, int]:
    pdf = print_pdf(PdfRequest.model_validate({"url": url, "pdfOptions": options}))
    assert pdf.document.startswith(b"%PDF-") and pdf.size == len(pdf.document)
    return pdf.document, pdf.pages


def test_pdf_prints_every_page_in_a4(fixture_server: FixtureHttpServer) -> None:
    document, pages = pdf_of(fixture_server.url("/printable.html"))
    assert pages == 3 == count_pages(document)
    boxes = media_boxes(document)
    assert len(boxes) == 3 and about(boxes, A4_POINTS)


def test_pdf_options_reach_chromium(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/printable.html")
    document, pages = pdf_of(url, format="Letter", landscape=True, pageRanges="2-3")
    boxes = media_boxes(document)
    assert pages == 2 == len(boxes) and about(boxes, LETTER_LANDSCAPE_POINTS)
    for ranges, expected in (("1", 1), ("2-", 2), ("-2", 2), ("3, 1", 2), ("2-9", 2)):  # capped at the end
        assert pdf_of(url, pageRanges=ranges)[1] == expected, ranges


def test_pdf_print_background(fixture_server: FixtureHttpServer) -> None:
    """The page's background colour is painted by default, and left out with printBackground false."""
    url = fixture_server.url("/printable.html")
    with_background, _ = pdf_of(url, pageRanges="1")
    without_background, _ = pdf_of(url, pageRanges="1", printBackground=False)
    assert BACKGROUND_FILL in drawing(with_background)
    assert BACKGROUND_FILL not in drawing(without_background)


def test_pdf_page_range_beyond_the_document_is_the_callers_fault(fixture_server: FixtureHttpServer) -> None:
    with pytest.raises(RequestValidationError) as raised:
        pdf_of(fixture_server.url("/printable.html"), pageRanges="5-6")
    assert raised.value.issues[0]["path"] == ["pdfOptions", "pageRanges"]


def test_pdf_scale_and_margins_change_the_layout(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/tall.html")
    _, normal = pdf_of(url)
    _, smaller = pdf_of(url, scale=0.5)
    _, wide_margins = pdf_of(url, margin={"top": "8cm", "bottom": "8cm"})
    assert smaller < normal < wide_margins


def test_half_a_character_in_the_page_survives_as_a_string(fixture_server: FixtureHttpServer) -> None:
    """JavaScript strings may hold a lone surrogate; the cores hand them over as Python got them."""
    page = rendered_html(ContentRequest.model_validate({"url": fixture_server.url("/surrogate.html")}))
    assert "before \ud83d after" in page.html and page.title == "Half \ude80 a character"
