"""POST /v1/web/markdown (CONTRACT 15): the rendered page as Markdown, main content only by default."""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.browser.page_load import load_page
from webcapture.content.main_content import full_page_markdown, main_content_markdown
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import MarkdownRequest
from webcapture.operations.text_answers import fit_text


def markdown_of(html: str, url: str, only_main_content: bool) -> str:
    """The main-content step ai-extract uses (CONTRACT 15), or the whole visible page. The page arrives
    with what its stylesheets hide already removed (browser/page_load.py)."""
    return main_content_markdown(html, url) if only_main_content else full_page_markdown(html, url)


def page_markdown(caller: Caller, request: MarkdownRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.MARKDOWN)):
        page = load_page(request.url, request.waitTime, request)
        markdown = markdown_of(page.html, page.final_url, request.onlyMainContent)
        metadata: dict[str, Any] = {
            "url": page.final_url,
            "title": page.title,
            "statusCode": page.status_code,
            "timestamp": utc_timestamp(),
            "requestedUrl": request.url,
        }
        return with_warnings(fit_text("markdown", markdown, metadata, "Markdown"), page.warnings)
