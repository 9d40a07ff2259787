"""Webhook delivery (docs/jobs.md#jobs): signed by Standard Webhooks (verified here with the
`standardwebhooks` package, as a receiver does), through the egress policy at every attempt, retried as
delayed messages with the same webhook-id, every attempt recorded on the job."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.dns_server import answering
from tests.support.jobs_records import caller_of, receive_all
from tests.support.webhook_receiver import WebhookReceiver
from webcapture.auth import api_keys
from webcapture.jobs import job_store, webhook_secrets
from webcapture.jobs.job_store import NewJob
from webcapture.jobs.webhook_delivery import deliver
from webcapture.jobs.webhook_dispatch import handle_records
from webcapture.settings import get_settings

pytest_plugins = ["tests.support.jobs_moto"]


@pytest.fixture
def receiver(settings_env: pytest.MonkeyPatch) -> Iterator[WebhookReceiver]:
    settings_env.setenv("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.1/32")
    get_settings.cache_clear()
    server = WebhookReceiver()
    yield server
    server.stop()


class _Canary(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(inner) -> None:
                self.hits += 1
                inner.send_response(200)
                inner.end_headers()

            def log_message(inner, format: str, *args: object) -> None:
                pass

        self.hits = 0
        super().__init__(("127.0.0.2", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()


def test_a_delivery_is_signed_as_standard_webhooks_says(receiver: WebhookReceiver) -> None:
    secret = webhook_secrets.new_secret()
    receiver.secret = secret
    attempt = deliver(receiver.url, secret, "msg_1", {"type": "job.completed", "jobId": "j"}, 5.0)
    assert attempt.ok and attempt.status == 200
    (delivery,) = receiver.wait_for(1, 5)
    assert delivery.verified == {"type": "job.completed", "jobId": "j"}
    assert delivery.headers["webhook-id"] == "msg_1"
    assert delivery.headers["webhook-signature"].startswith("v1,")


def test_a_host_that_resolves_inside_is_never_connected(receiver: WebhookReceiver) -> None:
    canary = _Canary()
    try:
        port = canary.server_address[1]
        with answering(lambda name: ["127.0.0.2"]):  # a public-looking name rebound to an inside address
            attempt = deliver(f"http://hooks.example:{port}/x", webhook_secrets.new_secret(), "msg_2",
                              {"type": "job.completed"}, 5.0)
        assert not attempt.ok and attempt.status is None and "URL_NOT_ALLOWED" in (attempt.error or "")
        assert canary.hits == 0
    finally:
        canary.shutdown()
        canary.server_close()


def test_a_failed_delivery_is_retried_with_the_same_id_and_recorded(
        receiver: WebhookReceiver, jobs_aws: dict[str, str], settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("WEBCAPTURE_WEBHOOK_RETRY_DELAYS_S", "0,0,0,0,0")
    get_settings.cache_clear()
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    receiver.secret = webhook_secrets.current_secret("user-1")
    receiver.statuses = [500, 500, 500]
    job = job_store.create_job(NewJob(job_id="00000000-0000-4000-8000-000000000001", caller=caller_of(record),
                                      operation="links", total=1, cost_each=1,
                                      webhook={"url": receiver.url, "events": ["job.completed"], "metadata": {}}))
    message = {"eventId": "msg_fixed", "jobId": job.job_id, "userId": "user-1", "attempt": 0, "notBefore": 0,
               "payload": {"type": "job.completed", "jobId": job.job_id}}
    pending = [{"MessageId": "m0", "Body": json.dumps(message)}]
    for _round in range(4):
        (sent,) = pending
        assert handle_records({"Records": [{"messageId": sent["MessageId"], "body": sent["Body"]}]}) == {
            "batchItemFailures": []}
        pending = receive_all(jobs_aws["WebhooksQueue"])
    assert pending == []  # the 4th attempt was acknowledged: nothing more to send
    deliveries = receiver.wait_for(4, 5)
    assert [d.headers["webhook-id"] for d in deliveries] == ["msg_fixed"] * 4
    assert all(d.verified == message["payload"] for d in deliveries)
    stored = job_store.get_job(job.job_id)
    assert stored is not None
    assert [(d["attempt"], d["ok"], d["status"]) for d in stored.deliveries] == [
        (1, False, 500), (2, False, 500), (3, False, 500), (4, True, 200)]


def test_a_refused_or_silent_receiver_is_recorded_in_our_words(receiver: WebhookReceiver) -> None:
    # Nothing listens on a port just released; a listener that never accepts keeps the connection waiting.
    import socket

    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    refused = deliver(f"http://127.0.0.1:{port}/hook", webhook_secrets.new_secret(), "msg_r", {}, 2.0)
    assert (refused.ok, refused.status, refused.error) == (False, None, "connection refused")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(0)
    try:
        waited = deliver(f"http://127.0.0.1:{silent.getsockname()[1]}/hook", webhook_secrets.new_secret(),
                         "msg_t", {}, 0.5)
    finally:
        silent.close()
    assert waited.error == "timed out"
    for attempt in (refused, waited):
        assert "Errno" not in (attempt.error or "") and str(port) not in (attempt.error or "")
