"""The egress guard for the main document, through real Chromium (docs/api.md#egress-policy).

Every target and every way a page moves its main frame: the answer is 400 URL_NOT_ALLOWED, never a capture
of the proxy's refusal or of an error page, and neither canary ever sees a connection. Each IP spelling is
tried twice: at the API edge (refused before any browser work) and with the edge check switched off, so
the proxy alone must refuse what Chromium sends it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.egress_names import CANARY, PUBLIC
from tests.support.egress_site import Baseline, GuardedBrowser
from webcapture import egress
from webcapture.browser import collect_links, load_page, take_screenshot
from webcapture.browser.screenshot import Screenshot
from webcapture.egress import RefusalLog, Route, refusal_log
from webcapture.errors import UrlNotAllowed
from webcapture.models.requests import LinksRequest, ScreenshotRequest

pytest_plugins = ["tests.support.egress_browser"]

PAGES = {
    "meta-refresh": "<title>m</title><meta http-equiv='refresh' content='0;url={canary}/meta'><h1>m</h1>",
    "js-location": "<title>j</title><h1>j</h1><script>location.href = '{canary}/js';</script>",
    "js-location-https": "<h1>j</h1><script>location.href = 'https://127.0.0.1:{port}/js';</script>",
    "js-location-name": "<h1>j</h1><script>location.href = 'http://internal.test:{port}/js';</script>",
    "js-location-later": "<h1>j</h1><script>setTimeout(() => location.replace('{canary}/later'), 50);</script>",
    "form-post": (
        "<form method='post' action='{canary}/post'><input name='secret' value='1'></form>"
        "<script>document.forms[0].submit();</script>"
    ),
    "blob-top": (
        "<h1>b</h1><script>location.href = URL.createObjectURL("
        "new Blob(['<h1>blob</h1>'], {{type: 'text/html'}}));</script>"
    ),
    # Navigations Chromium itself refuses: the page stays. The title changes after the attempt, which
    # shows the page outlived it.
    **{
        f"to-{name}": (
            f"<title>start</title><h1>{name}</h1><script>try {{{{ location.href = '{target}'; }}}} "
            "catch (e) {{}} setTimeout(() => document.title = 'still here', 150);</script>"
        )
        for name, target in {
            "file": "file:///etc/passwd",
            "view-source": "view-source:{canary}/",
            "chrome": "chrome://version/",
            "data": "data:text/html,<h1>data</h1>",
        }.items()
    },
}


@pytest.fixture(autouse=True)
def _pages(guarded_browser: GuardedBrowser) -> None:
    guarded_browser.site.pages.update(PAGES)


@pytest.fixture
def refusals() -> Iterator[RefusalLog]:
    with refusal_log() as log:
        yield log


@pytest.fixture
def no_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch the edge check off: whatever Chromium is asked for must be refused by the proxy alone."""
    monkeypatch.setattr(egress, "check_target", lambda url: Route("", 0, (), resolved=False))


def shoot(url: str, wait: int = 0) -> Screenshot:
    return take_screenshot(ScreenshotRequest.model_validate({"url": url, "waitTime": wait}))


def refused_shot(url: str, wait: int = 0) -> UrlNotAllowed:
    with pytest.raises(UrlNotAllowed) as refused:
        shoot(url, wait)
    return refused.value


def proxy_refusals(log: RefusalLog) -> list[tuple[str, int | None, str]]:
    return [(r.host, r.port, r.reason) for r in log.refusals if r.stage == "proxy"]


# Direct targets ---------------------------------------------------------------------------------------

