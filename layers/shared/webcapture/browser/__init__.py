"""The browser core: Chromium from the pinned pack, one browser per container, and the three page
operations the endpoints need. Every call checks the egress policy first and keeps to the request budget.

The names below load their modules on first use: importing one light submodule (the unpacking ones, which
webcapture.warm_start starts at a cold start's very beginning) must not first load Playwright and the
request models, about a second of imports that the unpacking can overlap instead.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webcapture.browser.launch.chromium_pack import ChromiumInstall, ChromiumUnavailable, resolve_chromium
    from webcapture.browser.lifecycle import browser_pid, shutdown_browser
    from webcapture.browser.links import collect_links
    from webcapture.browser.page_load import PageSnapshot, load_page
    from webcapture.browser.screenshot import Screenshot, take_screenshot
    from webcapture.link_columns import Link, Links

_HOMES = {
    "ChromiumInstall": "launch.chromium_pack",
    "ChromiumUnavailable": "launch.chromium_pack",
    "resolve_chromium": "launch.chromium_pack",
    "browser_pid": "lifecycle",
    "shutdown_browser": "lifecycle",
    "Link": "links",
    "Links": "links",
    "collect_links": "links",
    "PageSnapshot": "page_load",
    "load_page": "page_load",
    "Screenshot": "screenshot",
    "take_screenshot": "screenshot",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
