"""The egress guard for everything a page loads besides its main document, through real Chromium.

Each page reaches for the canary one way. The request must reach the proxy and be refused there (the
refusal log proves Chromium sent it and the proxy said no), neither canary sees a connection, the proxy
connects nowhere but the public site, and the page itself is still captured (docs/api.md#egress-policy).
Requests a page sends without holding up its load event (fetch, beacons, sockets) hold it with the site's
/hold image until the proxy has refused them, so the capture cannot finish first and pass by luck.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from tests.support.egress_names import CANARY
from tests.support.egress_site import Baseline, GuardedBrowser
from webcapture.browser import collect_links, load_page, take_screenshot
from webcapture.egress import Refusal, RefusalLog, refusal_log
from webcapture.models.requests import LinksRequest, ScreenshotRequest

pytest_plugins = ["tests.support.egress_browser"]

HOLD = "<img src='/hold' alt=''>"

# name -> (page body, host the proxy must refuse, its reason). {canary} is http://127.0.0.1:PORT.
CASES: dict[str, tuple[str, str, str]] = {
    "img": ("<h1>img</h1><img src='{canary}/img.png'>", CANARY, "loopback"),
    "script": ("<h1>script</h1><script src='{canary}/app.js'></script>", CANARY, "loopback"),
    "stylesheet": ("<link rel='stylesheet' href='{canary}/site.css'><h1>css</h1>", CANARY, "loopback"),
    "font": (
        "<style>@font-face {{ font-family: f; src: url('{canary}/f.woff2'); }} h1 {{ font-family: f; }}</style>"
        "<h1>font</h1>",
        CANARY,
        "loopback",
    ),
    "iframe": ("<h1>iframe</h1><iframe src='{canary}/frame'></iframe>", CANARY, "loopback"),
    "iframe-https": ("<h1>iframe</h1><iframe src='https://127.0.0.1:{port}/'></iframe>", CANARY, "loopback"),
    "fetch": ("<h1>fetch</h1><script>fetch('{canary}/api').catch(() => {{}});</script>" + HOLD, CANARY,
              "loopback"),
    "fetch-post": (
        "<h1>fetch</h1><script>fetch('{canary}/api', {{method: 'POST', body: 'x', mode: 'no-cors'}})"
        ".catch(() => {{}});</script>" + HOLD,
        CANARY,
        "loopback",
    ),
    "xhr": (
        "<h1>xhr</h1><script>const x = new XMLHttpRequest(); x.open('GET', '{canary}/xhr'); x.send();</script>"
        + HOLD,
        CANARY,
        "loopback",
    ),
    "beacon": ("<h1>beacon</h1><script>navigator.sendBeacon('{canary}/beacon', 'x');</script>" + HOLD, CANARY,
               "loopback"),
    "websocket": ("<h1>ws</h1><script>new WebSocket('ws://127.0.0.1:{port}/ws');</script>" + HOLD, CANARY,
                  "loopback"),
    "websocket-tls": ("<h1>wss</h1><script>new WebSocket('wss://127.0.0.1:{port}/ws');</script>" + HOLD,
                      CANARY, "loopback"),
    "eventsource": ("<h1>sse</h1><script>new EventSource('{canary}/events');</script>" + HOLD, CANARY,
                    "loopback"),
    "form-in-frame": (
        "<h1>form</h1><iframe name='f'></iframe><form method='post' target='f' action='{canary}/post'>"
        "<input name='a' value='b'></form><script>document.forms[0].submit();</script>",
        CANARY,
        "loopback",
    ),
    "name-to-internal": ("<h1>name</h1><img src='http://internal.test:{port}/x.png'>", "internal.test",
                         "loopback"),
    "name-to-metadata": ("<h1>name</h1><img src='http://metadata.test/x.png'>", "metadata.test", "link-local"),
    "metadata": ("<h1>imds</h1><img src='http://169.254.169.254/latest/meta-data/'>", "169.254.169.254",
                 "link-local"),
    "decimal": ("<h1>dec</h1><img src='http://2130706433:{port}/x.png'>", CANARY, "loopback"),
    "octal": ("<h1>oct</h1><img src='http://0177.0.0.1:{port}/x.png'>", CANARY, "loopback"),
    "hex": ("<h1>hex</h1><img src='http://0x7f.0.0.1:{port}/x.png'>", CANARY, "loopback"),
    "short": ("<h1>short</h1><img src='http://127.1:{port}/x.png'>", CANARY, "loopback"),
    "ipv6-loopback": ("<h1>v6</h1><img src='http://[::1]:{port}/x.png'>", "::1", "loopback"),
    "ipv4-mapped": ("<h1>mapped</h1><img src='http://[::ffff:127.0.0.1]:{port}/x.png'>", "::ffff:7f00:1",
                    "loopback"),
    "unspecified": ("<h1>zero</h1><img src='http://0.0.0.0:{port}/x.png'>", "0.0.0.0", "unspecified"),
    "localhost": ("<h1>localhost</h1><img src='http://localhost:{port}/x.png'>", "localhost", "loopback"),
    # A data: frame runs no request of its own, but whatever it loads goes through the proxy like the rest.
    "data-frame": ("<h1>data</h1><iframe src=\"data:text/html,<img src='{canary}/from-data'>\"></iframe>",
                   CANARY, "loopback"),
}  # fmt: skip

# Frames Chromium refuses to load at all (nothing reaches the network, not even the proxy).
LOCAL_FRAMES = {
    "file": "file:///etc/passwd",
    "view-source": "view-source:{canary}/",
    "chrome": "chrome://version/",
}


@pytest.fixture(autouse=True)
def _pages(guarded_browser: GuardedBrowser) -> None:
    pages = guarded_browser.site.pages
    pages.update({name: body for name, (body, _, _) in CASES.items()})
    pages.update({f"frame-{name}": f"<h1>{name}</h1><iframe src='{src}'></iframe>"
                  for name, src in LOCAL_FRAMES.items()})  # fmt: skip
    # Registered directly, and with a register() taken from a fresh frame (Playwright's block replaces it
    # with a stub in every document, that frame's initial one included).
    pages["service-worker"] = (
        "<title>sw</title><h1>sw</h1><script>"
        "const frame = document.body.appendChild(document.createElement('iframe'));"
        "const register = (container) => container.register.call(navigator.serviceWorker, '/sw.js')"
        "  .then((r) => (r ? 'registered' : 'blocked'), () => 'failed');"
        "Promise.all([register(navigator.serviceWorker),"
        "             register(frame.contentWindow.ServiceWorkerContainer.prototype)])"
        "  .then((outcomes) => {{ document.title = outcomes.join(' '); new Image().src = '/settled'; }});"
        "</script>" + HOLD
    )
    pages["rebind"] = "<h1>rebind</h1><script>fetch('/again').catch(() => {{}});</script>" + HOLD


@pytest.fixture
def refusals() -> Iterator[RefusalLog]:
    with refusal_log() as log:
        yield log


def refused(log: RefusalLog, host: str, port: int) -> Callable[[], Refusal | None]:
    def find() -> Refusal | None:
        return next((r for r in log.refusals if r.stage == "proxy" and (r.host, r.port) == (host, port)), None)

    return find


@pytest.mark.parametrize("name", list(CASES))
def test_a_subresource_aimed_inside_is_refused_and_the_page_still_captured(
    guard: Baseline, refusals: RefusalLog, name: str
) -> None:
    g = guard.guarded
    _, host, reason = CASES[name]
    port = 80 if host in ("169.254.169.254", "metadata.test") else g.port
    find = refused(refusals, host, port)
    g.site.release = lambda: find() is not None
    url = g.site.url(f"/page/{name}")
    shot = take_screenshot(ScreenshotRequest.model_validate({"url": url}))
    assert (shot.status_code, shot.final_url, shot.format) == (200, url, "png")
    refusal = find()
    assert refusal is not None and refusal.reason == reason, refusals.refusals
    guard.assert_untouched()


@pytest.mark.parametrize("name", list(LOCAL_FRAMES))
def test_a_frame_on_a_local_scheme_loads_nothing_and_the_page_is_captured(
    guard: Baseline, refusals: RefusalLog, name: str
) -> None:
    url = guard.guarded.site.url(f"/page/frame-{name}")
    snapshot = load_page(url, 0)
    assert (snapshot.final_url, snapshot.status_code) == (url, 200)
    assert f"<h1>{name}</h1>" in snapshot.html
    assert refusals.refusals == ()  # Chromium refused the frame itself; nothing was even asked of the proxy
    guard.assert_untouched()


def test_service_workers_cannot_be_registered(guard: Baseline, refusals: RefusalLog) -> None:
    g = guard.guarded
    g.site.release = lambda: g.site.asked_for("/settled")
    snapshot = load_page(g.site.url("/page/service-worker"), 0)
    # Blocked per context: no registration, the worker's script is never fetched, so its fetch of the
    # canary never runs (it would meet the proxy anyway).
    assert snapshot.title == "blocked blocked"
    assert not g.site.asked_for("/sw.js")
    assert refusals.refusals == ()
    guard.assert_untouched()


def test_dns_rebinding_after_the_page_loaded_finds_the_answer_pinned(
    guard: Baseline, refusals: RefusalLog
) -> None:
    g = guard.guarded
    # flip.test answers with the site until the site has served /page/rebind (TTL 0 rebinding), then with
    # the canary: the page's own later fetch of /again uses the answer the request checked first, so it
    # goes to the site again, and the canary's answer is never asked for.
    before = g.resolver.calls["flip.test"]
    g.site.release = lambda: g.site.asked_for("/again")
    url = f"http://flip.test:{g.port}/page/rebind"
    result = collect_links(LinksRequest.model_validate({"url": url}))
    assert result.final_url == url and result.status_code == 200
    assert g.site.asked_for("/again")
    assert g.resolver.calls["flip.test"] - before == 1
    assert refused(refusals, "flip.test", g.port)() is None
    guard.assert_untouched()
