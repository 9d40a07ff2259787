"""Results by cursor over moto's DynamoDB, which stops a query at 1 MB as DynamoDB does: large results are
walked past that page, a page larger than one answer is split, and `next` is null only at the end."""

from __future__ import annotations

import json

import pytest

from tests.support.jobs_records import caller_of, incompressible
from webcapture.auth import api_keys
from webcapture.jobs import job_store, job_view, result_bodies
from webcapture.jobs.job_store import NewJob, Outcome

pytest_plugins = ["tests.support.jobs_moto"]

# Kept compressed just under the inline limit (about 290 KB each): four of them pass DynamoDB's 1 MB
# query page; each is 380 KB in an answer.
LARGE_TEXT = incompressible(380_000, 1)


def finished_job(total: int, text: str) -> job_store.Job:
    _, record = api_keys.create_key("user-1", "k", remaining=10_000)
    job = job_store.create_job(NewJob(job_id="00000000-0000-4000-8000-000000000031", caller=caller_of(record),
                                      operation="markdown", total=total, cost_each=1, webhook=None))
    for index in range(total):
        assert job_store.claim_item(job.job_id, index, f"t{index}", 60_000) == "claimed"
        outcome = Outcome("completed", data={"markdown": text, "i": index})
        assert job_store.finish_item(job, index, f"t{index}", outcome)
    return job


def walk(job: job_store.Job, limit: int) -> list[list[int]]:
    """Every page's indexes, following `next` as a client does."""
    pages: list[list[int]] = []
    cursor: str | None = None
    while True:
        data = job_view.job_data(job, limit=str(limit), cursor=cursor)
        pages.append([result["index"] for result in data["results"]])
        cursor = data["next"]
        if cursor is None:
            return pages


@pytest.mark.parametrize("limit", [1, 3, 50, 100])
def test_every_large_result_is_reachable_once_at_any_limit(jobs_aws: dict[str, str], limit: int) -> None:
    job = finished_job(12, LARGE_TEXT)  # 12 x 280 KB: three DynamoDB pages
    pages = walk(job, limit)
    assert sorted(i for page in pages for i in page) == list(range(12))
    assert all(len(page) <= limit for page in pages)


def test_a_page_larger_than_one_answer_is_split_with_a_next(jobs_aws: dict[str, str]) -> None:
    job = finished_job(10, LARGE_TEXT)
    # The answer holds about 1.6 MB: four results, and the fifth would not fit.
    results, last = job_store.results_page(job.job_id, -1, 100, budget_bytes=1_600_000)
    assert [r["index"] for r in results] == [0, 1, 2, 3]
    assert last == 3
    rest, end = job_store.results_page(job.job_id, 3, 100, budget_bytes=100)
    assert [r["index"] for r in rest] == [4]  # one result always fits: the walk goes on
    assert end == 4


def test_results_stored_in_s3_are_paged_past_the_first_megabyte(jobs_aws: dict[str, str]) -> None:
    job = finished_job(6, incompressible(450_000, 2))  # over the inline limit even compressed: in S3
    assert walk(job, 100) == [list(range(6))]


def test_the_last_page_says_null_and_a_running_job_continues_later(jobs_aws: dict[str, str]) -> None:
    job = finished_job(5, "small")
    results, last = job_store.results_page(job.job_id, -1, 5)
    assert len(results) == 5 and last is None
    results, last = job_store.results_page(job.job_id, -1, 4)
    assert [r["index"] for r in results] == [0, 1, 2, 3] and last == 3


def test_the_large_results_are_kept_as_large_as_these_tests_mean() -> None:
    stored = result_bodies.stored_form(json.dumps({"data": {"markdown": LARGE_TEXT, "i": 0}}, separators=(",", ":")))
    assert 250_000 < result_bodies.stored_bytes(stored) <= job_store.INLINE_RESULT_BYTES
    too_large = json.dumps({"data": {"markdown": incompressible(450_000, 2)}}, separators=(",", ":"))
    assert result_bodies.stored_bytes(result_bodies.stored_form(too_large)) > job_store.INLINE_RESULT_BYTES
