"""A signed link to GET /v1/render/screenshot (docs/cache-and-signed-links.md#cache-and-signed-links) from a
screenshot request's JSON body."""

from __future__ import annotations

import time
from typing import Any

from webcapture.signing.signatures import signed_query


def query_parameters(body: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """The body as query parameters: nested fields dotted (`screenshotOptions.type`), list items by index
    (`hideSelectors.0`), booleans as true/false."""
    params: dict[str, str] = {}
    items = body.items() if isinstance(body, dict) else enumerate(body)
    for name, value in items:
        dotted = f"{prefix}{name}"
        if isinstance(value, dict | list):
            params.update(query_parameters(value, dotted + "."))  # type: ignore[arg-type]
        elif isinstance(value, bool):
            params[dotted] = "true" if value else "false"
        elif value is not None:
            params[dotted] = str(value)
    return params


def signed_link(api_url: str, user_id: str, secret: str, body: dict[str, Any],
                expires_in_s: int | None = None, now: float | None = None) -> str:
    params = {**query_parameters(body), "user": user_id}
    if expires_in_s is not None:
        params["expires"] = str(int(time.time() if now is None else now) + expires_in_s)
    return f"{api_url.rstrip('/')}/v1/render/screenshot?{signed_query(secret, params)}"
