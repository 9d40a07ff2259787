"""The links of a page fetched over HTTP, as POST /v1/web/links lists them from the rendered page
(webcapture.browser.links): http(s) only, fragment dropped, each URL once (the first text that is not
empty kept), internal when on the page's host (a leading "www." ignored on both sides)."""

from __future__ import annotations

from urllib.parse import urlsplit

from webcapture.content.page_links import page_links


def _site_host(url: str) -> str:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    host = host.rstrip(".")
    return host[4:] if host.startswith("www.") else host


def html_links(html: str, page_url: str, include_external: bool) -> tuple[list[str], list[str], list[int]]:
    """(urls, texts, internal flags) in document order."""
    own = _site_host(page_url)
    urls: list[str] = []
    texts: list[str] = []
    internal: list[int] = []
    seen: dict[str, int] = {}
    for url, text in page_links(html, page_url).links:
        if not url.lower().startswith(("http:", "https:")):
            continue
        url = url.split("#", 1)[0]
        at = seen.get(url)
        if at is not None:
            if not texts[at] and text:
                texts[at] = text
            continue
        inside = int(_site_host(url) == own)
        if not inside and not include_external:
            continue
        seen[url] = len(urls)
        urls.append(url)
        texts.append(text)
        internal.append(inside)
    return urls, texts, internal
