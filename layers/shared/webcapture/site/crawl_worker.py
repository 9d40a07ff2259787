"""A crawl's pages, run by the crawl function from its SQS event source (docs/crawl-and-map.md#crawl-and-map):
one message per page, and what the page records that its worker crawls itself (site.crawl_sweep).

For each page: its item is claimed in the job store (a second delivery finds it done, or held by a live
worker, and never runs it twice); a slot of its host is taken (site.crawl_store: `maxConcurrency`, `delay`,
robots.txt's Crawl-delay); the page is loaded once (site.crawl_page) within the key's `maxConcurrency`;
its links (and, for the start page, the sitemaps' URLs) are sorted (site.discovery), recorded each once
within `limit` (site.crawl_store.claim_urls) and enqueued, all before the page's own result is written,
so the job's `total` never falls below what is still to come. Where the crawl fetches its pages, the
worker crawls what it recorded itself rather than enqueue it (site.crawl_sweep), and enqueues only what it
cannot. The result, the job's counters and the
refund of a page that did not complete are one transaction (webcapture.jobs.job_store.finish_item); the
crawl ends when every recorded page has its result, and what it did not use is given back then, once
(site.crawl_credits).

A page whose worker died after recording pages but before enqueueing them comes back after the queue's
visibility timeout; its next delivery enqueues every page it recorded again (a page's second message is
acknowledged without running). A cancelled crawl records nothing more and finishes its queued pages as
cancelled, each refunded.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any, Final

from webcapture import egress, metering, request_scope
from webcapture.auth.caller import Caller
from webcapture.errors import NavigationFailed, UrlNotAllowed
from webcapture.jobs import webhook_events
from webcapture.jobs.item_delivery import (
    Delivery,
    WaitInQueue,
    deliver,
    failed,
    handle_records,
    receive_count,
)
from webcapture.jobs.job_store import RETENTION, Outcome
from webcapture.models.site_requests import CrawlRequest
from webcapture.observability import logger
from webcapture.path_globs import PathGlobs
from webcapture.profiles import sessions
from webcapture.settings import get_settings
from webcapture.site.canonical_urls import canonical_url, host_of, origin_of
from webcapture.site.crawl_changes import children_attribute, earlier_page
from webcapture.site.crawl_extract import extracted
from webcapture.site.crawl_messages import PageMessage, send_page_later, send_pages
from webcapture.site.crawl_outcome import CRAWL_PAGE, page_outcome, redirected_out, same_outcome, skipped
from webcapture.site.crawl_page import crawl_page
from webcapture.site.crawl_store import Claimed, HostLease, claim_urls, claimed_by, enter_host, leave_host
from webcapture.site.crawl_sweep import Sweep, sweep, sweeps
from webcapture.site.crawled_page import CrawledPage
from webcapture.site.discovery import discover, redirected_out_of_scope
from webcapture.site.host_pace import HostPace
from webcapture.site.navigation_renders import renders_navigation
from webcapture.site.robots import RobotsRules, fetch_robots
from webcapture.site.scope import Scope
from webcapture.site.site_map import MapOptions, map_site
from webcapture.stored_files import store_image

# Past the page's own budget: discovery, storing its result, and Lambda's own end.
CLAIM_GRACE_MS: Final = 10_000
# The start page also reads the sitemaps, with this much time at most.
SITEMAP_BUDGET_S: Final = 30.0
ROBOTS_BUDGET_S: Final = 10.0
# A busy host is waited for in place up to this long; a longer wait is the message sent back, delayed.
WAIT_IN_PLACE_S: Final = 5.0

# robots.txt of each (crawl, origin), read once per warm container.
_robots_seen: dict[tuple[str, str], RobotsRules] = {}
_ROBOTS_KEPT = 256


class CrawlWorker:
    """The crawl function's SQS side (edge.lambda_entry.entry_point calls `handle` for SQS events)."""

    def handle(self, event: dict[str, Any], remaining_ms: Callable[[], float]) -> dict[str, Any]:
        return handle_records(event, CRAWL_PAGE, lambda record: _handle_record(record, remaining_ms))


def _handle_record(record: dict[str, Any], remaining_ms: Callable[[], float]) -> None:
    body = record["body"]
    message = PageMessage.from_json(body)
    if message.riders:
        _sweep_share(message, receive_count(record), remaining_ms)
        return
    budget_ms = min(float(get_settings().request_budget_ms), remaining_ms() - request_scope.ANSWER_MARGIN_MS)
    hold_ms = int(budget_ms + (SITEMAP_BUDGET_S * 1000 if message.depth == 0 else 0)) + CLAIM_GRACE_MS
    receives = receive_count(record)
    # A page's error says which page: a crawl's indexes name none.
    delivery = Delivery(message.job_id, message.index, receives, hold_ms,
                        send_later=lambda seconds: send_page_later(body, seconds),
                        error_fields={"url": message.url})

    first = True

    def enqueue_again(again: bool) -> None:
        # Whatever this page recorded before may never have been enqueued: enqueue it again, whatever
        # happens to the page now, or a cancelled or given-up crawl would wait for pages never queued.
        nonlocal first
        if again:
            first = False
            _send(message, claimed_by(message.job_id, message.index))

    # What the worker crawls of the pages it records (site.crawl_sweep) it crawls until then: its result and
    # enqueueing what is left fit the rest.
    sweep_until = time.monotonic() + (remaining_ms() - request_scope.ANSWER_MARGIN_MS - CLAIM_GRACE_MS) / 1000
    deliver(delivery, CRAWL_PAGE,
            lambda _job: _crawl(message, budget_ms, first=first, sweep_until=sweep_until),
            before=enqueue_again)


