"""One page of a crawl, and everything the crawl wants from it: the result's text formats (markdown, links,
html) and the links to discover. The page is fetched over HTTP when the crawl's engine allows it
(webcapture.fastpath) and rendered in the browser otherwise (webcapture.site.crawl_render, imported only
then, so the http path never loads the browser's modules).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from webcapture.content.html_tree import parse_page, tree_links
from webcapture.content.markdown import markdown_and_links
from webcapture.fastpath.html_links import html_links
from webcapture.fastpath.http_page import NO_VALIDATORS, FetchedPage, Validators
from webcapture.fastpath.page_source import RendersNavigation, engine_metadata, fetched_for
from webcapture.models.site_requests import CrawlRequest
from webcapture.site.crawled_page import CrawledPage


def body_hash(request: CrawlRequest, html: str) -> str:
    """The served HTML with what shapes the page's outputs from it: two equal hashes give equal outputs."""
    shape = json.dumps([sorted(request.formats), request.onlyMainContent], separators=(",", ":"))
    return hashlib.sha256(f"{shape}\n{html}".encode("utf-8", "surrogatepass")).hexdigest()


def _fetched_page(fetched: FetchedPage, depth: int, request: CrawlRequest, digest: str) -> CrawledPage:
    """The page as the `http` engine read it: the same formats from the HTML as served."""
    formats = set(request.formats)
    # One parse of the page: its links for discovery are read from the tree the Markdown step then prunes.
    if "markdown" in formats:
        markdown, links = markdown_and_links(fetched.html, fetched.final_url,
                                             only_main_content=request.onlyMainContent)
    else:
        links = tree_links(parse_page(fetched.html), fetched.final_url)
    data: dict[str, Any] = {"url": fetched.final_url, "depth": depth, "statusCode": fetched.status_code,
                            "metadata": engine_metadata("http", fetched.validators)}
    if "links" in formats:
        urls, texts, _ = html_links(fetched.html, fetched.final_url, include_external=True)
        data["links"] = [{"url": link, "text": text} for link, text in zip(urls, texts, strict=True)]
    if "html" in formats:
        data["html"] = fetched.html
    if "markdown" in formats:
        data["markdown"] = markdown
    return CrawledPage(fetched.final_url, fetched.status_code, links, data, fetched.warnings, None,
                       fetched.html if "json" in formats else None, fetched.validators, body_hash=digest)


def crawl_page(url: str, depth: int, request: CrawlRequest, conditional: Validators | None = None,
               earlier_body: str | None = None, renders_navigation: RendersNavigation | None = None,
               ) -> CrawledPage:
    """`conditional`, `earlier_body`: the validators and the body_hash an earlier crawl recorded (an
    incremental crawl's page). A body whose hash is the earlier one's is not converted again: the page
    is `unchanged`, with its links only (its outputs would be the earlier ones). `renders_navigation`:
    the crawl's answer to which page renders a navigation a script builds (site.navigation_renders)."""
    page = fetched_crawl_page(url, depth, request, conditional, earlier_body, renders_navigation)
    if page is not None:
        return page
    from webcapture.site.crawl_render import rendered_page  # the browser's modules, only when one renders

    return rendered_page(url, depth, request)


def fetched_crawl_page(url: str, depth: int, request: CrawlRequest, conditional: Validators | None = None,
                       earlier_body: str | None = None, renders_navigation: RendersNavigation | None = None,
                       ) -> CrawledPage | None:
    """crawl_page when the page is answered from its fetch; None when the browser must render it."""
    fetched = fetched_for(request, url, conditional=conditional, renders_navigation=renders_navigation)
    if fetched is None:
        return None
    if fetched.not_modified:
        return CrawledPage(fetched.final_url, 304, [], {"url": fetched.final_url, "depth": depth},
                           validators=conditional or NO_VALIDATORS, not_modified=True)
    digest = body_hash(request, fetched.html)
    if digest == earlier_body:
        return CrawledPage(fetched.final_url, fetched.status_code,
                           tree_links(parse_page(fetched.html), fetched.final_url),
                           {"url": fetched.final_url, "depth": depth}, validators=fetched.validators,
                           body_hash=digest, unchanged=True)
    return _fetched_page(fetched, depth, request, digest)
