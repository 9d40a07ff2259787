"""A crawl's `json` format (docs/crawl-and-map.md#crawl-and-map): each page asked to the AI model as POST
/v1/web/ai-extract asks it (the same prompt building, model call and output checks, webcapture.ai), with the
crawl's
`extract: {prompt?, response_format?}`."""

from __future__ import annotations

from typing import Any

from webcapture import request_scope
from webcapture.ai import check_provider, run_extraction, validate_ai_request
from webcapture.models.requests import AiExtractRequest
from webcapture.models.site_requests import CrawlRequest


def ai_request(request: CrawlRequest, url: str) -> AiExtractRequest:
    """The json format's question, as ai-extract reads it."""
    extract = request.extract
    return AiExtractRequest.model_validate({
        "url": url, "responseType": "json",
        "prompt": None if extract is None else extract.prompt,
        "response_format": None if extract is None else extract.response_format,
    })


def check_json_format(request: CrawlRequest) -> None:
    """At submit, before anything is reserved: 422 for a response_format ai-extract would refuse, 503
    AI_NOT_CONFIGURED when no model is set up."""
    if "json" in request.formats:
        validate_ai_request(ai_request(request, request.url))
        check_provider()


def extracted(request: CrawlRequest, visible_html: str, page_url: str) -> Any:
    """What the model found on the page: the object (or array) asked for."""
    result = run_extraction(ai_request(request, page_url), visible_html, page_url,
                            deadline=request_scope.deadline())
    return result.extracted if result.extracted is not None else result.text
