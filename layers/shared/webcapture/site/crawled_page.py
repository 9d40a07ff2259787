"""A crawled page as the crawl worker stores it, whichever engine read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webcapture.fastpath.http_page import NO_VALIDATORS, Validators


@dataclass(frozen=True)
class CrawledPage:
    final_url: str
    status_code: int | None
    links: list[str]  # every link of the rendered page, absolute, in document order
    data: dict[str, Any] = field(default_factory=dict)  # the result's formats (markdown, links, html)
    warnings: tuple[str, ...] = ()
    screenshot: bytes | None = None  # PNG, with the screenshot format
    visible_html: str | None = None  # what the reader sees, with the json format (ai-extract's input)
    validators: Validators = NO_VALIDATORS
    not_modified: bool = False  # a conditional fetch answered 304: no body, nothing but the status
