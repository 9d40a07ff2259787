"""Request models of the markdown, content and PDF endpoints (docs/api.md#more-outputs): every constraint,
Zod-style."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from tests.support.validation_issues import issues_for, only_issue
from webcapture.models.requests import ContentRequest, MarkdownRequest, PdfRequest, length_in_inches
from webcapture.validation import validate_request

URL = "https://example.com/"


def pdf(**options: Any) -> dict[str, Any]:
    return {"url": URL, "pdfOptions": options}


@pytest.mark.parametrize("model", [MarkdownRequest, ContentRequest, PdfRequest])
def test_url_and_wait_time_as_everywhere(model: type[BaseModel]) -> None:
    assert only_issue(model, {})["path"] == ["url"]
    assert only_issue(model, {"url": "ftp://example.com/"})["validation"] == "url"
    issue = only_issue(model, {"url": URL, "waitTime": 5001})
    assert (issue["code"], issue["maximum"]) == ("too_big", 5000)
    assert only_issue(model, {"url": URL, "waitTime": "5"})["code"] == "invalid_type"  # strict: no coercion
    assert validate_request(model, {"url": URL, "unknown": 1}).waitTime == 0  # type: ignore[attr-defined]


def test_markdown_defaults_to_main_content() -> None:
    assert validate_request(MarkdownRequest, {"url": URL}).onlyMainContent is True
    assert validate_request(MarkdownRequest, {"url": URL, "onlyMainContent": False}).onlyMainContent is False
    issue = only_issue(MarkdownRequest, {"url": URL, "onlyMainContent": "false"})
    assert (issue["code"], issue["expected"], issue["path"]) == ("invalid_type", "boolean", ["onlyMainContent"])


def test_pdf_defaults() -> None:
    options = validate_request(PdfRequest, {"url": URL}).pdfOptions
    assert (options.format, options.landscape, options.printBackground, options.scale) == ("A4", False, True, 1)
    assert options.pageRanges is None and options.preferCSSPageSize is False
    assert (options.margin.top, options.margin.right, options.margin.bottom, options.margin.left) == (None,) * 4
    assert validate_request(PdfRequest, {"url": URL}).base64 is False


def test_pdf_format_enum() -> None:
    issue = only_issue(PdfRequest, pdf(format="a4"))
    assert issue["code"] == "invalid_enum_value" and issue["path"] == ["pdfOptions", "format"]
    assert issue["options"] == ["A3", "A4", "A5", "Legal", "Letter", "Tabloid"]
    for paper in issue["options"]:
        assert validate_request(PdfRequest, pdf(format=paper)).pdfOptions.format == paper


@pytest.mark.parametrize(("scale", "code", "bound_key", "bound"), [
    (0.09, "too_small", "minimum", 0.1), (2.01, "too_big", "maximum", 2), (-1, "too_small", "minimum", 0.1),
])
def test_pdf_scale_range(scale: float, code: str, bound_key: str, bound: float) -> None:
    issue = only_issue(PdfRequest, pdf(scale=scale))
    assert (issue["code"], issue[bound_key], issue["path"]) == (code, bound, ["pdfOptions", "scale"])


def test_pdf_scale_bounds_and_whole_numbers_are_fine() -> None:
    for scale in (0.1, 2, 1, 1.5):
        assert validate_request(PdfRequest, pdf(scale=scale)).pdfOptions.scale == scale
    assert only_issue(PdfRequest, pdf(scale="1"))["code"] == "invalid_type"


@pytest.mark.parametrize("field", ["landscape", "printBackground", "preferCSSPageSize"])
def test_pdf_booleans_are_strict(field: str) -> None:
    issue = only_issue(PdfRequest, pdf(**{field: 1}))
    assert (issue["code"], issue["expected"], issue["path"]) == ("invalid_type", "boolean", ["pdfOptions", field])


@pytest.mark.parametrize("length", ["0", "10", "10px", "1.5cm", "0.5in", "20mm", ".5in", "2.", " 3MM "])
def test_pdf_margin_lengths(length: str) -> None:
    margin = validate_request(PdfRequest, pdf(margin={"top": length})).pdfOptions.margin
    assert margin.top == length.strip().lower()


@pytest.mark.parametrize("length", ["", "10 px", "-1cm", "1em", "5%", "10pt", "calc(1px)", "1e3px", "px", "1..2mm"])
def test_pdf_margin_rejects_what_chromium_cannot_print(length: str) -> None:
    issue = only_issue(PdfRequest, pdf(margin={"left": length}))
    assert (issue["code"], issue["path"]) == ("custom", ["pdfOptions", "margin", "left"])


def test_pdf_margin_types_and_length_limit() -> None:
    issue = only_issue(PdfRequest, pdf(margin={"top": 10}))
    assert (issue["code"], issue["expected"]) == ("invalid_type", "string")
    issue = only_issue(PdfRequest, pdf(margin={"top": "1" * 33}))
    assert (issue["code"], issue["maximum"], issue["type"]) == ("too_big", 32, "string")
    assert only_issue(PdfRequest, pdf(margin="1cm"))["expected"] == "object"


def test_pdf_all_issues_listed() -> None:
    issues = issues_for(PdfRequest, pdf(format="B5", scale=3, margin={"top": "x", "bottom": "y"}, pageRanges="a"))
    assert sorted(tuple(issue["path"]) for issue in issues) == sorted([
        ("pdfOptions", "format"), ("pdfOptions", "scale"), ("pdfOptions", "margin", "top"),
        ("pdfOptions", "margin", "bottom"), ("pdfOptions", "pageRanges")])


def test_lengths_in_inches() -> None:
    assert length_in_inches("96px") == length_in_inches("96") == pytest.approx(1)
    assert length_in_inches("2.54cm") == pytest.approx(1) == length_in_inches("25.4mm")
    assert length_in_inches(None) == 0


@pytest.mark.parametrize(("options", "message_part"), [
    ({"margin": {"left": "4in", "right": "4.27in"}}, "left and right"),  # A4 is 8.27 in wide
    ({"margin": {"top": "15cm", "bottom": "150mm"}}, "top and bottom"),  # and 29.7 cm tall
    ({"format": "A5", "landscape": True, "margin": {"top": "3in", "bottom": "2.83in"}}, "top and bottom"),
])
def test_pdf_margins_must_leave_a_printable_area(options: dict[str, Any], message_part: str) -> None:
    issue = only_issue(PdfRequest, pdf(**options))
    assert (issue["code"], issue["path"]) == ("custom", ["pdfOptions", "margin"])
    assert message_part in issue["message"]


def test_pdf_margins_that_leave_room_are_fine() -> None:
    margin = {"left": "4in", "right": "4in", "top": "14cm", "bottom": "14cm"}
    assert validate_request(PdfRequest, pdf(margin=margin)).pdfOptions.margin.left == "4in"
    # Landscape A5 is 8.27 in wide: left + right of 8 in still leave a strip.
    landscape = {"format": "A5", "landscape": True, "margin": {"left": "4in", "right": "4in"}}
    assert validate_request(PdfRequest, pdf(**landscape)).pdfOptions.landscape


@pytest.mark.parametrize("ranges", ["1", "1-5", "1-5, 8, 11-13", "3-", "-2", " 2 - 4 ,6", "4-4"])
def test_pdf_page_ranges(ranges: str) -> None:
    assert validate_request(PdfRequest, pdf(pageRanges=ranges)).pdfOptions.pageRanges == ranges


@pytest.mark.parametrize(("ranges", "message_part"), [
    ("a", "page ranges in ASCII digits such as"), ("1;2", "page ranges in ASCII digits such as"),
    ("1-2-3", "page ranges in ASCII digits such as"), ("1,,2", "page ranges in ASCII digits such as"),
    ("-", "page ranges in ASCII digits such as"), ("1.5", "page ranges in ASCII digits such as"),
    ("0", "counted from 1"), ("0-3", "counted from 1"), ("5-2", "ends before it starts"),
])
def test_pdf_page_ranges_refused(ranges: str, message_part: str) -> None:
    issue = only_issue(PdfRequest, pdf(pageRanges=ranges))
    assert (issue["code"], issue["path"]) == ("custom", ["pdfOptions", "pageRanges"])
    assert message_part in issue["message"]


def test_pdf_page_ranges_length() -> None:
    assert only_issue(PdfRequest, pdf(pageRanges=""))["code"] == "too_small"
    assert only_issue(PdfRequest, pdf(pageRanges=",".join(["1"] * 101)))["code"] == "too_big"
