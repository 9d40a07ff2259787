"""Where this deployment answers, as its callers reach it: the OpenAPI document's server and the docs
shortcuts' redirect are absolute, so "Try it out" and a bookmark work from any page."""

from __future__ import annotations

from typing import Any


def deployment_url(event: dict[str, Any]) -> str | None:
    """`https://<api>.execute-api.<region>.amazonaws.com/<stage>` (API Gateway's own address carries the stage
    in the path), `<scheme>://<host>` on any other host (a custom domain, `make dev`); None without a Host."""
    headers = {str(name).lower(): str(value) for name, value in (event.get("headers") or {}).items()}
    host = headers.get("host", "")
    if not host:
        return None
    if host.endswith(".amazonaws.com"):
        stage = (event.get("requestContext") or {}).get("stage", "")
        return f"https://{host}/{stage}" if stage else f"https://{host}"
    return f"{headers.get('x-forwarded-proto') or 'http'}://{host}"
