"""Asynchronous jobs end to end (docs/jobs.md#jobs), over HTTP to a local API of their own: items travel
through moto's SQS to the screenshot function (the local API plays Lambda's event source mapping), results and
credits land in moto's DynamoDB, and webhooks reach a loopback receiver that verifies them with the
`standardwebhooks` package."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.client_cli import webcapture
from tests.support.fixture_server import FixtureHttpServer, get_server
from tests.support.jobs_client import (
    all_results,
    credits_left,
    job,
    messages_held,
    wait_until_settled,
)
from tests.support.local_api import LocalApi, start_jobs_stack
from tests.support.stack_stores import stack_stores
from tests.support.webhook_receiver import WebhookReceiver
from webcapture.auth import api_keys

CREDITS = 5_000
SCREENSHOTS = 30  # four pages of results at limit 8
CANARY_HOST = "127.0.0.3"  # inside like any internal service: only 127.0.0.1 is allowed to this stack


@pytest.fixture(scope="module")
def site() -> FixtureHttpServer:
    return get_server()


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_jobs_stack("127.0.0.1/32", CREDITS, WEBCAPTURE_REQUEST_BUDGET_MS="15000")
    yield stack
    stack.stop()


@pytest.fixture
def receiver(api: LocalApi) -> Iterator[WebhookReceiver]:
    server = WebhookReceiver()
    server.secret = api.call("GET", "/v1/webhooks/secret").json()["data"]["secret"]
    yield server
    server.stop()


@pytest.fixture
def stores(api: LocalApi, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process's webcapture stores on the stack's moto (to make another user's key)."""
    with stack_stores(api, monkeypatch):
        yield


def submit(api: LocalApi, body: dict[str, Any], **headers: str) -> requests.Response:
    return api.call("POST", "/v1/batch", json=body, headers=headers)


def test_a_batch_of_screenshots_completes_stored_listed_and_one_signed_webhook(
        api: LocalApi, site: FixtureHttpServer, receiver: WebhookReceiver) -> None:
    """SCREENSHOTS items: what a batch does for each and once for all; a hundred of them against the same
    hundred sent one by one is `make bench-jobs`' size run."""
    before = credits_left(api)
    body = {"operation": "screenshot",
            "requests": [{"url": site.url(f"/plain.html?n={i}"), "timeout": 60_000} for i in range(SCREENSHOTS)],
            "webhook": {"url": receiver.url, "metadata": {"run": "screenshots"}}}
    answer = submit(api, body)
    assert answer.status_code == 202, answer.text
    accepted = answer.json()
    assert accepted["creditsCost"] == SCREENSHOTS
    assert accepted["data"]["status"] == "queued" and accepted["data"]["total"] == SCREENSHOTS
    job_id = accepted["data"]["jobId"]
    assert accepted["data"]["statusUrl"].endswith(f"/v1/jobs/{job_id}")

    settled = wait_until_settled(api, job_id, give_up_s=900)
    assert (settled["status"], settled["completed"], settled["failed"]) == ("completed", SCREENSHOTS, 0)
    assert settled["creditsCost"] == SCREENSHOTS
    assert credits_left(api) == before - SCREENSHOTS

    results = all_results(api, job_id, limit=8)  # four pages by cursor
    assert [r["index"] for r in results] == list(range(SCREENSHOTS))
    assert all(r["status"] == "completed" for r in results)
    assert len({r["data"]["fileId"] for r in results}) == SCREENSHOTS
    assert results[7]["data"]["metadata"]["requestedUrl"].endswith("/plain.html?n=7")
    stored = requests.get(results[22]["data"]["permanentUrl"], timeout=30)
    assert stored.status_code == 200 and stored.content.startswith(b"\x89PNG")

    (delivery,) = receiver.wait_for(1, 60)
    assert delivery.verified is not None, "the signature did not verify"
    assert delivery.verified["type"] == "job.completed" and delivery.verified["jobId"] == job_id
    assert delivery.verified["completed"] == SCREENSHOTS and delivery.verified["metadata"] == {"run": "screenshots"}
    assert delivery.verified["creditsCost"] == SCREENSHOTS
    assert messages_held(api, "Jobs") == 0


