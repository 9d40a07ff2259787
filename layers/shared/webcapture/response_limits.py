"""What fits in one answer: Lambda returns at most 6 MB, with binary bodies base64-encoded and JSON bodies
escaped once more inside the proxy response."""

from __future__ import annotations

from webcapture.settings import get_settings

# Room for headers, the envelope and metadata around the payload.
ENVELOPE_ALLOWANCE = 64 * 1024


def response_budget() -> int:
    return get_settings().inline_response_limit_bytes - ENVELOPE_ALLOWANCE


def fits_inline_base64(payload_bytes: int) -> bool:
    """Whether this many raw bytes fit once base64-encoded."""
    return 4 * ((payload_bytes + 2) // 3) <= response_budget()


def escaped_json_size(text: str) -> int:
    """Bytes `text` takes as a JSON string value inside the proxy response's JSON `body` string.

    Quotes and backslashes are escaped twice over (once in our JSON, once in the proxy response's).
    """
    specials = text.count('"') + text.count("\\")
    return len(text.encode()) + 3 * specials
