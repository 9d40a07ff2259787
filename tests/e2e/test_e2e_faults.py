"""Faults, over HTTP against a local API of their own: real Chromium killed mid-request, a container process
killed, moto's server stopped, the bucket gone, DynamoDB throttling (through a proxy that answers as
DynamoDB does, so botocore's real retry logic runs). Each leaves the credits right and the service usable.

moto's server runs in this process (so it can be stopped and started again with its data), behind
AwsFaultProxy; the local API's functions reach AWS only through the proxy, this test's own clients go to
moto directly.
"""

from __future__ import annotations

import base64
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest
import requests
from moto.server import ThreadedMotoServer

from localapi.stack import LOCAL_BUCKET
from tests.support.api_answers import remaining
from tests.support.aws_fault_proxy import AwsFaultProxy
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi, start_local_api
from tests.support.stack_processes import browsers_under, containers_under
from tests.support.stack_stores import stack_stores
from webcapture.auth import api_keys


class _Tripwire(BaseHTTPRequestHandler):
    """The first `holds` requests get a page that starts and never finishes (the test hears of each
    arrival); later ones a whole page."""

    server: _TripwireServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        with self.server.lock:
            self.server.count += 1
            hold = self.server.count <= self.server.holds
        if not hold:
            page = b"<!doctype html><title>ok</title><p>here at last"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"<!doctype html><p>almost there")
        self.wfile.flush()
        self.server.arrivals.release()
        self.server.release.wait(timeout=60)


class _TripwireServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Tripwire)
        self.lock, self.count, self.holds = threading.Lock(), 0, 0
        self.arrivals, self.release = threading.Semaphore(0), threading.Event()

    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hold"


class Moto:
    """moto's server on a fixed loopback port, stoppable and restartable (its data lives in this process)."""

    def __init__(self) -> None:
        self.port = 0
        self._server: ThreadedMotoServer | None = None

    def start(self) -> None:
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()
        self.port = self._server.get_host_and_port()[1]

    def stop(self) -> None:
        assert self._server is not None
        self._server.stop()
        self._server = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@pytest.fixture(scope="module")
def moto() -> Iterator[Moto]:
    server = Moto()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy(moto: Moto) -> Iterator[AwsFaultProxy]:
    fault_proxy = AwsFaultProxy(moto.endpoint)
    fault_proxy.start()
    yield fault_proxy
    fault_proxy.stop()


@pytest.fixture(scope="module")
def faulty_api(proxy: AwsFaultProxy) -> Iterator[LocalApi]:
    # No warm start: the only browsers under this stack are the ones its screenshot requests launch, so the
    # tests can tell which one to kill and count what is left (each browser function would otherwise launch
    # one at init).
    api = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8", "WEBCAPTURE_REQUEST_BUDGET_MS": "15000",
                           "WEBCAPTURE_WARM_START": "0"},
                          extra_args=["--aws-endpoint", proxy.endpoint, "--max-containers", "2"])
    yield api
    api.stop()


