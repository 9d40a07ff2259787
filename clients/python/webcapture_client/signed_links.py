"""A signed link to GET /v1/render/screenshot from a screenshot request's JSON body (docs/api.md, signed
links).

The signature is the service's (hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, of every parameter but
`signature`, sorted by name, percent-encoded as RFC 3986): written again here so the client needs nothing of
the service; a unit test signs with both and compares.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

SIGNATURE = "signature"


def signed_query(secret: str, params: Mapping[str, str]) -> str:
    """The query of a signed link: the canonical query and its signature."""
    canonical = urlencode(sorted((name, value) for name, value in params.items() if name != SIGNATURE),
                          quote_via=quote)
    signature = hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()
    return f"{canonical}&{SIGNATURE}={signature}"


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