def test_cancel_stops_what_has_not_started_and_refunds_it(api: LocalApi, site: FixtureHttpServer) -> None:
    before = credits_left(api)
    body = {"operation": "screenshot",
            "requests": [{"url": site.url(f"/slow?ms=1500&n={i}")} for i in range(24)]}
    job_id = submit(api, body).json()["data"]["jobId"]
    while job(api, job_id)["completed"] == 0:  # until the first item is done: most have not started
        time.sleep(0.2)
    cancelled = api.call("DELETE", f"/v1/jobs/{job_id}")
    # `cancelling` while the running items finish; what never started is refunded already.
    answered = cancelled.json()["data"]
    assert cancelled.status_code == 200 and answered["status"] in ("cancelling", "cancelled")
    assert answered["cancelled"] > 0
    settled = wait_until_settled(api, job_id, give_up_s=300)
    assert settled["status"] == "cancelled"
    # A slow start on a busy machine may fail an item (refunded like the cancelled ones).
    assert settled["cancelled"] > 0
    assert settled["completed"] + settled["failed"] + settled["cancelled"] == 24
    assert settled["creditsCost"] == settled["completed"]
    assert credits_left(api) == before - settled["completed"]
    statuses = {r["status"] for r in all_results(api, job_id, limit=100)}
    assert {"completed", "cancelled"} <= statuses <= {"completed", "cancelled", "failed"}


def test_another_users_job_is_a_404_like_an_unknown_one(api: LocalApi, site: FixtureHttpServer,
                                                       stores: None) -> None:
    job_id = submit(api, {"operation": "links", "requests": [{"url": site.url("/links.html")}]}).json()[
        "data"]["jobId"]
    other_key, _ = api_keys.create_key("someone-else", "other")
    for method in ("GET", "DELETE"):
        theirs = api.call(method, f"/v1/jobs/{job_id}", key=other_key)
        unknown = api.call(method, "/v1/jobs/6d0c1c0e-0000-4000-8000-000000000000", key=other_key)
        assert theirs.status_code == unknown.status_code == 404
        assert theirs.json()["error"]["code"] == unknown.json()["error"]["code"] == "NOT_FOUND"
    assert job(api, job_id)["status"] != "cancelled"  # the other user's DELETE changed nothing
    assert wait_until_settled(api, job_id, give_up_s=300)["completed"] == 1


def test_a_webhook_answered_500_three_times_gets_the_event_with_one_id(
        api: LocalApi, site: FixtureHttpServer, receiver: WebhookReceiver) -> None:
    receiver.statuses = [500, 500, 500]
    body = {"operation": "links", "requests": [{"url": site.url("/links.html")}],
            "webhook": {"url": receiver.url}}
    job_id = submit(api, body).json()["data"]["jobId"]
    deliveries = receiver.wait_for(4, 120)
    assert len(deliveries) == 4
    assert len({d.headers["webhook-id"] for d in deliveries}) == 1
    assert all(d.verified is not None and d.verified["jobId"] == job_id for d in deliveries)
    # Each attempt is recorded once its answer is in: the 4th a moment after the receiver saw it.
    give_up = time.monotonic() + 30
    while len(shown := job(api, job_id)["webhook"]["deliveries"]) < 4 and time.monotonic() < give_up:
        time.sleep(0.2)
    assert [(d["status"], d["ok"]) for d in shown] == [(500, False), (500, False), (500, False), (200, True)]


