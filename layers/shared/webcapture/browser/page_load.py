"""A rendered page for the AI extraction: the DOM after scripts ran, not the HTML the server sent.

Elements a reader cannot see are removed from the live DOM first (the context is thrown away after), so
text hidden by a stylesheet, the classic place for a prompt injection, never reaches the model. What the
HTML itself hides (inline styles, `hidden`, `aria-hidden`) the Markdown step removes as well.
"""

from __future__ import annotations

from dataclasses import dataclass

from webcapture.browser.page_scripts import REMOVE_INVISIBLE_JS, SERIALIZE_JS
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.fastpath.http_page import NO_VALIDATORS, Validators, validators_of
from webcapture.models.page_control import PageControl
from webcapture.settings import get_settings
from webcapture.unicode_text import well_formed


@dataclass(frozen=True)
class PageSnapshot:
    html: str  # serialised DOM of the main frame at capture time
    final_url: str
    status_code: int | None
    title: str
    # Said to the caller as data.warning (answer_warnings): page-control waits, the HTML cut to the limit.
    warnings: tuple[str, ...] = ()
    validators: Validators = NO_VALIDATORS  # the main document's ETag and Last-Modified


def load_page(url: str, wait_time_ms: int, control: PageControl | None = None) -> PageSnapshot:
    limit = get_settings().max_html_chars

    def snapshot(loaded: LoadedPage) -> PageSnapshot:
        page = loaded.page
        page.evaluate(REMOVE_INVISIBLE_JS)
        serialized = page.evaluate(SERIALIZE_JS, limit)
        length = int(serialized["length"])
        warnings = tuple(loaded.warnings)
        if length > limit:
            warnings += (f"The page's HTML ({length} characters) exceeds the limit of {limit} characters; "
                         f"only its first {limit} characters were read",)
        # A lone surrogate from the page's scripts becomes U+FFFD here, whatever parses it next.
        return PageSnapshot(html=well_formed(str(serialized["html"])), final_url=page.url,
                            status_code=loaded.status_code, title=well_formed(page.title()),
                            warnings=warnings, validators=document_validators(loaded))

    return with_loaded_page(url, wait_time_ms, snapshot, control=control)


def document_validators(loaded: LoadedPage) -> Validators:
    """The ETag and Last-Modified the main document came with."""
    document = loaded.motion.document
    return validators_of(document.headers if document is not None else None)
