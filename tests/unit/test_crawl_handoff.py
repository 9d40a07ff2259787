"""A sweeping worker hands half of a large frontier to another worker while the host has a slot free
(site.crawl_sweep): in process, moto's DynamoDB and SQS, the crawl worker fed from the queue, a 150-page
loopback site whose start page links to 40 pages. Each share runs from one message under the slot taken
for it, `maxConcurrency` bounds how many workers sweep at once, and a share whose worker died, or that
arrives during a cancel, still leaves exactly one result per page and exact counts and credits. A worker
whose time runs out passes what is left on as shares, so no page falls back to a message of its own."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.fast_pages import FastPageServer, linking_page, serve_numbered
from tests.unit.test_crawl_sweep import _crawl, _statuses
from tests.unit.test_site_crawl_submit import _caller, _remaining, crawl_aws  # noqa: F401 - fixture
from webcapture import request_scope
from webcapture.jobs import job_store
from webcapture.jobs.job_view import job_data
from webcapture.settings import get_settings
from webcapture.site import crawl_messages, crawl_sweep

PAGES = 150
FIRST_LEVEL = 40


def _children(number: int) -> list[int]:
    """The start page links to p2..p41; page n to p(3n+36)..p(3n+38), within PAGES."""
    if number == 1:
        return list(range(2, FIRST_LEVEL + 2))
    return [child for child in range(3 * number + 36, 3 * number + 39) if child <= PAGES]


def _page(number: int, words: str) -> bytes:
    return linking_page(number, words, _children(number))


@pytest.fixture
def site(crawl_aws: str, settings_env: pytest.MonkeyPatch) -> Iterator[FastPageServer]:  # noqa: F811
    yield from serve_numbered(_page, PAGES)


@pytest.fixture
def shares(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The indexes of each share handed over, as sent."""
    sent: list[list[int]] = []
    real = crawl_messages.send_pages

    def sending(messages: list[crawl_messages.PageMessage]) -> None:
        sent.extend([index for index, _, _ in message.riders] for message in messages if message.riders)
        real(messages)

    monkeypatch.setattr(crawl_sweep, "send_pages", sending)
    return sent


def _crawl_wide(queue: str, site: FastPageServer, **more: Any) -> tuple[dict[str, Any], int, str]:
    """The crawl, and every page of its results (two pages of 100)."""
    caller, key_hash = _caller(1000)
    crawl, ran = _crawl(caller, queue, site, limit=PAGES, maxDepth=5, **more)
    while crawl["next"] is not None:
        job = job_store.get_job(crawl["jobId"])
        assert job is not None
        more_results = job_data(job, limit="100", cursor=crawl["next"])
        crawl = {**more_results, "results": crawl["results"] + more_results["results"]}
    return crawl, ran, key_hash


def _whole(crawl: dict[str, Any], status: str = "completed") -> None:
    assert crawl["status"] == status and crawl["total"] == PAGES
    assert sorted(int(page[1:]) for page in _statuses(crawl)) == list(range(1, PAGES + 1))  # each once
    assert len(crawl["results"]) == PAGES


def test_a_large_frontier_is_shared_among_max_concurrency_workers(
        site: FastPageServer, crawl_aws: str, shares: list[list[int]]) -> None:  # noqa: F811
    crawl, ran, key_hash = _crawl_wide(crawl_aws, site, maxConcurrency=3)
    _whole(crawl)
    assert crawl["completed"] == PAGES and 1000 - _remaining(key_hash) == PAGES == crawl["creditsCost"]
    # The start page's worker kept 10 of its 40 pages and handed 20, then 10, to two more workers: three
    # slots of the host. A worker that ran a share handed part of it on in turn once a slot was free (here,
    # where the queue is drained one message at a time, once the start page's worker was done). Each share
    # ran from its one message.
    assert [len(share) for share in shares[:2]] == [20, 10] and ran == 1 + len(shares)
    assert not set(shares[0]) & set(shares[1])


def test_max_concurrency_one_shares_nothing(
        site: FastPageServer, crawl_aws: str, shares: list[list[int]]) -> None:  # noqa: F811
    crawl, ran, _ = _crawl_wide(crawl_aws, site, maxConcurrency=1)
    _whole(crawl)
    assert shares == [] and ran == 1


