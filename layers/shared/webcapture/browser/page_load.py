"""A rendered page for the AI extraction: the DOM after scripts ran, not the HTML the server sent.

Elements a reader cannot see are removed from the live DOM first (the context is thrown away after), so
text hidden by a stylesheet, the classic place for a prompt injection, never reaches the model. What the
HTML itself hides (inline styles, `hidden`, `aria-hidden`) the Markdown step removes as well.
"""

from __future__ import annotations

from dataclasses import dataclass

from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.models.page_control import PageControl


@dataclass(frozen=True)
class PageSnapshot:
    html: str  # serialised DOM of the main frame at capture time
    final_url: str
    status_code: int | None
    title: str
    warnings: tuple[str, ...] = ()


# Computed style is the only reliable test: class rules, media queries and scripts all end up there.
_REMOVE_INVISIBLE_JS = """
() => {
  const hidden = [];
  for (const element of document.body ? document.body.querySelectorAll("*") : []) {
    const style = getComputedStyle(element);
    if (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse"
        || style.opacity === "0" || parseFloat(style.fontSize) === 0) {
      hidden.push(element);
    }
  }
  for (const element of hidden) element.remove();
  return hidden.length;
}
"""


def load_page(url: str, wait_time_ms: int, control: PageControl | None = None) -> PageSnapshot:
    def snapshot(loaded: LoadedPage) -> PageSnapshot:
        page = loaded.page
        page.evaluate(_REMOVE_INVISIBLE_JS)
        return PageSnapshot(
            html=page.content(),
            final_url=page.url,
            status_code=loaded.status_code,
            title=page.title(),
            warnings=tuple(loaded.warnings),
        )

    return with_loaded_page(url, wait_time_ms, snapshot, control=control)
