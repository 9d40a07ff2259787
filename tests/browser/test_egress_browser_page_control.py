"""No page-control option reaches past the egress guard (docs/api.md#page-control last rule,
docs/api.md#egress-policy), through real Chromium: injected URLs are fetched by Chromium through the proxy and
refused there; headers and cookies change what is asked, never where the browser goes. The canaries see
nothing, and the proxy connects to the public site only."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.egress_names import CANARY
from tests.support.egress_site import Baseline
from webcapture.browser import load_page, take_screenshot
from webcapture.egress import RefusalLog, refusal_log
from webcapture.errors import UrlNotAllowed
from webcapture.models.requests import AiExtractRequest, ScreenshotRequest

pytest_plugins = ["tests.support.egress_browser"]


@pytest.fixture
def refusals() -> Iterator[RefusalLog]:
    with refusal_log() as log:
        yield log


def load(url: str, **control: Any) -> Any:
    request = AiExtractRequest.model_validate({"url": url, "prompt": "p", **control})
    return load_page(url, 0, request)


def refused_hosts(log: RefusalLog) -> set[str]:
    return {refusal.host for refusal in log.refusals if refusal.stage == "proxy"}


@pytest.mark.parametrize("kind", ["addScriptTag", "addStyleTag"])
@pytest.mark.parametrize("where", ["canary", "internal", "metadata"])
def test_an_injected_url_aimed_inside_is_refused(
    guard: Baseline, refusals: RefusalLog, kind: str, where: str
) -> None:
    g = guard.guarded
    target, host = {
        "canary": (f"{g.site.canary_url}/inject", CANARY),
        "internal": (f"http://internal.test:{g.port}/inject", "internal.test"),
        "metadata": ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
    }[where]
    with pytest.raises(UrlNotAllowed, match=rf"^{kind}\[0\]\.url: "):  # the caller's to change: a 400
        load(g.site.url("/page/plain"), **{kind: [{"url": target}]})
    assert host in refused_hosts(refusals)  # Chromium asked the proxy, which said no
    guard.assert_untouched()


def test_forwarding_headers_do_not_move_the_request(guard: Baseline, refusals: RefusalLog) -> None:
    g = guard.guarded
    canary = f"{CANARY}:{g.port}"
    headers = {"X-Forwarded-Host": canary, "X-Forwarded-For": CANARY, "Forwarded": f"host={canary}",
               "X-Original-URL": f"http://{canary}/", "X-Host": canary}
    url = g.site.url("/page/plain")
    shot = take_screenshot(ScreenshotRequest.model_validate({"url": url, "headers": headers}))
    assert (shot.status_code, shot.final_url) == (200, url)
    assert refusals.refusals == ()
    guard.assert_untouched()


def test_cookie_domains_do_not_move_the_request(guard: Baseline, refusals: RefusalLog) -> None:
    g = guard.guarded
    cookies = [{"name": "a", "value": "1", "domain": CANARY}, {"name": "b", "value": "2", "domain": "internal.test"},
               {"name": "c", "value": "3", "domain": "169.254.169.254"}, {"name": "d", "value": "4"}]
    url = g.site.url("/page/plain")
    page = load(url, cookies=cookies, authenticate={"username": "u", "password": "p"})
    assert (page.status_code, page.final_url) == (200, url)
    assert refusals.refusals == ()
    guard.assert_untouched()
