"""Pages found are crawled by their finder (docs/crawl-and-map.md#pages-found-are-crawled-by-their-finder).

A page run from its own message costs a claim, a host slot taken and freed, its result's transaction and
a settle check: about ten DynamoDB calls and a message, whatever the page. Where the crawl fetches its
pages (`engine: http` or `auto`, no field only a browser honours, no `delay`, no `json` or `screenshot`
format), the worker that recorded pages crawls them itself instead, in chunks of up to 49: what an
incremental crawl kept of them read in two batch reads per 100; each page fetched (conditionally, for an
incremental crawl) and converted one after another under one slot of the host, exactly as its message
would have; the pages they link to recorded (site.crawl_store.claim_found) before their results, which
are written together (job_store.finish_unclaimed); then the next chunk, until nothing is left or the
worker has less than a page's budget left. A page `auto` renders, one on another host, one whose failure
must wait or be retried, and whatever is left when the crawl is being cancelled, is enqueued and runs
through its own message. What is left when the worker's time runs out, or when it lost its slot of the
host, is handed on as shares (below), the first with the worker's slot if it holds one, so that a crawl
longer than one worker's time stays swept.

Nothing is lost to a worker killed mid-sweep: a page is recorded, marked with the sweeping page's index,
before its finder's result is written, and the sweeping page's own result is written after the sweep; its
redelivery enqueues everything it and its sweep recorded (crawl_store.claimed_by), and a page already
finished acknowledges its message without running. A page another delivery claimed meanwhile makes its
transaction fail: that transaction's pages are enqueued and finish through their claims.

While the frontier is large and the host has a slot free, its later half is handed, with that slot, to
another worker (a share: crawl_messages.PageMessage.riders), which sweeps it the same way; a share's
second delivery enqueues its pages and what it recorded (site.crawl_worker).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Final

from webcapture import request_scope
from webcapture.jobs import job_store, webhook_events
from webcapture.jobs.item_delivery import RetryLater, WaitInQueue, failed
from webcapture.jobs.job_store import MAX_UNCLAIMED, RETENTION, STOPPING, Job, Outcome
from webcapture.models.engines import browser_only_fields
from webcapture.models.site_requests import CrawlRequest
from webcapture.observability import metrics
from webcapture.settings import get_settings
from webcapture.site.canonical_urls import canonical_url, host_of
from webcapture.site.crawl_changes import EarlierPage, children_attribute, earlier_pages
from webcapture.site.crawl_messages import PageMessage, send_page_later, send_pages
from webcapture.site.crawl_outcome import CRAWL_PAGE, page_outcome, redirected_out, same_outcome
from webcapture.site.crawl_page import fetched_crawl_page
from webcapture.site.crawl_store import Claimed, HostLease, claim_found, enter_host, leave_host
from webcapture.site.discovery import discover, redirected_out_of_scope
from webcapture.site.host_pace import HostPace
from webcapture.site.navigation_renders import renders_navigation
from webcapture.site.scope import Scope

# Pages crawled between two looks at the job (a cancel) and two writes of results.
CHUNK: Final = MAX_UNCLAIMED
# A slot of the host is held for a page's budget and this much more (as a page run from its message holds
# it), and taken again once this much of it has passed.
LEASE_GRACE_S: Final = 10.0
# A share handed to another worker is worth its message and the worker's start from this many pages; its
# URLs take at most this much of the message.
MIN_SHARE: Final = 10
SHARE_BYTES: Final = 120_000
# A share that finds every slot of the host taken asks again this much later (at most).
SHARE_RETRY_S: Final = 2.0
# Formats a fetched page cannot give without more than its fetch: a model's answer, a browser's pixels.
_OWN_MESSAGE_FORMATS: Final = frozenset({"json", "screenshot"})


@dataclass(frozen=True)
class Sweep:
    message: PageMessage  # the sweeping page's
    request: CrawlRequest
    scope: Scope
    robots_allow: Callable[[str], bool] | None
    pace: HostPace
    deadline: float  # time.monotonic() instant by which the sweep enqueues what is left

    def time_left(self) -> float:
        return self.deadline - time.monotonic()

    def has_a_page_budget(self) -> bool:
        """Whether a page started now gets the whole budget its own message would give it: one started
        with less could fail for want of the sweep's time, not its own."""
        return self.time_left() >= get_settings().request_budget_ms / 1000


@dataclass(frozen=True)
class Crawled:
    page: Claimed
    outcome: Outcome
    links: list[str]  # the pages it links to, to record (none for a failed page)


def sweeps(request: CrawlRequest, pace: HostPace) -> bool:
    """Whether the pages a worker records are crawled by it rather than from their own messages."""
    return (request.engine != "browser" and not browser_only_fields(request) and pace.delay_s == 0
            and not _OWN_MESSAGE_FORMATS & set(request.formats))


