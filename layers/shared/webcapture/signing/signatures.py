"""The signature of a signed link: hex HMAC-SHA256, keyed with the secret's UTF-8 bytes, of the canonical
query, which is every parameter but `signature`, sorted by name, percent-encoded as RFC 3986 with space as
%20: exactly what `urlencode(sorted(params.items()), quote_via=quote)` writes."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from urllib.parse import quote, urlencode

SIGNATURE = "signature"


def canonical_query(params: Mapping[str, str]) -> str:
    return urlencode(sorted((name, value) for name, value in params.items() if name != SIGNATURE),
                     quote_via=quote)


def sign(secret: str, params: Mapping[str, str]) -> str:
    return hmac.new(secret.encode(), canonical_query(params).encode(), hashlib.sha256).hexdigest()


def signature_matches(secret: str, params: Mapping[str, str], signature: str) -> bool:
    """Constant time in the signature's content: hmac.compare_digest, never ==, so how long the answer
    takes says nothing about how many leading characters were right."""
    expected = sign(secret, params).encode()
    return hmac.compare_digest(expected, signature.encode("utf-8", "surrogatepass"))


def signed_query(secret: str, params: Mapping[str, str]) -> str:
    """The query of a signed link: the canonical query and its signature."""
    return f"{canonical_query(params)}&{SIGNATURE}={sign(secret, params)}"
