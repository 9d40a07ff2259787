"""A page cannot hurt the next request: after a capture of a page that keeps the browser busy has timed out
(504, refunded), nothing of that page still runs when the next request's page is fetched, in the same
container, and that request is served as usual. Each probe page of the black-box probe stays here: looping
workers with an image that never finishes, looping iframes, a main thread looping after load (which only
the watchdog ends: listing links evaluates in the page, with no timeout of its own), and a memory bomb.

The timed-out page's renderers (where its frames and workers run) must be gone when its 504 arrives, and
still be gone at the moment the browser asks the loopback server for the next page.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.api_answers import remaining
from tests.support.local_api import LocalApi, start_local_api
from tests.support.probe_pages import ProbeServer
from tests.support.stack_processes import browsers_under, containers_under, renderers_of
from tests.support.stack_stores import stack_stores
from webcapture.auth import api_keys
from webcapture.browser.launch import processes

BUDGET_MS = 5000
ENDPOINTS = {"screenshot": ("/v1/web/screenshot", "ScreenshotFunction"),
             "links": ("/v1/web/links", "LinksFunction")}


@pytest.fixture(scope="module")
def recovery_api() -> Iterator[LocalApi]:
    # One container per function, so the next request lands where the probe page ran; no warm start, so
    # the only browsers are the ones these requests launch.
    api = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8",
                           "WEBCAPTURE_REQUEST_BUDGET_MS": str(BUDGET_MS), "WEBCAPTURE_WARM_START": "0"},
                          extra_args=["--max-containers", "1"])
    yield api
    api.stop()


@pytest.fixture
def stores(recovery_api: LocalApi, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with stack_stores(recovery_api, monkeypatch):
        yield


@pytest.fixture
def probes() -> Iterator[ProbeServer]:
    server = ProbeServer()
    yield server
    server.stop()


def container_of(api: LocalApi, function: str) -> int:
    (container,) = containers_under(api.process.pid, function)
    return container


def browser_of(container: int) -> int:
    (browser,) = browsers_under(container)
    return browser


def capture(api: LocalApi, endpoint: str, key: str, url: str) -> requests.Response:
    path, _ = ENDPOINTS[endpoint]
    body: dict[str, Any] = {"url": url}
    if endpoint == "screenshot":
        body["screenshotOptions"] = {"fullPage": False}
    return api.call("POST", path, key=key, json=body)


def warm(api: LocalApi, endpoint: str, url: str) -> None:
    """A warm container and browser (with the stack's own key). A cold start on a busy machine may not fit
    the short budget, so the first captures may answer 504 while it finishes."""
    statuses: list[int] = []
    while 200 not in statuses and len(statuses) < 5:
        statuses.append(capture(api, endpoint, api.api_key, url).status_code)
    assert 200 in statuses, statuses


@pytest.mark.parametrize(("probe", "endpoint"), [
    ("workers", "screenshot"),
    ("frames", "screenshot"),
    ("main-loop", "links"),
    ("memory", "screenshot"),
])
def test_nothing_of_a_timed_out_page_runs_when_the_next_request_loads(
        recovery_api: LocalApi, stores: None, probes: ProbeServer, probe: str, endpoint: str) -> None:
    warm(recovery_api, endpoint, probes.url("/trivial"))
    key, _ = api_keys.create_key(f"recovery-{probe}", "k", remaining=10)
    browser = browser_of(container_of(recovery_api, ENDPOINTS[endpoint][1]))

    # While the probe page is at work, its renderers are the browser's.
    answer: dict[str, requests.Response] = {}
    sender = threading.Thread(target=lambda: answer.setdefault(
        "r", capture(recovery_api, endpoint, key, probes.url(f"/{probe}"))))
    sender.start()
    assert probes.running.wait(timeout=60), "the browser never ran the probe page"
    probe_renderers = renderers_of(browser)
    assert probe_renderers
    sender.join(timeout=60)

    # Ended before the answer, not after it: on Lambda a container runs nothing between invocations, so
    # what is left for after the answer happens in the next request's time.
    assert [pid for pid in probe_renderers if processes.is_alive(pid)] == []
    timed_out = answer["r"]
    assert timed_out.status_code == 504
    assert timed_out.json()["error"]["code"] == "NAVIGATION_TIMEOUT"
    assert remaining(key) == 10  # refunded

    seen: dict[str, list[int]] = {}

    def look() -> None:
        seen["alive"] = [pid for pid in probe_renderers if processes.is_alive(pid)]

    probes.on_trivial = look
    following = capture(recovery_api, endpoint, key, probes.url("/trivial"))

    assert seen["alive"] == []  # gone before the next page was even fetched
    assert following.status_code == 200
    assert remaining(key) == 9  # served within its own budget, charged once
    # The same browser serves it: only the page was ended, not the browser.
    assert processes.is_alive(browser)
    assert browser_of(container_of(recovery_api, ENDPOINTS[endpoint][1])) == browser