def sweep(plan: Sweep, frontier: list[Claimed], lease: HostLease | None = None) -> None:
    """Crawl `frontier` (pages the sweeping page recorded and did not enqueue), then what they record,
    under one slot of the host (`lease`: one taken for this worker by the one that handed it the pages),
    handing half of what is left to another worker whenever the host has a slot free."""
    host = host_of(plan.message.url)
    if lease is None:
        taken = enter_host(plan.message.job_id, host, plan.pace, lease_s=_lease_s())
        if not isinstance(taken, HostLease):
            # The host is busy: a share waits its turn whole, to be swept; a sweeping page's finds each
            # wait in the queue as their own messages.
            if plan.message.riders:
                send_page_later(plan.message.to_json(), min(taken, SHARE_RETRY_S))
            else:
                _send(plan.message, frontier)
            return
        lease = taken
    slot = _Slot(plan, lease)
    try:
        while frontier:
            job = job_store.get_job(plan.message.job_id)
            if job is None or job.status in STOPPING:
                break  # a cancelled crawl's pages finish as cancelled, through their messages
            if not plan.has_a_page_budget() or slot.lease is None:
                # The time is spent, or the slot was lost (another worker took it while it was renewed):
                # the rest waits its turn in the queue, still to be swept.
                frontier = _pass_on(plan, frontier, slot)
                break
            frontier = _hand_off(plan, frontier)
            chunk, frontier = frontier[:CHUNK], frontier[CHUNK:]
            crawled, others, unreached = _crawled(plan, chunk, slot)
            _send(plan.message, others)
            frontier = unreached + frontier + _finish(plan, job, crawled)
        _send(plan.message, frontier)
    finally:
        slot.leave()


class _Slot:
    """The host slot a sweep holds, taken again once LEASE_GRACE_S of it has passed, so that a worker
    killed mid-sweep holds it no longer than a page's own message would."""

    def __init__(self, plan: Sweep, lease: HostLease) -> None:
        self.plan, self.taken = plan, time.monotonic()
        self.lease: HostLease | None = lease

    def renewed(self) -> bool:
        if self.lease is None:
            return False
        if time.monotonic() - self.taken <= LEASE_GRACE_S:
            return True
        job_id = self.plan.message.job_id
        leave_host(job_id, self.lease)
        renewed = enter_host(job_id, self.lease.host, self.plan.pace, lease_s=_lease_s())
        self.lease = renewed if isinstance(renewed, HostLease) else None
        self.taken = time.monotonic()
        return self.lease is not None

    def leave(self) -> None:
        if self.lease is not None:
            leave_host(self.plan.message.job_id, self.lease)
            self.lease = None


def _lease_s() -> float:
    return get_settings().request_budget_ms / 1000 + LEASE_GRACE_S


def _hand_off(plan: Sweep, frontier: list[Claimed]) -> list[Claimed]:
    """While the host has a slot free and the frontier is worth sharing: its later half (at most
    SHARE_BYTES of it) handed to another worker, which sweeps it under that slot. Answers what is left."""
    message = plan.message
    while len(frontier) >= 2 * MIN_SHARE:
        lease = enter_host(message.job_id, host_of(message.url), plan.pace, lease_s=_lease_s())
        if not isinstance(lease, HostLease):
            break
        keep = len(frontier) // 2
        share = _within_bytes([(page.index, page.url, page.depth) for page in frontier[keep:]])
        try:
            send_pages([message.share(share, lease.element)])
        except Exception:
            leave_host(message.job_id, lease)
            raise
        frontier = frontier[:keep] + frontier[keep + len(share):]
    return frontier


def _pass_on(plan: Sweep, frontier: list[Claimed], slot: _Slot) -> list[Claimed]:
    """The frontier handed on as shares (SHARE_BYTES of URLs each), the first with this worker's slot if
    it still holds one, so a large crawl stays swept from worker to worker instead of falling back to a
    message, a claim and a slot per page. Answers what is left for page messages: a frontier too small to
    be worth a share."""
    if len(frontier) < MIN_SHARE:
        return frontier
    riders = [(page.index, page.url, page.depth) for page in frontier]
    shares: list[list[tuple[int, str, int]]] = []
    while riders:
        shares.append(_within_bytes(riders))
        riders = riders[len(shares[-1]):]
    # The slot's share goes last: once it is sent the slot is that worker's to renew and leave, and a
    # failure before it leaves the slot with this worker, which frees it.
    send_pages([plan.message.share(share, None) for share in shares[1:]])
    lease = slot.lease
    send_pages([plan.message.share(shares[0], None if lease is None else lease.element)])
    slot.lease = None
    return []


