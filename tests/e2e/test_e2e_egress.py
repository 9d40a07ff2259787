"""The egress guard end to end: HTTP to the local API, real handlers, metering against moto, real Chromium.

The API runs in its own process with only the public site (127.0.0.2/32) allowed; the canaries
(127.0.0.1 and [::1], same port) stand for every internal service and must never see a connection. The
resolver hook cannot reach into that process, so this uses IP literals, redirects and in-page requests;
names, rebinding and 169.254.169.254 through the browser are covered in-process with the connector spy
(tests/browser/test_egress_browser_*.py), since here the proxy's connector is the real one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.egress_names import CANARY, PUBLIC
from tests.support.egress_servers import CanaryServer
from tests.support.egress_site import Site, V6Canary
from tests.support.fake_openai import FakeOpenAI
from tests.support.local_api import LocalApi, start_local_api

CREDITS = 100

# In-page requests of every kind; each reports its outcome as a link the links endpoint then lists, and
# /settled (held by the site's /hold image until then) lets the load event fire only once all have settled.
SUBRESOURCES = """<title>subresources</title><h1>Everything aimed inside</h1>
<img src="{canary}/img.png"><script src="{canary}/app.js"></script>
<link rel="stylesheet" href="{canary}/site.css"><iframe src="{canary}/frame"></iframe>
<iframe src="https://127.0.0.1:{port}/tls-frame"></iframe>
<script>
const report = (name, outcome) => {{
  const a = document.body.appendChild(document.createElement("a"));
  a.href = "/outcome/" + name + "/" + outcome; a.textContent = name + " " + outcome;
}};
const failed = (event) => ["error", "close"].includes(event.type) ? "failed" : "connected";
const once = (target, events) => new Promise((done) => events.forEach((e) => target.addEventListener(e, done)));
const checks = [
  fetch("{canary}/api").then(() => "answered", () => "failed").then((o) => report("fetch", o)),
  new Promise((done) => {{
    const x = new XMLHttpRequest(); x.open("GET", "{canary}/xhr");
    x.onload = () => done("answered"); x.onerror = () => done("failed"); x.send();
  }}).then((o) => report("xhr", o)),
  once(new WebSocket("ws://127.0.0.1:{port}/ws"), ["open", "error", "close"]).then((e) => report("ws", failed(e))),
  once(new WebSocket("wss://127.0.0.1:{port}/ws"), ["open", "error", "close"]).then((e) => report("wss", failed(e))),
  once(new EventSource("{canary}/events"), ["open", "error"]).then((e) => report("eventsource", failed(e))),
  Promise.resolve(navigator.sendBeacon("{canary}/beacon", "x")).then((queued) => report("beacon", "queued")),
];
Promise.all(checks).then(() => {{ new Image().src = "/settled"; }});
</script>
<img src="/hold" alt="">"""

PAGES = {
    "subresources": SUBRESOURCES,
    "js-location": "<h1>j</h1><script>location.href = '{canary}/js';</script>",
    "meta-refresh": "<meta http-equiv='refresh' content='0;url={canary}/meta'><h1>m</h1>",
    "form-post": ("<form method='post' action='{canary}/post'><input name='a' value='b'></form>"
                  "<script>document.forms[0].submit();</script>"),
    "to-file": "<h1>f</h1><script>location.href = 'file:///etc/passwd';</script>",
}  # fmt: skip


@dataclass
class Internal:
    canary: CanaryServer
    canary6: V6Canary

    def connections(self) -> tuple[int, int]:
        return self.canary.connections, self.canary6.connections


@pytest.fixture(scope="module")
def internal() -> Iterator[Internal]:
    canary = CanaryServer(CANARY)
    canary6 = V6Canary(canary.port)
    yield Internal(canary, canary6)
    canary.stop()
    canary6.stop()


@pytest.fixture(scope="module")
def site(internal: Internal) -> Iterator[Site]:
    public = Site(internal.canary.port)  # same port as the canaries: only the address differs
    public.pages.update(PAGES)
    yield public
    public.stop()


@pytest.fixture(scope="module")
def api(site: Site, fake_openai: FakeOpenAI) -> Iterator[LocalApi]:
    # Only the public site is allowed: the canary on 127.0.0.1 is as internal as anything in production.
    stack = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": f"{PUBLIC}/32", "WEBCAPTURE_REQUEST_BUDGET_MS": "15000",
                             "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "sk-e2e-test-key"},
                            demo_credits=CREDITS)
    yield stack
    stack.stop()


@pytest.fixture
def untouched(internal: Internal, site: Site) -> Iterator[None]:
    """Every test: neither canary sees a connection while it runs."""
    before = internal.connections()
    yield
    assert internal.connections() == before, internal.canary.requests
    site.release = None


def remaining(api: LocalApi) -> Any:
    keys = assert_success(api.call("GET", "/v1/api-keys/list"), 0)["data"]["apiKeys"]
    return next(key["remaining"] for key in keys if key["id"] == api.key_id)


def post(api: LocalApi, path: str, body: dict[str, Any]) -> requests.Response:
    return api.call("POST", path, json=body)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:{port}/",
        "http://2130706433:{port}/",
        "http://0177.0.0.1:{port}/",
        "http://0x7f.0.0.1:{port}/",
        "http://127.1:{port}/",
        "http://[::1]:{port}/",
        "http://[::ffff:127.0.0.1]:{port}/",
        "http://0.0.0.0:{port}/",
        "http://localhost:{port}/",
        "https://127.0.0.1:{port}/",
    ],
    ids=["loopback", "decimal", "octal", "hex", "short", "ipv6-loopback", "ipv4-mapped", "unspecified",
         "localhost", "https"],
)  # fmt: skip
def test_an_internal_target_is_a_fast_400_that_costs_no_credit(
    api: LocalApi, site: Site, untouched: None, url: str
) -> None:
    before = remaining(api)
    response = post(api, "/v1/web/screenshot", {"url": url.format(port=site.canary_port)})
    assert_envelope_error(response, 400, "URL_NOT_ALLOWED")
    assert response.headers["X-Request-Id"]
    assert remaining(api) == before
    # Fast because no browser work happens (test_the_egress_check_comes_before_any_browser_work); its cost
    # next to a capture is measured by `make bench` (docs/benchmarks.md).


def test_every_capture_endpoint_refuses_at_the_edge(api: LocalApi, site: Site, untouched: None) -> None:
    before = remaining(api)
    target = f"http://2130706433:{site.canary_port}/"
    assert_envelope_error(post(api, "/v1/web/links", {"url": target}), 400, "URL_NOT_ALLOWED")
    assert_envelope_error(post(api, "/v1/web/ai-extract", {"url": target, "prompt": "Summarise"}), 400,
                          "URL_NOT_ALLOWED")
    for path in ("/v1/web/markdown", "/v1/web/content", "/v1/web/pdf"):
        assert_envelope_error(post(api, path, {"url": target}), 400, "URL_NOT_ALLOWED")
    assert remaining(api) == before


@pytest.mark.parametrize("path", ["/v1/web/markdown", "/v1/web/content", "/v1/web/pdf"])
def test_the_new_outputs_follow_no_redirect_inside(api: LocalApi, site: Site, untouched: None, path: str) -> None:
    before = remaining(api)
    url = site.url(f"/redirect/302?to={site.canary_url}/secret")
    assert_envelope_error(post(api, path, {"url": url}), 400, "URL_NOT_ALLOWED")
    assert remaining(api) == before


@pytest.mark.parametrize("url", ["file:///etc/passwd", "view-source:http://127.0.0.1/", "chrome://version/",
                                 "data:text/html,<h1>x</h1>"])  # fmt: skip
def test_a_local_scheme_as_the_target_is_a_422(api: LocalApi, untouched: None, url: str) -> None:
    before = remaining(api)
    response = post(api, "/v1/web/screenshot", {"url": url})
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert error["issues"] == [
        {"code": "invalid_string", "validation": "url", "path": ["url"], "message": "Invalid url"}]
    assert error["name"] == "ZodError" and error["code"] == "VALIDATION_ERROR"
    assert error["message"] == "url: an absolute http(s) URL is needed"
    assert remaining(api) == before


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_the_canary_is_400_and_the_credit_refunded(
    api: LocalApi, site: Site, untouched: None, status: int
) -> None:
    before = remaining(api)
    url = site.url(f"/redirect/{status}?to={site.canary_url}/secret")
    body = assert_envelope_error(post(api, "/v1/web/screenshot", {"url": url}), 400, "URL_NOT_ALLOWED")
    assert body["error"]["message"].startswith(f"The page redirected to {CANARY}")
    assert site.asked_for(f"/redirect/{status}")  # the page was really loaded, then its redirect refused
    assert remaining(api) == before


@pytest.mark.parametrize(
    ("to", "where"),
    [("https://127.0.0.1:{port}/", CANARY), ("http://[::1]:{port}/", "::1"),
     ("http://0x7f000001:{port}/", CANARY), ("file:///etc/passwd", "a URL that is not http or https")],
    ids=["https", "ipv6-loopback", "hex", "file"],
)  # fmt: skip
def test_a_redirect_to_other_internal_spellings_is_400(
    api: LocalApi, site: Site, untouched: None, to: str, where: str
) -> None:
    before = remaining(api)
    url = site.url(f"/redirect/302?to={to.format(port=site.canary_port)}")
    body = assert_envelope_error(post(api, "/v1/web/links", {"url": url}), 400, "URL_NOT_ALLOWED")
    assert body["error"]["message"].startswith(f"The page redirected to {where}")
    assert remaining(api) == before


@pytest.mark.parametrize(("page", "wait"), [("js-location", 0), ("meta-refresh", 1000), ("form-post", 0)])
def test_a_page_navigating_itself_inside_is_400_and_refunded(
    api: LocalApi, site: Site, untouched: None, page: str, wait: int
) -> None:
    before = remaining(api)
    response = post(api, "/v1/web/screenshot", {"url": site.url(f"/page/{page}"), "waitTime": wait})
    body = assert_envelope_error(response, 400, "URL_NOT_ALLOWED")
    assert body["error"]["message"].startswith(f"The page redirected to {CANARY}")
    assert remaining(api) == before


def test_refused_subresources_leave_the_page_captured_and_charged(
    api: LocalApi, site: Site, untouched: None
) -> None:
    site.release = lambda: site.asked_for("/settled")
    before = remaining(api)
    url = site.url("/page/subresources")
    body = assert_success(post(api, "/v1/web/links", {"url": url}), 1)
    outcomes = {link["text"] for link in body["data"]["links"]}
    # Every request reached for the canary and failed; the page was captured with what it could load.
    assert outcomes == {"fetch failed", "xhr failed", "ws failed", "wss failed", "eventsource failed",
                        "beacon queued"}, outcomes  # fmt: skip
    assert body["data"]["metadata"]["url"] == url and body["data"]["metadata"]["statusCode"] == 200
    assert remaining(api) == before - 1

    shot = post(api, "/v1/web/screenshot", {"url": url, "screenshotOptions": {"fullPage": False}})
    assert shot.status_code == 200 and shot.headers["Content-Type"] == "image/png"
    assert shot.content.startswith(b"\x89PNG")
    assert remaining(api) == before - 2


def test_a_page_refused_a_local_scheme_navigation_is_still_captured(
    api: LocalApi, site: Site, untouched: None
) -> None:
    url = site.url("/page/to-file")
    body = assert_success(post(api, "/v1/web/links", {"url": url, "waitTime": 300}), 1)
    assert body["data"]["metadata"]["url"] == url
