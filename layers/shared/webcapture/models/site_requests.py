"""Request bodies of the whole-site endpoints (docs/crawl-and-map.md#crawl-and-map): map and crawl.

Same rules as the page endpoints (webcapture.models.requests): strict types, unknown fields ignored, every
issue listed. A crawl takes every page-control field of docs/api.md#page-control, applied to each page, by
inheriting the one PageControl model the page endpoints use.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator
from pydantic_core import PydanticCustomError

from webcapture.glob_match import MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS
from webcapture.models.engines import ENGINE_DESCRIPTION, Engine, EngineChoice
from webcapture.models.page_control import PageControl, StrictModel
from webcapture.models.requests import TargetUrl
from webcapture.path_globs import check_path_glob

SitemapMode = Literal["include", "skip", "only"]
CrawlFormat = Literal["markdown", "links", "html", "screenshot", "json"]
# Globs on the URL path (webcapture.path_globs): `*`, `**` and `?` are special, nothing else.
PathGlob = Annotated[str, Field(min_length=1, max_length=MAX_GLOB_LENGTH, description=(
    "A glob on the URL path: * (no /), ** (any), ? (one character). Never a regular expression: any "
    f"other character, . ^ $ [ ] ( ) included, stands for itself. At most {MAX_GLOB_WILDCARDS} wildcards")),
    AfterValidator(check_path_glob)]

MAX_CRAWL_PAGES = 100_000
MAX_CRAWL_DEPTH = 20


def _markdown_only() -> list[CrawlFormat]:
    return ["markdown"]


class MapRequest(StrictModel):
    url: TargetUrl
    limit: Annotated[int, Field(ge=1, le=5000)] = 1000
    search: Annotated[str, Field(min_length=1, max_length=500, description=(
        "Only URLs whose address (or start-page link text) contains this, ignoring case"))] | None = None
    sitemap: SitemapMode = "include"
    includeSubdomains: bool = False
    ignoreQueryParameters: bool = True


class CrawlExtract(StrictModel):
    """What the json format asks the AI model for (as ai-extract's prompt and response_format)."""

    prompt: Annotated[str, Field(min_length=1, max_length=1000)] | None = None
    response_format: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _a_question(self) -> CrawlExtract:
        if self.prompt is None and self.response_format is None:
            raise PydanticCustomError("custom", "extract needs a prompt or a response_format",
                                      {"field": "prompt"})
        return self


class CrawlWebhook(StrictModel):
    url: TargetUrl
    events: Annotated[list[Literal["job.completed", "job.failed", "job.cancelled", "item.completed"]],
                      Field(min_length=1, max_length=3)] | None = None
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _small_metadata(self) -> CrawlWebhook:
        if self.metadata is not None and len(json.dumps(self.metadata, ensure_ascii=False).encode()) > 2048:
            raise PydanticCustomError("custom", "webhook metadata is at most 2 KB as JSON",
                                      {"field": "metadata"})
        return self


class CrawlRequest(PageControl, EngineChoice):
    url: TargetUrl
    engine: Annotated[Engine, Field(
        description=ENGINE_DESCRIPTION + " (auto by default for a crawl)")] = "auto"
    limit: Annotated[int, Field(ge=1, le=MAX_CRAWL_PAGES)] = 100
    maxDepth: Annotated[int, Field(ge=0, le=MAX_CRAWL_DEPTH)] = 5
    includePaths: Annotated[list[PathGlob], Field(max_length=50)] = Field(default_factory=list)
    excludePaths: Annotated[list[PathGlob], Field(max_length=50)] = Field(default_factory=list)
    allowSubdomains: bool = False
    allowExternal: bool = False
    sitemap: SitemapMode = "include"
    ignoreQueryParameters: bool = False
    respectRobotsTxt: bool = True
    maxConcurrency: Annotated[int, Field(ge=1, le=10, description="Pages of one host loaded at once")] = 2
    delay: Annotated[int, Field(ge=0, le=10_000, description="Milliseconds between requests to a host")] = 0
    formats: Annotated[list[CrawlFormat], Field(min_length=1, max_length=5)] = Field(
        default_factory=_markdown_only)
    extract: CrawlExtract | None = None
    webhook: CrawlWebhook | None = None
    onlyMainContent: bool = True
    since: Annotated[str, Field(min_length=1, max_length=100, description=(
        "The jobId of an earlier crawl of yours: pages it completed are fetched conditionally, each result "
        "says changeStatus new, changed or same (same is free), pages not reached now are listed as removed"
    ))] | None = None

    @model_validator(mode="after")
    def _json_needs_extract(self) -> CrawlRequest:
        if "json" in self.formats and self.extract is None:
            raise PydanticCustomError("custom", "The json format needs extract: {prompt?, response_format?}",
                                      {"field": "extract"})
        return self

    @property
    def page_cost(self) -> int:
        """Credits per page crawled (docs/crawl-and-map.md#crawl-and-map): 1, and 5 more with json."""
        return 1 + (5 if "json" in self.formats else 0)

    @property
    def reserved_credits(self) -> int:
        """What submitting the crawl reserves: every page it may crawl."""
        return self.limit * self.page_cost