def _within_bytes(riders: list[tuple[int, str, int]]) -> list[tuple[int, str, int]]:
    """The first riders whose URLs fit SHARE_BYTES (an SQS message holds 256 KB, the crawl's request too)."""
    size = 0
    for count, (_, url, _) in enumerate(riders):
        size += len(url.encode()) + 24
        if size > SHARE_BYTES:
            return riders[:max(count, 1)]
    return riders


def _send(message: PageMessage, pages: list[Claimed]) -> None:
    send_pages([message.page(page.index, page.url, page.depth) for page in pages])


def _crawled(plan: Sweep, chunk: list[Claimed], slot: _Slot,
             ) -> tuple[list[Crawled], list[Claimed], list[Claimed]]:
    """The chunk's pages this worker crawled; those that run from their own messages (another host, a
    render, a wait); those not reached before the time or the slot ran out (back to the frontier)."""
    host = host_of(plan.message.url)
    ours = [page for page in chunk if host_of(page.url) == host]
    since = plan.request.since
    earlier = {} if since is None else earlier_pages(since, [page.url for page in ours])
    crawled: list[Crawled] = []
    reached = 0
    for page in ours:
        if not plan.has_a_page_budget() or not slot.renewed():
            break
        reached += 1
        done = _crawl_one(plan, page, earlier.get(page.url))
        if done is not None:
            crawled.append(done)
    unreached = ours[reached:]
    kept = {page.index for page in unreached} | {done.page.index for done in crawled}
    return crawled, [page for page in chunk if page.index not in kept], unreached


def _crawl_one(plan: Sweep, page: Claimed, earlier: EarlierPage | None) -> Crawled | None:
    """The page as its own message would have crawled it; None when it must run from its message."""
    request = plan.request
    budget_s = min(get_settings().request_budget_ms / 1000, plan.time_left())
    scope = request_scope.RequestScope(str(uuid.uuid4()), time.monotonic() + budget_s, None)
    try:
        with request_scope.scoped(scope):
            loaded = fetched_crawl_page(page.url, page.depth, request,
                                        conditional=None if earlier is None else earlier.validators,
                                        earlier_body=None if earlier is None else earlier.body_hash,
                                        renders_navigation=partial(renders_navigation, plan.message.job_id))
    except Exception as error:
        try:
            outcome = failed(error, CRAWL_PAGE)
        except (WaitInQueue, RetryLater):
            return None
        return Crawled(page, _naming(outcome, page), [])
    if loaded is None:
        return None  # `auto` renders it
    drop = request.ignoreQueryParameters
    if (canonical_url(loaded.final_url, drop_query=drop) != page.url
            and redirected_out_of_scope(loaded.final_url, plan.scope, drop_query=drop)):
        return Crawled(page, _naming(redirected_out(loaded.final_url), page), [])
    same = same_outcome(loaded, earlier)
    if same is not None:
        outcome, loaded = same
        return Crawled(page, outcome, loaded.links)
    return Crawled(page, page_outcome(loaded, dict(loaded.data), request, earlier, []), loaded.links)


def _naming(outcome: Outcome, page: Claimed) -> Outcome:
    """A page's error says which page, as its message's does: a crawl's indexes name none."""
    return replace(outcome, error={**(outcome.error or {}), "url": page.url})


def _finish(plan: Sweep, job: Job, crawled: list[Crawled]) -> list[Claimed]:
    """Record the pages the crawled ones link to (before their results), write their results; answers
    the pages recorded, for the sweep to crawl next."""
    request = plan.request
    found = [(url, depth, done.page.index) for done in crawled
             for url, depth in discover(done.links, done.page.depth, plan.scope,
                                        drop_query=request.ignoreQueryParameters,
                                        robots_allow=plan.robots_allow).follow]
    claimed = claim_found(job.job_id, found, limit=request.limit,
                          ttl=int(time.time() + RETENTION.total_seconds()), sweep=plan.message.index)
    children: dict[int, list[str]] = {}
    for child in claimed:
        children.setdefault(child.parent, []).append(child.url)
    results = [(done.page.index, _with_children(done.outcome, children.get(done.page.index, [])))
               for done in crawled]
    not_written = set(job_store.finish_unclaimed(job, results))
    # Claimed or finished by a delivery meanwhile: their messages finish them.
    _send(plan.message, [done.page for done in crawled if done.page.index in not_written])
    for index, outcome in results:
        if index not in not_written:
            metrics.add_metric(name=f"{CRAWL_PAGE.metric}.{outcome.status}", unit="Count", value=1)
            webhook_events.item_finished(job, index, outcome)
    return claimed


def _with_children(outcome: Outcome, children: list[str]) -> Outcome:
    """Kept for the next incremental crawl: a 304 there follows these without reading the page."""
    if outcome.attributes is None:
        return outcome
    return replace(outcome, attributes={**outcome.attributes, **children_attribute(children)})
