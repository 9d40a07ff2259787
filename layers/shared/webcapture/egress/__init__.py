"""Egress policy (CONTRACT 13): which addresses the browser may reach.

INTERFACE STUB, to be replaced by the egress-guard work. The browser code depends only on these three
names; their signatures stay.
"""

from __future__ import annotations


def check_target(url: str) -> None:
    """Resolve the target's host and raise webcapture.errors.UrlNotAllowed unless every address is allowed.

    Called at the API edge before any browser work (cheap, no credit spent on refusal).
    """
    return None


def chromium_args() -> list[str]:
    """Extra Chromium flags the egress policy needs (proxy server, hardening)."""
    return []


def proxy_server() -> str | None:
    """The egress proxy's address for Playwright's `proxy` launch option, starting it on first use."""
    return None
