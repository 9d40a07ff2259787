"""POST /v1/web/markdown (docs/api.md#more-outputs): the rendered page as Markdown, main content only by
default."""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.auth.caller import Caller
from webcapture.content.markdown import html_to_markdown
from webcapture.credits import Operation, cost_of
from webcapture.fastpath.page_source import engine_metadata, fetched_for
from webcapture.metering import metered
from webcapture.models.requests import MarkdownRequest
from webcapture.operations.fetched_markdown import fetched_markdown
from webcapture.operations.text_answers import page_text_answer


def page_markdown(caller: Caller, request: MarkdownRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.MARKDOWN)):
        fetched = fetched_for(request, request.url)
        if fetched is not None:
            return fetched_markdown(fetched, request)
        # Loaded only when a page renders: the http path never loads the browser's modules.
        from webcapture.browser.page_load import load_page

        page = load_page(request.url, request.waitTime, request)
        markdown = html_to_markdown(page.html, page.final_url, only_main_content=request.onlyMainContent)
        return page_text_answer("markdown", markdown, "Markdown", final_url=page.final_url, title=page.title,
                                status_code=page.status_code, requested_url=request.url,
                                warnings=page.warnings,
                                more_metadata=engine_metadata("browser", page.validators))
