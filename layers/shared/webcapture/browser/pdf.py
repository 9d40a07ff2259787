"""The PDF core (docs/api.md#more-outputs): Chromium's own print to PDF, with the request's pdfOptions.

Playwright's page.pdf prints with the `print` media type, as a browser's print dialog does. A page range
past the document's last page is only known once the page is laid out; it is the caller's input at fault, so
it is answered as a 422 on `pdfOptions.pageRanges` (the credit is refunded as for every failure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import PdfMargins

from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.errors import RequestValidationError
from webcapture.models.requests import PdfOptions, PdfRequest

CONTENT_TYPE = "application/pdf"

# A page object of the page tree: `/Type /Page`, not the `/Type /Pages` nodes above the pages.
_PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![A-Za-z0-9])")


@dataclass(frozen=True)
class Pdf:
    document: bytes
    pages: int
    format: str
    final_url: str
    status_code: int | None
    requested_url: str
    title: str
    # page control's (docs/api.md#page-control): data.warning / X-Webcapture-Warning
    warnings: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        return len(self.document)


def count_pages(document: bytes) -> int:
    """Pages of a PDF as Chromium writes it (Skia: plain objects, no object streams), by its page objects.

    A full PDF parser would be a dependency for one number; Chromium's output is the only input here.
    """
    return len(_PAGE_OBJECT.findall(document))


def _margins(options: PdfOptions) -> PdfMargins:
    margins = PdfMargins()
    if options.margin.top is not None:
        margins["top"] = options.margin.top
    if options.margin.right is not None:
        margins["right"] = options.margin.right
    if options.margin.bottom is not None:
        margins["bottom"] = options.margin.bottom
    if options.margin.left is not None:
        margins["left"] = options.margin.left
    return margins


def _print(loaded: LoadedPage, options: PdfOptions) -> bytes:
    try:
        return loaded.page.pdf(
            format=options.format,
            landscape=options.landscape,
            print_background=options.printBackground,
            scale=options.scale,
            margin=_margins(options),
            page_ranges=options.pageRanges or "",
            prefer_css_page_size=options.preferCSSPageSize,
        )
    except PlaywrightError as exc:
        if "page range" in exc.message.lower():
            raise RequestValidationError([{
                "code": "custom", "path": ["pdfOptions", "pageRanges"],
                "message": "The page ranges are outside the printed document's pages",
            }]) from exc
        raise


def print_pdf(request: PdfRequest) -> Pdf:
    def capture(loaded: LoadedPage) -> Pdf:
        document = _print(loaded, request.pdfOptions)
        return Pdf(
            document=document,
            pages=count_pages(document),
            format=request.pdfOptions.format,
            final_url=loaded.page.url,
            status_code=loaded.status_code,
            requested_url=request.url,
            title=loaded.page.title(),
            warnings=tuple(loaded.warnings),
        )

    return with_loaded_page(request.url, request.waitTime, capture, control=request)
