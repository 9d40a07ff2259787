"""A result as its DynamoDB item keeps it inline (docs/cost.md#what-a-crawl-page-costs-to-keep): its JSON
text compressed with zlib when that makes it smaller. A job's results and a monitor's checks keep theirs so.

DynamoDB bills a write by the KB of the item (twice in a transaction) and its storage by the GB, and a
crawl's results are most of what a crawl writes. A page's Markdown (or HTML) keeps in about a fifth of its
size. Short results (an error, a `same` page, a few links) stay text: compressing them saves nothing worth
the step. An item holding its result as text is read as it is.
"""

from __future__ import annotations

import zlib
from typing import Any, Final

# Results shorter than this (bytes of JSON) are kept as text.
COMPRESS_FROM: Final = 1_024
# A job result's attributes: its text, or its compressed text.
TEXT: Final = "body"
COMPRESSED: Final = "bodyZ"


def packed(text: str) -> bytes | None:
    """The text compressed, when it is long enough and compressing makes it smaller; else None."""
    raw = text.encode()
    if len(raw) < COMPRESS_FROM:
        return None
    squeezed = zlib.compress(raw)
    return squeezed if len(squeezed) < len(raw) else None


def unpacked(stored: Any) -> str:
    """The text of what `packed` made, as DynamoDB gives it back (boto3's Binary, or bytes)."""
    return zlib.decompress(_bytes(stored)).decode()


def stored_form(text: str) -> dict[str, Any]:
    """A job result's JSON text as its item keeps it: {TEXT: text} or {COMPRESSED: zlib bytes}."""
    squeezed = packed(text)
    return {TEXT: text} if squeezed is None else {COMPRESSED: squeezed}


def stored_bytes(stored: dict[str, Any]) -> int:
    """Bytes of the job result its item keeps inline (0 for one kept elsewhere)."""
    if COMPRESSED in stored:
        return len(_bytes(stored[COMPRESSED]))
    return len(str(stored.get(TEXT, "")).encode())


def inline_text(item: dict[str, Any]) -> str | None:
    """The job result's JSON text from its item, or None when the item does not hold it (kept in S3)."""
    if COMPRESSED in item:
        return unpacked(item[COMPRESSED])
    text = item.get(TEXT)
    return None if text is None else str(text)


def _bytes(stored: Any) -> bytes:
    return stored.value if hasattr(stored, "value") else bytes(stored)  # boto3 reads a Binary