def _sweep_share(message: PageMessage, receives: int, remaining_ms: Callable[[], float]) -> None:
    """Pages another sweeping worker recorded and handed over (site.crawl_sweep), swept here under the slot
    it took for this worker; then the crawl settled if they were its last. A second delivery finds an
    earlier one may have died mid-sweep: the pages, and what it recorded from them, run from their own
    messages instead (a page already finished acknowledges its message without running)."""
    riders = [Claimed(index, url, depth) for index, url, depth in message.riders]
    lease = None if message.lease is None else HostLease(host_of(message.url), message.lease)
    if receives > 1:
        if lease is not None:
            leave_host(message.job_id, lease)
        handed = {rider.index for rider in riders}
        recorded = [page for page in claimed_by(message.job_id, message.index) if page.index not in handed]
        _send(message, riders + recorded)
        return
    request = CrawlRequest.model_validate(message.request)
    allow = _robots_allow(message.job_id, request)
    rules = _robots(message.job_id, origin_of(message.url)) if request.respectRobotsTxt else None
    until = time.monotonic() + (remaining_ms() - request_scope.ANSWER_MARGIN_MS - CLAIM_GRACE_MS) / 1000
    plan = Sweep(message, request, _scope(request), allow,
                 HostPace.of(request.maxConcurrency, request.delay, rules), until)
    sweep(plan, riders, lease)
    settled = CRAWL_PAGE.settle(message.job_id)
    if settled is not None:
        webhook_events.job_finished(settled)


def _caller(message: PageMessage) -> Caller:
    if message.key_hash is None:
        return Caller(user_id=message.user_id, kind="session")
    return Caller(user_id=message.user_id, kind="api_key", key_id=message.key_id, key_hash=message.key_hash)


def _scope(request: CrawlRequest) -> Scope:
    start = canonical_url(request.url, drop_query=request.ignoreQueryParameters) or request.url
    return Scope.of(start, include_subdomains=request.allowSubdomains,
                    allow_external=request.allowExternal,
                    paths=PathGlobs.of(request.includePaths, request.excludePaths),
                    max_depth=request.maxDepth)


def _robots(job_id: str, origin: str) -> RobotsRules:
    key = (job_id, origin)
    rules = _robots_seen.get(key)
    if rules is None:
        rules = _robots_of(origin)
        if len(_robots_seen) >= _ROBOTS_KEPT:
            _robots_seen.pop(next(iter(_robots_seen)))
        _robots_seen[key] = rules
    return rules


def _robots_of(origin: str) -> RobotsRules:
    try:
        egress.check_target(origin + "/robots.txt")
    except UrlNotAllowed:
        # Nothing there will ever be fetched: its pages are recorded, and each is refused when loaded
        # (URL_NOT_ALLOWED in its result), rather than left out as if the site had asked for it.
        return RobotsRules()
    except NavigationFailed:
        pass  # unresolvable: robots.txt's own fetch fails, and RFC 9309 reads that as "nothing allowed"
    return fetch_robots(origin, time.monotonic() + ROBOTS_BUDGET_S)


def _robots_allow(job_id: str, request: CrawlRequest) -> Callable[[str], bool] | None:
    if not request.respectRobotsTxt:
        return None
    return lambda url: _robots(job_id, origin_of(url)).allowed(url)


def _crawl(message: PageMessage, budget_ms: float, *, first: bool, sweep_until: float) -> Outcome:
    """`first`: no earlier claim of the page may have done work (what it records is all it recorded)."""
    request = CrawlRequest.model_validate(message.request)
    allow = _robots_allow(message.job_id, request)
    if allow is not None and not allow(message.url):
        return skipped("robots.txt disallows this page")
    rules = _robots(message.job_id, origin_of(message.url)) if request.respectRobotsTxt else None
    pace = HostPace.of(request.maxConcurrency, request.delay, rules)
    lease = _enter_host(message, pace, budget_ms)
    try:
        outcome, page = _load(message, request, budget_ms)
    finally:
        leave_host(message.job_id, lease)
    if page is None:
        return outcome
    scope = _scope(request)
    final = canonical_url(page.final_url, drop_query=request.ignoreQueryParameters)
    if final != message.url and redirected_out_of_scope(page.final_url, scope,
                                                         drop_query=request.ignoreQueryParameters):
        return redirected_out(page.final_url)
    # What a fetched crawl records, its worker crawls itself (site.crawl_sweep), rather than enqueue it.
    swept = first and sweeps(request, pace)
    # AWS trouble: the page is delivered again.
    claimed = _discover(message, request, scope, page, allow, first=first, send=not swept)
    if swept and claimed is not None:
        sweep(Sweep(message, request, scope, allow, pace, sweep_until), claimed)
    if outcome.attributes is None or claimed is None:
        return outcome
    # Kept for the next incremental crawl: a 304 there follows these without reading the page.
    return replace(outcome, attributes={**outcome.attributes,
                                        **children_attribute([child.url for child in claimed])})


