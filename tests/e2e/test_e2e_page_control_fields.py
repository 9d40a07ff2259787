"""Every page-control field (docs/api.md#page-control) end to end: real HTTP to the local API, its real
handlers, real Chromium, against the loopback fixture pages (tests/support/fixture_server.py) built to show
each field.

Most tests read the page back through POST /v1/web/content (data.html is the DOM after scripts ran), on
pages that write what they see into the DOM (pc-env.html, /echo) or whose requests the fixture server
records (`requested`, `signed_in`); what only shows on screen (emulation, injected styles, hiding) is read
from screenshot pixels. One request per case where a control is not needed to make the assertion mean
something; the new endpoints (markdown, content, pdf) each take one field here too.
"""

from __future__ import annotations

import html
import json
import re
import threading
import uuid
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.fixture_server import PAGES, get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import Pixels
from webcapture.browser.pdf import count_pages
from webcapture.models.devices import device_descriptors

WHITE, BLACK, RED = (255, 255, 255, 255), (0, 0, 0, 255), (255, 0, 0, 255)
GREEN, BLUE, NAVY = (0, 255, 0, 255), (0, 0, 255, 255), (0, 0, 128, 255)
VIEWPORT_ONLY = {"fullPage": False}


def content(api: LocalApi, path: str, **fields: Any) -> dict[str, Any]:
    """data of POST /v1/web/content for a fixture page."""
    response = api.call("POST", "/v1/web/content", json={"url": get_server().url(path), **fields})
    data: dict[str, Any] = assert_success(response, 1)["data"]
    return data


def requested_during(call: Callable[[], object]) -> set[str]:
    """The paths (with query) the fixture server was asked for while `call` ran."""
    server = get_server()
    start = len(server.requested)
    call()
    return set(server.requested[start:])


def pre_json(page_html: str, element_id: str) -> dict[str, Any]:
    """The JSON a fixture page wrote into <pre id=element_id>, from the serialised DOM."""
    match = re.search(rf'<pre id="{element_id}">(.*?)</pre>', page_html, re.S)
    assert match is not None, page_html[:500]
    loaded: dict[str, Any] = json.loads(html.unescape(match.group(1)))
    return loaded


def screenshot(api: LocalApi, path: str, **fields: Any) -> Pixels:
    response = api.call("POST", "/v1/web/screenshot",
                        json={"url": get_server().url(path), "screenshotOptions": VIEWPORT_ONLY, **fields})
    assert response.status_code == 200, response.text[:300]
    assert response.headers["Content-Type"] == "image/png"
    assert "X-Webcapture-Warning" not in response.headers
    return Pixels(response.content)


# -- waitUntil, bestAttempt ---------------------------------------------------------------------------


def test_dom_content_loaded_answers_where_load_never_comes(local_api: LocalApi) -> None:
    # The page's one image never finishes, so its load event never fires.
    data = content(local_api, "/pc-hanging-subresource.html", waitUntil="domcontentloaded")
    assert '<h1 id="heading">Hanging subresource</h1>' in data["html"]
    assert "warning" not in data


def test_best_attempt_uses_a_page_whose_load_never_comes_and_says_so(local_api: LocalApi) -> None:
    # The default wait (load) on the same page: without bestAttempt this is a 504 once the stack's 8 s
    # budget is spent; with it the page is used as it is and the answer carries the warning.
    data = content(local_api, "/pc-hanging-subresource.html", bestAttempt=True)
    assert "Hanging subresource" in data["html"]
    assert "load event" in data["warning"]


def test_network_idle0_waits_for_the_fetch_after_load(local_api: LocalApi) -> None:
    # pc-idle.html starts an 800 ms fetch at its load event and writes the answer into #data.
    assert '<p id="data">pending</p>' in content(local_api, "/pc-idle.html")["html"]
    assert '<p id="data">arrived</p>' in content(local_api, "/pc-idle.html", waitUntil="networkidle0")["html"]


