"""The service's own capture of a loaded page, for benchmarks that run raw Playwright beside it.

webcapture.browser.screenshot asks CDP for the page's region (the layout metrics, then
Page.captureScreenshot) instead of calling Playwright's page.screenshot, which first prepares the page
(fonts, caret, a round trip per frame). A raw baseline that captures the same way separates what the API
adds from what the capture itself costs.
"""

from __future__ import annotations

from playwright.sync_api import Page

from webcapture.browser.screenshot import _capture_with
from webcapture.models.requests import ScreenshotOptions


def service_shot(page: Page, full_page: bool) -> bytes:
    cdp = page.context.new_cdp_session(page)
    try:
        image, _, _ = _capture_with(cdp, page, ScreenshotOptions(fullPage=full_page), 1.0)
        return image
    finally:
        cdp.detach()
