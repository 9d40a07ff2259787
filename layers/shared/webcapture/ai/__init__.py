"""AI extraction (POST /v1/web/ai-extract, docs/api.md#ai-extract): page to Markdown, prompt, model call,
result.

The endpoint calls, in order: `validate_ai_request` (422 before anything is loaded), `check_provider`
(503 when nothing is configured), then, with the rendered page, `run_extraction`.
"""

from webcapture.ai.extraction import ExtractionMetadata, ExtractionResult, check_provider, run_extraction
from webcapture.ai.page_content import PageContent, page_to_markdown
from webcapture.ai.response_format import OutputSpec, normalize_response_format, validate_ai_request

__all__ = [
    "ExtractionMetadata",
    "ExtractionResult",
    "OutputSpec",
    "PageContent",
    "check_provider",
    "normalize_response_format",
    "page_to_markdown",
    "run_extraction",
    "validate_ai_request",
]
