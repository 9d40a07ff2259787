"""Every result reachable and every number final, over HTTP to a local API of its own: a batch of large
Markdown results read back whole at every `limit`; a batch cancelled mid-run whose counts, credits and key
never move once it says `cancelled`, with one verified `job.cancelled` webhook; and the
free reads a user needs while a batch holds every slot of their key."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.fixture_server import get_server
from tests.support.jobs_client import all_results, job, wait_until_settled
from tests.support.local_api import LocalApi, start_jobs_stack
from tests.support.stack_stores import stack_stores
from tests.support.webhook_receiver import WebhookReceiver
from webcapture.auth import api_keys

# 300 results of a 60 KB page: 18 MB, past DynamoDB's 1 MB query page many times over and past what one
# answer holds. The same checks at a user's size (1,000 items, over 50 MB) are `make bench-paging`'s.
BIG_BATCH = 300
# At limit 1 a job of 300 is 300 reads, each of which moto's server answers by reading the whole partition
# (18 MB): minutes for nothing more than a smaller job shows. This one's 2.4 MB still spans DynamoDB's 1 MB
# query pages, and every one of its results is read one answer at a time.
ONE_AT_A_TIME_BATCH = 40
CANCELLED_BATCH = 50


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_jobs_stack("127.0.0.1/32", 10_000)
    yield stack
    stack.stop()


@pytest.fixture
def new_key(api: LocalApi, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Makes keys on the stack's own key table."""
    with stack_stores(api, monkeypatch):
        def make(credits: int, max_concurrency: int | None = None) -> str:
            key, _ = api_keys.create_key(f"settle-{time.monotonic_ns()}", "k", remaining=credits,
                                         max_concurrency=max_concurrency)
            return key
        yield make


def remaining(api: LocalApi, key: str) -> int:
    answer = api.call("GET", "/v1/api-keys/list", key=key)
    assert answer.status_code == 200, answer.text
    (own,) = [k for k in answer.json()["data"]["apiKeys"] if k["start"] == key[:6]]
    return int(own["remaining"])


def submit(api: LocalApi, key: str, body: dict[str, Any]) -> str:
    answer = api.call("POST", "/v1/batch", key=key, json=body)
    assert answer.status_code == 202, answer.text
    return str(answer.json()["data"]["jobId"])


def test_every_large_result_is_reachable_at_every_limit(api: LocalApi, new_key: Any) -> None:
    key = new_key(5_000)
    page = {"url": get_server().url("/long-article.html"), "maxAge": 3_600}
    # Answered once synchronously: the batch's items are that answer from the cache (real results, each
    # stored on the job, of a page's full size) without 1,000 page loads.
    first = api.call("POST", "/v1/web/markdown", key=key, json=page)
    assert first.status_code == 200, first.text
    size = len(first.json()["data"]["markdown"].encode())
    assert size * BIG_BATCH > 15_000_000
    job_id = submit(api, key, {"operation": "markdown", "requests": [page] * BIG_BATCH})
    settled = wait_until_settled(api, job_id, give_up_s=1_500, key=key)
    assert (settled["status"], settled["completed"]) == ("completed", BIG_BATCH)
    small_id = submit(api, key, {"operation": "markdown", "requests": [page] * ONE_AT_A_TIME_BATCH})
    small = wait_until_settled(api, small_id, give_up_s=600, key=key)
    assert (small["status"], small["completed"]) == ("completed", ONE_AT_A_TIME_BATCH)
    assert size * ONE_AT_A_TIME_BATCH > 2_000_000
    for read, count, limit in [(job_id, BIG_BATCH, 100), (job_id, BIG_BATCH, 50), (job_id, BIG_BATCH, 10),
                               (small_id, ONE_AT_A_TIME_BATCH, 1)]:
        results = all_results(api, read, limit, key=key)
        assert sorted(r["index"] for r in results) == list(range(count)), f"limit {limit}"
        assert all(len(r["data"]["markdown"].encode()) == size for r in results)
    # A hundred results of this size are more than one answer holds: the page is split, `next` set.
    split = job(api, job_id, key, limit=100)
    assert 0 < len(split["results"]) < 100 and split["next"] is not None


