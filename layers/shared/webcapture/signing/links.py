"""A signed link's verification (docs/cache-and-signed-links.md#cache-and-signed-links): from the query string
to the caller it is charged to and the fields of its request. Every refusal is the same 403
INVALID_SIGNATURE."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from webcapture.auth.caller import Caller
from webcapture.errors import InvalidSignature
from webcapture.signing import secrets_store
from webcapture.signing.signatures import SIGNATURE, signature_matches

USER = "user"
EXPIRES = "expires"
# Not request fields: who signed, until when, and the proof.
LINK_PARAMETERS = frozenset({USER, EXPIRES, SIGNATURE})
# An unknown user's link is checked against this, so it takes as long as a known user's wrong signature.
_NOBODY_SECRET = secrets_store.new_secret()


@dataclass(frozen=True)
class VerifiedLink:
    caller: Caller
    fields: dict[str, str]  # the request's own parameters, as sent


def single_values(event: dict[str, Any]) -> dict[str, str]:
    """The query's parameters; one that is given twice cannot be read one way only: refused."""
    multi: dict[str, list[str]] = event.get("multiValueQueryStringParameters") or {}
    if any(len(values) != 1 for values in multi.values()):
        raise InvalidSignature()
    single: dict[str, str] = event.get("queryStringParameters") or {}
    return {name: values[0] for name, values in multi.items()} if multi else dict(single)


def _caller(record: secrets_store.SigningRecord) -> Caller:
    if record.key_hash is None:
        return Caller(user_id=record.user_id, kind="session")
    return Caller(user_id=record.user_id, kind="api_key", key_hash=record.key_hash)


def _expired(expires: str | None, now: float) -> bool:
    """`expires` is signed, so only its signer chose it; past it (or unreadable), the link is refused."""
    if expires is None:
        return False
    return not re.fullmatch(r"[0-9]{1,12}", expires) or int(expires) < now


def verify(params: dict[str, str], now: float | None = None) -> VerifiedLink:
    user, signature = params.get(USER), params.get(SIGNATURE)
    if not user or not signature:
        raise InvalidSignature()
    record = secrets_store.find(user)
    matches = signature_matches(record.secret if record else _NOBODY_SECRET, params, signature)
    if record is None or not matches:
        raise InvalidSignature()
    if _expired(params.get(EXPIRES), time.time() if now is None else now):
        raise InvalidSignature()
    fields = {name: value for name, value in params.items() if name not in LINK_PARAMETERS}
    return VerifiedLink(caller=_caller(record), fields=fields)
