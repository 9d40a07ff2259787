"""What fits in one answer: Lambda returns at most 6 MB, with binary bodies base64-encoded and JSON bodies
escaped once more inside the proxy response."""

from __future__ import annotations

import json

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


# The Lambda proxy response is JSON holding our JSON body as a string: a text value is escaped twice.
# Both levels write non-ASCII as UTF-8 (our `api._json`; the python3.12 runtime's marshaller).
_TWICE_QUOTED = len(json.dumps(json.dumps("", ensure_ascii=False), ensure_ascii=False))
# Texts are measured in slices of this many characters: the escaped size of a text is the sum of its
# characters' escaped sizes, so slices add up, and only the one slice where the budget runs out is searched.
_SLICE = 64 * 1024
# The most bytes one character can take escaped twice: a control character, \u0001 and then its backslash.
_MOST_PER_CHARACTER = 7


def text_response_size(text: str) -> int:
    """Exact bytes `text` adds to the proxy response as a JSON string value (escaping counted)."""
    twice = json.dumps(json.dumps(text, ensure_ascii=False), ensure_ascii=False)
    return len(twice.encode("utf-8", "surrogatepass")) - _TWICE_QUOTED


def cut_text_to_fit(text: str, budget_bytes: int) -> tuple[str, bool]:
    """The longest prefix of `text` (whole characters) whose `text_response_size` fits; whether it was cut."""
    if len(text) * _MOST_PER_CHARACTER <= budget_bytes:
        return text, False  # fits even if every character took the most room: nothing to measure
    used = 0
    for start in range(0, len(text), _SLICE):
        piece = text[start : start + _SLICE]
        size = text_response_size(piece)
        if used + size > budget_bytes:
            low, high = 0, len(piece)  # invariant: piece[:low] fits, piece[:high + 1] does not
            while low < high:
                middle = (low + high + 1) // 2
                if used + text_response_size(piece[:middle]) <= budget_bytes:
                    low = middle
                else:
                    high = middle - 1
            return text[: start + low], True
        used += size
    return text, False