# (id, URL with {port}, the host as the proxy sees it after Chromium's canonicalisation, port, reason)
DIRECT = [
    ("loopback", "http://127.0.0.1:{port}/", CANARY, None, "loopback"),
    ("decimal", "http://2130706433:{port}/", CANARY, None, "loopback"),
    ("octal", "http://0177.0.0.01:{port}/", CANARY, None, "loopback"),
    ("hex", "http://0x7f.0x0.0x0.0x1:{port}/", CANARY, None, "loopback"),
    ("hex-single", "http://0x7f000001:{port}/", CANARY, None, "loopback"),
    ("short", "http://127.1:{port}/", CANARY, None, "loopback"),
    ("ipv6-loopback", "http://[::1]:{port}/", "::1", None, "loopback"),
    ("ipv4-mapped", "http://[::ffff:127.0.0.1]:{port}/", "::ffff:7f00:1", None, "loopback"),
    ("unspecified", "http://0.0.0.0:{port}/", "0.0.0.0", None, "unspecified"),
    ("metadata", "http://169.254.169.254/latest/meta-data/", "169.254.169.254", 80, "link-local"),
    ("name-to-loopback", "http://internal.test:{port}/", "internal.test", None, "loopback"),
    ("name-to-metadata", "http://metadata.test/latest/", "metadata.test", 80, "link-local"),
    ("localhost", "http://localhost:{port}/", "localhost", None, "loopback"),
    ("https-loopback", "https://127.0.0.1:{port}/", CANARY, None, "loopback"),
    ("https-name", "https://internal.test:{port}/", "internal.test", None, "loopback"),
]


@pytest.mark.parametrize(("url", "host", "port", "reason"), [case[1:] for case in DIRECT],
                         ids=[case[0] for case in DIRECT])  # fmt: skip
def test_an_internal_target_is_refused_at_the_edge_before_any_browser_work(
    guard: Baseline, refusals: RefusalLog, url: str, host: str, port: int | None, reason: str
) -> None:
    error = refused_shot(url.format(port=guard.guarded.port))
    assert error.status == 400 and error.code == "URL_NOT_ALLOWED"
    # Only the edge refused: the browser never asked the proxy for anything.
    assert [(r.stage, r.reason) for r in refusals.refusals] == [("edge", reason)]
    guard.assert_untouched()


@pytest.mark.parametrize(("url", "host", "port", "reason"), [case[1:] for case in DIRECT],
                         ids=[case[0] for case in DIRECT])  # fmt: skip
def test_an_internal_target_is_refused_by_the_proxy_alone(
    guard: Baseline, refusals: RefusalLog, no_edge: None, url: str, host: str, port: int | None, reason: str
) -> None:
    target_port = port or guard.guarded.port
    error = refused_shot(url.format(port=guard.guarded.port))
    assert error.code == "URL_NOT_ALLOWED" and f"The target {host}," in error.message
    # Chromium sent it to the proxy (no implicit bypass for loopback or link-local), which refused it.
    assert (host, target_port, reason) in proxy_refusals(refusals)
    guard.assert_untouched()


def test_the_public_site_itself_is_captured(guard: Baseline, refusals: RefusalLog) -> None:
    # The control: the fixture is reachable, so the refusals above are the policy, not a broken set-up.
    shot = shoot(guard.guarded.site.url("/page/plain", host="public.test"))
    assert shot.status_code == 200 and shot.final_url.startswith("http://public.test:")
    assert refusals.refusals == () and guard.guarded.spy.attempted(PUBLIC)
    guard.assert_untouched()


# Redirects of the main document --------------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_the_canary_is_url_not_allowed(guard: Baseline, refusals: RefusalLog, status: int) -> None:
    site = guard.guarded.site
    error = refused_shot(site.url(f"/redirect/{status}?to={site.canary_url}/secret"))
    assert error.message.startswith(f"The page redirected to {CANARY}")
    assert (CANARY, guard.guarded.port, "loopback") in proxy_refusals(refusals)
    assert site.asked_for(f"/redirect/{status}")
    guard.assert_untouched()


