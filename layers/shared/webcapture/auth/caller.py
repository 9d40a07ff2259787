"""Who is calling: built from what the authorizer put in the request context."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Literal

from webcapture.auth import EXPIRY_LEEWAY_S, refusals
from webcapture.auth.api_keys import hash_key
from webcapture.errors import Unauthorized

TokenKind = Literal["api_key", "session"]


@dataclass(frozen=True)
class Caller:
    user_id: str
    kind: TokenKind
    key_id: str | None = None
    # The key's hash, recomputed from the request's own header so it never travels in the context.
    key_hash: str | None = None
    # Authorizer's hint: the key had a credit limit when it was looked up (it may have changed since).
    limited: bool = True


def bearer_token(headers: dict[str, Any] | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, case-insensitive on the header name."""
    for name, value in (headers or {}).items():
        if name.lower() == "authorization" and isinstance(value, str):
            scheme, _, token = value.strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


def _refuse_if_expired(exp: Any) -> None:
    """The authorizer's answer is cached for minutes; the token's own `exp` still ends the session."""
    try:
        expires_at = float(exp)
    except (TypeError, ValueError):
        raise refusals.session_failed("it has no expiry") from None
    if not math.isfinite(expires_at) or time.time() > expires_at + EXPIRY_LEEWAY_S:
        raise refusals.session_failed("it has expired")


def caller_from_event(event: dict[str, Any]) -> Caller:
    context = (event.get("requestContext") or {}).get("authorizer") or {}
    user_id = context.get("userId")
    kind = context.get("tokenKind")
    if not user_id or kind not in ("api_key", "session"):
        raise Unauthorized(refusals.NO_HEADER)  # no authorizer ran: API Gateway sent no credential
    if kind == "session":
        _refuse_if_expired(context.get("exp"))
        return Caller(user_id=str(user_id), kind="session")
    token = bearer_token(event.get("headers"))
    if token is None:
        raise Unauthorized(refusals.NOT_BEARER)
    return Caller(
        user_id=str(user_id),
        kind="api_key",
        key_id=str(context.get("keyId") or ""),
        key_hash=hash_key(token),
        limited=str(context.get("limited", "true")).lower() == "true",
    )
