"""The browser core: Chromium from the pinned pack, one browser per container, and the three page
operations the endpoints need. Every call checks the egress policy first and keeps to the request budget.
"""

from __future__ import annotations

from webcapture.browser.chromium_pack import ChromiumInstall, ChromiumUnavailable, resolve_chromium
from webcapture.browser.lifecycle import browser_pid, shutdown_browser
from webcapture.browser.links import Link, Links, collect_links
from webcapture.browser.page_load import PageSnapshot, load_page
from webcapture.browser.screenshot import Screenshot, take_screenshot

__all__ = [
    "ChromiumInstall",
    "ChromiumUnavailable",
    "Link",
    "Links",
    "PageSnapshot",
    "Screenshot",
    "browser_pid",
    "collect_links",
    "load_page",
    "resolve_chromium",
    "shutdown_browser",
    "take_screenshot",
]