@pytest.fixture
def stores(faulty_api: LocalApi, moto: Moto, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process's webcapture stores on the stack's tables, through no proxy."""
    endpoints = {"AWS_ENDPOINT_URL_DYNAMODB": moto.endpoint, "AWS_ENDPOINT_URL_S3": moto.endpoint}
    with stack_stores(faulty_api, monkeypatch, **endpoints):
        yield


@pytest.fixture
def tripwire() -> Iterator[_TripwireServer]:
    server = _TripwireServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.release.set()
    server.shutdown()
    server.server_close()


def screenshot(api: LocalApi, key: str, url: str, **extra: Any) -> requests.Response:
    return api.call("POST", "/v1/web/screenshot", key=key,
                    json={"url": url, "screenshotOptions": {"fullPage": False}, **extra})


def error_code(response: requests.Response) -> str:
    body = response.json()
    assert body["success"] is False and body["error"]["requestId"]
    return str(body["error"]["code"])


def plain_page() -> str:
    return get_server().url("/plain.html")


def eventually(probe: Callable[[], list[int]], done: Callable[[list[int]], bool], within_s: float = 15) -> list[int]:
    """probe() once done(probe()) holds, or its last answer after within_s (a wait, not a timing check)."""
    deadline = time.monotonic() + within_s
    while not done(found := probe()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def while_the_page_hangs(api: LocalApi, key: str, tripwire: _TripwireServer, act: Callable[[], None],
                         holds: int = 1) -> requests.Response:
    """Send a screenshot of a page whose first `holds` loads never finish, and act (kill something)
    each time the browser is on such a load."""
    tripwire.holds = holds
    answer: dict[str, requests.Response] = {}
    thread = threading.Thread(target=lambda: answer.setdefault("r", screenshot(api, key, tripwire.url())))
    thread.start()
    for _ in range(holds):
        assert tripwire.arrivals.acquire(timeout=30), "the browser never requested the page"
        act()
    thread.join(timeout=60)
    return answer["r"]


def kill_the_browser(api: LocalApi) -> Callable[[], None]:
    def kill() -> None:
        (browser,) = browsers_under(api.process.pid)
        os.kill(browser, signal.SIGKILL)

    return kill


def test_browser_killed_mid_request_is_relaunched_and_the_request_retried_once(
        faulty_api: LocalApi, stores: None, tripwire: _TripwireServer) -> None:
    key, _ = api_keys.create_key("crash-once-user", "k", remaining=10)
    assert screenshot(faulty_api, key, plain_page()).status_code == 200  # a warm container and browser
    (before,) = browsers_under(faulty_api.process.pid)

    response = while_the_page_hangs(faulty_api, key, tripwire, kill_the_browser(faulty_api))

    assert response.status_code == 200 and response.headers["Content-Type"] == "image/png"
    assert tripwire.count == 2  # loaded again by a new browser
    assert remaining(key) == 8  # charged once
    assert browsers_under(faulty_api.process.pid) not in ([], [before])


def test_browser_killed_again_during_the_retry_is_a_502_refunded_and_the_next_request_works(
        faulty_api: LocalApi, stores: None, tripwire: _TripwireServer) -> None:
    key, _ = api_keys.create_key("crash-user", "k", remaining=10)
    assert screenshot(faulty_api, key, plain_page()).status_code == 200
    assert remaining(key) == 9

    response = while_the_page_hangs(faulty_api, key, tripwire, kill_the_browser(faulty_api), holds=2)

    assert response.status_code == 502 and error_code(response) == "NAVIGATION_FAILED"
    assert remaining(key) == 9  # refunded
    after = screenshot(faulty_api, key, plain_page())
    assert after.status_code == 200 and after.headers["Content-Type"] == "image/png"
    assert remaining(key) == 8
    assert len(browsers_under(faulty_api.process.pid)) == 1


def test_container_killed_mid_request_is_a_gateway_502_and_is_replaced(
        faulty_api: LocalApi, stores: None, tripwire: _TripwireServer) -> None:
    key, _ = api_keys.create_key("container-crash-user", "k", remaining=10)
    assert screenshot(faulty_api, key, plain_page()).status_code == 200
    (container,) = containers_under(faulty_api.process.pid, "ScreenshotFunction")

    response = while_the_page_hangs(faulty_api, key, tripwire, lambda: os.kill(container, signal.SIGKILL))
    assert tripwire.count == 1

    # API Gateway's answer to a function that crashed: its DEFAULT_5XX response, as a 502.
    assert response.status_code == 502 and error_code(response) == "INTERNAL_SERVER_ERROR"
    after = screenshot(faulty_api, key, plain_page())
    assert after.status_code == 200
    assert containers_under(faulty_api.process.pid, "ScreenshotFunction") not in ([], [container])
    # Chromium of the dead container goes with it (its driver's pipe closes, and it exits; under load that
    # can outlast the next request) and the one left is the new container's: never two for one container.
    assert len(eventually(lambda: browsers_under(faulty_api.process.pid), lambda found: len(found) == 1)) == 1


def test_aws_down_during_reservation_is_a_503_and_charges_nothing(
        faulty_api: LocalApi, stores: None, moto: Moto, proxy: AwsFaultProxy) -> None:
    key, _ = api_keys.create_key("outage-user", "k", remaining=10)
    assert screenshot(faulty_api, key, plain_page()).status_code == 200  # the authorizer's answer is cached
    moto.stop()
    proxy.stop()
    try:
        response = screenshot(faulty_api, key, plain_page())
    finally:
        moto.start()
        proxy.start()
    assert response.status_code == 503 and error_code(response) == "SERVICE_UNAVAILABLE"
    assert response.headers["Retry-After"] == "1"
    assert remaining(key) == 9
    assert screenshot(faulty_api, key, plain_page()).status_code == 200
    assert remaining(key) == 8


def test_s3_failing_after_the_capture_refunds_and_stores_nothing(
        faulty_api: LocalApi, stores: None, moto: Moto) -> None:
    key, _ = api_keys.create_key("bucketless-user", "k", remaining=10)
    s3 = boto3.client("s3", endpoint_url=moto.endpoint)
    for listed in s3.list_objects_v2(Bucket=LOCAL_BUCKET).get("Contents", []):
        s3.delete_object(Bucket=LOCAL_BUCKET, Key=listed["Key"])
    s3.delete_bucket(Bucket=LOCAL_BUCKET)
    try:
        response = screenshot(faulty_api, key, plain_page(), base64=True)
    finally:
        s3.create_bucket(Bucket=LOCAL_BUCKET)
    assert response.status_code == 500 and error_code(response) == "INTERNAL_SERVER_ERROR"
    assert remaining(key) == 10
    files = boto3.resource("dynamodb", endpoint_url=moto.endpoint).Table(
        faulty_api.environment["FILES_TABLE"]).scan()["Items"]
    assert [f for f in files if f["userId"] == "bucketless-user"] == []
    # With the bucket back, the same request stores the image.
    stored = screenshot(faulty_api, key, plain_page(), base64=True)
    assert stored.status_code == 200 and base64.b64decode(stored.json()["data"]["image"])
    assert remaining(key) == 9


def test_dynamodb_throttling_is_retried_then_a_clear_503(
        faulty_api: LocalApi, stores: None, proxy: AwsFaultProxy) -> None:
    key, _ = api_keys.create_key("throttled-user", "k", remaining=10)
    assert screenshot(faulty_api, key, plain_page()).status_code == 200
    assert remaining(key) == 9

    proxy.throttle(2, "UpdateItem")  # fewer than botocore's 3 attempts: retried through
    assert screenshot(faulty_api, key, plain_page()).status_code == 200
    assert proxy.throttled == 2
    assert remaining(key) == 8  # charged once, not once per attempt

    proxy.throttle(1_000, "UpdateItem")  # throttled for good
    try:
        response = screenshot(faulty_api, key, plain_page())
        attempts = proxy.throttled
    finally:
        proxy.throttle(0)
    assert response.status_code == 503 and error_code(response) == "SERVICE_UNAVAILABLE"
    assert "ProvisionedThroughputExceededException" in response.json()["error"]["message"]
    assert attempts >= 3  # the reservation was tried three times (botocore's standard mode)
    assert remaining(key) == 8
