"""A job's workers killed at random (docs/jobs.md#jobs): the screenshot function's containers are SIGKILLed
again and again while a 200-item batch runs. What the killed invocations held comes back to the queue after
its visibility timeout (shortened for this stack), and each item still ends with exactly one result, the
credits spent are exactly the successes' cost, and nothing is left in the dead-letter queue."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from tests.support.fixture_server import FixtureHttpServer, get_server
from tests.support.jobs_client import (
    all_results,
    credits_left,
    drained,
    kill_workers_while_it_runs,
    messages_held,
    wait_until_settled,
)
from tests.support.local_api import LocalApi, start_local_api

ITEMS = 200
KILLS = 12


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.1/32", "WEBCAPTURE_WARM_START": "0",
         "WEBCAPTURE_JOB_BUSY_DELAY_S": "1"},
        demo_credits=1_000,
        extra_args=["--max-containers", "3", "--no-prewarm", "--parameter", "JobsWorkerConcurrency=3",
                    "--parameter", "JobsVisibilityTimeout=10"])
    yield stack
    stack.stop()


def test_workers_killed_at_random_leave_one_result_per_item_and_exact_credits(api: LocalApi) -> None:
    site: FixtureHttpServer = get_server()
    before = credits_left(api)
    body = {"operation": "screenshot",
            "requests": [{"url": site.url(f"/plain.html?n={i}"), "timeout": 8_000} for i in range(ITEMS)]}
    answer = api.call("POST", "/v1/batch", json=body)
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["data"]["jobId"]

    kills = kill_workers_while_it_runs(api, job_id, "ScreenshotFunction", KILLS, seed=22)
    assert len(kills) >= 10, f"only {len(kills)} kills before the job ended"

    settled = wait_until_settled(api, job_id, give_up_s=1200)
    results = all_results(api, job_id, limit=100)
    assert Counter(r["index"] for r in results) == Counter(range(ITEMS))  # each exactly once
    completed = sum(r["status"] == "completed" for r in results)
    assert completed == settled["completed"] and completed + settled["failed"] == ITEMS
    assert completed > ITEMS // 2  # the batch made progress through the kills
    assert settled["creditsCost"] == completed
    assert credits_left(api) == before - completed
    assert drained(api, "Jobs", give_up_s=60) == 0
    assert messages_held(api, "DeadLetter") == 0
