"""Placeholder for consent-banner handling (`blockCookieBanners`, CONTRACT 14), built on another branch:
these are its interface, called by the page preparation (webcapture.browser.page_control). The real module
replaces this one at merge; until then the flag changes nothing.
"""

from __future__ import annotations

from playwright.sync_api import BrowserContext, Page

from webcapture.browser.budget import Deadline


def enable_cookie_banner_handling(context: BrowserContext) -> None:
    """At context creation, before navigation (init scripts, routes that fall back)."""


def settle_cookie_banners(page: Page, deadline: Deadline) -> None:
    """After load and the waits, before scroll, hide and capture."""
