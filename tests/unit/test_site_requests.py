"""The map and crawl request models (docs/crawl-and-map.md#crawl-and-map, docs/api.md#validation): every
constraint, Zod-style issues, page control."""

from __future__ import annotations

from typing import Any

import pytest

from webcapture.errors import RequestValidationError
from webcapture.models.site_requests import CrawlRequest, MapRequest
from webcapture.validation import validate_request


def _issues(model: Any, body: dict[str, Any]) -> dict[tuple[Any, ...], dict[str, Any]]:
    with pytest.raises(RequestValidationError) as raised:
        validate_request(model, body)
    return {tuple(issue["path"]): issue for issue in raised.value.issues}


def test_map_defaults() -> None:
    request = validate_request(MapRequest, {"url": "https://example.com", "unknown": 1})
    assert (request.limit, request.search, request.sitemap) == (1000, None, "include")
    assert (request.includeSubdomains, request.ignoreQueryParameters) == (False, True)


def test_map_bad_input_lists_every_issue() -> None:
    issues = _issues(MapRequest, {"url": "ftp://x", "limit": 5001, "search": "", "sitemap": "all",
                                  "ignoreQueryParameters": 1})
    assert issues[("url",)]["code"] == "invalid_string"
    assert issues[("limit",)] == {"code": "too_big", "maximum": 5000, "inclusive": True, "type": "number",
                                  "path": ["limit"], "message": "Number must be less than or equal to 5000"}
    assert issues[("search",)]["code"] == "too_small"
    assert issues[("sitemap",)]["options"] == ["include", "skip", "only"]
    assert issues[("ignoreQueryParameters",)]["code"] == "invalid_type"
    assert _issues(MapRequest, {"url": "https://a.test", "limit": 0})[("limit",)]["code"] == "too_small"


def test_crawl_defaults_and_cost() -> None:
    request = validate_request(CrawlRequest, {"url": "https://example.com"})
    assert (request.limit, request.maxDepth, request.formats, request.sitemap) == (100, 5, ["markdown"],
                                                                                     "include")
    assert (request.allowSubdomains, request.allowExternal, request.ignoreQueryParameters) == (False, False,
                                                                                                False)
    assert (request.respectRobotsTxt, request.maxConcurrency, request.delay) == (True, 2, 0)
    assert (request.page_cost, request.reserved_credits) == (1, 100)
    json_pages = validate_request(CrawlRequest, {"url": "https://example.com", "limit": 40,
                                                 "formats": ["markdown", "json"],
                                                 "extract": {"prompt": "the price"}})
    assert (json_pages.page_cost, json_pages.reserved_credits) == (6, 240)


@pytest.mark.parametrize(("field", "value", "code"), [
    ("limit", 0, "too_small"), ("limit", 100_001, "too_big"), ("maxDepth", 21, "too_big"),
    ("maxDepth", -1, "too_small"), ("maxConcurrency", 11, "too_big"), ("delay", 10_001, "too_big"),
    ("formats", ["pdf"], "invalid_enum_value"), ("formats", [], "too_small"), ("sitemap", "maybe",
                                                                               "invalid_enum_value"),
    ("includePaths", ["/a"] * 51, "too_big"), ("excludePaths", [""], "too_small"),
    ("limit", 1.5, "invalid_type"),
])
def test_crawl_limits(field: str, value: Any, code: str) -> None:
    issues = _issues(CrawlRequest, {"url": "https://example.com", field: value})
    found = next(issue for path, issue in issues.items() if path[0] == field)
    assert found["code"] == code


def test_a_regular_expression_is_taken_as_a_glob() -> None:
    request = validate_request(CrawlRequest, {"url": "https://example.com", "includePaths": ["^/blog/.*$"]})
    assert request.includePaths == ["^/blog/.*$"]  # accepted, and matched literally (path_globs)


def test_json_needs_extract_and_extract_needs_a_question() -> None:
    issues = _issues(CrawlRequest, {"url": "https://example.com", "formats": ["json"]})
    assert issues[("extract",)]["code"] == "custom"
    issues = _issues(CrawlRequest, {"url": "https://example.com", "formats": ["json"], "extract": {}})
    assert issues[("extract", "prompt")]["code"] == "custom"


def test_page_control_applies_to_every_page() -> None:
    request = validate_request(CrawlRequest, {"url": "https://example.com", "waitUntil": "networkidle0",
                                              "blockAds": True, "headers": {"X-Test": "1"}})
    assert (request.waitUntil, request.blockAds, request.headers) == ("networkidle0", True, {"X-Test": "1"})
    issues = _issues(CrawlRequest, {"url": "https://example.com", "waitUntil": "never", "headers": {"Host": "x"},
                                    "timezoneId": "Mars/Base"})
    assert issues[("waitUntil",)]["code"] == "invalid_enum_value"
    assert issues[("headers", "Host")]["code"] == "custom"
    assert issues[("timezoneId",)]["code"] == "custom"


def test_webhook() -> None:
    issues = _issues(CrawlRequest, {"url": "https://example.com",
                                    "webhook": {"url": "not a url", "events": ["job.exploded"],
                                                "metadata": {"a": "x" * 3000}}})
    assert issues[("webhook", "url")]["code"] == "invalid_string"
    assert issues[("webhook", "events", 0)]["code"] == "invalid_enum_value"
    ok = validate_request(CrawlRequest, {"url": "https://example.com",
                                         "webhook": {"url": "https://hooks.example.com/x",
                                                     "events": ["item.completed"], "metadata": {"a": 1}}})
    assert ok.webhook is not None and ok.webhook.events == ["item.completed"]