def test_network_idle2_tolerates_the_request_that_never_ends(local_api: LocalApi) -> None:
    # One image in flight for ever: networkidle2 (<= 2 in flight) is reached, so no warning; bestAttempt
    # only lets the navigation skip the load event that never comes (networkidle0 here would warn).
    data = content(local_api, "/pc-hanging-subresource.html", waitUntil="networkidle2", bestAttempt=True)
    assert "Hanging subresource" in data["html"]
    assert "warning" not in data


# -- waitForSelector (object form) --------------------------------------------------------------------


def test_wait_for_selector_visible(local_api: LocalApi) -> None:
    # #late is added 1 s after the load event.
    data = content(local_api, "/pc-late-element.html", waitForSelector={"selector": "#late", "visible": True})
    assert 'id="late"' in data["html"] and "warning" not in data


def test_wait_for_selector_visible_is_not_satisfied_by_an_element_that_is_only_there(
    local_api: LocalApi,
) -> None:
    # #gone is in the DOM with display: none: present (the default state) but never visible.
    url = get_server().url("/pc-parts.html")
    present = local_api.call("POST", "/v1/web/content", json={"url": url, "waitForSelector": {"selector": "#gone"}})
    assert 'id="gone"' in assert_success(present, 1)["data"]["html"]
    visible = local_api.call("POST", "/v1/web/content", json={
        "url": url, "waitForSelector": {"selector": "#gone", "visible": True, "timeout": 300}})
    assert "#gone" in assert_envelope_error(visible, 504, "NAVIGATION_TIMEOUT")["error"]["message"]


def test_wait_for_selector_hidden_waits_for_the_element_to_go(local_api: LocalApi) -> None:
    data = content(local_api, "/pc-late-element.html", waitForSelector={"selector": "#waiting", "hidden": True})
    assert 'id="waiting"' not in data["html"] and 'id="late"' in data["html"]


def test_wait_for_selector_timeout_is_the_callers(local_api: LocalApi) -> None:
    # The element comes 1 s after load, well inside the request's budget, but the caller allowed 200 ms.
    response = local_api.call("POST", "/v1/web/content", json={
        "url": get_server().url("/pc-late-element.html"), "waitForSelector": {"selector": "#late", "timeout": 200}})
    body = assert_envelope_error(response, 504, "NAVIGATION_TIMEOUT")
    assert "#late" in body["error"]["message"] and "200 ms" in body["error"]["message"]


def test_best_attempt_with_a_wait_for_selector_that_runs_out(local_api: LocalApi) -> None:
    data = content(local_api, "/pc-late-element.html", bestAttempt=True,
                   waitForSelector={"selector": "#late", "timeout": 200})
    assert 'id="waiting"' in data["html"]  # the page as it was when the wait ran out
    assert "#late" in data["warning"]


# -- scrollPage ---------------------------------------------------------------------------------------


def test_without_scrolling_the_lazy_images_are_not_fetched(local_api: LocalApi) -> None:
    seen = requested_during(lambda: content(local_api, "/pc-lazy.html"))
    assert "/pc-lazy.html" in seen
    assert not {"/pixel.gif?name=native", "/pixel.gif?name=observed"} & seen


@pytest.mark.parametrize(("path", "lazy"), [
    ("/pc-lazy.html", {"/pixel.gif?name=native", "/pixel.gif?name=observed"}),  # loading=lazy, an observer
    ("/pc-lazy-scroll.html", {"/pixel.gif?name=scrolled"}),  # a scroll-event loader
])
def test_scroll_page_loads_lazy_images(local_api: LocalApi, path: str, lazy: set[str]) -> None:
    data: dict[str, Any] = {}
    seen = requested_during(lambda: data.update(content(local_api, path, scrollPage=True)))
    assert lazy <= seen
    assert "warning" not in data  # every image that appeared finished loading
    for src in lazy:
        assert f'src="{src}"' in data["html"]


# -- what shows only on screen: hiding, emulation, injected styles -------------------------------------


def _injected_css() -> dict[str, Any]:
    return {"addStyleTag": [{"url": get_server().url("/asset/injected.css")}]}  # body background rgb(1, 2, 3)


