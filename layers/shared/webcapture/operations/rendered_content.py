"""POST /v1/web/content (docs/api.md#more-outputs): the rendered DOM as HTML, after the page's scripts ran."""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.fastpath.page_source import engine_metadata, fetched_for
from webcapture.metering import metered
from webcapture.models.requests import ContentRequest
from webcapture.operations.text_answers import page_text_answer


def page_content(caller: Caller, request: ContentRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.CONTENT)):
        fetched = fetched_for(request, request.url)
        if fetched is not None:
            return page_text_answer("html", fetched.html, "HTML", final_url=fetched.final_url,
                                    title=fetched.title, status_code=fetched.status_code,
                                    requested_url=request.url, warnings=fetched.warnings,
                                    more_metadata=engine_metadata("http", fetched.validators))
        # Loaded only when a page renders: the http path never loads the browser's modules.
        from webcapture.browser.rendered_html import rendered_html

        page = rendered_html(request)
        return page_text_answer("html", page.html, "HTML", final_url=page.final_url, title=page.title,
                                status_code=page.status_code, requested_url=request.url,
                                warnings=page.warnings,
                                more_metadata=engine_metadata("browser", page.validators))
