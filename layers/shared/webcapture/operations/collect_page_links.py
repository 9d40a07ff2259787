"""POST /v1/web/links (CONTRACT 8)."""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.auth.caller import Caller
from webcapture.browser.links import collect_links
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import LinksRequest


def collect_page_links(caller: Caller, request: LinksRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.LINKS)):
        result = collect_links(request)
    return {
        "links": [{"url": link.url, "text": link.text} for link in result.links],
        "metadata": {
            "url": result.final_url,
            "timestamp": utc_timestamp(),
            "totalLinks": result.total_links,
            "internalLinks": result.internal_links,
            "externalLinks": result.external_links,
            "statusCode": result.status_code,
            "requestedUrl": result.requested_url,
        },
    }
