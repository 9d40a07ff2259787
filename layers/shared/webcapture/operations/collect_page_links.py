"""POST /v1/web/links (CONTRACT 8).

A page can hold more links than one answer can carry (Lambda returns at most 6 MB): the list is then
cut, in document order, to what fits, and `data.warning` and `metadata.linksOnPage` say so. The counts
describe what is returned (CONTRACT 8: totalLinks = len(links)).
"""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.browser.links import Link, collect_links
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.gc_pause import collection_paused
from webcapture.metering import metered
from webcapture.models.requests import LinksRequest
from webcapture.response_limits import escaped_json_size, response_budget

# {"url":"","text":""}, with each quote escaped inside the proxy response, and the comma between items.
_PER_LINK_OVERHEAD = 30


# Links are measured this many at a time: escaped sizes add up, so one measure of a slice's strings joined
# is the sum of its links' (100,000 links one by one cost a large page's answer 0.2 s); only the slice where
# the budget runs out is measured link by link.
_SLICE = 1024


def _what_fits(links: tuple[Link, ...]) -> tuple[Link, ...]:
    budget = response_budget()
    used = 0
    for start in range(0, len(links), _SLICE):
        piece = links[start : start + _SLICE]
        size = _size(piece)
        if used + size > budget:
            for index, link in enumerate(piece):
                used += _size((link,))
                if used > budget:
                    return links[: start + index]
        used += size
    return links


def _size(links: tuple[Link, ...]) -> int:
    """What these links take in the answer."""
    strings = [string for link in links for string in (link.url, link.text)]
    return escaped_json_size("".join(strings)) + _PER_LINK_OVERHEAD * len(links)


def collect_page_links(caller: Caller, request: LinksRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.LINKS)):
        result = collect_links(request)
    returned = _what_fits(result.links)
    internal = sum(1 for link in returned if link.internal)
    with collection_paused():  # up to 100,000 dicts
        listed = [{"url": link.url, "text": link.text} for link in returned]
    data: dict[str, Any] = {
        "links": listed,
        "metadata": {
            "url": result.final_url,
            "timestamp": utc_timestamp(),
            "totalLinks": len(returned),
            "internalLinks": internal,
            "externalLinks": len(returned) - internal,
            "linksOnPage": len(result.links),
            "truncated": len(returned) < len(result.links),
            "statusCode": result.status_code,
            "requestedUrl": result.requested_url,
        },
    }
    if len(returned) < len(result.links):
        data["warning"] = (f"The page has {len(result.links)} links; the first {len(returned)} are returned, "
                           "as many as fit in one response.")
    return with_warnings(data, result.warnings)
