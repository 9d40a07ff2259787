"""Text answers cut to what one response can carry (CONTRACT 15): Lambda answers at most 6 MB."""

from __future__ import annotations

from typing import Any

from webcapture.response_limits import cut_text_to_fit, response_budget, text_response_size


def well_formed(text: str) -> str:
    """`text` with any lone surrogate replaced by U+FFFD.

    A page's strings are JavaScript strings, which may hold half a surrogate pair; UTF-8 cannot, so one such
    character would make the whole answer unwritable.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 joins the well-formed pairs back into one character and replaces only the lone halves.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def fit_text(field: str, text: str, metadata: dict[str, Any], what: str) -> dict[str, Any]:
    """`data` with `text` under `field`, cut on a character boundary when the whole would not fit.

    The budget counts every byte the text takes in the proxy response (UTF-8, escaped twice), less what the
    page-controlled metadata strings take (a page's title can be as long as it likes).
    """
    text = well_formed(text)
    metadata = {name: well_formed(v) if isinstance(v, str) else v for name, v in metadata.items()}
    budget = response_budget() - sum(text_response_size(v) for v in metadata.values() if isinstance(v, str))
    kept, truncated = cut_text_to_fit(text, max(budget, 0))
    data: dict[str, Any] = {field: kept, "metadata": {**metadata, "truncated": truncated}}
    if truncated:
        data["warning"] = (f"The {what} was cut after {len(kept):,} of {len(text):,} characters, "
                           "as much as fits in one response.")
    return data
