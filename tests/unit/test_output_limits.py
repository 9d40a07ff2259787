"""What fits in one answer for Markdown and HTML (cut exactly, on a character), and counting PDF pages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from webcapture.answer_forms import prefers_json
from webcapture.browser.pdf import count_pages
from webcapture.envelopes import success_body
from webcapture.operations.text_answers import fit_text
from webcapture.response_limits import (
    ENVELOPE_ALLOWANCE,
    cut_text_to_fit,
    response_budget,
    text_response_size,
)
from webcapture.settings import get_settings

LIMIT = ENVELOPE_ALLOWANCE + 40_000
# Every kind of character that takes a different room once escaped twice: plain, quote, backslash, newline,
# tab, a control character, 2-, 3- and 4-byte UTF-8.
MIXED = 'plain "quoted" back\\slash\nnew line\ttab \x01 é 日本語 🚀 '


@pytest.fixture
def small_limit(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WEBCAPTURE_INLINE_RESPONSE_LIMIT_BYTES", str(LIMIT))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def proxy_response_size(data: dict[str, Any]) -> int:
    """Bytes of the Lambda proxy response carrying `data`, as the function and the runtime would write it."""
    body = json.dumps(success_body(data, "0" * 36, 1), separators=(",", ":"), ensure_ascii=False)
    return len(json.dumps({"statusCode": 200, "body": body}, ensure_ascii=False).encode())


@pytest.mark.parametrize("text", ["", "a", '"', "\\", "\n", "\x00", "é", "日", "🚀", MIXED])
def test_text_size_is_exact(text: str) -> None:
    assert text_response_size(text) == proxy_response_size({"t": text}) - proxy_response_size({"t": ""})


def test_size_adds_up_over_slices() -> None:
    text = MIXED * 5000  # several of the 64 Ki-character slices
    assert text_response_size(text) == 5000 * text_response_size(MIXED)


@pytest.mark.parametrize("budget", [0, 1, 7, 1000, 300_000])
def test_cut_is_the_longest_prefix_that_fits(budget: int) -> None:
    text = MIXED * 5000
    kept, cut = cut_text_to_fit(text, budget)
    assert cut and text.startswith(kept)
    assert text_response_size(kept) <= budget < text_response_size(text[: len(kept) + 1])
    kept.encode()  # whole characters: valid UTF-8


def test_what_fits_is_not_cut() -> None:
    assert cut_text_to_fit(MIXED, text_response_size(MIXED)) == (MIXED, False)
    assert cut_text_to_fit("", 0) == ("", False)


def test_answers_are_cut_to_fit_lambda(small_limit: None) -> None:
    text = MIXED * 2000  # about 130 KB escaped, far over the 40 KB left
    metadata = {"url": "https://example.com/", "title": "T" * 10_000, "statusCode": 200}
    data = fit_text("markdown", text, metadata, "Markdown")
    assert data["metadata"]["truncated"] is True and data["metadata"]["title"] == "T" * 10_000
    assert text.startswith(data["markdown"]) and len(data["markdown"]) < len(text)
    assert "cut after" in data["warning"]
    assert proxy_response_size(data) <= LIMIT
    # Not wastefully short: the title took its share, and the text fills the rest of the budget.
    assert text_response_size(data["markdown"]) > response_budget() - 10_000 - 100


def test_short_answers_are_whole(small_limit: None) -> None:
    data = fit_text("html", "<p>hi</p>", {"url": "https://example.com/"}, "HTML")
    assert data == {"html": "<p>hi</p>", "metadata": {"url": "https://example.com/", "truncated": False}}


def test_pages_are_counted_by_page_objects_not_the_tree() -> None:
    document = (b"%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n"
                b"2 0 obj <</Type /Pages /Kids [3 0 R 4 0 R 6 0 R] /Count 3>> endobj\n"
                b"3 0 obj <</Type /Page /Parent 2 0 R>> endobj\n"
                b"4 0 obj <</Type/Page/Parent 2 0 R>> endobj\n"
                b"5 0 obj <</Type /PageLabel>> endobj\n"
                b"6 0 obj <</Parent 2 0 R /Type\n/Page\n>> endobj\n%%EOF")
    assert count_pages(document) == 3
    assert count_pages(b"%PDF-1.4\n%%EOF") == 0


@pytest.mark.parametrize(("accept", "binary_type", "wants_json"), [
    (None, "application/pdf", False),
    ("application/json", "application/pdf", True),
    ("application/pdf, application/json;q=0.9", "application/pdf", False),
    ("application/json, */*;q=0.1", "application/pdf", True),
    ("application/json, application/*", "application/pdf", False),  # a tie goes to the bytes
    ("*/*", "application/pdf", False),
    ("image/png, application/json", "application/pdf", True),  # an image type says nothing about PDFs
    ("image/png, application/json", "image/", False),  # but does about screenshots
    ("application/pdf;q=0.5, application/json", "image/", True),
])
def test_accept_picks_the_json_form(accept: str | None, binary_type: str, wants_json: bool) -> None:
    assert prefers_json(accept, binary_type) is wants_json


def test_no_character_takes_more_than_the_fast_path_assumes() -> None:
    from webcapture.response_limits import _MOST_PER_CHARACTER

    # Every 1- and 2-byte UTF-8 character (where all the escapes are), and samples of the 3- and 4-byte ones.
    codes = [*range(0x800), 0x2028, 0x2029, 0xFEFF, 0xFFFF, 0x1F680, 0x10FFFF]
    worst = max(text_response_size(chr(code)) for code in codes)
    assert worst == _MOST_PER_CHARACTER
    assert cut_text_to_fit("\x01" * 10, 70) == ("\x01" * 10, False)
    assert cut_text_to_fit("\x01" * 10, 69) == ("\x01" * 9, True)


def test_lone_surrogates_become_replacement_characters() -> None:
    data = fit_text("html", "a\ud83d b \U0001f680 c\ude80", {"title": "t\udc00"}, "HTML")
    assert data["html"] == "a\ufffd b \U0001f680 c\ufffd" and data["metadata"]["title"] == "t\ufffd"
    json.dumps(data, ensure_ascii=False).encode()  # writable as UTF-8