def test_a_cancelled_batch_settles_once_with_final_numbers(api: LocalApi, new_key: Any) -> None:
    key = new_key(1_000)
    before = remaining(api, key)
    receiver = WebhookReceiver()
    try:
        receiver.secret = api.call("GET", "/v1/webhooks/secret", key=key).json()["data"]["secret"]
        slow = [{"url": get_server().url(f"/slow?ms=1500&i={i}")} for i in range(CANCELLED_BATCH)]
        job_id = submit(api, key, {"operation": "links", "requests": slow,
                                   "webhook": {"url": receiver.url, "metadata": {"run": "cancel"}}})
        while job(api, job_id, key, limit=1)["completed"] < 2:
            time.sleep(0.2)
        cancelled = api.call("DELETE", f"/v1/jobs/{job_id}", key=key)
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["data"]["status"] in ("cancelling", "cancelled")
        reads: list[dict[str, Any]] = []
        deadline = time.monotonic() + 300
        while len(reads) < 10 and time.monotonic() < deadline:
            data = job(api, job_id, key, limit=1)
            if data["status"] == "cancelled":
                reads.append({name: data[name] for name in ("completed", "failed", "cancelled", "creditsCost")}
                             | {"remaining": remaining(api, key)})
            else:
                assert data["status"] == "cancelling", data
            time.sleep(0.3)
        (delivery,) = receiver.wait_for(1, 60)
        time.sleep(2)  # a second event, were there one, would have been queued with the first
        assert len(receiver.deliveries) == 1
    finally:
        receiver.stop()
    assert len(reads) == 10 and all(read == reads[0] for read in reads), reads
    final = reads[0]
    assert final["completed"] + final["failed"] + final["cancelled"] == CANCELLED_BATCH
    assert final["cancelled"] > 0 and final["creditsCost"] == final["completed"]
    assert final["remaining"] == before - final["completed"]
    results = all_results(api, job_id, 100, key=key)
    assert sorted(r["index"] for r in results) == list(range(CANCELLED_BATCH))
    event = delivery.verified
    assert event is not None, "the signature did not verify"
    assert (event["type"], event["status"], event["jobId"]) == ("job.cancelled", "cancelled", job_id)
    assert (event["completed"], event["cancelled"], event["creditsCost"]) == (
        final["completed"], final["cancelled"], final["creditsCost"])


def test_free_reads_answer_while_a_batch_holds_every_slot(api: LocalApi, new_key: Any) -> None:
    key = new_key(100, max_concurrency=1)
    job_id = submit(api, key, {"operation": "links",
                               "requests": [{"url": get_server().url(f"/slow?ms=4000&i={i}")} for i in range(4)]})
    # Wait for the moment the batch's item holds the key's one slot: a page load is refused then.
    deadline = time.monotonic() + 120
    while True:
        refused = api.call("POST", "/v1/web/links", key=key, json={"url": get_server().url("/plain.html")})
        if refused.status_code == 429:
            break
        assert time.monotonic() < deadline, "the batch never held the slot"
        time.sleep(0.2)
    assert refused.json()["error"]["code"] == "CONCURRENCY_LIMIT_EXCEEDED"
    assert api.call("GET", "/v1/api-keys/list", key=key).status_code == 200
    assert api.call("GET", f"/v1/jobs/{job_id}", key=key).status_code == 200
    assert api.call("GET", "/v1/webhooks/secret", key=key).status_code == 200
    assert api.call("GET", "/v1/signing/secret", key=key).status_code == 200
    gone = api.call("POST", "/v1/files/delete", key=key, json={"fileId": "0" * 32})
    assert gone.status_code != 429, gone.text
    wait_until_settled(api, job_id, give_up_s=300, key=key)
