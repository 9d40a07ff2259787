"""Pages found are crawled by their finder (site.crawl_sweep), in process: moto's DynamoDB and SQS, the
crawl worker fed from the queue (honouring its partial batch response), a 24-page loopback site with ETags,
the http engine. A crawl and its incremental re-crawl each run from the start page's one message, with the
same results, statuses and credits as page-per-message; a page `auto` would render runs from its own
message; a worker killed mid-sweep, a page claimed meanwhile by another delivery, or a cancel mid-sweep,
still leaves exactly one result per page and exact counts and credits."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from tests.support.fast_pages import FastPageServer, linking_page, serve_numbered
from tests.unit.test_site_crawl_submit import _caller, _remaining, crawl_aws  # noqa: F401 - fixture
from webcapture.jobs import job_store
from webcapture.jobs.job_view import job_data
from webcapture.site import crawl_changes, crawl_page, crawl_store, crawl_sweep
from webcapture.site.crawl_submit import submit_crawl
from webcapture.site.crawl_worker import CrawlWorker

PAGES = 24


def _page(number: int, words: str) -> bytes:
    """A binary tree: page n links to 2n and 2n+1, and back to the first (five levels for 24 pages)."""
    return linking_page(number, words, [child for child in (2 * number, 2 * number + 1) if child <= PAGES])


@pytest.fixture
def site(crawl_aws: str, settings_env: pytest.MonkeyPatch) -> Iterator[FastPageServer]:  # noqa: F811
    yield from serve_numbered(_page, PAGES)


def _drain(queue_url: str, *, resent: bool = False) -> int:
    """Run every message as the event source would (a reported failure is delivered again, or with
    `resent` sent again as a new message, as a busy item's is, whose receive count starts at 1); how many
    messages ran."""
    sqs, worker, ran = boto3.client("sqs"), CrawlWorker(), 0
    while True:
        answer = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10,
                                     AttributeNames=["ApproximateReceiveCount"])
        messages = answer.get("Messages", [])
        if not messages:
            return ran
        for message in messages:
            record = {"eventSource": "aws:sqs", "messageId": message["MessageId"], "body": message["Body"],
                      "attributes": message.get("Attributes", {})}
            ran += 1
            failures = worker.handle({"Records": [record]}, lambda: 120_000.0)["batchItemFailures"]
            if failures and resent:
                sqs.send_message(QueueUrl=queue_url, MessageBody=message["Body"])
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
            elif failures:
                sqs.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"],
                                              VisibilityTimeout=0)
            else:
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])


def _crawl(caller: Any, queue_url: str, site: FastPageServer, resent: bool = False,
           **more: Any) -> tuple[dict[str, Any], int]:
    body = {"url": f"http://127.0.0.1:{site.port}/p1", "limit": 100, "maxDepth": 10, "engine": "http",
            "sitemap": "skip", "respectRobotsTxt": False, **more}
    submitted = submit_crawl(caller, body, None)
    ran = _drain(queue_url, resent=resent)
    job = job_store.get_job(submitted.job.job_id)
    assert job is not None
    return job_data(job, limit="100"), ran


def _unexpected(*_: Any) -> Any:
    raise AssertionError("not expected to be called")


def _statuses(crawl: dict[str, Any]) -> dict[str, str]:
    by_page: dict[str, str] = {}
    for result in crawl["results"]:
        page = result["data"]["url"].rsplit("/", 1)[1]
        assert page not in by_page, f"{page} has two results"
        by_page[page] = result["data"].get("changeStatus")
    return by_page


def test_a_site_and_its_unchanged_recrawl_each_run_from_one_message(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    caller, key_hash = _caller(1000)
    first, first_ran = _crawl(caller, crawl_aws, site)
    assert first["completed"] == PAGES and first_ran == 1
    assert 1000 - _remaining(key_hash) == PAGES and first["creditsCost"] == PAGES
    depths = {r["data"]["url"].rsplit("/", 1)[1]: r["data"]["depth"] for r in first["results"]}
    assert depths["p1"] == 0 and depths["p3"] == 1 and depths["p7"] == 2 and depths["p24"] == 4
    assert all(r["data"]["markdown"].startswith("# Page") for r in first["results"])
    before = _remaining(key_hash)
    # Every earlier page reached again: nothing removed, and neither crawl's URLs are read to say so.
    monkeypatch.setattr(crawl_changes, "_urls", _unexpected)
    again, ran = _crawl(caller, crawl_aws, site, since=first["jobId"])
    assert ran == 1  # the start page's: every other page was revalidated by its worker
    assert again["status"] == "completed" and again["total"] == PAGES
    assert again["changes"] == {"new": 0, "changed": 0, "same": PAGES, "removed": 0}
    assert set(_statuses(again).values()) == {"same"}
    assert _remaining(key_hash) == before and again["creditsCost"] == 0
    same = next(r for r in again["results"] if r["index"] == 7)
    assert same["data"]["statusCode"] == 304 and same["data"]["sameAs"]["jobId"] == first["jobId"]

    # The swept pages keep what they recorded: a third crawl, against the second, is swept the same way.
    third, ran = _crawl(caller, crawl_aws, site, since=again["jobId"])
    assert ran == 1 and third["changes"]["same"] == PAGES


def test_changed_and_deleted_pages_are_told_apart_in_the_sweep(site: FastPageServer, crawl_aws: str) -> None:  # noqa: F811
    caller, key_hash = _caller(1000)
    first, _ = _crawl(caller, crawl_aws, site)
    site.pages["/p6"] = (_page(6, "new words on page 6"), "text/html", '"p6-v2"')
    del site.pages["/p24"]  # a leaf: nothing else is reached only through it
    before = _remaining(key_hash)
    again, ran = _crawl(caller, crawl_aws, site, since=first["jobId"])
    statuses = _statuses(again)
    assert statuses.pop("p6") == "changed" and statuses.pop("p24") == "removed"
    assert set(statuses.values()) == {"same"} and len(statuses) == PAGES - 2
    assert again["changes"] == {"new": 0, "changed": 1, "same": PAGES - 2, "removed": 1}
    assert ran == 1
    changed = next(r for r in again["results"] if r["data"]["url"].endswith("/p6"))
    assert "new words on page 6" in changed["data"]["markdown"]
    assert before - _remaining(key_hash) == 1


def _fails_once(real: Callable[..., list[int]], on_call: int, killed: list[int]) -> Callable[..., list[int]]:
    calls = 0

    def finish(*arguments: Any) -> list[int]:
        nonlocal calls
        calls += 1
        if calls == on_call:
            killed.append(calls)
            raise RuntimeError("the worker is killed here")
        return real(*arguments)

    return finish


@pytest.mark.parametrize(("killed_at", "resent"), [(1, False), (3, False), (3, True)])
def test_a_worker_killed_mid_sweep_loses_no_page_and_counts_none_twice(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
        killed_at: int, resent: bool) -> None:
    caller, key_hash = _caller(1000)
    first, _ = _crawl(caller, crawl_aws, site)
    before = _remaining(key_hash)
    killed: list[int] = []
    monkeypatch.setattr(job_store, "finish_unclaimed",
                        _fails_once(job_store.finish_unclaimed, killed_at, killed))
    again, _ = _crawl(caller, crawl_aws, site, resent=resent, since=first["jobId"])
    assert killed == [killed_at]  # one sweep write per level: the kill came after killed_at - 1 levels
    assert again["status"] == "completed" and again["total"] == PAGES
    assert len(_statuses(again)) == PAGES and set(_statuses(again).values()) == {"same"}
    assert again["changes"] == {"new": 0, "changed": 0, "same": PAGES, "removed": 0}
    assert _remaining(key_hash) == before


def test_a_page_claimed_by_another_delivery_meanwhile_is_finished_by_it(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    caller, _ = _caller(1000)
    first, _ = _crawl(caller, crawl_aws, site)
    real = job_store.finish_unclaimed
    taken: list[int] = []

    def raced(job: job_store.Job, results: list[tuple[int, job_store.Outcome]]) -> list[int]:
        if not taken:  # another delivery claims the first page of the first chunk, and its claim runs out
            taken.append(results[0][0])
            assert job_store.claim_item(job.job_id, results[0][0], "another", 1) == "claimed"
        return real(job, results)

    monkeypatch.setattr(job_store, "finish_unclaimed", raced)
    again, ran = _crawl(caller, crawl_aws, site, since=first["jobId"])
    assert taken and ran > 1
    assert len(_statuses(again)) == PAGES and again["changes"]["same"] == PAGES


def test_a_page_auto_would_render_runs_from_its_own_message(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    real = crawl_page.fetched_crawl_page

    def renders_p5(url: str, *arguments: Any, **named: Any) -> Any:
        return None if url.endswith("/p5") else real(url, *arguments, **named)

    monkeypatch.setattr(crawl_sweep, "fetched_crawl_page", renders_p5)
    caller, _ = _caller(1000)
    crawl, ran = _crawl(caller, crawl_aws, site)
    assert ran == 2  # the start page's and p5's (fetched there: this test's engine is http)
    assert len(_statuses(crawl)) == PAGES and crawl["completed"] == PAGES
    assert {r["data"]["depth"] for r in crawl["results"] if r["data"]["url"].endswith(("/p10", "/p11"))} == {3}


def test_a_cancel_mid_sweep_ends_the_crawl_cancelled_with_the_rest_given_back(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    real = job_store.finish_unclaimed
    writes: list[int] = []

    def cancels_after_two(job: job_store.Job, results: list[tuple[int, job_store.Outcome]]) -> list[int]:
        written = real(job, results)
        writes.append(len(results))
        if len(writes) == 2:
            assert job_store.cancel_job(job.job_id)
        return written

    monkeypatch.setattr(job_store, "finish_unclaimed", cancels_after_two)
    caller, key_hash = _caller(1000)
    crawl, _ = _crawl(caller, crawl_aws, site)
    assert crawl["status"] == "cancelled" and len(writes) == 2
    completed = 1 + sum(writes)  # the start page and the two levels written before the cancel
    assert crawl["completed"] == completed and len(crawl["results"]) == crawl["total"]
    cancelled = [r for r in crawl["results"] if r["status"] == "cancelled"]
    assert len(cancelled) == crawl["total"] - completed > 0
    assert 1000 - _remaining(key_hash) == completed == crawl["creditsCost"]


def test_a_failed_or_skipped_page_names_its_url_as_its_message_would(
        site: FastPageServer, crawl_aws: str) -> None:  # noqa: F811
    away = "/redirect?to=/outside"
    refused = "/redirect?to=http://127.0.0.2:9/"  # a hop the egress policy refuses
    body, content_type, etag = site.pages["/p2"]
    site.pages["/p2"] = (body.replace(b"<nav>", f"<nav><a href='{away}'>a</a><a href='{refused}'>b</a>".encode()),
                         content_type, etag)
    caller, _ = _caller(1000)
    crawl, ran = _crawl(caller, crawl_aws, site, excludePaths=["/outside"])
    assert ran == 1
    errors = {r["error"]["url"].split("=", 1)[1]: r["error"]["code"] for r in crawl["results"] if "error" in r}
    assert errors == {"/outside": "SKIPPED", "http://127.0.0.2:9/": "URL_NOT_ALLOWED"}
    assert crawl["failed"] == 2 and crawl["creditsCost"] == PAGES


def test_the_hosts_slot_is_taken_again_as_the_sweep_goes_and_freed_at_the_end(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    taken: list[float] = []
    real_enter = crawl_store.enter_host

    def entering(*arguments: Any, **named: Any) -> Any:
        taken.append(named["lease_s"])
        return real_enter(*arguments, **named)

    monkeypatch.setattr(crawl_sweep, "LEASE_GRACE_S", 0.0)  # taken again before every page
    monkeypatch.setattr(crawl_sweep, "enter_host", entering)
    caller, _ = _caller(1000)
    crawl, ran = _crawl(caller, crawl_aws, site)
    assert ran == 1 and crawl["completed"] == PAGES
    assert len(taken) >= PAGES - 1 and max(taken) <= 60  # a page's budget, never the sweep's whole time
    host = boto3.resource("dynamodb").Table("JobsTable").get_item(
        Key={"pk": f"job#{crawl['jobId']}", "sk": "host#127.0.0.1"})["Item"]
    assert not host.get("leases")
