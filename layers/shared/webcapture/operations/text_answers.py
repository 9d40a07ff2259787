"""Text answers cut to what one response can carry (docs/api.md#more-outputs): Lambda answers at most 6 MB."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from webcapture.answer_warnings import with_warnings
from webcapture.envelopes import utc_timestamp
from webcapture.response_limits import cut_text_to_fit, response_budget, text_response_size
from webcapture.unicode_text import well_formed


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


def page_text_answer(field: str, text: str, what: str, *, final_url: str, title: str, status_code: int | None,
                     requested_url: str, warnings: Sequence[str],
                     more_metadata: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The `data` of /markdown and /content: the text under `field`, cut to fit, with the page's metadata
    (and `more_metadata`: the engine that ran, the target's validators)."""
    metadata: dict[str, Any] = {
        "url": final_url,
        "title": title,
        "statusCode": status_code,
        "timestamp": utc_timestamp(),
        "requestedUrl": requested_url,
        **(more_metadata or {}),
    }
    return with_warnings(fit_text(field, text, metadata, what), warnings)
