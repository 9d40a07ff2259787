"""A rendered page for the AI extraction: the DOM after scripts ran, not the HTML the server sent."""

from __future__ import annotations

from dataclasses import dataclass

from webcapture.browser.page_session import LoadedPage, with_loaded_page


@dataclass(frozen=True)
class PageSnapshot:
    html: str  # serialised DOM of the main frame at capture time
    final_url: str
    status_code: int | None
    title: str


def load_page(url: str, wait_time_ms: int) -> PageSnapshot:
    def snapshot(loaded: LoadedPage) -> PageSnapshot:
        page = loaded.page
        return PageSnapshot(
            html=page.content(), final_url=page.url, status_code=loaded.status_code, title=page.title()
        )

    return with_loaded_page(url, wait_time_ms, snapshot)
