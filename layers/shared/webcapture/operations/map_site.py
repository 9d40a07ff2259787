"""POST /v1/web/map (docs/crawl-and-map.md#crawl-and-map): the site's URLs, for one credit.

The start URL passes the egress check before the credit is taken (a refused target costs nothing); the
gathering (webcapture.site.site_map) runs inside the metered block, so a failure (the site unreachable, the
start page redirected somewhere refused) gives the credit back. An answer too large for Lambda's 6 MB is
cut, in order, to what fits, with a warning.
"""

from __future__ import annotations

from typing import Any

from webcapture import egress, request_scope
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.metering import metered
from webcapture.models.site_requests import MapRequest
from webcapture.response_limits import escaped_json_size, response_budget
from webcapture.site.site_map import MapOptions, map_site

# {"url":"","title":""}, each quote escaped inside the proxy response, and the comma between items.
_PER_LINK_OVERHEAD = 40


def _fitting(links: list[dict[str, str]]) -> int:
    budget, used = response_budget(), 0
    for index, link in enumerate(links):
        used += escaped_json_size(link["url"] + link.get("title", "")) + _PER_LINK_OVERHEAD
        if used > budget:
            return index
    return len(links)


def options_of(request: MapRequest) -> MapOptions:
    return MapOptions(limit=request.limit, search=request.search, sitemap=request.sitemap,
                      include_subdomains=request.includeSubdomains,
                      ignore_query_parameters=request.ignoreQueryParameters)


def map_site_urls(caller: Caller, request: MapRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.MAP)):
        result = map_site(request.url, options_of(request), request_scope.deadline())
    links = result.links
    fitting = _fitting(links)
    warnings = list(result.warnings)
    if fitting < len(links):
        warnings.append(f"{len(links)} URLs were found; the first {fitting} are listed, as many as fit in "
                        "one response")
        links = links[:fitting]
    return with_warnings({"links": links, "total": len(links), "sources": result.sources}, warnings)
