"""CONTRACT 20's refusals of the final page: a bot wall (TARGET_BLOCKED) and a status the caller listed in
failOnStatus (TARGET_HTTP_ERROR). Both are 502s, refunded: the caller is never charged for them.

The wall's signals are gathered in one evaluate (titles, script and frame sources, the walls' own element
ids and inline configuration, the start of the visible text) plus the main document's response headers and
the context's cookie names; webcapture.content.bot_walls decides.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, Response

from webcapture.content.bot_walls import (
    INLINE_MARKERS,
    MARKER_CLASSES,
    MARKER_IDS,
    TEXT_SAMPLE_CHARS,
    PageSignals,
    Wall,
    detect_wall,
)
from webcapture.errors import TargetBlocked, TargetHttpError
from webcapture.models.page_actions import status_refused
from webcapture.models.page_control import PageControl

# Only a page with little text is read as text (walls are short); a long page reports its length only, so
# the check costs the same on a 100,000-link page as on a short one.
_SIGNALS_JS = """
([ids, classes, inline, limit]) => {
  const srcs = (selector) => Array.from(document.querySelectorAll(selector), (e) => e.src).slice(0, 200);
  const markers = ids.filter((id) => document.getElementById(id) !== null)
    .concat(classes.filter((name) => document.getElementsByClassName(name).length > 0));
  let code = "";
  for (const script of document.querySelectorAll("script:not([src])")) {
    code += script.textContent.slice(0, 20000);
    if (code.length > 100000) break;
  }
  markers.push(...inline.filter((word) => code.includes(word)));
  if (typeof window._cf_chl_opt !== "undefined") markers.push("_cf_chl_opt");
  const body = document.body;
  const raw = body ? body.textContent.length : 0;
  const text = !body ? "" : raw < 50000 ? body.innerText : body.textContent.slice(0, limit);
  return {title: document.title, scripts: srcs("script[src]"), iframes: srcs("iframe[src]"), markers,
          text: text.slice(0, limit), length: raw < 50000 ? text.length : raw};
}
"""


def page_signals(page: Page, status: int | None, document: Response | None) -> PageSignals:
    found: dict[str, Any] = page.evaluate(
        _SIGNALS_JS, [list(MARKER_IDS), list(MARKER_CLASSES), list(INLINE_MARKERS), TEXT_SAMPLE_CHARS])
    title = str(found["title"])
    # Cookies only matter for PerimeterX's block title; a round trip to the browser is saved elsewhere.
    px_title = title.strip().lower().startswith("access to this page")
    cookies = tuple(cookie.get("name", "") for cookie in page.context.cookies()) if px_title else ()
    return PageSignals(
        status=status,
        headers=dict(document.headers) if document is not None else {},
        title=title,
        script_srcs=tuple(found["scripts"]),
        iframe_srcs=tuple(found["iframes"]),
        cookie_names=cookies,
        markers=frozenset(found["markers"]),
        text=str(found["text"]),
        text_length=int(found["length"]),
    )


def check_target(page: Page, control: PageControl | None, status: int | None,
                 document: Response | None) -> None:
    """Raise TargetBlocked or TargetHttpError when the final page is one the request refuses."""
    allow_blocked = control is not None and control.allowBlocked
    if not allow_blocked and (wall := find_wall(page, status, document)) is not None:
        raise TargetBlocked(wall.message())
    if control is not None and status_refused(status, list(control.failOnStatus)):
        raise TargetHttpError(f"The target answered HTTP {status}, which failOnStatus refuses; no credit was "
                              "taken")


def find_wall(page: Page, status: int | None, document: Response | None) -> Wall | None:
    return detect_wall(page_signals(page, status, document))
