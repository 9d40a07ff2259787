"""POST /v1/web/content (CONTRACT 15): the rendered DOM as HTML, after the page's scripts ran."""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.browser.rendered_html import rendered_html
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import ContentRequest
from webcapture.operations.text_answers import fit_text


def page_content(caller: Caller, request: ContentRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.CONTENT)):
        page = rendered_html(request)
        metadata: dict[str, Any] = {
            "url": page.final_url,
            "title": page.title,
            "statusCode": page.status_code,
            "timestamp": utc_timestamp(),
            "requestedUrl": request.url,
        }
        return with_warnings(fit_text("html", page.html, metadata, "HTML"), page.warnings)