# (page, fields, {(x, y): colour}). Each page's first row is the control: the same points without the field.
# pc-dark.html: the body (100, 100) is black for prefers-color-scheme: dark, #motion (5, 5) green for
# prefers-reduced-motion: reduce, #media (5, 15) blue for print media; each field changes its point only.
SCREEN_CASES: list[tuple[str, Callable[[], dict[str, Any]], dict[tuple[int, int], tuple[int, ...]]]] = [
    ("/pc-parts.html", dict, {(10, 10): RED}),  # the fixed .cookie-banner
    ("/pc-parts.html", lambda: {"hideSelectors": [".cookie-banner"]}, {(10, 10): WHITE}),
    ("/pc-dark.html", dict, {(100, 100): WHITE, (5, 5): RED, (5, 15): RED}),
    ("/pc-dark.html", lambda: {"colorScheme": "dark"}, {(100, 100): BLACK, (5, 5): RED, (5, 15): RED}),
    ("/pc-dark.html", lambda: {"reducedMotion": "reduce"}, {(100, 100): WHITE, (5, 5): GREEN, (5, 15): RED}),
    ("/pc-dark.html", lambda: {"emulateMediaType": "print"}, {(100, 100): WHITE, (5, 5): RED, (5, 15): BLUE}),
    ("/plain.html", dict, {(600, 600): WHITE}),
    ("/plain.html", lambda: {"addStyleTag": [{"content": "body { background: rgb(0, 0, 255); }"}]},
     {(600, 600): BLUE}),
    ("/plain.html", _injected_css, {(600, 600): (1, 2, 3, 255)}),
]


@pytest.mark.parametrize(("path", "fields", "expected"), SCREEN_CASES, ids=[
    "parts", "hideSelectors", "dark-page", "colorScheme", "reducedMotion", "emulateMediaType", "plain",
    "addStyleTag-content", "addStyleTag-url"])
def test_what_shows_on_screen(
    local_api: LocalApi, path: str, fields: Callable[[], dict[str, Any]],
    expected: dict[tuple[int, int], tuple[int, ...]],
) -> None:
    image = screenshot(local_api, path, **fields())
    assert {point: image.at(*point) for point in expected} == expected


# -- blockAds -----------------------------------------------------------------------------------------

# The ad servers' real names (pagead2.googlesyndication.com, ...) reach the fixture server only through the
# egress resolver hook the unit tests install in their own process (tests/support/page_filters.py
# fixture_names); the local API's functions run in another process with the real resolver, where those
# names never resolve, with or without blockAds. So over the API: the network part with a request the lists
# block whatever its host (Google Publisher Tag's path, /tag/js/gpt.js, which the fixture server serves),
# and the cosmetic part on ads.html (its ".ad-slot" aside, hidden by the lists' generic rules).

_AD_SCRIPT = """
const tag = document.createElement("script");
tag.src = "/tag/js/gpt.js?run=%s";
const said = (outcome) => document.body.insertAdjacentHTML("beforeend", `<p id="ad-outcome">${outcome}</p>`);
tag.onload = () => said("loaded");
tag.onerror = () => said("blocked");
document.head.appendChild(tag);
"""


@pytest.mark.parametrize("block", [False, True])
def test_block_ads_keeps_the_ad_request_from_the_server(local_api: LocalApi, block: bool) -> None:
    run = uuid.uuid4().hex
    data: dict[str, Any] = {}
    seen = requested_during(lambda: data.update(content(
        local_api, "/plain.html", blockAds=block, addScriptTag=[{"content": _AD_SCRIPT % run}],
        waitForSelector="#ad-outcome")))
    outcome = "blocked" if block else "loaded"
    assert f'<p id="ad-outcome">{outcome}</p>' in data["html"]
    assert (f"/tag/js/gpt.js?run={run}" in seen) is not block
    assert "/plain.html" in seen  # the page itself is never blocked


