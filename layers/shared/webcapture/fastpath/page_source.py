"""Whether a request is answered from the page fetched over HTTP, or by the browser
(docs/fast-path.md#engines).

`fetched_for` is called by each operation before its browser path: it returns the fetched page when the
request's engine answers from it, None when the browser must run (`engine: browser`, or `auto` and the page
needs rendering). Nothing from webcapture.browser is imported here: the `http` engine never starts,
unpacks or waits for Chromium.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from pydantic import BaseModel

from webcapture import request_scope
from webcapture.content.bot_walls import detect_wall, signals_from_html
from webcapture.errors import NavigationFailed, TargetBlocked, TargetHttpError
from webcapture.fastpath.http_page import FetchedPage, Validators, fetch_page, is_image
from webcapture.fastpath.render_decision import render_reason, script_built_navigation
from webcapture.models.engines import RanEngine, browser_only_fields
from webcapture.models.page_actions import status_refused
from webcapture.models.page_control import PageControl
from webcapture.observability import logger

# What a served document may be for the fast path to read it as a page (an image too: http_page reads it
# as the document Chromium shows for it); anything else (a PDF, JSON) is the browser's under `auto`.
_READABLE: Final = ("html", "xml", "text/")
# What `engine: http` also reads, as text: a JSON document or a script is text, a PDF or an archive is not.
_TEXT_TOO: Final = ("json", "javascript", "ecmascript")
# Whether the page at this URL is the one to render for the navigation of this name (a crawl's question).
RendersNavigation = Callable[[str, str], bool]


def fetched_for(request: BaseModel, url: str, *, conditional: Validators | None = None,
                renders_navigation: RendersNavigation | None = None) -> FetchedPage | None:
    """The page over HTTP when `request`'s engine answers from it, else None (the browser's turn).
    UrlNotAllowed, NavigationFailed, TargetBlocked and TargetHttpError as the browser path raises them.
    `renders_navigation`: a crawl's, whose `auto` renders the page that answers yes for its script-built
    navigation (render_decision.script_built_navigation)."""
    engine = getattr(request, "engine", "browser")
    if engine == "browser" or (engine == "auto" and browser_only_fields(request)):
        return None
    control = request if isinstance(request, PageControl) else None
    page = fetch_page(url, deadline=request_scope.deadline(), control=control, conditional=conditional)
    if page.not_modified:
        return page
    if engine == "auto":
        reason = _render_reason(page)
        if reason is None and renders_navigation is not None:
            name = script_built_navigation(page.html, page.final_url)
            if name is not None and renders_navigation(name, page.final_url):
                reason = "navigation built by script, rendered once in the crawl"
        if reason is not None:
            logger.info("auto engine renders the page", extra={"reason": reason, "url": page.final_url})
            return None
    else:
        if not _readable(page.content_type, _READABLE + _TEXT_TOO):
            raise NavigationFailed(f"The target served {page.content_type.split(';')[0].strip()}, which is "
                                   "not a page the http engine reads (HTML, XML, text or an image); engine "
                                   "browser loads it in Chromium")
        wall = None if control is not None and control.allowBlocked else detect_wall(
            signals_from_html(page.html, page.status_code, page.headers))
        if wall is not None:
            raise TargetBlocked(wall.message())
    if control is not None and status_refused(page.status_code, list(control.failOnStatus)):
        raise TargetHttpError(f"The target answered HTTP {page.status_code}, which failOnStatus refuses; no "
                              "credit was taken")
    return page


def _render_reason(page: FetchedPage) -> str | None:
    if not _readable(page.content_type, _READABLE):
        return f"not a text document ({page.content_type.lower()})"
    return render_reason(page.html, page.status_code, page.headers)


def _readable(content_type: str, kinds: tuple[str, ...]) -> bool:
    """Whether the fast path reads a document of this type (none named: it is read as HTML)."""
    lowered = content_type.lower()
    return not lowered or is_image(lowered) or any(kind in lowered for kind in kinds)


def engine_metadata(engine: RanEngine, validators: Validators | None) -> dict[str, Any]:
    """`metadata.engine`, `metadata.etag` and `metadata.lastModified` (null when the target gave none)."""
    return {"engine": engine,
            "etag": None if validators is None else validators.etag,
            "lastModified": None if validators is None else validators.last_modified}
