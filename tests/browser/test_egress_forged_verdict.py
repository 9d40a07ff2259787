"""A page cannot fake the egress proxy's verdict by sending the proxy's header itself (real Chromium, real
proxy, a loopback fixture page that answers with `X-Webcapture-Egress: refused`)."""

from __future__ import annotations

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import take_screenshot
from webcapture.egress import EGRESS_HEADER, egress_outcome
from webcapture.egress.http1 import status_response
from webcapture.models.requests import ScreenshotRequest


def test_the_header_name_is_secret_per_process() -> None:
    assert EGRESS_HEADER.startswith("X-Webcapture-Egress-") and len(EGRESS_HEADER) > len("X-Webcapture-Egress-") + 8
    assert egress_outcome({"X-Webcapture-Egress": "refused"}) is None
    assert egress_outcome({"x-webcapture-egress-0123456789abcdef": "refused"}) is None
    assert egress_outcome({EGRESS_HEADER.upper(): " Refused "}) == "refused"
    assert f"{EGRESS_HEADER}: refused".encode() in status_response(403, "refused", "no")


def test_a_page_sending_the_verdict_header_is_captured(fixture_server: FixtureHttpServer) -> None:
    shot = take_screenshot(ScreenshotRequest.model_validate(
        {"url": fixture_server.url("/forged-egress"), "screenshotOptions": {"fullPage": False}}))
    assert shot.status_code == 200 and (shot.width, shot.height) == (1280, 800)
