"""The Markdown answer built from a page fetched over HTTP (the fast path), with the same steps and
shape as the browser's."""

from __future__ import annotations

from typing import Any

from webcapture.content.markdown import html_to_markdown
from webcapture.fastpath.http_page import FetchedPage
from webcapture.fastpath.page_source import engine_metadata
from webcapture.models.requests import MarkdownRequest
from webcapture.operations.text_answers import page_text_answer


def fetched_markdown(fetched: FetchedPage, request: MarkdownRequest) -> dict[str, Any]:
    markdown = html_to_markdown(fetched.html, fetched.final_url, only_main_content=request.onlyMainContent)
    return page_text_answer("markdown", markdown, "Markdown", final_url=fetched.final_url,
                            title=fetched.title, status_code=fetched.status_code, requested_url=request.url,
                            warnings=fetched.warnings,
                            more_metadata=engine_metadata("http", fetched.validators))
