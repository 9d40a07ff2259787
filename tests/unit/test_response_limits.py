"""What fits in Lambda's 6 MB answer: links are cut to fit, screenshots switch to the stored form."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from webcapture.envelopes import success_body
from webcapture.operations.collect_page_links import _how_many_fit
from webcapture.response_limits import ENVELOPE_ALLOWANCE, fits_inline_base64
from webcapture.settings import get_settings

LIMIT = ENVELOPE_ALLOWANCE + 40_000


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WEBCAPTURE_INLINE_RESPONSE_LIMIT_BYTES", str(LIMIT))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def proxy_response_size(urls: list[str], texts: list[str]) -> int:
    """Bytes of the Lambda proxy response carrying these links, as the function would send it."""
    links = [{"url": url, "text": text} for url, text in zip(urls, texts, strict=True)]
    data = {"links": links, "metadata": {"url": "x" * 200}}
    body = json.dumps(success_body(data, "0" * 36, 1), separators=(",", ":"), ensure_ascii=False)
    return len(json.dumps({"statusCode": 200, "body": body}, ensure_ascii=False).encode())


def test_links_are_cut_to_fit_and_no_more(small_limit: None) -> None:
    urls = [f"https://example.com/{i}?q=\"quoted\"" for i in range(2000)]
    texts = [f"Lien n°{i} \\ «{i}»" for i in range(2000)]
    kept = _how_many_fit(urls, texts)  # the first `kept`: document order, a prefix
    assert 0 < kept < len(urls)
    assert proxy_response_size(urls[:kept], texts[:kept]) <= LIMIT
    # Close to the limit, not wastefully short: one link more would pass the budget the cut is made at.
    assert proxy_response_size(urls[: kept + 1], texts[: kept + 1]) > LIMIT - ENVELOPE_ALLOWANCE


def test_short_lists_are_untouched(small_limit: None) -> None:
    assert _how_many_fit([f"https://example.com/{i}" for i in range(10)], ["t"] * 10) == 10


def test_base64_rule(small_limit: None) -> None:
    budget = LIMIT - ENVELOPE_ALLOWANCE
    assert fits_inline_base64(budget * 3 // 4)
    assert not fits_inline_base64(budget * 3 // 4 + 3)
