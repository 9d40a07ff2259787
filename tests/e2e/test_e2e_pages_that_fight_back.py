"""docs/actions-and-blocked-pages.md#actions-and-blocked-pages end to end: actions, the target's status, bot
walls, blank screenshots and an upstream proxy, over HTTP to the local API with real Chromium and metering
against moto.

The stack allows only the site (127.0.0.2); the canary (127.0.0.1) stands for every internal service. The
upstream proxy pool "loop" is a counting CONNECT proxy on 127.0.0.3 that leaves from 127.0.0.4, so the
site can tell a connection that came through it.
"""

from __future__ import annotations

import io
import json
import struct
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.connect_proxy import CountingConnectProxy
from tests.support.egress_servers import CanaryServer
from tests.support.fight_site import FightSite
from tests.support.local_api import LocalApi, start_local_api
from tests.support.wall_pages import LOOK_ALIKES, WALLS

SITE, CANARY, PROXY, PROXY_SOURCE = "127.0.0.2", "127.0.0.1", "127.0.0.3", "127.0.0.4"
PROXY_USER, PROXY_PASSWORD = "pool-user", "s3cret-Proxy-Pass"
CREDITS = 200


@pytest.fixture(scope="module")
def site() -> Iterator[FightSite]:
    running = FightSite(SITE)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def canary() -> Iterator[CanaryServer]:
    running = CanaryServer(CANARY)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def upstream() -> Iterator[CountingConnectProxy]:
    proxy = CountingConnectProxy(PROXY, PROXY_USER, PROXY_PASSWORD, PROXY_SOURCE)
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def api(site: FightSite, upstream: CountingConnectProxy) -> Iterator[LocalApi]:
    pools = json.dumps({"loop": upstream.url(PROXY_USER, PROXY_PASSWORD)})
    stack = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": f"{SITE}/32", "WEBCAPTURE_REQUEST_BUDGET_MS": "15000",
                             "WEBCAPTURE_UPSTREAM_PROXIES": pools}, demo_credits=CREDITS)
    # The authorizer's first invocation imports and connects from cold within its 10 s Timeout; on a loaded
    # host it can run out (the gateway's 500), which is no part of what these tests are about.
    for _ in range(3):
        if stack.call("GET", "/v1/api-keys/list").status_code == 200:
            break
    yield stack
    stack.stop()


def remaining(api: LocalApi) -> Any:
    keys = assert_success(api.call("GET", "/v1/api-keys/list"), 0)["data"]["apiKeys"]
    return next(key["remaining"] for key in keys if key["id"] == api.key_id)


def post(api: LocalApi, path: str, body: dict[str, Any], **kwargs: Any) -> requests.Response:
    response = api.call("POST", path, json=body, **kwargs)
    # Never a 500: when one comes, the stack's own words say why.
    assert response.status_code != 500, "\n".join(line[:2000] for line in api.output[-40:])
    return response


def png_size(image: bytes) -> tuple[int, int]:
    assert image.startswith(b"\x89PNG")
    width, height = struct.unpack(">II", image[16:24])
    return width, height


def png_colours(image: bytes) -> int:
    """How many distinct RGBA pixels an 8-bit RGBA or RGB PNG has (rows unfiltered: Chromium filters them)."""
    from webcapture.browser.blank_screenshot import _unfilter

    stream = io.BytesIO(image[8:])
    idat, header = b"", b""
    while chunk := stream.read(8):
        length, kind = struct.unpack(">I4s", chunk)
        body = stream.read(length)
        stream.read(4)
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
    width, height, _, colour = struct.unpack(">IIBB", header[:10])
    bpp = 4 if colour == 6 else 3
    raw, stride, previous = zlib.decompress(idat), width * bpp, bytearray(width * bpp)
    seen: set[bytes] = set()
    for row in range(height):
        start = row * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1:start + 1 + stride]), previous, bpp)
        assert line is not None
        seen.update(bytes(line[i:i + bpp]) for i in range(0, stride, bpp))
        previous = line
    return len(seen)


# ------------------------------------------------------------------ actions
def test_load_more_clicked_three_times_before_the_links_are_taken(api: LocalApi, site: FightSite) -> None:
    click = {"type": "click", "selector": "#more"}
    body = assert_success(post(api, "/v1/web/links", {"url": site.url("/load-more"), "actions": [click] * 3}), 1)
    articles = [link["url"] for link in body["data"]["links"] if "/article/" in link["url"]]
    assert articles == [site.url(f"/article/{n}") for n in range(20)]  # 5 on load, 5 a click
    assert body["data"]["metadata"]["statusCode"] == 200
    plain = assert_success(post(api, "/v1/web/links", {"url": site.url("/load-more")}), 1)
    assert sum("/article/" in link["url"] for link in plain["data"]["links"]) == 5


