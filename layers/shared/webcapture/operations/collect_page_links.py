"""POST /v1/web/links (docs/api.md#links).

A page can hold more links than one answer can carry (Lambda returns at most 6 MB): the list is then
cut, in document order, to what fits, and `data.warning` and `metadata.linksOnPage` say so. The counts
describe what is returned (docs/api.md#links: totalLinks = len(links)).
"""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.fastpath.html_links import html_links
from webcapture.fastpath.http_page import FetchedPage
from webcapture.fastpath.page_source import fetched_for
from webcapture.gc_pause import collection_paused
from webcapture.link_columns import Links
from webcapture.metering import metered
from webcapture.models.requests import LinksRequest
from webcapture.response_limits import escaped_json_size, response_budget

# {"url":"","text":""}, with each quote escaped inside the proxy response, and the comma between items.
_PER_LINK_OVERHEAD = 30


# Links are measured this many at a time: escaped sizes add up, so one measure of a slice's strings joined
# is the sum of its links' (100,000 links one by one cost a large page's answer 0.2 s); only the slice where
# the budget runs out is measured link by link.
_SLICE = 1024


def _how_many_fit(urls: list[str], texts: list[str]) -> int:
    """How many links, from the first, fit in the answer."""
    budget = response_budget()
    used = 0
    for start in range(0, len(urls), _SLICE):
        end = min(start + _SLICE, len(urls))
        size = _size(urls[start:end], texts[start:end])
        if used + size > budget:
            for index in range(start, end):
                used += _size(urls[index : index + 1], texts[index : index + 1])
                if used > budget:
                    return index
        used += size
    return len(urls)


def _size(urls: list[str], texts: list[str]) -> int:
    """What these links take in the answer."""
    return escaped_json_size("".join(urls) + "".join(texts)) + _PER_LINK_OVERHEAD * len(urls)


def _links_of(fetched: FetchedPage, request: LinksRequest) -> Links:
    urls, texts, internal = html_links(fetched.html, fetched.final_url, request.includeExternal)
    return Links(urls, texts, internal, fetched.final_url, fetched.status_code, request.url, fetched.warnings)


def collect_page_links(caller: Caller, request: LinksRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.LINKS)):
        fetched = fetched_for(request, request.url)
        engine = "browser" if fetched is None else "http"
        if fetched is None:
            # Loaded only when a page renders: the http path never loads the browser's modules.
            from webcapture.browser.links import collect_links

            result = collect_links(request)
        else:
            result = _links_of(fetched, request)
    on_page = result.total_links
    returned = _how_many_fit(result.urls, result.texts)
    internal = sum(result.internal[:returned])
    with collection_paused():  # up to 100,000 dicts
        pairs = zip(result.urls[:returned], result.texts[:returned], strict=True)
        listed = [{"url": url, "text": text} for url, text in pairs]
    data: dict[str, Any] = {
        "links": listed,
        "metadata": {
            "url": result.final_url,
            "timestamp": utc_timestamp(),
            "totalLinks": returned,
            "internalLinks": internal,
            "externalLinks": returned - internal,
            "linksOnPage": on_page,
            "truncated": returned < on_page,
            "statusCode": result.status_code,
            "requestedUrl": result.requested_url,
            "engine": engine,
        },
    }
    if returned < on_page:
        data["warning"] = (f"The page has {on_page} links; the first {returned} are returned, "
                           "as many as fit in one response.")
    return with_warnings(data, result.warnings)
