"""Placeholder for ad and tracker blocking (`blockAds`, CONTRACT 14), built on another branch: these are
its interface, called by the page preparation (webcapture.browser.page_control). The real module replaces
this one at merge; until then the flag changes nothing.
"""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page


def enable_ad_blocking(context: BrowserContext, page_url: str) -> None:
    """At context creation, before navigation: network blocking (routes that fall back when they pass)."""


def hide_ad_elements(page: Page) -> None:
    """After load, before capture: cosmetic hiding."""
