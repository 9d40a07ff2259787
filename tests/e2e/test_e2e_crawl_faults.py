"""A crawl's workers killed at random (docs/jobs.md#jobs, docs/crawl-and-map.md#crawl-and-map): the crawl
function's containers are SIGKILLed again and again while a crawl of the sample site runs, between loading a
page, recording its links, enqueueing them and writing its result. A killed page comes back after the queue's
visibility timeout (shortened for this stack) and enqueues again what it had recorded; the crawl still records
each page once, loses none (it reaches its limit, every recorded page with one result), charges exactly its
completed pages, and leaves nothing in the dead-letter queue."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from tests.support.crawl_site import CrawlSite
from tests.support.egress_servers import CanaryServer
from tests.support.jobs_client import (
    all_results,
    credits_left,
    drained,
    kill_workers_while_it_runs,
    messages_held,
    wait_until_settled,
)
from tests.support.local_api import LocalApi, start_local_api
from tests.support.sample_site import OTHER_ADDRESS, SITE_ADDRESS

LIMIT = 80
KILLS = 6


@pytest.fixture(scope="module")
def site() -> Iterator[CrawlSite]:
    canary = CanaryServer("127.0.0.3")
    # Pages that take 0.1 s: the crawl lasts several seconds, so the kills land while workers sweep it
    # (80 fast pages were swept in about a second, sometimes before the third kill).
    served = CrawlSite(canary=f"127.0.0.3:{canary.port}", page_delay_s=0.1)
    yield served
    served.stop()
    canary.stop()


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": f"{SITE_ADDRESS}/32,{OTHER_ADDRESS}/32", "WEBCAPTURE_WARM_START": "0",
         "WEBCAPTURE_JOB_BUSY_DELAY_S": "1", "WEBCAPTURE_REQUEST_BUDGET_MS": "8000"},
        demo_credits=1_000,
        extra_args=["--max-containers", "3", "--no-prewarm", "--parameter", "JobsWorkerConcurrency=3",
                    "--parameter", "JobsVisibilityTimeout=10"])
    yield stack
    stack.stop()


def test_workers_killed_at_random_lose_no_page_and_charge_none_twice(api: LocalApi, site: CrawlSite) -> None:
    before = credits_left(api)
    answer = api.call("POST", "/v1/web/crawl", json={"url": site.url("/"), "limit": LIMIT, "sitemap": "skip",
                                                     "maxConcurrency": 3})
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["data"]["jobId"]

    # The kills come every 0.5-1.5 s, so that most land while workers sweep the slow pages.
    kills = kill_workers_while_it_runs(api, job_id, "CrawlFunction", KILLS, seed=18, every_s=(0.5, 1.5))
    assert len(kills) >= KILLS // 2, f"only {len(kills)} kills before the crawl ended"

    settled = wait_until_settled(api, job_id, give_up_s=1200)
    results = all_results(api, job_id, limit=100)
    urls = [r["error"]["url"] if "error" in r else r["data"]["url"] for r in results]
    assert Counter(urls).most_common(1)[0][1] == 1, "a page was recorded twice"
    assert [r["index"] for r in results] == list(range(LIMIT)) and settled["total"] == LIMIT
    completed = sum(r["status"] == "completed" for r in results)
    assert completed == settled["completed"] and completed > LIMIT // 2
    assert settled["creditsCost"] == completed
    assert credits_left(api) == before - completed
    assert drained(api, "Crawl", give_up_s=60) == 0
    assert messages_held(api, "DeadLetter") == 0
