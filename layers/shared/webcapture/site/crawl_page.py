"""One page of a crawl, and everything the crawl wants from it: the result's text formats (markdown, links,
html) and the links to discover. The page is fetched over HTTP when the crawl's engine allows it
(webcapture.fastpath) and rendered in the browser otherwise (webcapture.site.crawl_render, imported only
then, so the http path never loads the browser's modules).
"""

from __future__ import annotations

from typing import Any

from webcapture.content.markdown import html_to_markdown
from webcapture.content.page_links import page_links
from webcapture.fastpath.html_links import html_links
from webcapture.fastpath.http_page import NO_VALIDATORS, FetchedPage, Validators
from webcapture.fastpath.page_source import engine_metadata, fetched_for
from webcapture.models.site_requests import CrawlRequest
from webcapture.site.crawled_page import CrawledPage


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
    from webcapture.site.crawl_render import rendered_page  # the browser's modules, only when one renders

    return rendered_page(url, depth, request)