class TestBadInput:
    """Each refused batch is a clear error, queues nothing and charges nothing."""

    @pytest.fixture(autouse=True)
    def nothing_happens(self, api: LocalApi) -> Iterator[None]:
        # Earlier tests' messages are gone (their jobs settled); whatever this test sends must add none.
        before = credits_left(api), messages_held(api, "Jobs")
        yield
        assert (credits_left(api), messages_held(api, "Jobs")) == before

    def test_a_thousand_and_one_items(self, api: LocalApi, site: FixtureHttpServer) -> None:
        answer = submit(api, {"operation": "screenshot", "requests": [{"url": site.url("/plain.html")}] * 1001})
        assert answer.status_code == 422
        assert answer.json()["error"]["issues"][0]["path"] == ["requests"]
        assert answer.json()["error"]["issues"][0]["code"] == "too_big"

    def test_an_invalid_item_is_named_by_its_index(self, api: LocalApi, site: FixtureHttpServer) -> None:
        items = [{"url": site.url("/plain.html")}] * 5 + [{"url": "javascript:alert(1)"}]
        answer = submit(api, {"operation": "screenshot", "requests": items})
        assert answer.status_code == 422
        assert [i["path"] for i in answer.json()["error"]["issues"]] == [["requests", 5, "url"]]

    def test_a_webhook_on_an_internal_address(self, api: LocalApi, site: FixtureHttpServer) -> None:
        canary = WebhookReceiver(host=CANARY_HOST)
        try:
            answer = submit(api, {"operation": "screenshot", "requests": [{"url": site.url("/plain.html")}],
                                  "webhook": {"url": canary.url}})
            assert answer.status_code == 400
            assert answer.json()["error"]["code"] == "URL_NOT_ALLOWED"
            assert canary.deliveries == []
        finally:
            canary.stop()

    def test_oversized_metadata(self, api: LocalApi, site: FixtureHttpServer) -> None:
        answer = submit(api, {"operation": "screenshot", "requests": [{"url": site.url("/plain.html")}],
                              "webhook": {"url": site.url("/hook"), "metadata": {"note": "x" * 3000}}})
        assert answer.status_code == 422
        assert answer.json()["error"]["issues"][0]["path"] == ["webhook", "metadata"]


def test_a_bad_cursor_and_a_bad_limit(api: LocalApi, site: FixtureHttpServer) -> None:
    job_id = submit(api, {"operation": "links", "requests": [{"url": site.url("/links.html")}]}).json()[
        "data"]["jobId"]
    wait_until_settled(api, job_id, give_up_s=300)
    for params, path in (({"cursor": "bm90LWEtY3Vyc29y"}, ["cursor"]), ({"limit": "101"}, ["limit"]),
                         ({"cursor": "%%%"}, ["cursor"])):
        answer = api.call("GET", f"/v1/jobs/{job_id}", params=params)
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["issues"][0]["path"] == path


def test_an_idempotency_key_reused_with_another_body(api: LocalApi, site: FixtureHttpServer) -> None:
    before = credits_left(api)
    body = {"operation": "links", "requests": [{"url": site.url("/links.html?k=1")}]}
    first = submit(api, body, **{"Idempotency-Key": "nightly-1"})
    again = submit(api, json.loads(json.dumps(body)), **{"Idempotency-Key": "nightly-1"})
    assert first.status_code == again.status_code == 202
    assert again.json()["data"]["jobId"] == first.json()["data"]["jobId"]
    assert again.json()["creditsCost"] == 0
    other = submit(api, {**body, "requests": [{"url": site.url("/links.html?k=2")}]},
                   **{"Idempotency-Key": "nightly-1"})
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "IDEMPOTENCY_CONFLICT"
    wait_until_settled(api, first.json()["data"]["jobId"], give_up_s=300)
    assert credits_left(api) == before - 1  # one job, charged once


def test_the_cli_submits_ndjson_and_waits_with_a_progress_bar(api: LocalApi, site: FixtureHttpServer,
                                                             tmp_path: Path) -> None:
    bodies = tmp_path / "pages.ndjson"
    bodies.write_text("".join(json.dumps({"url": site.url(f"/links.html?cli={i}")}) + "\n" for i in range(3))
                      + "\n")  # a blank line is skipped
    run = webcapture(api, "batch", str(bodies), "--operation", "links", "--wait", timeout=600)
    assert run.returncode == 0, run.stderr
    shown = json.loads(run.stdout)
    assert (shown["status"], shown["completed"]) == ("completed", 3)
    assert [r["index"] for r in shown["results"]] == [0, 1, 2]
    assert "] 3/3 completed" in run.stderr
    again = webcapture(api, "job", shown["jobId"])
    assert again.returncode == 0 and json.loads(again.stdout)["completed"] == 3
