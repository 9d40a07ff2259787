"""The content core (docs/api.md#more-outputs): the main frame's DOM after scripts ran, serialised as HTML,
unpruned."""

from __future__ import annotations

from dataclasses import dataclass

from webcapture.browser.page_load import document_validators
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.fastpath.http_page import NO_VALIDATORS, Validators
from webcapture.models.requests import ContentRequest


@dataclass(frozen=True)
class RenderedHtml:
    html: str
    final_url: str
    status_code: int | None
    requested_url: str
    title: str
    warnings: tuple[str, ...] = ()  # page control's (docs/api.md#page-control), for data.warning
    validators: Validators = NO_VALIDATORS


def rendered_html(request: ContentRequest) -> RenderedHtml:
    def serialise(loaded: LoadedPage) -> RenderedHtml:
        page = loaded.page
        return RenderedHtml(html=page.content(), final_url=page.url, status_code=loaded.status_code,
                            requested_url=request.url, title=page.title(),
                            warnings=tuple(loaded.warnings), validators=document_validators(loaded))

    return with_loaded_page(request.url, request.waitTime, serialise, control=request)