def test_a_form_is_typed_into_chosen_from_and_submitted(api: LocalApi, site: FightSite) -> None:
    actions = [{"type": "type", "selector": "#name", "text": "Ada Lovelace"},
               {"type": "select", "selector": "#mood", "value": "glad"},
               {"type": "press", "selector": "#name", "key": "Enter"}]
    body = assert_success(post(api, "/v1/web/markdown", {"url": site.url("/form"), "actions": actions,
                                                         "onlyMainContent": False}), 1)
    assert "Hello, Ada Lovelace" in body["data"]["markdown"]
    assert "You are glad." in body["data"]["markdown"]
    assert body["data"]["metadata"]["url"].startswith(site.url("/greet?name=Ada"))


def test_a_tab_is_chosen_before_a_screenshot_of_its_panel(api: LocalApi, site: FightSite) -> None:
    shot = {"url": site.url("/tabs"), "screenshotOptions": {"selector": "#panel-two", "fullPage": False}}
    assert_envelope_error(post(api, "/v1/web/screenshot", shot), 400, "ELEMENT_NOT_FOUND")  # hidden until chosen
    answer = post(api, "/v1/web/screenshot", {**shot, "actions": [
        {"type": "select", "selector": "#tab", "value": "two"}, {"type": "wait", "selector": "#panel-two"}]})
    assert answer.status_code == 200, answer.text
    assert png_size(answer.content) == (300, 120)
    assert answer.headers["X-Webcapture-Target-Status"] == "200"


def test_a_failing_step_is_a_400_naming_it_and_costs_nothing(api: LocalApi, site: FightSite) -> None:
    before = remaining(api)
    actions = [{"type": "click", "selector": "#more"}, {"type": "click", "selector": "#missing", "timeout": 500}]
    body = assert_envelope_error(post(api, "/v1/web/links", {"url": site.url("/load-more"), "actions": actions}),
                                 400, "ACTION_FAILED")
    assert "actions[1]" in body["error"]["message"] and "#missing" in body["error"]["message"]
    assert remaining(api) == before


def test_a_click_cannot_open_an_internal_address(api: LocalApi, site: FightSite, canary: CanaryServer) -> None:
    before, seen = remaining(api), canary.connections
    inside = site.url(f"/click-inside?to=http://{CANARY}:{canary.port}/admin")
    body = assert_envelope_error(post(api, "/v1/web/content", {"url": inside, "actions": [
        {"type": "click", "selector": "#go"}]}), 400, "URL_NOT_ALLOWED")
    assert "egress policy" in body["error"]["message"]
    assert canary.connections == seen
    assert remaining(api) == before


# ------------------------------------------------------------------ status
def test_failOnStatus_turns_a_404_into_a_refunded_502(api: LocalApi, site: FightSite) -> None:
    before = remaining(api)
    body = assert_envelope_error(post(api, "/v1/web/content", {"url": site.url("/nowhere"),
                                                               "failOnStatus": ["4xx"]}), 502, "TARGET_HTTP_ERROR")
    assert "404" in body["error"]["message"]
    assert_envelope_error(post(api, "/v1/web/screenshot", {"url": site.url("/nowhere"), "failOnStatus": [404]}),
                          502, "TARGET_HTTP_ERROR")
    # The status is known before any action: a click that could never succeed on the 404 page is not tried.
    assert_envelope_error(post(api, "/v1/web/links", {"url": site.url("/nowhere"), "failOnStatus": [404],
                                                      "actions": [{"type": "click", "selector": "#never-there"}]}),
                          502, "TARGET_HTTP_ERROR")
    assert remaining(api) == before
    captured = assert_success(post(api, "/v1/web/content", {"url": site.url("/nowhere"),
                                                            "failOnStatus": ["5xx", 403]}), 1)
    assert captured["data"]["metadata"]["statusCode"] == 404
    shot = post(api, "/v1/web/pdf", {"url": site.url("/nowhere")})
    assert shot.status_code == 200 and shot.headers["X-Webcapture-Target-Status"] == "404"


# ------------------------------------------------------------------ bot walls
@pytest.mark.parametrize("wall", WALLS, ids=[wall.name for wall in WALLS])
def test_every_wall_is_refused_and_refunded(api: LocalApi, site: FightSite, wall: Any) -> None:
    before = remaining(api)
    body = assert_envelope_error(post(api, "/v1/web/markdown", {"url": site.url(f"/walls/{wall.name}")}),
                                 502, "TARGET_BLOCKED")
    assert wall.vendor in body["error"]["message"]
    assert remaining(api) == before


def test_allowBlocked_answers_the_wall_as_it_is(api: LocalApi, site: FightSite) -> None:
    url = site.url(f"/walls/{WALLS[0].name}")
    assert_envelope_error(post(api, "/v1/web/screenshot", {"url": url}), 502, "TARGET_BLOCKED")
    body = assert_success(post(api, "/v1/web/content", {"url": url, "allowBlocked": True}), 1)
    assert "challenge-form" in body["data"]["html"]
    assert body["data"]["metadata"]["statusCode"] == 403


@pytest.mark.parametrize("page", LOOK_ALIKES, ids=[page.name for page in LOOK_ALIKES])
def test_every_look_alike_is_captured(api: LocalApi, site: FightSite, page: Any) -> None:
    body = assert_success(post(api, "/v1/web/content", {"url": site.url(f"/walls/{page.name}")}), 1)
    assert body["data"]["metadata"]["statusCode"] == page.status


