"""Monitors' data and visual diffs end to end (docs/monitors.md#checks), over HTTP to a local API of its own,
each check started with `run`: a screenshot monitor's check goes from the screenshot function through the
comparison queue to MonitorsCompareFunction, which marks the one changed square and stores the marked
capture; an ai-extract monitor (the real openai client against a scripted model server on loopback) tells
the one field that changed by its JSON Pointer. Credits are the completed checks' cost."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests
from PIL import Image

from tests.e2e.test_e2e_monitors import checks_of, wait_for_checks
from tests.support.fake_openai import FakeOpenAI, json_completion
from tests.support.jobs_client import credits_left
from tests.support.local_api import LocalApi, start_local_api
from tests.support.webhook_receiver import WebhookReceiver

SQUARE = {"x": 600, "y": 300, "width": 100, "height": 100}  # on a 1280x800 page, the viewport's default size
PRICE_SCHEMA = {"type": "object", "properties": {"price": {"type": "number"}}, "required": ["price"],
                "additionalProperties": False}


@pytest.fixture(scope="module")
def api(fake_openai: FakeOpenAI) -> Iterator[LocalApi]:
    stack = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8", "WEBCAPTURE_WARM_START": "0",
                             "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "sk-e2e-test-key",
                             "WEBCAPTURE_AI_TIMEOUT_S": "5"},
                            extra_args=["--max-containers", "1", "--no-prewarm"])
    yield stack
    stack.stop()


class WatchedPage(ThreadingHTTPServer):
    """A page on loopback: a square whose colour, and a price whose value, the test changes."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _PageHandler)
        self.colour, self.price = "#1f4fd0", "10"
        threading.Thread(target=self.serve_forever, daemon=True, name="watched-page").start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"

    def html(self, path: str) -> bytes:
        if path == "/square":
            square = ";".join(f"{'left' if k == 'x' else 'top' if k == 'y' else k}:{v}px" for k, v in SQUARE.items())
            return (f"<html><body style='margin:0;background:#fff'>"
                    f"<div style='position:absolute;{square};background:{self.colour}'></div></body></html>").encode()
        return (f"<html><head><title>Plan</title></head><body><main><h1>The team plan</h1>"
                f"<p>Price: {self.price} dollars a month.</p></main></body></html>").encode()


class _PageHandler(BaseHTTPRequestHandler):
    server: WatchedPage

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = self.server.html(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def run_and_wait(api: LocalApi, monitor_id: str, done: int) -> dict[str, Any]:
    """`run`, then the check once it has ended (compared)."""
    answer = api.call("POST", f"/v1/monitors/{monitor_id}/run")
    assert answer.status_code == 202, answer.text
    check_id = answer.json()["data"]["checkId"]
    checks = wait_for_checks(api, monitor_id, done, 90)
    (check,) = [c for c in checks if c["checkId"] == check_id]
    assert check["status"] == "completed", check
    return check


def test_a_screenshot_monitor_marks_the_changed_square_and_stores_it(api: LocalApi) -> None:
    page = WatchedPage()
    receiver = WebhookReceiver()
    receiver.secret = api.call("GET", "/v1/webhooks/secret").json()["data"]["secret"]
    try:
        before = credits_left(api)
        created = api.call("POST", "/v1/monitors", json={
            "url": page.url("/square"), "operation": "screenshot", "schedule": "rate(1 day)",
            "webhook": {"url": receiver.url, "events": ["monitor.changed", "monitor.checked"]}})
        assert created.status_code == 201, created.text
        monitor_id = created.json()["data"]["monitorId"]
        first = run_and_wait(api, monitor_id, 1)
        page.colour = "#e07b00"
        changed = run_and_wait(api, monitor_id, 2)

        assert (first["changeStatus"], first["diff"]) == ("new", None)
        assert changed["changeStatus"] == "changed"
        diff = changed["diff"]
        assert diff["changedRatio"] == pytest.approx(0.0098, rel=0.1)
        (box,) = diff["boxes"]
        assert all(abs(box[k] - SQUARE[k]) <= 4 for k in SQUARE), box
        assert diff["image"]["fileId"] != changed["data"]["fileId"]
        fetched = requests.get(diff["image"]["permanentUrl"], timeout=10)
        assert fetched.status_code == 200 and fetched.headers["content-type"] == "image/png"
        marked = Image.open(io.BytesIO(fetched.content)).convert("RGB")
        assert marked.size == (1280, 800)
        assert marked.getpixel((box["x"] - 2, box["y"] + 50)) == (255, 0, 0)  # the outline around it
        inside = marked.getpixel((box["x"] + 50, box["y"] + 50))  # the new colour, unmarked
        assert isinstance(inside, tuple)
        assert all(abs(got - want) <= 3 for got, want in zip(inside, (0xE0, 0x7B, 0x00), strict=True)), inside

        # One monitor.checked for each check and one monitor.changed, signed.
        deliveries = receiver.wait_for(3, 30)
        told = sorted((d.verified or {}).get("type", "unverified") + ":" + str((d.verified or {}).get("checkId"))
                      for d in deliveries)
        assert told == sorted([f"monitor.checked:{first['checkId']}", f"monitor.checked:{changed['checkId']}",
                               f"monitor.changed:{changed['checkId']}"])
        checks = checks_of(api, monitor_id)
        assert sum(c["creditsCost"] for c in checks) == 2 == before - credits_left(api)
    finally:
        page.shutdown()
        receiver.stop()
    assert api.call("DELETE", f"/v1/monitors/{monitor_id}").status_code == 200


def test_an_ai_extract_monitor_tells_the_price_that_changed(api: LocalApi, fake_openai: FakeOpenAI) -> None:
    page = WatchedPage()
    try:
        before = credits_left(api)
        created = api.call("POST", "/v1/monitors", json={
            "url": page.url("/plan"), "operation": "ai-extract", "schedule": "rate(1 day)",
            "request": {"prompt": "Extract the monthly price as a number",
                        "response_format": {"type": "json_schema",
                                            "json_schema": {"name": "plan", "schema": PRICE_SCHEMA}}}})
        assert created.status_code == 201, created.text
        monitor_id = created.json()["data"]["monitorId"]
        fake_openai.script(json_completion({"price": 10}))
        first = run_and_wait(api, monitor_id, 1)
        page.price = "12"
        fake_openai.script(json_completion({"price": 12}))
        changed = run_and_wait(api, monitor_id, 2)

        assert first["changeStatus"] == "new" and first["data"]["extracted"] == {"price": 10}
        assert changed["changeStatus"] == "changed"
        assert changed["diff"] == {"fields": [{"path": "/price", "before": 10, "after": 12}]}
        assert "12 dollars" in str(fake_openai.requests[-1].body)  # the model was shown the changed page
        checks = checks_of(api, monitor_id)
        assert sum(c["creditsCost"] for c in checks) == before - credits_left(api) > 0
    finally:
        page.shutdown()
    assert api.call("DELETE", f"/v1/monitors/{monitor_id}").status_code == 200
