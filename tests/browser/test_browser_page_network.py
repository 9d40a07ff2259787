"""Page control's network and emulation fields and injections (docs/api.md#page-control) in real Chromium
against the loopback fixture pages: what the page's server receives, and what the page sees."""

from __future__ import annotations

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from tests.support.page_control import pixels, pre_json, shoot, snapshot
from webcapture.browser import browser_pid
from webcapture.errors import NavigationFailed
from webcapture.models.devices import device_descriptors
from webcapture.settings import get_settings

WHITE, BLACK = (255, 255, 255, 255), (0, 0, 0, 255)
RED, GREEN, BLUE = (255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255)


def requested_during(server: FixtureHttpServer, url: str, **control: object) -> set[str]:
    start = len(server.requested)
    snapshot(url, **control)
    return set(server.requested[start:])


# -- requests -------------------------------------------------------------------------------------------


def test_reject_resource_types(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-resources.html")
    everything = {"/pixel.gif?name=photo", "/media/clip.mp4.gif", "/asset/site.css", "/asset/app.js"}
    assert everything <= requested_during(fixture_server, url)
    seen = requested_during(fixture_server, url, rejectResourceTypes=["image", "script"])
    assert "/pc-resources.html" in seen and "/asset/site.css" in seen
    assert not {"/pixel.gif?name=photo", "/media/clip.mp4.gif", "/asset/app.js"} & seen


def test_reject_request_pattern_is_a_glob(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-resources.html")
    seen = requested_during(fixture_server, url, rejectRequestPattern=["**/media/**", "**/*.css"])
    assert {"/pixel.gif?name=photo", "/asset/app.js"} <= seen
    assert not {"/media/clip.mp4.gif", "/asset/site.css"} & seen
    # A regular expression is not one: "." and "*" are glob characters, so this matches nothing here.
    regex = requested_during(fixture_server, url, rejectRequestPattern=[".*\\.css"])
    assert "/asset/site.css" in regex


def test_headers_user_agent_cookies_and_locale_reach_the_server(fixture_server: FixtureHttpServer) -> None:
    page = snapshot(
        fixture_server.url("/echo"),
        headers={"X-Test": "yes", "X-Forwarded-Host": "elsewhere.example"},
        userAgent="webcapture-test/1.0",
        cookies=[{"name": "session", "value": "s1"}, {"name": "other", "value": "o", "domain": "a.example"}],
        locale="de-DE",
    )
    echo = pre_json(page, "echo")
    assert echo["x-test"] == "yes" and echo["x-forwarded-host"] == "elsewhere.example"
    assert echo["user-agent"] == "webcapture-test/1.0"
    assert echo["cookie"] == "session=s1"  # the other domain's cookie is not sent here
    assert echo["accept-language"].startswith("de-DE")


def test_authenticate_answers_the_target_origin_only(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/basic-auth?frame=1")
    assert snapshot(url).status_code == 401
    start = len(fixture_server.signed_in)
    page = snapshot(url, authenticate={"username": "alice", "password": "secret"})
    assert page.status_code == 200 and "<h1 id=\"who\">alice</h1>" in page.html
    # The frame on localhost challenged too, and was not given the credentials.
    assert fixture_server.signed_in[start:] == [f"127.0.0.1:{fixture_server.port}"]
    assert any(path == "/basic-auth" for path in fixture_server.requested[-3:])  # the frame did ask


def test_wrong_credentials_leave_the_401(fixture_server: FixtureHttpServer) -> None:
    page = snapshot(fixture_server.url("/basic-auth"), authenticate={"username": "alice", "password": "no"})
    assert page.status_code == 401


# -- emulation ------------------------------------------------------------------------------------------


def test_locale_and_timezone_reach_the_page(fixture_server: FixtureHttpServer) -> None:
    env = pre_json(snapshot(fixture_server.url("/pc-env.html"), locale="fr-CA", timezoneId="Asia/Tokyo"), "env")
    assert (env["language"], env["timeZone"]) == ("fr-CA", "Asia/Tokyo")


def test_device_sets_viewport_scale_touch_and_user_agent(fixture_server: FixtureHttpServer) -> None:
    device = device_descriptors()["iPhone 15 Pro"]
    env = pre_json(snapshot(fixture_server.url("/pc-env.html"), device="iPhone 15 Pro"), "env")
    assert env["userAgent"] == device["userAgent"] and "iPhone" in env["userAgent"]
    assert (env["dpr"], env["touch"]) == (3, True)
    own_agent = pre_json(
        snapshot(fixture_server.url("/pc-env.html"), device="iPhone 15 Pro", userAgent="mine"), "env"
    )
    assert own_agent["userAgent"] == "mine"  # userAgent wins over the device's


def test_device_viewport_and_explicit_viewport_fields(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/device.html")
    shot = shoot(url, device="iPhone 15 Pro", screenshotOptions={"fullPage": False})
    assert (shot.width, shot.height) == (393 * 3, 659 * 3)
    # Zoomed out from a 980 px layout (no viewport meta): CSS y 150 is at 150 x 393/980 x 3 = 180 px.
    assert pixels(shot).at(10, 180) == GREEN  # touch: coarse pointer
    wider = shoot(url, device="iPhone 15 Pro", viewport={"width": 500}, screenshotOptions={"fullPage": False})
    # The explicit width wins, the rest is the device's (the zoomed-out visual viewport rounds its height).
    assert wider.width == 500 * 3 and wider.height in (659 * 3 - 1, 659 * 3)


def test_color_scheme_reduced_motion_and_media_type(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/pc-dark.html")
    options = {"screenshotOptions": {"fullPage": False}}
    light = pixels(shoot(url, **options))
    assert (light.at(100, 100), light.at(5, 5), light.at(5, 15)) == (WHITE, RED, RED)
    dark = pixels(shoot(url, colorScheme="dark", reducedMotion="reduce", emulateMediaType="print", **options))
    assert (dark.at(100, 100), dark.at(5, 5), dark.at(5, 15)) == (BLACK, GREEN, BLUE)


# -- injection ------------------------------------------------------------------------------------------


def test_style_and_script_tags_by_content_and_by_url(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/plain.html")
    styled = shoot(url, addStyleTag=[{"content": "body { background: rgb(0, 0, 255); }"}],
                   screenshotOptions={"fullPage": False})
    assert pixels(styled).at(600, 600) == BLUE
    by_url = shoot(url, addStyleTag=[{"url": fixture_server.url("/asset/injected.css")}],
                   screenshotOptions={"fullPage": False})
    assert pixels(by_url).at(600, 600) == (1, 2, 3, 255)
    assert snapshot(url, addScriptTag=[{"content": "document.title = 'by content';"}]).title == "by content"
    assert snapshot(url, addScriptTag=[{"url": fixture_server.url("/asset/injected.js")}]).title == "injected by url"


def test_injections_come_before_the_waits(fixture_server: FixtureHttpServer) -> None:
    script = "setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id=made>made</p>'), 300);"
    page = snapshot(fixture_server.url("/plain.html"), addScriptTag=[{"content": script}], waitForSelector="#made")
    assert 'id="made"' in page.html


def test_a_script_that_cannot_load_fails_the_request(fixture_server: FixtureHttpServer) -> None:
    with pytest.raises(NavigationFailed, match=r"addScriptTag\[0\]"):
        snapshot(fixture_server.url("/plain.html"), addScriptTag=[{"url": fixture_server.url("/nothing.js")}])


def test_an_injected_url_that_never_answers_fails_within_the_budget(
    fixture_server: FixtureHttpServer, monkeypatch: pytest.MonkeyPatch, egress_allows_fixtures: None
) -> None:
    snapshot(fixture_server.url("/plain.html"))  # the browser is up before the short budget starts
    pid = browser_pid()
    monkeypatch.setenv("WEBCAPTURE_REQUEST_BUDGET_MS", "5000")
    get_settings.cache_clear()
    with pytest.raises(NavigationFailed, match="did not load in time"):
        snapshot(fixture_server.url("/plain.html"), addScriptTag=[{"url": fixture_server.url("/hang-image")}])
    assert browser_pid() == pid  # given up on in the page, not by the watchdog killing the browser

