"""An incremental crawl in process (moto's DynamoDB and SQS, the crawl worker fed from the queue, a
loopback site with ETags, the http engine): after one page changed and one was deleted, the crawl with
`since` reports 1 changed, 1 removed and the rest same, charges only the changed and new pages, and an
unknown `since` is a 404 before anything is reserved."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from boto3.dynamodb.conditions import Key

from tests.support.fast_pages import FastPageServer, numbered_site
from tests.unit.test_site_crawl_submit import _caller, _remaining, crawl_aws  # noqa: F401 - fixture
from webcapture import metering
from webcapture.auth.caller import Caller
from webcapture.content import markdown
from webcapture.errors import NotFound
from webcapture.jobs import job_store
from webcapture.jobs.job_view import job_data
from webcapture.settings import get_settings
from webcapture.site import crawl_changes, crawl_page, crawl_store
from webcapture.site.crawl_submit import submit_crawl
from webcapture.site.crawl_worker import CrawlWorker

PAGES = 5


def _page(number: int, words: str) -> bytes:
    links = "".join(f"<a href='/p{n}'>page {n}</a>" for n in range(1, PAGES + 1))
    return (f"<html><title>Page {number}</title><body><nav>{links}</nav><main><h1>Page {number}</h1>"
            f"<p>{words} " * 20 + "</p></main></body></html>").encode()


@pytest.fixture
def site(crawl_aws: str, settings_env: pytest.MonkeyPatch) -> Iterator[FastPageServer]:  # noqa: F811
    server = numbered_site(_page, PAGES)
    yield server
    server.stop()


def _drain(queue_url: str) -> None:
    sqs, worker = boto3.client("sqs"), CrawlWorker()
    while True:
        answer = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10,
                                     AttributeNames=["ApproximateReceiveCount"])
        messages = answer.get("Messages", [])
        if not messages:
            return
        for message in messages:
            record = {"eventSource": "aws:sqs", "messageId": message["MessageId"], "body": message["Body"],
                      "attributes": message.get("Attributes", {})}
            worker.handle({"Records": [record]}, lambda: 120_000.0)
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])


def _crawl(caller: Caller, queue_url: str, site: FastPageServer, **more: Any) -> dict[str, Any]:
    body = {"url": f"http://127.0.0.1:{site.port}/p1", "limit": 20, "engine": "http", "sitemap": "skip",
            "respectRobotsTxt": False, **more}
    submitted = submit_crawl(caller, body, None)
    _drain(queue_url)
    job = job_store.get_job(submitted.job.job_id)
    assert job is not None
    return job_data(job, limit="100")


def test_a_recrawl_reports_what_changed_and_charges_only_that(site: FastPageServer, crawl_aws: str) -> None:  # noqa: F811
    caller, key_hash = _caller(1000)
    first = _crawl(caller, crawl_aws, site)
    assert first["status"] == "completed" and first["completed"] == PAGES
    assert all(r["data"]["metadata"]["etag"] for r in first["results"])
    spent = 1000 - _remaining(key_hash)
    assert spent == PAGES

    site.pages["/p2"] = (_page(2, "new words on page 2"), "text/html", '"p2-v2"')
    del site.pages["/p5"]
    site.requests.clear()
    before = _remaining(key_hash)
    again = _crawl(caller, crawl_aws, site, since=first["jobId"])
    statuses = {r["data"]["url"].rsplit("/", 1)[1]: r["data"].get("changeStatus") for r in again["results"]
                if "data" in r}
    assert statuses == {"p1": "same", "p2": "changed", "p3": "same", "p4": "same", "p5": "removed"}
    assert again["changes"] == {"new": 0, "changed": 1, "same": 3, "removed": 1}
    same = next(r for r in again["results"] if r["data"].get("changeStatus") == "same")
    assert "markdown" not in same["data"] and same["data"]["sameAs"]["jobId"] == first["jobId"]
    assert before - _remaining(key_hash) == 1  # the changed page only: same pages and the removed are free
    assert again["creditsCost"] == 1
    asked = [headers.get("If-None-Match") for path, headers in site.requests if path == "/p3"]
    assert asked == ['"p3-v1"']  # fetched conditionally, answered 304


    # A page the crawl no longer reaches (left out by excludePaths here) is listed after the crawl.
    third = _crawl(caller, crawl_aws, site, since=first["jobId"], excludePaths=["/p4"])
    after = [r for r in third["results"] if r["status"] == "removed"]
    assert [r["data"]["url"].rsplit("/", 1)[1] for r in after] == ["p4"]
    assert after[0]["index"] >= third["total"] and third["changes"]["removed"] == 2  # p4 and the deleted p5


def test_a_link_broken_in_both_crawls_is_same_not_removed(site: FastPageServer, crawl_aws: str) -> None:  # noqa: F811
    """A site that already linked to a missing page (a 404 answered as a page, as any crawl answers it) and
    did not change: that page is `same` in the re-crawl, and nothing is `removed`."""
    caller, _ = _caller(1000)
    body, content_type, etag = site.pages["/p1"]
    site.pages["/p1"] = (body.replace(b"</main>", b"<a href='/missing'>old link</a></main>"), content_type, etag)
    first = _crawl(caller, crawl_aws, site)
    missing = next(r for r in first["results"] if r["data"]["url"].endswith("/missing"))
    assert missing["status"] == "completed" and missing["data"]["statusCode"] == 404
    again = _crawl(caller, crawl_aws, site, since=first["jobId"])
    statuses = {r["data"]["url"].rsplit("/", 1)[1]: r["data"].get("changeStatus") for r in again["results"]}
    assert statuses == {**{f"p{n}": "same" for n in range(1, PAGES + 1)}, "missing": "same"}
    assert again["changes"] == {"new": 0, "changed": 0, "same": PAGES + 1, "removed": 0}


def test_the_removed_pages_are_results_before_the_crawl_turns_terminal(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    caller, _ = _caller(1000)
    first = _crawl(caller, crawl_aws, site)
    seen_when_final: list[list[str]] = []
    real_client = metering.dynamodb_client

    class Watching:
        """The real client; a write that makes a crawl terminal first notes its removed results."""

        def __getattr__(self, name: str) -> Any:
            return getattr(real_client(), name)

        def transact_write_items(self, **arguments: Any) -> Any:
            for write in arguments["TransactItems"]:
                update = write.get("Update", {})
                if "finishedAt" in update.get("UpdateExpression", ""):
                    pk = update["Key"]["pk"]["S"]
                    items = boto3.resource("dynamodb").Table(get_settings().jobs_table).query(
                        KeyConditionExpression=Key("pk").eq(pk) & Key("sk").begins_with("result#"))["Items"]
                    seen_when_final.append([item["sk"] for item in items if item["status"] == "removed"])
            return real_client().transact_write_items(**arguments)

    monkeypatch.setattr(metering, "dynamodb_client", Watching)  # where the settling transaction runs
    again = _crawl(caller, crawl_aws, site, since=first["jobId"], excludePaths=["/p4"])
    assert again["status"] == "completed" and again["changes"]["removed"] == 1
    assert seen_when_final == [[f"result#{again['total']:05d}"]]  # there already when it turned terminal
    assert [r["status"] for r in again["results"]].count("removed") == 1


def test_a_304_follows_the_pages_kept_on_the_earlier_result_without_querying_the_earlier_crawl(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    caller, _ = _caller(1000)
    first = _crawl(caller, crawl_aws, site)
    table = boto3.resource("dynamodb").Table(get_settings().jobs_table)
    results = table.query(KeyConditionExpression=Key("pk").eq(f"job#{first['jobId']}")
                          & Key("sk").begins_with("result#"))["Items"]
    start = next(item for item in results if item["index"] == 0)
    assert "children" in start  # p1 recorded p2..p5; the others recorded nothing (an empty list kept)
    assert all("children" in item for item in results)

    def no_query(*_: Any) -> Any:
        raise AssertionError("a 304 whose earlier result keeps its children must not query the crawl")

    monkeypatch.setattr(crawl_changes, "claimed_by", no_query)
    again = _crawl(caller, crawl_aws, site, since=first["jobId"])
    assert again["changes"] == {"new": 0, "changed": 0, "same": PAGES, "removed": 0}

    # An earlier result without them (too many to keep) follows what the earlier crawl recorded from it.
    table.update_item(Key={"pk": f"job#{first['jobId']}", "sk": "result#00000"},
                      UpdateExpression="REMOVE children")
    monkeypatch.setattr(crawl_changes, "claimed_by", crawl_store.claimed_by)
    third = _crawl(caller, crawl_aws, site, since=first["jobId"])
    assert third["changes"] == {"new": 0, "changed": 0, "same": PAGES, "removed": 0}


def test_without_validators_the_same_html_is_same_without_converting_it_again(
        site: FastPageServer, crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    for path, (body, content_type, _) in list(site.pages.items()):
        site.pages[path] = (body, content_type, "")  # no ETag, no Last-Modified: the hashes decide
    caller, _ = _caller(1000)
    first = _crawl(caller, crawl_aws, site)
    assert first["completed"] == PAGES and not any(r["data"]["metadata"]["etag"] for r in first["results"])

    # p2's boilerplate changes, its main content does not: converted, and same by the outputs' hash.
    site.pages["/p2"] = (_page(2, "words of page 2").replace(b"<html>", b"<html><!-- built now -->"),
                         "text/html", "")
    converted: list[str] = []
    convert = markdown.markdown_and_links

    def counted(html: str, url: str, **options: Any) -> tuple[str, list[str]]:
        converted.append(url.rsplit("/", 1)[1])
        return convert(html, url, **options)

    monkeypatch.setattr(crawl_page, "markdown_and_links", counted)
    again = _crawl(caller, crawl_aws, site, since=first["jobId"])
    assert again["changes"] == {"new": 0, "changed": 0, "same": PAGES, "removed": 0}
    assert again["creditsCost"] == 0
    assert converted == ["p2"]  # the pages served as before were not converted again


def test_an_unknown_since_is_a_404_and_reserves_nothing(crawl_aws: str) -> None:  # noqa: F811
    caller, key_hash = _caller(100)
    with pytest.raises(NotFound):
        submit_crawl(caller, {"url": "http://127.0.0.1:9/", "since": "no-such-job"}, None)
    other, _ = _caller(100)
    assert _remaining(key_hash) == 100
    del other
    assert get_settings().jobs_table