# ------------------------------------------------------------------ blank screenshots
def test_a_blank_first_capture_is_taken_again(api: LocalApi, site: FightSite) -> None:
    answer = post(api, "/v1/web/screenshot", {"url": site.url("/blank-at-first"),
                                              "screenshotOptions": {"fullPage": False}})
    assert answer.status_code == 200, answer.text
    assert "X-Webcapture-Warning" not in answer.headers
    assert png_colours(answer.content) > 1  # the text, once the cover was gone


def test_a_page_that_stays_blank_is_answered_with_a_warning(api: LocalApi, site: FightSite) -> None:
    answer = post(api, "/v1/web/screenshot", {"url": site.url("/blank-for-good"),
                                              "screenshotOptions": {"fullPage": False}})
    assert answer.status_code == 200, answer.text
    assert png_colours(answer.content) == 1
    assert "flat colour" in answer.headers["X-Webcapture-Warning"]
    body = assert_success(post(api, "/v1/web/screenshot", {"url": site.url("/blank-for-good"), "base64": True}), 1)
    assert "flat colour" in body["data"]["warning"]


# ------------------------------------------------------------------ upstream proxy
def test_a_request_through_the_upstream_proxy(api: LocalApi, site: FightSite,
                                              upstream: CountingConnectProxy) -> None:
    tunnels = len(upstream.tunnels)
    body = assert_success(post(api, "/v1/web/markdown", {"url": site.url("/plain"), "proxy": "loop"}), 1)
    assert "A plain page" in body["data"]["markdown"]
    through = upstream.tunnels[tunnels:]
    assert through and all(tunnel.authorized for tunnel in through)
    assert {tunnel.target for tunnel in through} == {f"{SITE}:{site.port}"}  # the checked address, pinned
    assert site.hits("/plain")[-1].peer == PROXY_SOURCE  # the target saw the proxy's connection
    assert_success(post(api, "/v1/web/markdown", {"url": site.url("/plain")}), 1)
    assert site.hits("/plain")[-1].peer != PROXY_SOURCE
    assert PROXY_PASSWORD not in json.dumps(body)


def test_an_internal_target_is_refused_before_the_proxy_sees_it(
    api: LocalApi, site: FightSite, canary: CanaryServer, upstream: CountingConnectProxy
) -> None:
    tunnels, seen, before = len(upstream.tunnels), canary.connections, remaining(api)
    inside = f"http://{CANARY}:{canary.port}/admin"
    assert_envelope_error(post(api, "/v1/web/content", {"url": inside, "proxy": "loop"}), 400, "URL_NOT_ALLOWED")
    # From the page itself: a script sends it there; the pool's own egress proxy refuses it.
    body = assert_envelope_error(post(api, "/v1/web/content", {
        "url": site.url(f"/click-inside?to={inside}"), "proxy": "loop",
        "actions": [{"type": "click", "selector": "#go"}]}), 400, "URL_NOT_ALLOWED")
    assert PROXY_PASSWORD not in body["error"]["message"]
    assert len(upstream.tunnels) - tunnels <= 1  # the site's own page only
    assert all(tunnel.target != f"{CANARY}:{canary.port}" for tunnel in upstream.tunnels)
    assert canary.connections == seen
    assert remaining(api) == before
    assert not any(PROXY_PASSWORD in line for line in api.output)


# ------------------------------------------------------------------ bad input
def test_bad_input_lists_every_issue(api: LocalApi, site: FightSite) -> None:
    actions: list[dict[str, Any]] = [{"type": "click", "selector": "#more"}] * 48
    actions += [{"type": "teleport"}, {"type": "click"}, {"type": "select", "selector": "#s"}]
    response = post(api, "/v1/web/links", {"url": site.url("/load-more"), "actions": actions,
                                           "failOnStatus": [404, 600, "6xx"], "proxy": "mars"})
    assert response.status_code == 422, response.text
    issues = response.json()["error"]["issues"]
    by_path = {tuple(issue["path"]): issue for issue in issues}
    assert by_path[("actions",)]["code"] == "too_big" and by_path[("actions",)]["maximum"] == 50
    assert by_path[("actions", 48, "type")]["code"] == "invalid_enum_value"
    assert by_path[("actions", 49, "selector")]["code"] == "custom"
    assert by_path[("actions", 50, "value")]["code"] == "custom"
    assert by_path[("failOnStatus", 1)]["code"] == "too_big" and by_path[("failOnStatus", 1)]["maximum"] == 599
    assert by_path[("failOnStatus", 2)]["code"] == "invalid_enum_value"
    assert by_path[("proxy",)] == {"code": "invalid_enum_value", "options": ["loop"], "received": "mars",
                                   "path": ["proxy"], "message": by_path[("proxy",)]["message"]}
    assert len(issues) == 7
    assert PROXY_PASSWORD not in response.text

