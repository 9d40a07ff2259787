"""One page of a crawl rendered in the browser, with the crawl's page control: the links read first from the
whole rendered DOM (a menu hidden until hovered still links to pages of the site), then the Markdown from the
page with what a reader cannot see removed, as POST /v1/web/markdown makes it; the screenshot (the viewport
as PNG, taken before anything is removed) and the page as the AI step reads it come back as they are.

Only webcapture.site.crawl_page imports this, and only for a page the browser must render: a crawl whose
pages are all fetched never loads the browser's modules (docs/fast-path.md#no-browser-on-the-http-path).
"""

from __future__ import annotations

from typing import Any

from webcapture.browser.links import parse_links
from webcapture.browser.page_load import document_validators
from webcapture.browser.page_scripts import EXTRACT_LINKS_JS, REMOVE_INVISIBLE_JS, SERIALIZE_JS
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.content.markdown import html_to_markdown
from webcapture.fastpath.page_source import engine_metadata
from webcapture.models.site_requests import CrawlRequest
from webcapture.settings import get_settings
from webcapture.site.crawled_page import CrawledPage
from webcapture.unicode_text import well_formed


def rendered_page(url: str, depth: int, request: CrawlRequest) -> CrawledPage:
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