class _AdsPage(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # quiet test output
        pass

    def do_GET(self) -> None:
        body = (PAGES / "ads.html").read_text(encoding="utf-8").replace("{{PORT}}", str(get_server().port))
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def ads_elsewhere() -> Iterator[str]:
    """ads.html from 127.0.0.2 (still loopback, and allowed by the stack's egress list). uBlock Origin's
    lists exempt 127.0.0.1 and localhost (and private LAN addresses) from generic element hiding
    ($generichide), as a browser extension must not restyle local development sites, so on the fixture
    server's own address no cosmetic rule applies by design; 127.0.0.2 is not exempted."""
    server = ThreadingHTTPServer(("127.0.0.2", 0), _AdsPage)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="ads-elsewhere", daemon=True).start()
    yield f"http://127.0.0.2:{server.server_address[1]}/ads.html"
    server.shutdown()
    server.server_close()


def test_block_ads_hides_the_ad_slot_and_nothing_else(local_api: LocalApi, ads_elsewhere: str) -> None:
    def column(**fields: Any) -> set[tuple[int, ...]]:
        response = local_api.call("POST", "/v1/web/screenshot",
                                  json={"url": ads_elsewhere, "screenshotOptions": VIEWPORT_ONLY, **fields})
        assert response.status_code == 200, response.text[:300]
        return set(Pixels(response.content).region(100, 0, 101, 800))

    shown = column()
    assert RED in shown and NAVY in shown  # the red aside.ad-slot under the navy site header
    blocked = column(blockAds=True)
    assert RED not in blocked and NAVY in blocked


# -- blockCookieBanners -------------------------------------------------------------------------------

# The fixture CMPs record the visitor's choice in window.consentChoice; this makes that visible in the
# serialised DOM (data-consent on <html>), whether the choice came before the injection or after it.
_RECORD_CHOICE = """
(() => {
  const root = document.documentElement;
  const earlier = window.consentChoice;
  Object.defineProperty(window, "consentChoice", {configurable: true,
    get: () => root.dataset.consent, set: (choice) => { root.dataset.consent = choice; }});
  if (earlier) root.dataset.consent = earlier;
})();
"""


def test_without_block_cookie_banners_nothing_is_chosen(local_api: LocalApi) -> None:
    data = content(local_api, "/consent-onetrust.html", addScriptTag=[{"content": _RECORD_CHOICE}])
    assert "data-consent" not in data["html"]
    assert "Reject All" in data["html"]


@pytest.mark.parametrize("page", ["/consent-onetrust.html", "/consent-cookiebot.html", "/consent-didomi.html"])
def test_block_cookie_banners_refuses(local_api: LocalApi, page: str) -> None:
    data = content(local_api, page, blockCookieBanners=True, addScriptTag=[{"content": _RECORD_CHOICE}])
    assert 'data-consent="rejected"' in data["html"]


# -- request shaping: rejected requests, headers, cookies, user agent, credentials ---------------------

RESOURCES = {"/pixel.gif?name=photo", "/media/clip.mp4.gif", "/asset/site.css", "/asset/app.js"}


@pytest.mark.parametrize(("fields", "kept", "rejected"), [
    ({}, RESOURCES, set()),
    ({"rejectResourceTypes": ["image", "script"]}, {"/asset/site.css"},
     {"/pixel.gif?name=photo", "/media/clip.mp4.gif", "/asset/app.js"}),
    ({"rejectRequestPattern": ["**/media/**", "**/*.css"]}, {"/pixel.gif?name=photo", "/asset/app.js"},
     {"/media/clip.mp4.gif", "/asset/site.css"}),
], ids=["control", "rejectResourceTypes", "rejectRequestPattern"])
def test_rejected_requests_are_not_made(
    local_api: LocalApi, fields: dict[str, Any], kept: set[str], rejected: set[str]
) -> None:
    seen = requested_during(lambda: content(local_api, "/pc-resources.html", **fields))
    assert {"/pc-resources.html", *kept} <= seen
    assert not rejected & seen


