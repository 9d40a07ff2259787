"""Cancelling over moto: `cancelling` at once, the items not started finished and refunded in the same
call, the running ones left to finish; then `cancelled` once, with counts and credits that never change."""

from __future__ import annotations

import json
from typing import Any

from tests.support.dns_server import answering
from tests.support.jobs_records import Runs, caller_of, event_of, receive_all, remaining
from webcapture.auth import api_keys
from webcapture.credits import Operation
from webcapture.jobs import job_store, webhook_events
from webcapture.jobs.item_worker import ItemRunner, handle_records
from webcapture.jobs.job_store import Outcome
from webcapture.jobs.submit import submit_batch
from webcapture.site.crawl_cancel import cancel_job_or_crawl

pytest_plugins = ["tests.support.jobs_moto"]


def submit(record: api_keys.ApiKeyRecord, count: int) -> str:
    body: dict[str, Any] = {"operation": "links", "webhook": {"url": "https://hooks.example/x"},
                            "requests": [{"url": f"https://site.example/{i}"} for i in range(count)]}
    with answering(lambda name: ["93.184.215.14"]):  # a public address for the webhook's host
        return submit_batch(caller_of(record), body, None).job.job_id


def current(job_id: str) -> job_store.Job:
    job = job_store.get_job(job_id)
    assert job is not None
    return job


def numbers(job: job_store.Job) -> tuple[str, int, int, int, int]:
    return job.status, job.completed, job.failed, job.cancelled, job.credits_cost


def test_cancel_refunds_what_has_not_started_and_ends_when_the_running_items_do(
        links_queue: str, jobs_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=200)
    job_id = submit(record, 120)  # more than one transaction's worth of waiting items
    assert remaining(record) == 80
    # Two items are running: claimed by workers that have not finished.
    assert job_store.claim_item(job_id, 5, "worker-a", 60_000) == "claimed"
    assert job_store.claim_item(job_id, 77, "worker-b", 60_000) == "claimed"

    cancel_job_or_crawl(current(job_id))
    assert numbers(current(job_id)) == ("cancelling", 0, 0, 118, 2)
    assert remaining(record) == 198  # the 118 that never started, given back at once
    assert receive_all(jobs_aws["WebhooksQueue"]) == []  # not ended yet

    job = current(job_id)
    assert job_store.finish_item(job, 5, "worker-a", Outcome("completed", data={"links": []}))
    assert job_store.settle(job_id) is None  # one still running
    assert job_store.finish_item(job, 77, "worker-b", Outcome("failed", error={"code": "X", "message": "x"}))
    settled = job_store.settle(job_id)
    assert settled is not None and numbers(settled) == ("cancelled", 1, 1, 118, 1)
    webhook_events.job_finished(settled)  # as the worker that settled it does
    assert remaining(record) == 199

    # Every message still on the queue comes up and finds its item done: nothing runs, nothing changes.
    runner = Runs()
    handle_records(event_of(receive_all(links_queue)), lambda: 60_000.0, ItemRunner(Operation.LINKS, runner))
    assert runner.urls == []
    assert numbers(current(job_id)) == ("cancelled", 1, 1, 118, 1)
    results, last = job_store.results_page(job_id, -1, 100, budget_bytes=10_000_000)
    more, end = job_store.results_page(job_id, 99, 100)
    assert last == 99 and end is None
    assert [r["index"] for r in results + more] == list(range(120))
    statuses = [r["status"] for r in results + more]
    assert statuses.count("cancelled") == 118 and statuses[5] == "completed" and statuses[77] == "failed"
    (event,) = receive_all(jobs_aws["WebhooksQueue"])
    payload = json.loads(event["Body"])["payload"]
    assert (payload["type"], payload["status"], payload["cancelled"], payload["creditsCost"]) == (
        "job.cancelled", "cancelled", 118, 1)


def test_a_job_with_nothing_running_is_cancelled_at_once_and_stays_so(
        links_queue: str, jobs_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job_id = submit(record, 4)
    cancel_job_or_crawl(current(job_id))
    assert numbers(current(job_id)) == ("cancelled", 0, 0, 4, 0)
    assert remaining(record) == 10
    cancel_job_or_crawl(current(job_id))  # again: nothing changes, no second event
    assert not job_store.cancel_job(job_id)
    # A stray worker that still held a claim cannot count an item on the ended job.
    assert job_store.claim_item(job_id, 0, "late", 60_000) == "done"
    assert numbers(current(job_id)) == ("cancelled", 0, 0, 4, 0)
    assert len(receive_all(jobs_aws["WebhooksQueue"])) == 1


def test_an_item_claimed_after_the_cancel_began_never_runs(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job_id = submit(record, 3)
    messages = receive_all(links_queue)
    assert job_store.claim_item(job_id, 0, "worker", 60_000) == "claimed"  # keeps the job cancelling
    assert job_store.cancel_job(job_id)  # cancelling, before the waiting items are finished
    runner = Runs()
    handle_records(event_of(messages[1:2]), lambda: 60_000.0, ItemRunner(Operation.LINKS, runner))
    assert runner.urls == []
    assert current(job_id).cancelled == 1 and current(job_id).status == "cancelling"
