"""Chromium failing a command on a live page (the soak's "Unable to capture screenshot") is the browser's
failure: one retry of the capture, then 502 NAVIGATION_FAILED with the credit refunded, never a 500.

The screenshot handler runs as a warm container runs it (moto in-process, real Chromium); only CDP's answer
to one command is replaced by the error Chromium gave in the soak."""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import CDPSession
from playwright.sync_api import Error as PlaywrightError

from localapi.container_worker import LambdaContext, load_handler
from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from tests.support.lambda_events import screenshot_event
from webcapture.auth import api_keys
from webcapture.auth.authorizer import authenticate

REPO = Path(__file__).resolve().parents[2]
KEY: list[str] = []  # the API key of the test running
NO_FRAME = "Protocol error (Page.captureScreenshot): Unable to capture screenshot"


@pytest.fixture
def failing(monkeypatch: pytest.MonkeyPatch) -> Callable[[str, int, str], list[str]]:
    """failing(method, times, message): CDP's next `times` calls of `method` fail with `message`."""
    real_send = CDPSession.send

    def arrange(method: str, times: int, message: str) -> list[str]:
        calls: list[str] = []

        def send(self: CDPSession, name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
            calls.append(name)
            if name == method and calls.count(name) <= times:
                raise PlaywrightError(message)
            return real_send(self, name, params)

        monkeypatch.setattr(CDPSession, "send", send)
        return calls

    return arrange


@pytest.fixture
def screenshot(aws_resources: None, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], dict[str, Any]]]:
    monkeypatch.setenv("WEBCAPTURE_WARM_START", "0")
    handler = load_handler(REPO / "functions" / "screenshot", "app.lambda_handler", "ScreenshotFunction")
    key, _record = api_keys.create_key("user-1", "k", remaining=5)
    KEY[:] = [key]
    authorizer = authenticate(f"Bearer {key}")

    def call(url: str) -> dict[str, Any]:
        event = screenshot_event(key, authorizer, {"url": url, "screenshotOptions": {"fullPage": False}})
        context = LambdaContext("ScreenshotFunction", 2048, time.monotonic() + 30, str(uuid.uuid4()),
                                "arn:aws:lambda:us-east-1:123456789012:function:ScreenshotFunction")
        answer: dict[str, Any] = handler(event, context)
        return answer

    yield call


def remaining() -> int:
    record = api_keys.find_by_key(KEY[0])
    assert record is not None
    return int(record.public()["remaining"])


def test_one_capture_without_a_frame_is_retried_and_charged_once(
    fixture_server: FixtureHttpServer, screenshot: Callable[[str], dict[str, Any]],
    failing: Callable[[str, int, str], list[str]],
) -> None:
    calls = failing("Page.captureScreenshot", 1, NO_FRAME)
    answer = screenshot(fixture_server.url("/plain.html"))
    assert answer["statusCode"] == 200
    assert base64.b64decode(answer["body"]).startswith(b"\x89PNG")
    # Two attempts, each measuring the page and then capturing it; an image small for its size is also
    # probed once for one flat colour (browser/blank_screenshot.py), which measures nothing.
    assert calls.count("Page.getLayoutMetrics") == 2
    assert calls.count("Page.captureScreenshot") in (2, 3)
    assert remaining() == 4


def test_a_capture_that_fails_twice_is_a_refunded_502(
    fixture_server: FixtureHttpServer, screenshot: Callable[[str], dict[str, Any]],
    failing: Callable[[str, int, str], list[str]],
) -> None:
    failing("Page.captureScreenshot", 2, NO_FRAME)
    answer = screenshot(fixture_server.url("/plain.html"))
    assert answer["statusCode"] == 502
    error = json.loads(answer["body"])["error"]
    assert error["code"] == "NAVIGATION_FAILED" and "capture" in error["message"]
    assert remaining() == 5  # refunded
    assert screenshot(fixture_server.url("/plain.html"))["statusCode"] == 200  # the browser lives on
    assert remaining() == 4


def test_any_other_protocol_error_on_a_live_page_is_a_refunded_502(
    fixture_server: FixtureHttpServer, screenshot: Callable[[str], dict[str, Any]],
    failing: Callable[[str, int, str], list[str]],
) -> None:
    failing("Page.getLayoutMetrics", 1, "Protocol error (Page.getLayoutMetrics): Internal error")
    answer = screenshot(fixture_server.url("/plain.html"))
    assert answer["statusCode"] == 502
    error = json.loads(answer["body"])["error"]
    assert error == {**error, "code": "NAVIGATION_FAILED",
                     "message": "The browser failed while handling the page: Internal error"}
    assert remaining() == 5
