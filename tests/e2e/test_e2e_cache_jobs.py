"""maxAge on a job's items, over HTTP against the local API
(docs/cache-and-signed-links.md#cache-and-signed-links, docs/jobs.md#jobs): an item whose request was answered
synchronously before is that answer (the same stored file, no credit); an option changed or another user's
request is a miss; a job's miss serves the synchronous endpoint later."""

from __future__ import annotations

import uuid
from typing import Any

import requests

from tests.support.api_answers import assert_success, remaining
from tests.support.fixture_server import get_server
from tests.support.jobs_client import all_results, wait_until_settled
from tests.support.local_api import LocalApi
from webcapture.auth import api_keys


def new_key(credits: int = 50) -> str:
    key, _ = api_keys.create_key(f"cache-jobs-{uuid.uuid4().hex[:8]}", "k", remaining=credits)
    return key


def shot(**extra: Any) -> dict[str, Any]:
    return {
        "url": get_server().url("/plain.html"),
        "screenshotOptions": {"fullPage": False},
        "viewport": {"width": 400, "height": 300},
        "maxAge": 600,
        **extra,
    }


def run_batch(
    api: LocalApi, key: str, operation: str, items: list[dict[str, Any]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    answer = api.call("POST", "/v1/batch", key=key, json={"operation": operation, "requests": items})
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["data"]["jobId"]
    settled = wait_until_settled(api, job_id, give_up_s=300, key=key)
    return settled, all_results(api, job_id, limit=50, key=key)


def without_cached_at(data: dict[str, Any]) -> dict[str, Any]:
    cached_at = data["metadata"].pop("cachedAt")
    assert isinstance(cached_at, str) and cached_at.endswith("Z")
    return data


def test_a_screenshot_rendered_synchronously_is_a_free_hit_in_a_job(stack_aws: LocalApi) -> None:
    key = new_key()
    sync = stack_aws.call(
        "POST", "/v1/web/screenshot", key=key, json=shot(), headers={"Accept": "application/json"}
    )
    assert sync.headers["X-Cache"] == "MISS"
    made = assert_success(sync, 1)["data"]
    assert made["permanentUrl"] and remaining(key) == 49

    # The same request (bytes asked for or not: a job's screenshot is always the stored form), and one
    # with an option changed.
    job, results = run_batch(
        stack_aws,
        key,
        "screenshot",
        [shot(), shot(base64=True), shot(viewport={"width": 401, "height": 300})],
    )
    assert (job["status"], job["completed"], job["creditsCost"]) == ("completed", 3, 1)
    assert remaining(key) == 48  # reserved 3, the two hits refunded
    hit, hit_base64, changed = (r["data"] for r in results)
    assert without_cached_at(hit) == made and without_cached_at(hit_base64) == made
    assert "cachedAt" not in changed["metadata"] and changed["fileId"] != made["fileId"]
    assert changed["metadata"]["width"] == 401
    stored = requests.get(hit["permanentUrl"], timeout=30)
    assert stored.status_code == 200 and stored.content.startswith(b"\x89PNG")


def test_another_users_identical_item_is_a_miss(stack_aws: LocalApi) -> None:
    mine, theirs = new_key(), new_key()
    first = assert_success(
        stack_aws.call(
            "POST", "/v1/web/screenshot", key=mine, json=shot(), headers={"Accept": "application/json"}
        ),
        1,
    )["data"]
    job, (result,) = run_batch(stack_aws, theirs, "screenshot", [shot()])
    assert (job["completed"], job["creditsCost"]) == (1, 1) and remaining(theirs) == 49
    assert "cachedAt" not in result["data"]["metadata"] and result["data"]["fileId"] != first["fileId"]


def test_a_jobs_miss_is_kept_for_the_synchronous_endpoint(stack_aws: LocalApi) -> None:
    key = new_key()
    body = {"url": get_server().url("/links.html"), "maxAge": 600}
    job, (result,) = run_batch(stack_aws, key, "links", [body])
    assert (job["completed"], job["creditsCost"]) == (1, 1)
    assert "cachedAt" not in result["data"]["metadata"]
    sync = stack_aws.call("POST", "/v1/web/links", key=key, json=body)
    assert sync.headers["X-Cache"] == "HIT"
    data = assert_success(sync, 0)["data"]
    assert without_cached_at(data) == result["data"]
    assert remaining(key) == 49
