"""The job store over moto: the whole batch reserved in one transaction, each item claimed and finished
once (its refund with it), Idempotency-Key records, results by cursor."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest

from tests.support.jobs_records import caller_of, remaining
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.errors import UsageExceeded
from webcapture.jobs import job_store
from webcapture.jobs.job_store import NewJob, Outcome
from webcapture.settings import get_settings

pytest_plugins = ["tests.support.jobs_moto"]


def new_job(caller: Caller, total: int, **extra: object) -> NewJob:
    return NewJob(job_id=f"00000000-0000-4000-8000-{total:012d}", caller=caller, operation="screenshot",
                  total=total, cost_each=1, webhook=None, **extra)  # type: ignore[arg-type]


def test_the_whole_batch_is_reserved_at_once_or_not_at_all(jobs_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job = job_store.create_job(new_job(caller_of(record), 7))
    assert (job.reserved, remaining(record)) == (7, 3)
    with pytest.raises(UsageExceeded) as refused:
        job_store.create_job(new_job(caller_of(record), 4))
    assert refused.value.message == ("Not enough credits for this batch: it reserves 4 (every item's cost; "
                                     "what is not used is given back), and the key has 3 left. Send fewer "
                                     "items, or use a key with more credits")
    assert remaining(record) == 3
    assert job_store.get_job("00000000-0000-4000-8000-000000000004") is None


def test_an_item_finished_twice_has_one_result_and_one_refund(jobs_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job = job_store.create_job(new_job(caller_of(record), 2))
    assert job_store.claim_item(job.job_id, 0, "first", 60_000) == "claimed"
    assert job_store.claim_item(job.job_id, 0, "second", 60_000) == "busy"
    failed = Outcome("failed", error={"code": "NAVIGATION_FAILED", "message": "refused"})
    assert job_store.finish_item(job, 0, "first", failed)
    assert not job_store.finish_item(job, 0, "first", failed)
    assert job_store.claim_item(job.job_id, 0, "third", 60_000) == "done"
    assert remaining(record) == 9  # 10 - 2 reserved + 1 refunded
    results, after = job_store.results_page(job.job_id, -1, 50)
    assert results == [{"index": 0, "status": "failed", "error": {"code": "NAVIGATION_FAILED",
                                                                  "message": "refused"}}]
    assert after is None


def test_an_expired_claim_is_taken_over_and_the_old_holder_cannot_finish(jobs_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job = job_store.create_job(new_job(caller_of(record), 1))
    assert job_store.claim_item(job.job_id, 0, "killed", -1) == "claimed"  # already run out
    assert job_store.claim_item(job.job_id, 0, "next", 60_000) == "claimed"
    assert not job_store.finish_item(job, 0, "killed", Outcome("completed", data={"a": 1}))
    assert job_store.finish_item(job, 0, "next", Outcome("completed", data={"a": 2}))
    settled = job_store.settle(job.job_id)
    assert settled is not None and settled.status == "completed" and settled.credits_cost == 1
    assert job_store.settle(job.job_id) is None  # the final status is given once


def test_concurrent_finishes_of_many_items_count_and_refund_exactly(jobs_aws: dict[str, str]) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=100)
    job = job_store.create_job(new_job(caller_of(record), 40))

    def run(index: int) -> bool:
        token = f"t{index}"
        assert job_store.claim_item(job.job_id, index, token, 60_000) == "claimed"
        outcome = Outcome("completed", data={"i": index}) if index % 4 else Outcome(
            "failed", error={"code": "X", "message": "x"})
        return job_store.finish_item(job, index, token, outcome)

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert all(pool.map(run, range(40)))
    final = job_store.get_job(job.job_id)
    assert final is not None
    assert (final.completed, final.failed, final.credits_cost) == (30, 10, 30)
    assert remaining(record) == 70
    pages, after = [], -1
    while True:
        page, last = job_store.results_page(job.job_id, after, 15)
        pages.append([r["index"] for r in page])
        if last is None:
            break
        after = last
    assert pages == [list(range(15)), list(range(15, 30)), list(range(30, 40))]


def test_a_transaction_refused_late_undoes_its_earlier_writes(jobs_aws: dict[str, str]) -> None:
    """The refund's key is gone: the transaction's last write fails after the claim's `done` mark and the
    result were applied in moto; they are undone, and the item finishes without the refund."""
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    job = job_store.create_job(new_job(caller_of(record), 1))
    boto3.resource("dynamodb").Table(get_settings().api_keys_table).delete_item(Key={"keyHash": record.key_hash})
    assert job_store.claim_item(job.job_id, 0, "only", 60_000) == "claimed"
    assert job_store.finish_item(job, 0, "only", Outcome("failed", error={"code": "X", "message": "x"}))
    results, _ = job_store.results_page(job.job_id, -1, 10)
    assert [r["status"] for r in results] == ["failed"]
    final = job_store.get_job(job.job_id)
    assert final is not None and (final.failed, final.refunded) == (1, 1)
