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
from webcapture.metering import metered
from webcapture.models.requests import LinksRequest
from webcapture.response_limits import escaped_json_size, response_budget

# {"url":"","text":""}, with each quote escaped inside the proxy response, and the comma between items.
_PER_LINK_OVERHEAD = 30


def _what_fits(links: tuple[Link, ...]) -> tuple[Link, ...]:
    budget = response_budget()
    used = 0
    for index, link in enumerate(links):
        used += escaped_json_size(link.url) + escaped_json_size(link.text) + _PER_LINK_OVERHEAD
        if used > budget:
            return links[:index]
    return links


def collect_page_links(caller: Caller, request: LinksRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.LINKS)):
        result = collect_links(request)
    returned = _what_fits(result.links)
    internal = sum(1 for link in returned if link.internal)
    data: dict[str, Any] = {
        "links": [{"url": link.url, "text": link.text} for link in returned],
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
