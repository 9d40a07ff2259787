"""A job's result as its DynamoDB item keeps it inline (docs/cost.md#what-a-crawl-page-costs-to-keep):
its JSON text compressed with zlib when that makes it smaller.

DynamoDB bills a write by the KB of the item, twice in a transaction, and a crawl's results are most of
what a crawl writes. A page's Markdown (or HTML) shrinks to about a fifth (53 pages of python3.11-doc:
0.22 of their JSON, in half a millisecond each), so a crawled page's result costs about a quarter of the
write units it cost as text. Short results (an error, a `same` page, a link list of a few entries) stay
text: compressing them saves nothing worth the step. Items written as text before are read as they are.
"""

from __future__ import annotations

import zlib
from typing import Any, Final

# Results shorter than this (bytes of JSON) are kept as text.
COMPRESS_FROM: Final = 1_024
TEXT: Final = "body"
COMPRESSED: Final = "bodyZ"


def stored_form(text: str) -> dict[str, Any]:
    """The result's JSON text as the item keeps it: {TEXT: text} or {COMPRESSED: zlib bytes}."""
    raw = text.encode()
    if len(raw) >= COMPRESS_FROM:
        packed = zlib.compress(raw)
        if len(packed) < len(raw):
            return {COMPRESSED: packed}
    return {TEXT: text}


def stored_bytes(stored: dict[str, Any]) -> int:
    """Bytes of the result the item keeps inline (0 for one kept elsewhere)."""
    if COMPRESSED in stored:
        return len(_bytes(stored[COMPRESSED]))
    return len(str(stored.get(TEXT, "")).encode())


def inline_text(item: dict[str, Any]) -> str | None:
    """The result's JSON text from its item, or None when the item does not hold it (kept in S3)."""
    if COMPRESSED in item:
        return zlib.decompress(_bytes(item[COMPRESSED])).decode()
    text = item.get(TEXT)
    return None if text is None else str(text)


def _bytes(stored: Any) -> bytes:
    return stored.value if hasattr(stored, "value") else bytes(stored)  # boto3 reads a Binary
