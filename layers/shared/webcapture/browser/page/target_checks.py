"""docs/actions-and-blocked-pages.md#actions-and-blocked-pages's refusals of the final page: a bot wall
(TARGET_BLOCKED) and a status the caller listed in failOnStatus (TARGET_HTTP_ERROR). Both are 502s, refunded:
the caller is never charged for them.

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
    TEXT_SOURCES,
    TEXT_TITLES,
    PageSignals,
    Wall,
    detect_wall,
)
from webcapture.errors import TargetBlocked, TargetHttpError
from webcapture.models.page_actions import status_refused
from webcapture.models.page_control import PageControl

# One pass over the page's scripts, frames and the walls' elements; the text is read only when some rule
# could ask for it (bot_walls.needs_text: the same lists, passed in), and then only on a short page, so an
# ordinary page costs a few lookups and no layout.
_SIGNALS_JS = """
([ids, classes, inline, textTitles, textSources, limit]) => {
  const srcs = (selector) => Array.from(document.querySelectorAll(selector), (e) => e.src).slice(0, 200);
  const scripts = srcs("script[src]"), iframes = srcs("iframe[src]");
  const markers = new Set(ids.filter((id) => document.getElementById(id) !== null));
  for (const element of document.querySelectorAll(classes.map((name) => "." + name).join(","))) {
    for (const name of classes) if (element.classList.contains(name)) markers.add(name);
  }
  let count = 0;
  for (const script of document.querySelectorAll("script:not([src])")) {
    const start = script.textContent.slice(0, 2000);  // the walls' configuration opens their scripts
    for (const word of inline) if (start.includes(word)) markers.add(word);
    if (++count >= 100) break;
  }
  if (typeof window._cf_chl_opt !== "undefined") markers.add("_cf_chl_opt");
  const title = document.title;
  const lowered = title.trim().toLowerCase();
  const sources = scripts.concat(iframes).join(" ").toLowerCase();
  const needed = markers.size > 0 || textTitles.some((t) => lowered.startsWith(t))
    || textSources.some((s) => sources.includes(s));
  let text = "", length = null;
  const body = document.body;
  if (needed && body) {
    const raw = body.textContent.length;
    text = raw < 50000 ? body.innerText : "";
    length = raw < 50000 ? text.length : raw;
  }
  return {title, scripts, iframes, markers: Array.from(markers), text: text.slice(0, limit), length};
}
"""


def page_signals(page: Page, status: int | None, document: Response | None) -> PageSignals:
    found: dict[str, Any] = page.evaluate(_SIGNALS_JS, [
        list(MARKER_IDS), list(MARKER_CLASSES), list(INLINE_MARKERS), list(TEXT_TITLES), list(TEXT_SOURCES),
        TEXT_SAMPLE_CHARS])
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
        text_length=None if found["length"] is None else int(found["length"]),
    )


def check_target(page: Page, control: PageControl | None, status: int | None,
                 document: Response | None) -> None:
    """Raise TargetBlocked or TargetHttpError when the final page is one the request refuses."""
    allow_blocked = control is not None and control.allowBlocked
    if not allow_blocked and (wall := find_wall(page, status, document)) is not None:
        raise TargetBlocked(wall.message())
    check_status(control, status)


def check_status(control: PageControl | None, status: int | None) -> None:
    """TargetHttpError when failOnStatus lists the document's status. Known as soon as the document
    arrives: checked before the caller's actions run (a refused page is never acted on) and again on the
    final page."""
    if control is not None and status_refused(status, list(control.failOnStatus)):
        raise TargetHttpError(f"The target answered HTTP {status}, which failOnStatus refuses; no credit was "
                              "taken")


def find_wall(page: Page, status: int | None, document: Response | None) -> Wall | None:
    return detect_wall(page_signals(page, status, document))
