"""One page of a crawl, loaded once in the browser with the crawl's page control, and everything the crawl
wants from it: the result's text formats (markdown, links, html) and the links to discover.

The links are read first, from the whole rendered DOM (a menu hidden until hovered still links to pages of
the site); the Markdown after, from the page with what a reader cannot see removed, as POST /v1/web/markdown
makes it. The screenshot (the viewport as PNG, taken before anything is removed) and the page as the AI
step reads it come back as they are: storing the one and asking the model about the other are the crawl
worker's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webcapture.browser.links import parse_links
from webcapture.browser.page_load import document_validators
from webcapture.browser.page_scripts import EXTRACT_LINKS_JS, REMOVE_INVISIBLE_JS, SERIALIZE_JS
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.content.markdown import html_to_markdown
from webcapture.fastpath.html_links import html_links
from webcapture.fastpath.http_page import NO_VALIDATORS, FetchedPage, Validators
from webcapture.fastpath.page_source import engine_metadata, fetched_for
from webcapture.models.site_requests import CrawlRequest
from webcapture.settings import get_settings
from webcapture.site.page_links import page_links
from webcapture.unicode_text import well_formed


@dataclass(frozen=True)
class CrawledPage:
    final_url: str
    status_code: int | None
    links: list[str]  # every link of the rendered page, absolute, in document order
    data: dict[str, Any] = field(default_factory=dict)  # the result's formats (markdown, links, html)
    warnings: tuple[str, ...] = ()
    screenshot: bytes | None = None  # PNG, with the screenshot format
    visible_html: str | None = None  # what the reader sees, with the json format (ai-extract's input)
    validators: Validators = NO_VALIDATORS
    not_modified: bool = False  # a conditional fetch answered 304: no body, nothing but the status


def _fetched_page(fetched: FetchedPage, depth: int, request: CrawlRequest) -> CrawledPage:
    """The page as the `http` engine read it: the same formats from the HTML as served."""
    formats = set(request.formats)
    links = [url for url, _ in page_links(fetched.html, fetched.final_url).links]
    data: dict[str, Any] = {"url": fetched.final_url, "depth": depth, "statusCode": fetched.status_code,
                            "metadata": engine_metadata("http", fetched.validators)}
    if "links" in formats:
        urls, texts, _ = html_links(fetched.html, fetched.final_url, include_external=True)
        data["links"] = [{"url": link, "text": text} for link, text in zip(urls, texts, strict=True)]
    if "html" in formats:
        data["html"] = fetched.html
    if "markdown" in formats:
        data["markdown"] = html_to_markdown(fetched.html, fetched.final_url,
                                            only_main_content=request.onlyMainContent)
    return CrawledPage(fetched.final_url, fetched.status_code, links, data, fetched.warnings, None,
                       fetched.html if "json" in formats else None, fetched.validators)


def crawl_page(url: str, depth: int, request: CrawlRequest, conditional: Validators | None = None,
               ) -> CrawledPage:
    """`conditional`: the validators an earlier crawl recorded (an incremental crawl's page)."""
    fetched = fetched_for(request, url, conditional=conditional)
    if fetched is not None and fetched.not_modified:
        return CrawledPage(fetched.final_url, 304, [], {"url": fetched.final_url, "depth": depth},
                           validators=conditional or NO_VALIDATORS, not_modified=True)
    if fetched is not None:
        return _fetched_page(fetched, depth, request)
    formats = set(request.formats)
    limit = get_settings().max_html_chars

    def capture(loaded: LoadedPage) -> CrawledPage:
        page = loaded.page
        urls, texts, _ = parse_links(page.evaluate(EXTRACT_LINKS_JS))
        data: dict[str, Any] = {"url": page.url, "depth": depth, "statusCode": loaded.status_code,
                                "metadata": engine_metadata("browser", document_validators(loaded))}
        if "links" in formats:
            data["links"] = [{"url": link, "text": text} for link, text in zip(urls, texts, strict=True)]
        if "html" in formats:
            data["html"] = well_formed(page.content())
        screenshot = page.screenshot(type="png") if "screenshot" in formats else None
        visible: str | None = None
        if "markdown" in formats or "json" in formats:
            page.evaluate(REMOVE_INVISIBLE_JS)
            visible = well_formed(str(page.evaluate(SERIALIZE_JS, limit)["html"]))
        if "markdown" in formats and visible is not None:
            data["markdown"] = html_to_markdown(visible, page.url, only_main_content=request.onlyMainContent)
        return CrawledPage(page.url, loaded.status_code, urls, data, tuple(loaded.warnings), screenshot,
                           visible if "json" in formats else None, document_validators(loaded))

    return with_loaded_page(url, 0, capture, control=request)
