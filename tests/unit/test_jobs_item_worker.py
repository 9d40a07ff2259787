"""A job's items in the work function (docs/jobs.md#jobs), over moto: each runs once however often it is
delivered, a full key's items wait on the queue, failures and cancellations are refunded, AWS trouble is
a partial batch failure, and the job's end queues its webhook event."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from tests.support.dns_server import answering
from tests.support.jobs_records import Runs, caller_of, event_of, receive_all, remaining
from webcapture import concurrency
from webcapture.auth import api_keys
from webcapture.credits import Operation
from webcapture.errors import (
    AiAnswerMismatch,
    AiProviderError,
    AiProviderTimeout,
    NavigationFailed,
    ServiceUnavailable,
)
from webcapture.jobs import job_store
from webcapture.jobs import submit as submit_module
from webcapture.jobs.item_worker import ItemRunner, handle_records
from webcapture.jobs.submit import submit_batch

pytest_plugins = ["tests.support.jobs_moto"]


def submit(record: api_keys.ApiKeyRecord, count: int, webhook: dict[str, Any] | None = None) -> str:
    body: dict[str, Any] = {"operation": "links",
                            "requests": [{"url": f"https://site.example/{i}"} for i in range(count)]}
    if webhook is not None:
        body["webhook"] = webhook
    return submit_batch(caller_of(record), body, None).job.job_id


def run(messages: list[dict[str, Any]], runner: Runs) -> dict[str, Any]:
    return handle_records(event_of(messages), lambda: 60_000.0, ItemRunner(Operation.LINKS, runner))


def test_every_item_runs_once_however_often_it_is_delivered(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job_id = submit(record, 3)
    messages = receive_all(links_queue)
    runner = Runs()
    assert run(messages, runner) == {"batchItemFailures": []}
    assert run(messages, runner) == {"batchItemFailures": []}  # every message delivered a second time
    assert sorted(runner.urls) == [f"https://site.example/{i}" for i in range(3)]
    job = job_store.get_job(job_id)
    assert job is not None and (job.status, job.completed, job.credits_cost) == ("completed", 3, 3)
    assert remaining(record) == 7


def test_a_second_delivery_while_the_first_runs_waits_on_the_queue(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    submit(record, 1)
    (message,) = receive_all(links_queue)
    hold = threading.Event()
    runner = Runs(hold=hold)
    first = threading.Thread(target=run, args=([message], runner))
    first.start()
    while not runner.urls:
        time.sleep(0.01)
    assert run([message], runner) == {"batchItemFailures": []}  # acknowledged: sent back instead
    hold.set()
    first.join()
    (again,) = receive_all(links_queue)
    assert json.loads(again["Body"]) == json.loads(message["Body"])
    run([again], runner)
    assert len(runner.urls) == 1


def test_items_of_a_full_key_wait_instead_of_failing(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10, max_concurrency=1)
    job_id = submit(record, 1)
    (message,) = receive_all(links_queue)
    held = concurrency.Lease(record.key_hash, "sync-request", concurrency.lease_element("sync-request", 2**62))
    concurrency.take(held)
    runner = Runs()
    assert run([message], runner) == {"batchItemFailures": []}
    assert runner.urls == []
    job = job_store.get_job(job_id)
    assert job is not None and job.done == 0
    concurrency.release(held)
    (waiting,) = receive_all(links_queue)
    run([waiting], runner)
    assert runner.urls == ["https://site.example/0"]


def test_failed_and_cancelled_items_are_refunded_and_the_event_queued(
        links_queue: str, jobs_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    with answering(lambda name: ["93.184.215.14"]):  # a public address for the webhook's host
        job_id = submit(record, 4, webhook={"url": "https://hooks.example/x", "events": ["job.cancelled"]})
    messages = receive_all(links_queue)
    run(messages[:2], Runs(fail=NavigationFailed))
    assert job_store.cancel_job(job_id)
    run(messages[2:], Runs())
    job = job_store.get_job(job_id)
    assert job is not None
    assert (job.status, job.failed, job.cancelled, job.credits_cost) == ("cancelled", 2, 2, 0)
    assert remaining(record) == 10
    results, _ = job_store.results_page(job_id, -1, 50)
    assert [r["status"] for r in results] == ["failed", "failed", "cancelled", "cancelled"]
    assert results[0]["error"]["code"] == "NAVIGATION_FAILED"
    (event,) = receive_all(jobs_aws["WebhooksQueue"])
    body = json.loads(event["Body"])
    assert body["payload"]["type"] == "job.cancelled" and body["payload"]["status"] == "cancelled"


def test_an_item_whose_model_answered_off_the_schema_is_charged_and_provider_failures_are_not(
        links_queue: str) -> None:
    # The model's work was done: the item fails, as the synchronous request does, and keeps its credit.
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job_id = submit(record, 3)
    messages = receive_all(links_queue)
    run(messages[:1], Runs(fail=AiAnswerMismatch))
    run(messages[1:2], Runs(fail=AiProviderError))
    run(messages[2:], Runs(fail=AiProviderTimeout))
    job = job_store.get_job(job_id)
    assert job is not None and (job.status, job.failed, job.credits_cost) == ("failed", 3, 1)
    assert remaining(record) == 9
    results, _ = job_store.results_page(job_id, -1, 50)
    assert [r["error"]["code"] for r in results] == ["AI_PROVIDER_ERROR", "AI_PROVIDER_ERROR",
                                                     "AI_PROVIDER_TIMEOUT"]


def test_aws_trouble_is_a_partial_batch_failure_and_frees_the_item(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job_id = submit(record, 2)
    messages = receive_all(links_queue)
    answer = run(messages[:1], Runs(fail=ServiceUnavailable))
    assert answer == {"batchItemFailures": [{"itemIdentifier": messages[0]["MessageId"]}]}
    run(messages, Runs())  # delivered again: now it runs
    job = job_store.get_job(job_id)
    assert job is not None and (job.completed, job.failed) == (2, 0)


def test_a_batch_sqs_refuses_part_of_is_a_503_and_every_item_is_queued_or_refunded(
        links_queue: str, monkeypatch: Any) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=1_000)
    real_send = submit_module.send_items

    def send_failing_one_chunk(operation: str, messages: list[Any]) -> None:
        if messages[0].index == 40:
            raise RuntimeError("SQS refused 10 item(s) of the batch")
        real_send(operation, messages)

    monkeypatch.setattr(submit_module, "send_items", send_failing_one_chunk)
    body = {"operation": "links", "requests": [{"url": f"https://site.example/{i}"} for i in range(200)]}
    with pytest.raises(ServiceUnavailable):
        submit_batch(caller_of(record), body, None)
    messages = receive_all(links_queue)
    queued = sorted(json.loads(m["Body"])["index"] for m in messages)
    (job_id,) = {json.loads(m["Body"])["jobId"] for m in messages}
    job = job_store.get_job(job_id)
    assert job is not None and job.status == "cancelling"
    # Each item is either on the queue (it finishes as cancelled when it comes up) or was finished and
    # refunded at once; the refused chunk is among the latter.
    assert 40 not in queued and len(set(queued)) == len(queued)
    assert job.cancelled == 200 - len(queued) and job.completed == 0
    assert remaining(record) == 1_000 - 200 + job.cancelled


def test_an_item_of_a_job_that_is_gone_runs_nothing_and_holds_nothing(links_queue: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job_id = submit(record, 1)
    (message,) = receive_all(links_queue)
    table = job_store._table()
    table.delete_item(Key={"pk": f"job#{job_id}", "sk": "job"})  # expired: DynamoDB's TTL removed it
    runner = Runs()
    assert run([message], runner) == {"batchItemFailures": []}  # acknowledged
    assert runner.urls == []
    items = table.query(KeyConditionExpression="pk = :pk",
                        ExpressionAttributeValues={":pk": f"job#{job_id}"})["Items"]
    assert not [item for item in items if item["sk"].startswith("result#")]
    # What the claim wrote holds no claim and expires with the job's other items.
    claims = [item for item in items if item["sk"].startswith("item#")]
    assert all("claimToken" not in item and item["ttl"] for item in claims)