def _enter_host(message: PageMessage, pace: HostPace, budget_ms: float) -> HostLease:
    """A slot of the page's host, waited for in place a little; longer, the page waits in the queue."""
    waited = 0.0
    while True:
        got = enter_host(message.job_id, host_of(message.url), pace,
                         lease_s=(budget_ms + CLAIM_GRACE_MS) / 1000)
        if isinstance(got, HostLease):
            return got
        if waited + got > WAIT_IN_PLACE_S:
            raise WaitInQueue(got)
        time.sleep(got)
        waited += got


def _load(message: PageMessage, request: CrawlRequest,
          budget_ms: float) -> tuple[Outcome, CrawledPage | None]:
    """The page loaded, with its formats: the completed outcome and the page, or a failed one and None."""
    scope = request_scope.RequestScope(str(uuid.uuid4()), time.monotonic() + budget_ms / 1000, None)
    earlier = None if request.since is None else earlier_page(request.since, message.url)
    with request_scope.scoped(scope), metering.prepaid():
        try:
            # Deleted since the crawl began: the page fails NOT_FOUND before any browser work.
            use = sessions.open_profile(_caller(message), request.profile)
            with metering.metered(_caller(message), 0), sessions.using(use):  # maxConcurrency spans crawls
                page = crawl_page(message.url, message.depth, request,
                                  conditional=None if earlier is None else earlier.validators,
                                  earlier_body=None if earlier is None else earlier.body_hash,
                                  renders_navigation=partial(renders_navigation, message.job_id))
                same = same_outcome(page, earlier)
                if same is not None:
                    return same
                data = dict(page.data)
                if page.screenshot is not None:
                    stored = store_image(user_id=message.user_id, page_url=page.final_url,
                                         image=page.screenshot, image_format="png",
                                         metadata={"url": page.final_url, "statusCode": page.status_code})
                    data["screenshot"] = {"permanentUrl": stored.public_url, "fileId": stored.file_id}
                if page.visible_html is not None:
                    data["json"] = extracted(request, page.visible_html, page.final_url)
        except Exception as error:
            return failed(error, CRAWL_PAGE), None
    not_saved = sessions.finish(use)
    return page_outcome(page, data, request, earlier, [] if not_saved is None else [not_saved]), page


def _sitemap_urls(request: CrawlRequest) -> list[str]:
    options = MapOptions(limit=request.limit, sitemap="only", include_subdomains=request.allowSubdomains,
                         ignore_query_parameters=request.ignoreQueryParameters)
    try:
        found = map_site(request.url, options, time.monotonic() + SITEMAP_BUDGET_S)
    except (UrlNotAllowed, NavigationFailed) as error:
        logger.info("a crawl's sitemaps could not be read", extra={"error": str(error)})
        return []
    return [link["url"] for link in found.links]


def _discover(message: PageMessage, request: CrawlRequest, scope: Scope, page: CrawledPage,
              allow: Callable[[str], bool] | None, *, first: bool, send: bool = True) -> list[Claimed] | None:
    """Record and enqueue (unless not `send`: a sweep's) the pages found from this one: the ones this
    delivery recorded (None on a delivery after the first, which may find recorded already what an earlier
    one recorded and died)."""
    drop = request.ignoreQueryParameters
    follow: list[tuple[str, int]] = []
    if message.depth == 0 and request.sitemap != "skip":
        follow += discover(_sitemap_urls(request), 0, scope, drop_query=drop, robots_allow=allow).follow
    if request.sitemap != "only":
        follow += discover(page.links, message.depth, scope, drop_query=drop, robots_allow=allow).follow
    claimed: list[Claimed] = []
    if follow:
        # A cancelled crawl records nothing more: claim_urls reads the job's status before it records.
        claimed = claim_urls(message.job_id, follow, limit=request.limit,
                             ttl=int(time.time() + RETENTION.total_seconds()), parent=message.index)
        if send or not first:
            _send(message, claimed)
    return claimed if first else None


def _send(message: PageMessage, claimed: list[Claimed]) -> None:
    send_pages([message.page(page.index, page.url, page.depth) for page in claimed])
