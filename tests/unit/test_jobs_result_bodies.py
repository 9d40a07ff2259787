"""A result kept in its item compressed (webcapture/jobs/result_bodies.py): a page's Markdown is stored as
zlib bytes a fraction of its size and read back exactly, through the job's results; a short result stays
text; an item written as text before is still read; what is too large even compressed goes to S3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.jobs_records import caller_of, incompressible
from webcapture.auth import api_keys
from webcapture.content.markdown import html_to_markdown
from webcapture.jobs import job_store, result_bodies
from webcapture.jobs.job_store import NewJob, Outcome

pytest_plugins = ["tests.support.jobs_moto"]

ARTICLE = Path(__file__).parent.parent / "support" / "pages" / "long-article.html"


def _markdown() -> str:
    text = html_to_markdown(ARTICLE.read_text(encoding="utf-8"), "https://docs.example/")
    assert len(text) > 2_000
    return text


def _job(texts: list[str]) -> job_store.Job:
    _, record = api_keys.create_key("user-1", "k", remaining=10_000)
    job = job_store.create_job(NewJob(job_id="00000000-0000-4000-8000-000000000032", caller=caller_of(record),
                                      operation="markdown", total=len(texts), cost_each=1, webhook=None))
    for index, text in enumerate(texts):
        assert job_store.claim_item(job.job_id, index, f"t{index}", 60_000) == "claimed"
        assert job_store.finish_item(job, index, f"t{index}", Outcome("completed", data={"markdown": text}))
    return job


def _item(job: job_store.Job, index: int) -> dict[str, Any]:
    item: dict[str, Any] = job_store._table().get_item(
        Key={"pk": job_store._pk(job.job_id), "sk": job_store._result_sk(index)})["Item"]
    return item


def test_a_pages_markdown_is_kept_compressed_and_read_back_exactly(jobs_aws: dict[str, str]) -> None:
    markdown, too_large = _markdown(), incompressible(450_000, 3)
    job = _job([markdown, "short", too_large])
    large, short, elsewhere = (_item(job, index) for index in range(3))
    assert result_bodies.COMPRESSED in large and result_bodies.TEXT not in large
    text_bytes = len(json.dumps({"data": {"markdown": markdown}}, ensure_ascii=False).encode())
    assert len(large[result_bodies.COMPRESSED].value) < text_bytes / 3
    assert short[result_bodies.TEXT] == '{"data":{"markdown":"short"}}'
    assert "bodyKey" in elsewhere and result_bodies.COMPRESSED not in elsewhere
    results, last = job_store.results_page(job.job_id, -1, 10, budget_bytes=1 << 62)
    assert [result["data"]["markdown"] for result in results] == [markdown, "short", too_large]
    assert last is None


def test_an_item_written_as_text_before_is_read_as_it_is(jobs_aws: dict[str, str]) -> None:
    job = _job(["placeholder"])
    job_store._table().update_item(
        Key={"pk": job_store._pk(job.job_id), "sk": job_store._result_sk(0)},
        UpdateExpression="SET body = :text", ExpressionAttributeValues={":text": '{"data":{"markdown":"as text"}}'})
    (result,), _ = job_store.results_page(job.job_id, -1, 10)
    assert result["data"] == {"markdown": "as text"}


@pytest.mark.parametrize("chars", [0, 100, result_bodies.COMPRESS_FROM - 40])
def test_a_short_result_stays_text(chars: int) -> None:
    text = json.dumps({"data": {"markdown": "a" * chars}})
    assert result_bodies.stored_form(text) == {result_bodies.TEXT: text}


def test_the_stored_form_reads_back_and_counts_its_own_bytes() -> None:
    text = json.dumps({"data": {"markdown": "word " * 5_000}})
    stored = result_bodies.stored_form(text)
    assert result_bodies.inline_text(stored) == text
    assert result_bodies.stored_bytes(stored) == len(stored[result_bodies.COMPRESSED]) < len(text) // 10
    assert result_bodies.inline_text({"bodyKey": "jobs/x/00000.json"}) is None
