"""The crawl's building blocks: per-host pace, the shared store (each canonical URL once, within the
limit, each with its own result index; host slots across workers), and credits reserved at submit and the
unused given back once (moto in process)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import boto3
import pytest

from tests.support.sample_site import SampleSite
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.errors import UsageExceeded
from webcapture.jobs import job_store
from webcapture.jobs.job_store import NewJob, Outcome
from webcapture.path_globs import PathGlobs
from webcapture.settings import get_settings
from webcapture.site.crawl_credits import settle_crawl, unused_credits
from webcapture.site.crawl_store import (
    Claimed,
    HostLease,
    claim_urls,
    claimed_by,
    enter_host,
    job_pk,
    leave_host,
    url_sk,
)
from webcapture.site.discovery import Skip, discover, redirected_out_of_scope
from webcapture.site.host_pace import MIN_WAIT_S, HostPace, HostState, admit, finish
from webcapture.site.robots import parse_robots
from webcapture.site.scope import Scope

TABLE = "test-crawl-jobs"


def test_pace_from_the_request_and_robots() -> None:
    assert HostPace.of(3, 250) == HostPace(3, 0.25)
    # Crawl-delay: one request at a time, that far apart (or the request's delay when longer).
    assert HostPace.of(5, 0, parse_robots("User-agent: *\nCrawl-delay: 2\n")) == HostPace(1, 2.0)
    assert HostPace.of(5, 3000, parse_robots("User-agent: *\nCrawl-delay: 2\n")) == HostPace(1, 3.0)


def test_admission_rules() -> None:
    pace = HostPace(2, 1.0)
    wait, state = admit(pace, HostState(), now=100.0)
    assert wait == 0 and state == HostState(1, 101.0)
    wait, same = admit(pace, state, now=100.5)  # too soon after the last start
    assert wait == 0.5 and same == state
    wait, state = admit(pace, state, now=101.0)
    assert wait == 0 and state.in_flight == 2
    wait, _ = admit(pace, state, now=105.0)  # both slots taken
    assert wait == 1.0
    assert admit(pace, finish(state), now=105.0)[0] == 0
    assert admit(HostPace(1, 0.0), HostState(1, 0.0), now=1.0)[0] == MIN_WAIT_S


@pytest.fixture
def jobs_table(aws_resources: None, settings_env: pytest.MonkeyPatch) -> Iterator[Any]:
    settings_env.setenv("JOBS_TABLE", TABLE)
    get_settings.cache_clear()
    client = boto3.client("dynamodb")
    client.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "sk", "AttributeType": "S"}],
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                   {"AttributeName": "sk", "KeyType": "RANGE"}])
    table = boto3.resource("dynamodb").Table(TABLE)
    # The start page is index 0; a running crawl records pages (one cancelling does not).
    table.put_item(Item={"pk": job_pk("j1"), "sk": "job", "total": 1, "status": "running"})
    yield table


def _claim(urls: list[str], limit: int, parent: int = 0, depth: int = 1) -> list[Claimed]:
    return claim_urls("j1", [(url, depth) for url in urls], limit=limit, ttl=int(time.time()) + 3600,
                      parent=parent)


def test_each_canonical_url_is_claimed_once_within_the_limit(jobs_table: Any) -> None:
    first = _claim(["http://a.test/b", "http://a.test/c", "http://a.test/b"], limit=4)
    assert first == [Claimed(1, "http://a.test/b", 1), Claimed(2, "http://a.test/c", 1)]
    # Found again (and one new one): only the new one, with the next index; then the limit stops it.
    assert _claim(["http://a.test/c", "http://a.test/d", "http://a.test/e"], limit=4, parent=1) == [
        Claimed(3, "http://a.test/d", 1)]
    assert _claim(["http://a.test/f"], limit=4) == []
    assert claim_urls("unknown-job", [("http://a.test/", 0)], limit=3, ttl=0, parent=0) == []
    job = jobs_table.get_item(Key={"pk": job_pk("j1"), "sk": "job"})["Item"]
    assert job["total"] == 4
    stored = jobs_table.get_item(Key={"pk": job_pk("j1"), "sk": url_sk("http://a.test/d")})["Item"]
    assert (stored["url"], stored["index"], stored["parent"]) == ("http://a.test/d", 3, 1)
    # A redelivered page enqueues again what it recorded.
    assert claimed_by("j1", 0) == first and claimed_by("j1", 1) == [Claimed(3, "http://a.test/d", 1)]


def test_a_cancelling_crawl_records_no_more_pages(jobs_table: Any) -> None:
    assert _claim(["http://a.test/b"], limit=10) == [Claimed(1, "http://a.test/b", 1)]
    jobs_table.update_item(Key={"pk": job_pk("j1"), "sk": "job"}, UpdateExpression="SET #st = :c",
                           ExpressionAttributeNames={"#st": "status"}, ExpressionAttributeValues={":c": "cancelling"})
    assert _claim(["http://a.test/c", "http://a.test/d"], limit=10) == []
    assert jobs_table.get_item(Key={"pk": job_pk("j1"), "sk": "job"})["Item"]["total"] == 2


def test_claims_racing_from_threads_record_each_url_once_with_distinct_indexes(jobs_table: Any) -> None:
    pages = [[f"http://a.test/{(n + k) % 20}" for k in range(5)] for n in range(16)]  # overlapping links
    won: list[Claimed] = []
    lock = threading.Lock()

    def discover(urls: list[str]) -> None:
        claimed = _claim(urls, limit=16)
        with lock:
            won.extend(claimed)

    threads = [threading.Thread(target=discover, args=(urls,)) for urls in pages]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 15 and len({c.url for c in won}) == 15
    assert sorted(c.index for c in won) == list(range(1, 16))
    assert jobs_table.get_item(Key={"pk": job_pk("j1"), "sk": "job"})["Item"]["total"] == 16


def test_host_slots_follow_the_pace_across_workers(jobs_table: Any) -> None:
    pace = HostPace(2, 0.0)
    first = enter_host("j1", "a.test", pace, lease_s=60)
    second = enter_host("j1", "a.test", pace, lease_s=60)
    assert isinstance(first, HostLease) and isinstance(second, HostLease)
    assert enter_host("j1", "a.test", pace, lease_s=60) == MIN_WAIT_S  # both slots taken
    assert isinstance(enter_host("j1", "b.test", pace, lease_s=60), HostLease)  # per host
    leave_host("j1", first)
    leave_host("j1", first)  # twice changes nothing
    assert isinstance(enter_host("j1", "a.test", pace, lease_s=60), HostLease)


def test_a_delay_spaces_the_starts(jobs_table: Any) -> None:
    pace = HostPace(5, 30.0)
    started = time.monotonic()
    assert isinstance(enter_host("j1", "slow.test", pace, lease_s=60), HostLease)
    wait = enter_host("j1", "slow.test", pace, lease_s=60)
    # The wait is what is left of the 30 s since the first start: 30 less the time the two calls took (a
    # busy machine may take over a second), to the millisecond the table keeps.
    assert isinstance(wait, float) and 30 - (time.monotonic() - started) - 0.01 <= wait <= 30


def test_a_killed_workers_slot_is_freed_when_its_lease_expires(jobs_table: Any) -> None:
    pace = HostPace(1, 0.0)
    assert isinstance(enter_host("j1", "a.test", pace, lease_s=-1), HostLease)  # never left
    assert enter_host("j1", "a.test", pace, lease_s=60) == 0.0  # expired: dropped, ask again
    assert isinstance(enter_host("j1", "a.test", pace, lease_s=60), HostLease)


def _remaining(record_id: str) -> int:
    record = api_keys.find_by_id(record_id)
    assert record is not None
    return int(record.item["remaining"])


def test_credits_reserved_at_submit_and_the_unused_given_back_once(
        aws_resources: None, settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("JOBS_TABLE", "JobsTable")
    get_settings.cache_clear()
    _key, record = api_keys.create_key("u", "k", remaining=100)
    caller = Caller(user_id="u", kind="api_key", key_id=record.item["id"], key_hash=record.key_hash)
    job_id = "00000000-0000-4000-8000-000000000001"
    new = NewJob(job_id=job_id, caller=caller, operation="crawl", total=1, cost_each=6, webhook=None,
                 reserve=60)
    job = job_store.create_job(new)
    assert _remaining(record.item["id"]) == 40 and job.reserved == 60
    assert settle_crawl(job_id) is None  # its start page has no result yet
    for index, status in ((0, "completed"), (1, "failed")):
        if index:  # a second page recorded (as claim_urls does)
            boto3.resource("dynamodb").Table("JobsTable").update_item(
                Key={"pk": job_pk(job_id), "sk": "job"}, UpdateExpression="SET #t = :two",
                ExpressionAttributeNames={"#t": "total"}, ExpressionAttributeValues={":two": 2})
        assert job_store.claim_item(job_id, index, "t", 60_000) == "claimed"
        fresh = job_store.get_job(job_id)
        assert fresh is not None
        job_store.finish_item(fresh, index, "t", Outcome(status, data={} if index == 0 else None,
                                                          error=None if index == 0 else {"code": "X",
                                                                                         "message": "x"}))
    # The failed page came back with its result (6); the 8 pages never found come back now (48).
    assert _remaining(record.item["id"]) == 46
    settled = settle_crawl(job_id)
    assert settled is not None and settled.status == "completed" and settled.credits_cost == 6
    assert _remaining(record.item["id"]) == 94
    assert settle_crawl(job_id) is None  # once only
    assert _remaining(record.item["id"]) == 94
    with pytest.raises(UsageExceeded) as refused:
        job_store.create_job(NewJob(job_id="00000000-0000-4000-8000-000000000002", caller=caller,
                                    operation="crawl", total=1, cost_each=1, webhook=None, reserve=100))
    # What it reserves, what is left and what to change: a user who asked for a large limit knows why.
    assert "it reserves 100" in refused.value.message
    assert "the key has 94 left. Lower limit" in refused.value.message
    assert _remaining(record.item["id"]) == 94
    assert unused_credits(60, 20, 6) == 0 and unused_credits(60, 0, 6) == 60


def test_discovery_sorts_a_pages_links() -> None:
    site = SampleSite("site.test")
    scope = Scope.of("http://site.test/", max_depth=5, paths=PathGlobs.of(exclude=["/calendar/**"]))
    robots = parse_robots("User-agent: *\nDisallow: /private/\n")
    links = [urljoin("http://site.test/", href) for href, _ in site.home_links()]
    found = discover(links, 0, scope, drop_query=True, robots_allow=robots.allowed)
    # The home page's spellings of one page collapse to one; the level-1 pages, /about and /moved follow.
    assert [url for url, _ in found.follow] == [site.url(p) for p in
                                                [*site.children["/"], "/about.html", "/moved"]]
    assert {depth for _, depth in found.follow} == {1}
    reasons = dict(found.skipped)
    assert reasons[site.url("/private/")] == Skip.ROBOTS
    assert reasons[site.url("/calendar/2026/01")] == Skip.OUT_OF_SCOPE
    assert reasons["mailto:someone@example.com"] == Skip.NOT_A_PAGE
    assert reasons["http://127.0.0.1:9/secret"] == Skip.OUT_OF_SCOPE
    # Without robots.txt respected, /private/ is followed; at maxDepth nothing is.
    assert (site.url("/private/"), 1) in discover(links, 0, scope, drop_query=True).follow
    deep = discover(links, 5, scope, drop_query=True)
    assert deep.follow == [] and {reason for _, reason in deep.skipped} >= {Skip.TOO_DEEP}


def test_a_redirect_out_of_scope_is_skipped() -> None:
    scope = Scope.of("http://site.test/")
    assert redirected_out_of_scope("http://elsewhere.test/landing", scope, drop_query=False)
    assert not redirected_out_of_scope("https://www.site.test/landing", scope, drop_query=False)
