"""POST /v1/web/markdown (CONTRACT 15): the rendered page as Markdown, main content only by default."""

from __future__ import annotations

from typing import Any

from webcapture import egress
from webcapture.ai.page_content import _absolutise, _base_url, _convert, _parse, _prune, page_to_markdown
from webcapture.auth.caller import Caller
from webcapture.browser.page_load import load_page
from webcapture.credits import Operation, cost_of
from webcapture.envelopes import utc_timestamp
from webcapture.metering import metered
from webcapture.models.requests import MarkdownRequest
from webcapture.operations.text_answers import fit_text


def markdown_of(html: str, url: str, only_main_content: bool) -> str:
    """The one place the Markdown step is chosen (ai-extract's main-content step, CONTRACT 15).

    The page arrives with what its stylesheets hide already removed (browser/page_load.py); what the HTML
    itself hides, scripts and styles are dropped here in both modes. Without onlyMainContent the site's
    chrome (navigation, header, footer, sidebars) is kept and the whole body converted.
    """
    if only_main_content:
        return page_to_markdown(html, url, budget_chars=0).markdown
    soup = _parse(html)
    base = _base_url(soup, url)
    _prune(soup, keep_chrome=True)
    body = soup.body or soup
    _absolutise(body, base)
    return _convert(body)


def page_markdown(caller: Caller, request: MarkdownRequest) -> dict[str, Any]:
    egress.check_target(request.url)  # refused targets cost nothing
    with metered(caller, cost_of(Operation.MARKDOWN)):
        page = load_page(request.url, request.waitTime)
        markdown = markdown_of(page.html, page.final_url, request.onlyMainContent)
        metadata: dict[str, Any] = {
            "url": page.final_url,
            "title": page.title,
            "statusCode": page.status_code,
            "timestamp": utc_timestamp(),
            "requestedUrl": request.url,
        }
        return fit_text("markdown", markdown, metadata, "Markdown")
