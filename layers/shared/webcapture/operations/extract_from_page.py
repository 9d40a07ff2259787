"""POST /v1/web/ai-extract (docs/api.md#ai-extract): the rendered page, turned into Markdown, asked to the
model."""

from __future__ import annotations

from typing import Any

from webcapture import egress, request_scope
from webcapture.ai import check_provider, run_extraction, validate_ai_request
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.fastpath.page_source import fetched_for
from webcapture.metering import metered
from webcapture.models.requests import AiExtractRequest


def extract_from_page(caller: Caller, request: AiExtractRequest) -> dict[str, Any]:
    # Everything that can be refused without loading the page is refused first, and costs nothing.
    validate_ai_request(request)
    check_provider()
    egress.check_target(request.url)
    # One deadline for the page and the model together, so the answer comes before API Gateway gives up.
    deadline = request_scope.deadline()
    with metered(caller, cost_of(Operation.AI_EXTRACT)):
        fetched = fetched_for(request, request.url)
        if fetched is None:
            # Loaded only when a page renders: the http path never loads the browser's modules.
            from webcapture.browser.page_load import load_page

            page = load_page(request.url, request.waitTime, request)
            html, url, status, warnings = page.html, page.final_url, page.status_code, page.warnings
            engine = "browser"
        else:
            html, url, status = fetched.html, fetched.final_url, fetched.status_code
            warnings = fetched.warnings
            engine = "http"
        result = run_extraction(request, html, url, deadline=deadline)
    data = result.to_data()
    data["metadata"] = {**data["metadata"], "statusCode": status, "engine": engine}  # every output says
    return with_warnings(data, warnings)
