"""An incremental crawl's unchanged pages revalidated by the worker that found them (site.crawl_sweep), in
process: moto's DynamoDB and SQS, the crawl worker fed from the queue (honouring its partial batch
response), a 24-page loopback site with ETags, the http engine. An unchanged site is re-crawled from one
message; changed and deleted pages still go through their own messages; a worker killed mid-sweep, or a
page claimed meanwhile by another delivery, still leaves exactly one result per page and the same counts."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from tests.support.fast_pages import FastPageServer
from tests.unit.test_site_crawl_submit import _caller, _remaining, crawl_aws  # noqa: F401 - fixture
from webcapture.jobs import job_store
from webcapture.jobs.job_view import job_data
from webcapture.site.crawl_submit import submit_crawl
from webcapture.site.crawl_worker import CrawlWorker

PAGES = 24


def _page(number: int, words: str) -> bytes:
    """A binary tree: page n links to 2n and 2n+1, and back to the first (five levels for 24 pages)."""
    links = "".join(f"<a href='/p{child}'>page {child}</a>" for child in (2 * number, 2 * number + 1)
                    if child <= PAGES)
    return (f"<html><title>Page {number}</title><body><nav><a href='/p1'>home</a>{links}</nav><main>"
            f"<h1>Page {number}</h1>" + f"<p>{words} " * 10 + "</p></main></body></html>").encode()


@pytest.fixture
def site(crawl_aws: str, settings_env: pytest.MonkeyPatch) -> Iterator[FastPageServer]:  # noqa: F811
    server = FastPageServer("127.0.0.1")
    server.pages = {f"/p{n}": (_page(n, f"words of page {n}"), "text/html", f'"p{n}-v1"')
                    for n in range(1, PAGES + 1)}
    yield server
    server.stop()


def _drain(queue_url: str) -> int:
    """Run every message as the event source would (a reported failure is delivered again); how many
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
            if failures:
                sqs.change_message_visibility(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"],
                                              VisibilityTimeout=0)
            else:
                sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])


def _crawl(caller: Any, queue_url: str, site: FastPageServer, **more: Any) -> tuple[dict[str, Any], int]:
    body = {"url": f"http://127.0.0.1:{site.port}/p1", "limit": 100, "maxDepth": 10, "engine": "http",
            "sitemap": "skip", "respectRobotsTxt": False, **more}
    submitted = submit_crawl(caller, body, None)
    ran = _drain(queue_url)
    job = job_store.get_job(submitted.job.job_id)
    assert job is not None
    return job_data(job, limit="100"), ran


def _statuses(crawl: dict[str, Any]) -> dict[str, str]:
    by_page: dict[str, str] = {}
    for result in crawl["results"]:
        page = result["data"]["url"].rsplit("/", 1)[1]
        assert page not in by_page, f"{page} has two results"
        by_page[page] = result["data"].get("changeStatus")
    return by_page


def test_an_unchanged_site_is_recrawled_from_one_message_free(site: FastPageServer, crawl_aws: str) -> None:  # noqa: F811
    caller, key_hash = _caller(1000)
    first, first_ran = _crawl(caller, crawl_aws, site)
    assert first["completed"] == PAGES and first_ran == PAGES
    before = _remaining(key_hash)
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


def test_changed_and_deleted_pages_run_through_their_own_messages(site: FastPageServer, crawl_aws: str) -> None:  # noqa: F811
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
    # The start page's, p6's and p24's, and p6's two children (sent by p6, which ran as a changed page).
    assert ran == 5
    assert before - _remaining(key_hash) == 1


def _fails_once(real: Callable[..., bool], on_call: int, killed: list[int]) -> Callable[..., bool]:
    calls = 0

    def finish(*arguments: Any) -> bool:
        nonlocal calls
        calls += 1
        if calls == on_call:
            killed.append(calls)
            raise RuntimeError("the worker is killed here")
        return real(*arguments)

    return finish


@pytest.mark.parametrize("killed_at", [1, 3])
def test_a_worker_killed_mid_sweep_loses_no_page_and_counts_none_twice(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch, killed_at: int) -> None:  # noqa: F811
    caller, key_hash = _caller(1000)
    first, _ = _crawl(caller, crawl_aws, site)
    before = _remaining(key_hash)
    killed: list[int] = []
    monkeypatch.setattr(job_store, "finish_unclaimed",
                        _fails_once(job_store.finish_unclaimed, killed_at, killed))
    again, _ = _crawl(caller, crawl_aws, site, since=first["jobId"])
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

    def raced(job: job_store.Job, results: list[tuple[int, job_store.Outcome]]) -> bool:
        if not taken:  # another delivery claims the first page of the first chunk, and its claim runs out
            taken.append(results[0][0])
            assert job_store.claim_item(job.job_id, results[0][0], "another", 1) == "claimed"
        return real(job, results)

    monkeypatch.setattr(job_store, "finish_unclaimed", raced)
    again, ran = _crawl(caller, crawl_aws, site, since=first["jobId"])
    assert taken and ran > 1
    assert len(_statuses(again)) == PAGES and again["changes"]["same"] == PAGES