@pytest.mark.parametrize(
    ("to", "host", "reason"),
    [
        ("https://127.0.0.1:{port}/", CANARY, "loopback"),
        ("http://internal.test:{port}/", "internal.test", "loopback"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254", "link-local"),
        ("http://[::1]:{port}/", "::1", "loopback"),
        ("http://[::ffff:127.0.0.1]:{port}/", "::ffff:7f00:1", "loopback"),
        ("http://0.0.0.0:{port}/", "0.0.0.0", "unspecified"),
        ("http://2130706433:{port}/", CANARY, "loopback"),
    ],
    ids=["https", "name", "metadata", "ipv6-loopback", "ipv4-mapped", "unspecified", "decimal"],
)
def test_a_redirect_to_any_internal_spelling_is_url_not_allowed(
    guard: Baseline, refusals: RefusalLog, to: str, host: str, reason: str
) -> None:
    site = guard.guarded.site
    error = refused_shot(site.url(f"/redirect/302?to={to.format(port=guard.guarded.port)}"))
    assert error.message.startswith(f"The page redirected to {host},")
    assert any(r[0] == host and r[2] == reason for r in proxy_refusals(refusals)), refusals.refusals
    guard.assert_untouched()


@pytest.mark.parametrize(
    "to", ["file:///etc/passwd", "data:text/html,<h1>x</h1>", "chrome://version/", "blob:http://a.test/x"]
)
def test_a_redirect_to_a_non_http_scheme_is_url_not_allowed(guard: Baseline, to: str) -> None:
    error = refused_shot(guard.guarded.site.url(f"/redirect/302?to={to}"))
    assert error.message == "The page redirected to a URL that is not http or https"
    guard.assert_untouched()


# The page moves its main frame itself ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "wait", "host"),
    [
        ("meta-refresh", 1000, CANARY),
        ("js-location", 0, CANARY),
        ("js-location-later", 1000, CANARY),
        ("js-location-https", 500, CANARY),
        ("js-location-name", 0, "internal.test"),
        ("form-post", 0, CANARY),
    ],
)
def test_a_page_that_navigates_itself_somewhere_internal_is_url_not_allowed(
    guard: Baseline, refusals: RefusalLog, page: str, wait: int, host: str
) -> None:
    error = refused_shot(guard.guarded.site.url(f"/page/{page}"), wait)
    assert error.message.startswith(f"The page redirected to {host},"), error.message
    assert (host, guard.guarded.port, "loopback") in proxy_refusals(refusals)
    guard.assert_untouched()


def test_a_refused_refresh_during_the_work_is_never_answered_as_the_page(guard: Baseline) -> None:
    # Without a wait the refresh fires before, during or after the work on the page: the answer is then a
    # 400 or the page itself, never the proxy's refusal standing in for it. (Links, not a screenshot: a
    # navigation during CDP's captureScreenshot can stall it, whatever the target; see the report.)
    url = guard.guarded.site.url("/page/meta-refresh")
    for _ in range(3):
        try:
            result = collect_links(LinksRequest.model_validate({"url": url}))
        except UrlNotAllowed as error:
            assert "redirected to 127.0.0.1" in error.message
        else:
            assert result.final_url == url
    guard.assert_untouched()


def test_links_and_page_content_are_refused_the_same_way(guard: Baseline) -> None:
    site = guard.guarded.site
    with pytest.raises(UrlNotAllowed):
        collect_links(LinksRequest.model_validate({"url": site.url("/page/js-location")}))
    with pytest.raises(UrlNotAllowed):
        load_page(site.url("/page/form-post"), 0)
    guard.assert_untouched()


@pytest.mark.parametrize("scheme", ["file", "view-source", "chrome", "data"])
def test_a_page_navigating_to_a_local_scheme_stays_and_is_captured(guard: Baseline, scheme: str) -> None:
    url = guard.guarded.site.url(f"/page/to-{scheme}")
    snapshot = load_page(url, 600)
    # Chromium refused the navigation; the page outlived the attempt and is the one captured.
    assert (snapshot.final_url, snapshot.status_code, snapshot.title) == (url, 200, "still here")
    guard.assert_untouched()


def test_a_page_navigating_itself_to_a_blob_is_url_not_allowed(guard: Baseline) -> None:
    # Same-origin blob: URLs are the one local scheme Chromium lets a page open at top level.
    error = refused_shot(guard.guarded.site.url("/page/blob-top"), 500)
    assert error.message.startswith("The page navigated to a blob: URL")
    guard.assert_untouched()


# DNS rebinding ---------------------------------------------------------------------------------------


def test_a_name_rebinding_between_the_edge_and_the_proxy_gets_no_second_lookup(
    guard: Baseline, refusals: RefusalLog
) -> None:
    g = guard.guarded
    before = g.resolver.calls["rebind.test"]
    shot = shoot(f"http://rebind.test:{g.port}/page/rebind-target")
    # The edge saw the public answer and checked it; the request's connections use that answer and ask no
    # more, so the canary answer a second lookup would get never comes into it.
    assert shot.status_code == 200
    assert g.resolver.calls["rebind.test"] - before == 1
    assert refusals.refusals == ()
    assert g.site.asked_for("/page/rebind-target")
    guard.assert_untouched()
