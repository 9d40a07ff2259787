"""What a crawled page's result is (docs/crawl-and-map.md#results): the same for a page run from its own
message (site.crawl_worker) and for one a worker crawled in its sweep (site.crawl_sweep)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Final

from webcapture.jobs.item_delivery import ItemKind
from webcapture.jobs.job_store import Outcome
from webcapture.models.site_requests import CrawlRequest
from webcapture.site.crawl_changes import EarlierPage, content_hash, page_attributes
from webcapture.site.crawl_credits import settle_crawl
from webcapture.site.crawled_page import CrawledPage

CRAWL_PAGE: Final = ItemKind(job_noun="crawl", item_noun="page", metric="CrawlPage", settle=settle_crawl)
# What a page the earlier crawl completed answers once deleted (docs/crawl-and-map.md#incremental-crawl).
GONE: Final = (404, 410)
# The code of a page left out on its own account (a redirect out of scope, robots.txt).
SKIPPED: Final = "SKIPPED"


def skipped(message: str) -> Outcome:
    return Outcome("failed", error={"code": SKIPPED, "message": message})


def redirected_out(final_url: str) -> Outcome:
    return skipped(f"The page redirected to {final_url}, outside the crawl; skipped")


def page_outcome(page: CrawledPage, data: dict[str, Any], request: CrawlRequest, earlier: EarlierPage | None,
                 more_warnings: list[str]) -> Outcome:
    """A page loaded whole (not `same`): its outputs `data`, its warnings, and for an incremental crawl
    whether it is new or changed; the validators and hashes the next incremental crawl compares with."""
    warnings = [*page.warnings, *more_warnings]
    if warnings:
        data["warning"] = " ".join(warnings)
    attributes = page_attributes(page.validators, content_hash(data), page.body_hash)
    if request.since is None:
        return Outcome("completed", data=data, attributes=attributes)
    change = "new" if earlier is None else "changed"
    return Outcome("completed", data={**data, "changeStatus": change}, change=change, attributes=attributes)


def same_outcome(page: CrawledPage, earlier: EarlierPage | None) -> tuple[Outcome, CrawledPage] | None:
    """An incremental crawl's unchanged page: free, no outputs, `sameAs` the earlier result; its links are
    the ones the earlier crawl recorded from it when the target answered 304 (no body to read them)."""
    if earlier is None:
        return None
    # A 304, the same served HTML as the earlier crawl's, or (the HTML changed) the same outputs.
    unchanged = page.not_modified or page.unchanged or (
        earlier.content_hash is not None and earlier.content_hash == content_hash(page.data))
    if page.status_code in GONE and not unchanged:
        # Deleted since the earlier crawl: removed, free, as a page no longer linked is. (A link that was
        # already broken then answers the same error page now: same, not removed.)
        data = {"url": page.data.get("url", page.final_url), "depth": page.data.get("depth"),
                "statusCode": page.status_code, "changeStatus": "removed", "sameAs": earlier.same_as()}
        return Outcome("completed", data=data, cached=True, change="removed"), page
    if not unchanged:
        return None
    data = {"url": page.data.get("url", page.final_url), "depth": page.data.get("depth"),
            "statusCode": page.status_code, "changeStatus": "same", "sameAs": earlier.same_as()}
    if page.not_modified:
        page = replace(page, links=earlier.children())
    attributes = page_attributes(page.validators, earlier.content_hash or "", page.body_hash)
    return Outcome("completed", data=data, cached=True, change="same", attributes=attributes), page