def test_an_unchanged_recrawl_is_shared_and_free(
        site: FastPageServer, crawl_aws: str, shares: list[list[int]]) -> None:  # noqa: F811
    first, _, _ = _crawl_wide(crawl_aws, site, maxConcurrency=2)
    again, ran, key_hash = _crawl_wide(crawl_aws, site, maxConcurrency=2, since=first["jobId"])
    _whole(again)
    assert again["changes"] == {"new": 0, "changed": 0, "same": PAGES, "removed": 0}
    assert again["creditsCost"] == 0 and _remaining(key_hash) == 1000
    shared = len(shares) // 2
    assert shared >= 1 and ran == 1 + shared  # as many shares in each crawl


def _dies_in_first_share(real: Callable[..., list[int]], died: list[int]) -> Callable[..., list[int]]:
    """finish_unclaimed raising in the first share's worker, after it wrote nothing: a worker killed."""

    def finish(job: job_store.Job, results: list[tuple[int, job_store.Outcome]]) -> list[int]:
        if not died and results[0][0] > FIRST_LEVEL // 2:  # the first share's pages (p22..p41)
            died.append(results[0][0])
            raise RuntimeError("the worker is killed here")
        return real(job, results)

    return finish


def test_a_share_whose_worker_died_runs_its_pages_from_their_own_messages(
        site: FastPageServer, crawl_aws: str, shares: list[list[int]],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    died: list[int] = []
    monkeypatch.setattr(job_store, "finish_unclaimed", _dies_in_first_share(job_store.finish_unclaimed, died))
    crawl, ran, key_hash = _crawl_wide(crawl_aws, site, maxConcurrency=3)
    assert died
    _whole(crawl)
    assert crawl["completed"] == PAGES and 1000 - _remaining(key_hash) == PAGES == crawl["creditsCost"]
    assert ran > 1 + len(shares)  # the dead share's pages, and what it recorded, from their own messages


def test_a_share_arriving_during_a_cancel_ends_cancelled_with_the_rest_given_back(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    real = crawl_messages.send_pages
    handed: list[int] = []

    def cancels_after_the_first_share(messages: list[crawl_messages.PageMessage]) -> None:
        real(messages)
        if not handed and messages[0].riders:
            handed.extend(index for index, _, _ in messages[0].riders)
            assert job_store.cancel_job(messages[0].job_id)

    monkeypatch.setattr(crawl_sweep, "send_pages", cancels_after_the_first_share)
    crawl, _, key_hash = _crawl_wide(crawl_aws, site, maxConcurrency=3)
    assert crawl["status"] == "cancelled" and len(crawl["results"]) == crawl["total"] > len(handed) > 0
    by_index = {result["index"]: result["status"] for result in crawl["results"]}
    assert {by_index[index] for index in handed} == {"cancelled"}
    completed = list(by_index.values()).count("completed")
    assert crawl["completed"] == completed and crawl["cancelled"] == crawl["total"] - completed
    assert 1000 - _remaining(key_hash) == completed == crawl["creditsCost"]


def test_a_share_message_keeps_its_pages_and_slot() -> None:
    page = crawl_messages.PageMessage("j", 1, "http://a/p1", 0, "u", None, None, {"url": "http://a/"})
    share = page.share([(7, "http://a/p7", 1), (8, "http://a/p8", 2)], "123:lease")
    again = crawl_messages.PageMessage.from_json(share.to_json())
    assert again == share and (again.index, again.url, again.depth, again.lease) == (7, "http://a/p7", 1, "123:lease")
    assert "riders" not in json.loads(page.to_json())


SWEPT = 25  # pages a worker sweeps before its time runs out, in the tests below


@pytest.fixture
def one_by_one(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pages a sweep sent to run from their own messages."""
    sent: list[int] = []
    real_send = crawl_sweep._send

    def sending(message: crawl_messages.PageMessage, pages: list[Any]) -> None:
        sent.extend(page.index for page in pages)
        real_send(message, pages)

    monkeypatch.setattr(crawl_sweep, "_send", sending)
    return sent


@pytest.fixture
def budgets(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The seconds each page a sweep crawled had for itself when it started."""
    given: list[float] = []
    real = crawl_sweep.fetched_crawl_page

    def fetching(*args: Any, **kwargs: Any) -> Any:
        given.append(request_scope.deadline() - time.monotonic())
        return real(*args, **kwargs)

    monkeypatch.setattr(crawl_sweep, "fetched_crawl_page", fetching)
    return given


@pytest.fixture
def short_sweeps(monkeypatch: pytest.MonkeyPatch, one_by_one: list[int]) -> list[int]:
    """Each worker has less than a page's budget left (5 s) once its sweep has crawled SWEPT pages;
    answers the pages that ran from their own messages."""
    crawled: Counter[int] = Counter()
    real_crawl = crawl_sweep._crawl_one

    def counting(plan: crawl_sweep.Sweep, page: Any, earlier: Any) -> Any:
        done = real_crawl(plan, page, earlier)  # with the time the sweep had left before it
        crawled[plan.message.index] += 1
        return done

    monkeypatch.setattr(crawl_sweep, "_crawl_one", counting)
    monkeypatch.setattr(crawl_sweep.Sweep, "time_left",
                        lambda plan: 5.0 if crawled[plan.message.index] >= SWEPT else 60.0)
    return one_by_one


@pytest.fixture
def leases(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """The slot each share was sent with (None: it takes one itself), in the order sent."""
    sent: list[str | None] = []
    real = crawl_messages.send_pages

    def sending(messages: list[crawl_messages.PageMessage]) -> None:
        sent.extend(message.lease for message in messages if message.riders)
        real(messages)

    monkeypatch.setattr(crawl_sweep, "send_pages", sending)
    return sent


def test_a_worker_whose_time_runs_out_hands_its_frontier_and_slot_on_as_a_share(
        site: FastPageServer, crawl_aws: str, short_sweeps: list[int],  # noqa: F811
        leases: list[str | None], budgets: list[float]) -> None:
    crawl, ran, key_hash = _crawl_wide(crawl_aws, site, maxConcurrency=1)
    _whole(crawl)
    assert crawl["completed"] == PAGES and 1000 - _remaining(key_hash) == PAGES == crawl["creditsCost"]
    # No page was started with less than the budget its own message would give it (a page started with
    # the sweep's last seconds could fail for want of them).
    assert len(budgets) == PAGES - 1 and min(budgets) > get_settings().request_budget_ms / 1000 - 1
    # 150 pages, 25 a worker: the start page's worker and five shares, each passed on with the one slot of
    # the host; no page ran from a message of its own.
    assert len(leases) >= PAGES // SWEPT - 1 and None not in leases
    assert short_sweeps == [] and ran == 1 + len(leases)


def test_a_share_that_finds_the_host_busy_comes_back_whole(
        site: FastPageServer, crawl_aws: str, short_sweeps: list[int],  # noqa: F811
        leases: list[str | None], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(crawl_sweep, "SHARE_BYTES", 600)  # a frontier passed on is several shares
    back: list[int] = []

    def at_once(body: str, delay_s: float) -> None:  # the queue delay played as none, for the drain
        assert 0 < delay_s <= crawl_sweep.SHARE_RETRY_S
        back.append(len(crawl_messages.PageMessage.from_json(body).riders))
        crawl_messages.send_pages([crawl_messages.PageMessage.from_json(body)])

    monkeypatch.setattr(crawl_sweep, "send_page_later", at_once)
    crawl, ran, key_hash = _crawl_wide(crawl_aws, site, maxConcurrency=1)
    _whole(crawl)
    assert crawl["completed"] == PAGES and 1000 - _remaining(key_hash) == PAGES == crawl["creditsCost"]
    # The shares without the slot arrived while the one with it held the host's only slot: each came back
    # whole, and every page was still swept.
    assert None in leases and back and all(count > 1 for count in back)
    assert short_sweeps == [] and ran == 1 + len(leases) + len(back)


def test_a_worker_that_loses_its_slot_passes_its_frontier_on_to_be_swept(
        site: FastPageServer, crawl_aws: str, one_by_one: list[int],  # noqa: F811
        leases: list[str | None], monkeypatch: pytest.MonkeyPatch) -> None:
    real = crawl_sweep._Slot.renewed
    renewals: list[int] = []

    def lost_once(slot: crawl_sweep._Slot) -> bool:
        """The 30th renewal finds the slot taken by another worker between leaving and taking it again."""
        renewals.append(1)
        if len(renewals) == 30 and slot.lease is not None:
            crawl_sweep.leave_host(slot.plan.message.job_id, slot.lease)
            slot.lease = None
            return False
        return real(slot)

    monkeypatch.setattr(crawl_sweep._Slot, "renewed", lost_once)
    crawl, ran, key_hash = _crawl_wide(crawl_aws, site, maxConcurrency=1)
    _whole(crawl)
    assert crawl["completed"] == PAGES and 1000 - _remaining(key_hash) == PAGES == crawl["creditsCost"]
    assert len(renewals) >= 30 and leases == [None]  # one share, which took a slot itself
    assert one_by_one == [] and ran == 2
