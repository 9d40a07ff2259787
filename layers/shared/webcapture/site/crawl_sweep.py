"""An incremental crawl's unchanged pages revalidated together (docs/crawl-and-map.md#incremental-crawl).

When a page of an incremental crawl is `same`, the worker that found it does not enqueue the pages it
recorded from it, one message each, for other workers to claim, pace and finish one at a time. It reads
what the earlier crawl kept of them (two batch reads per 100 pages), fetches each conditionally, one after
another under one slot of the host, and writes the results of the ones still `same` in transactions of up
to 49 (job_store.finish_unclaimed). Then it does the same for the pages those record, level by level,
until nothing is left or its time is spent. A page that is not `same` (changed, new, gone, failed, on
another host, or one `auto` would render), and whatever is left when the time runs out, is enqueued and
runs through the worker's usual path.

Nothing is lost to a worker killed mid-sweep: a page is recorded (crawl_store.claim_found, marked with the
sweeping page's index) before its parent's result is written, and the sweeping page's own result is written
after the sweep; its redelivery enqueues everything it and its sweep recorded (crawl_store.claimed_by), and
a page already finished acknowledges its message without running. A page some other delivery claimed
meanwhile makes its transaction fail: those pages are enqueued instead, and finish through their claims.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from webcapture import request_scope
from webcapture.errors import ApiError
from webcapture.fastpath.http_page import Validators
from webcapture.fastpath.page_source import fetched_for
from webcapture.jobs import job_store, webhook_events
from webcapture.jobs.job_store import MAX_UNCLAIMED, RETENTION, STOPPING, Job, Outcome
from webcapture.models.engines import browser_only_fields
from webcapture.models.site_requests import CrawlRequest
from webcapture.observability import metrics
from webcapture.site.canonical_urls import canonical_url, host_of
from webcapture.site.crawl_changes import EarlierPage, children_attribute, earlier_pages, page_attributes
from webcapture.site.crawl_messages import PageMessage, send_pages
from webcapture.site.crawl_page import body_hash
from webcapture.site.crawl_store import Claimed, HostLease, claim_found, enter_host, leave_host
from webcapture.site.discovery import discover
from webcapture.site.host_pace import HostPace
from webcapture.site.scope import Scope

# Kept free at the end of the sweeping page's budget: its own result, and enqueueing what is left.
FINISH_MARGIN_S: Final = 5.0


@dataclass(frozen=True)
class Sweep:
    message: PageMessage  # the sweeping page's
    request: CrawlRequest
    scope: Scope
    robots_allow: Callable[[str], bool] | None
    pace: HostPace
    deadline: float  # time.monotonic() instant the sweeping page's budget ends

    def time_left(self) -> float:
        return self.deadline - FINISH_MARGIN_S - time.monotonic()


@dataclass(frozen=True)
class Revalidated:
    """A page the target says is the one the earlier crawl completed."""

    page: Claimed
    earlier: EarlierPage
    final_url: str
    status_code: int
    validators: Validators
    body_hash: str | None


def sweeps(request: CrawlRequest, pace: HostPace) -> bool:
    """Whether a `same` page's worker sweeps what it records: an incremental crawl whose pages are fetched,
    with no pause asked between requests to the host (a sweep's requests follow each other at once)."""
    return (request.since is not None and request.engine != "browser" and not browser_only_fields(request)
            and pace.delay_s == 0)


def sweep(plan: Sweep, frontier: list[Claimed]) -> None:
    """Revalidate `frontier` (pages the sweeping page recorded and did not enqueue), then what they record."""
    while frontier:
        job = job_store.get_job(plan.message.job_id)
        if job is None or job.status in STOPPING or plan.time_left() <= 0:
            break  # a cancelled crawl's pages finish as cancelled, through their messages
        same, others = _revalidated(plan, frontier)
        _send(plan.message, others)
        frontier = _finish_same(plan, job, same)
    _send(plan.message, frontier)


def _send(message: PageMessage, pages: list[Claimed]) -> None:
    send_pages([message.page(page.index, page.url, page.depth) for page in pages])


def _revalidated(plan: Sweep, frontier: list[Claimed]) -> tuple[list[Revalidated], list[Claimed]]:
    """The frontier's pages still `same`, and the others (to enqueue)."""
    host = host_of(plan.message.url)
    ours = [page for page in frontier if host_of(page.url) == host]
    earlier = earlier_pages(plan.request.since or "", [page.url for page in ours])
    lease = enter_host(plan.message.job_id, host, plan.pace, lease_s=max(plan.time_left(), 1.0))
    if not isinstance(lease, HostLease):
        return [], frontier  # the host is busy: these pages wait their turn in the queue
    same: list[Revalidated] = []
    scope = request_scope.RequestScope(str(uuid.uuid4()), plan.deadline - FINISH_MARGIN_S, None)
    try:
        with request_scope.scoped(scope):
            for page in ours:
                before = earlier.get(page.url)
                found = None if before is None or plan.time_left() <= 0 else _unchanged(plan, page, before)
                if found is not None:
                    same.append(found)
    finally:
        leave_host(plan.message.job_id, lease)
    kept = {found.page.index for found in same}
    return same, [page for page in frontier if page.index not in kept]


def _unchanged(plan: Sweep, page: Claimed, earlier: EarlierPage) -> Revalidated | None:
    """The page, when a conditional fetch says it is the earlier one (a 304, or the same served HTML)."""
    try:
        fetched = fetched_for(plan.request, page.url, conditional=earlier.validators)
    except ApiError:
        return None  # its message will answer the failure
    if fetched is None:
        return None  # `auto` renders it
    drop = plan.request.ignoreQueryParameters
    if canonical_url(fetched.final_url, drop_query=drop) != page.url:
        return None  # redirected: its message decides whether it is still in scope
    if fetched.not_modified:
        return Revalidated(page, earlier, fetched.final_url, 304, earlier.validators, earlier.body_hash)
    digest = body_hash(plan.request, fetched.html)
    if digest != earlier.body_hash:
        return None
    return Revalidated(page, earlier, fetched.final_url, fetched.status_code, fetched.validators, digest)


def _finish_same(plan: Sweep, job: Job, same: list[Revalidated]) -> list[Claimed]:
    """Record the pages the `same` ones link to (before their results), write their results; answers
    the pages recorded, the next frontier."""
    request = plan.request
    found = [(url, depth, page.page.index) for page in same
             for url, depth in discover(page.earlier.children(), page.page.depth, plan.scope,
                                        drop_query=request.ignoreQueryParameters,
                                        robots_allow=plan.robots_allow).follow]
    claimed = claim_found(job.job_id, found, limit=request.limit,
                          ttl=int(time.time() + RETENTION.total_seconds()), sweep=plan.message.index)
    children: dict[int, list[str]] = {}
    for child in claimed:
        children.setdefault(child.parent, []).append(child.url)
    results = [(page.page.index, _same_outcome(page, children.get(page.page.index, []))) for page in same]
    for start in range(0, len(results), MAX_UNCLAIMED):
        chunk = results[start:start + MAX_UNCLAIMED]
        if not job_store.finish_unclaimed(job, chunk):
            # Claimed or finished by a delivery meanwhile: their messages finish them.
            _send(plan.message, [page.page for page in same[start:start + MAX_UNCLAIMED]])
            continue
        metrics.add_metric(name="CrawlPage.completed", unit="Count", value=len(chunk))
        for index, outcome in chunk:
            webhook_events.item_finished(job, index, outcome)
    return claimed


def _same_outcome(page: Revalidated, children: list[str]) -> Outcome:
    """As the worker answers a `same` page: free, no outputs, `sameAs` the earlier result."""
    data = {"url": page.final_url, "depth": page.page.depth, "statusCode": page.status_code,
            "changeStatus": "same", "sameAs": page.earlier.same_as()}
    attributes = {**page_attributes(page.validators, page.earlier.content_hash or "", page.body_hash),
                  **children_attribute(children)}
    return Outcome("completed", data=data, cached=True, change="same", attributes=attributes)