@pytest.mark.parametrize(("fields", "header", "expected"), [
    ({"headers": {"X-Test": "yes"}}, "x-test", "yes"),
    ({"cookies": [{"name": "session", "value": "s1"}, {"name": "other", "value": "o", "domain": "a.example"}]},
     "cookie", "session=s1"),  # the domain defaults to the target's; the other domain's is not sent here
    ({"userAgent": "webcapture-e2e/1.0"}, "user-agent", "webcapture-e2e/1.0"),
    ({"locale": "de-DE"}, "accept-language", "de-DE"),
], ids=["headers", "cookies", "userAgent", "locale"])
def test_what_the_server_receives(local_api: LocalApi, fields: dict[str, Any], header: str, expected: str) -> None:
    echo = pre_json(content(local_api, "/echo", **fields)["html"], "echo")
    assert echo.get(header, "").split(",")[0] == expected


def test_authenticate_answers_the_basic_challenge(local_api: LocalApi) -> None:
    without = content(local_api, "/basic-auth")
    assert without["metadata"]["statusCode"] == 401
    server = get_server()
    before = len(server.signed_in)
    signed = content(local_api, "/basic-auth", authenticate={"username": "alice", "password": "secret"})
    assert signed["metadata"]["statusCode"] == 200
    assert '<h1 id="who">alice</h1>' in signed["html"]
    assert server.signed_in[before:] == [f"127.0.0.1:{server.port}"]


# -- what the page sees: time zone, language, device --------------------------------------------------


def test_time_zone_and_locale_reach_the_page(local_api: LocalApi) -> None:
    control = pre_json(content(local_api, "/pc-env.html")["html"], "env")
    assert (control["language"], control["timeZone"]) != ("fr-CA", "Asia/Tokyo")
    env = pre_json(content(local_api, "/pc-env.html", locale="fr-CA", timezoneId="Asia/Tokyo")["html"], "env")
    assert (env["language"], env["timeZone"]) == ("fr-CA", "Asia/Tokyo")


def test_device_sets_user_agent_scale_and_touch(local_api: LocalApi) -> None:
    device = device_descriptors()["iPhone 15 Pro"]
    env = pre_json(content(local_api, "/pc-env.html", device="iPhone 15 Pro")["html"], "env")
    assert env["userAgent"] == device["userAgent"] and "iPhone" in env["userAgent"]
    assert (env["dpr"], env["touch"]) == (3, True)


# -- addScriptTag -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("tag", "title"), [
    (lambda: {"content": "document.title = 'by content';"}, "by content"),
    (lambda: {"url": get_server().url("/asset/injected.js")}, "injected by url"),
], ids=["content", "url"])
def test_add_script_tag(local_api: LocalApi, tag: Callable[[], dict[str, str]], title: str) -> None:
    data = content(local_api, "/plain.html", addScriptTag=[tag()])
    assert data["metadata"]["title"] == title


# -- the new endpoints take page control too -----------------------------------------------------------


def test_markdown_takes_page_control(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/web/markdown", json={
        "url": get_server().url("/pc-late-element.html"), "onlyMainContent": False, "waitForSelector": "#late"})
    markdown = assert_success(response, 1)["data"]["markdown"]
    assert "arrived" in markdown and "waiting" not in markdown


def test_content_takes_page_control(local_api: LocalApi) -> None:
    # Every test above reads through /v1/web/content; this one says so on its own.
    data = content(local_api, "/plain.html", addScriptTag=[{"content": "document.body.dataset.shaped = 'yes';"}])
    assert 'data-shaped="yes"' in data["html"]


def test_pdf_takes_page_control(local_api: LocalApi) -> None:
    # printable.html prints on 3 pages, one per section; hiding the last leaves 2.
    response = local_api.call("POST", "/v1/web/pdf", json={
        "url": get_server().url("/printable.html"), "hideSelectors": ["#last"]})
    assert response.status_code == 200, response.text[:300]
    assert response.headers["Content-Type"] == "application/pdf"
    assert count_pages(response.content) == 2
