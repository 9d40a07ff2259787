"""`maxAge` on a job's items (CONTRACT 19), over moto: an item with a fresh entry of its user's synchronous
request is answered from it (the same data, its credit refunded, no slot, nothing run); a miss runs and
keeps its result for the synchronous endpoint and later items alike."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.jobs_records import Runs, caller_of, event_of, receive_all, remaining
from webcapture import cache, concurrency
from webcapture.answer_forms import FileAnswer
from webcapture.auth import api_keys
from webcapture.aws import s3_client
from webcapture.cached_responses import file_form
from webcapture.credits import Operation
from webcapture.jobs import job_store
from webcapture.jobs.item_worker import ItemRunner, handle_records
from webcapture.jobs.submit import submit_batch
from webcapture.models.requests import LinksRequest, ScreenshotRequest
from webcapture.operations.take_screenshot import stored_screenshot_request
from webcapture.settings import get_settings

pytest_plugins = ["tests.support.jobs_moto"]


def run_job(
    record: api_keys.ApiKeyRecord,
    queue: str,
    operation: Operation,
    items: list[dict[str, Any]],
    runner: ItemRunner,
) -> job_store.Job:
    job_id = submit_batch(
        caller_of(record), {"operation": operation.value, "requests": items}, None
    ).job.job_id
    messages = receive_all(queue)
    assert len(messages) == len(items)
    name = queue.rsplit("/", 1)[-1]
    assert handle_records(event_of(messages, name), lambda: 60_000.0, runner) == {"batchItemFailures": []}
    job = job_store.get_job(job_id)
    assert job is not None
    return job


def results(job: job_store.Job) -> list[dict[str, Any]]:
    page, _ = job_store.results_page(job.job_id, -1, 50)
    return page


def test_an_item_repeated_within_max_age_is_answered_from_the_cache_for_free(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    runs = Runs()
    runner = ItemRunner(Operation.LINKS, runs)
    item = {"url": "https://site.example/a", "maxAge": 600}
    first = run_job(record, links_queue, Operation.LINKS, [item], runner)
    assert (first.status, first.credits_cost, remaining(record)) == ("completed", 1, 9)
    (made,) = results(first)
    assert "cachedAt" not in made["data"].get("metadata", {})

    again = run_job(record, links_queue, Operation.LINKS, [item, {**item, "maxAge": 60}], runner)
    assert runs.urls == ["https://site.example/a"]  # ran once: both items of the second job were hits
    assert (again.status, again.completed, again.credits_cost) == ("completed", 2, 0)
    assert remaining(record) == 9
    for result in results(again):
        data = result["data"]
        cached_at = data.pop("metadata")["cachedAt"]
        assert cached_at.endswith("Z")
        assert data == made["data"]


def test_a_miss_is_kept_as_the_synchronous_endpoint_keeps_it(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    body = {"url": "https://site.example/b", "maxAge": 600}
    (made,) = results(
        run_job(record, links_queue, Operation.LINKS, [body], ItemRunner(Operation.LINKS, Runs()))
    )
    # The key the synchronous endpoint computes for the same body (webcapture.cached_responses).
    key = cache.cache_key(record.user_id, "links", LinksRequest.model_validate(body))
    hit = cache.lookup(key, 600)
    assert hit is not None and hit.answer.data is not None
    assert {k: v for k, v in hit.answer.data.items() if k != "metadata"} == made["data"]


def test_other_options_another_user_and_max_age_zero_are_misses(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    _, other = api_keys.create_key("user-2", "k", remaining=10)
    runs = Runs()
    runner = ItemRunner(Operation.LINKS, runs)
    item = {"url": "https://site.example/c", "maxAge": 600}
    run_job(record, links_queue, Operation.LINKS, [item], runner)
    changed = run_job(record, links_queue, Operation.LINKS, [{**item, "includeExternal": False}], runner)
    theirs = run_job(other, links_queue, Operation.LINKS, [item], runner)
    fresh = run_job(record, links_queue, Operation.LINKS, [{**item, "maxAge": 0}], runner)
    assert len(runs.urls) == 4
    assert [j.credits_cost for j in (changed, theirs, fresh)] == [1, 1, 1]
    assert (remaining(record), remaining(other)) == (7, 9)


def test_a_hit_takes_no_slot_of_a_full_key(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10, max_concurrency=1)
    item = {"url": "https://site.example/d", "maxAge": 600}
    runs = Runs()
    run_job(record, links_queue, Operation.LINKS, [item], ItemRunner(Operation.LINKS, runs))
    held = concurrency.Lease(
        record.key_hash, "sync-request", concurrency.lease_element("sync-request", 2**62)
    )
    concurrency.take(held)
    try:
        job = run_job(record, links_queue, Operation.LINKS, [item], ItemRunner(Operation.LINKS, runs))
    finally:
        concurrency.release(held)
    assert (job.status, job.credits_cost, len(runs.urls)) == ("completed", 0, 1)


def test_a_screenshot_item_shares_the_stored_json_answer_of_the_synchronous_endpoint(
    jobs_aws: dict[str, str],
) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    synchronous = ScreenshotRequest.model_validate({"url": "https://site.example/e", "maxAge": 600})
    # What POST /v1/web/screenshot with `Accept: application/json` kept.
    stored = {
        "metadata": {"width": 1280, "timestamp": "2026-01-01T00:00:00.000Z"},
        "fileId": "f-1",
        "permanentUrl": "https://files.example.test/screenshots/f-1.png",
    }
    form = file_form(synchronous.wants_base64, "application/json", "image/")
    cache.store(
        cache.cache_key(record.user_id, "screenshot", synchronous, form), FileAnswer("json", data=stored)
    )

    def never(caller: Any, request: Any) -> dict[str, Any]:
        raise AssertionError("a hit runs nothing")

    runner = ItemRunner(Operation.SCREENSHOT, never, sync_request=stored_screenshot_request, form="json")
    # A job's screenshot is always the stored form, whatever it says about bytes.
    items = [
        {"url": "https://site.example/e", "maxAge": 600},
        {"url": "https://site.example/e", "maxAge": 600, "base64": True},
        {"url": "https://site.example/e", "maxAge": 600, "screenshotOptions": {"encoding": "base64"}},
    ]
    job = run_job(record, jobs_aws["ScreenshotJobsQueue"], Operation.SCREENSHOT, items, runner)
    assert (job.completed, job.credits_cost, remaining(record)) == (3, 0, 10)
    for result in results(job):
        assert result["data"]["permanentUrl"] == stored["permanentUrl"]
        assert result["data"]["fileId"] == "f-1"
        assert result["data"]["metadata"]["timestamp"] == stored["metadata"]["timestamp"]
        assert "cachedAt" in result["data"]["metadata"]


@pytest.mark.parametrize("entry", [b"", b"cut short"])
def test_an_unreadable_entry_is_a_miss_that_runs(links_queue: str, entry: bytes) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    body = {"url": "https://site.example/f", "maxAge": 600}
    key = cache.cache_key(record.user_id, "links", LinksRequest.model_validate(body))
    s3_client().put_object(Bucket=get_settings().files_bucket, Key=key.object_key, Body=entry)
    runs = Runs()
    job = run_job(record, links_queue, Operation.LINKS, [body], ItemRunner(Operation.LINKS, runs))
    assert (job.completed, job.credits_cost, len(runs.urls)) == (1, 1, 1)
    assert cache.lookup(key, 600) is not None  # and its answer replaced the unreadable entry
