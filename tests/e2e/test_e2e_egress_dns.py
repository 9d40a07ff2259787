"""The egress guard's lookups over real HTTP to the local API with real Chromium: a stack whose guard asks a
loopback DNS server (WEBCAPTURE_EGRESS_DNS_SERVER) that answers slowly and counts what it is asked.

A page with 60 resources on its own host costs one lookup of that host for the whole request (the edge's,
whose checked answer every connection then uses), an unresolvable host the page embeds is asked once and its
failure kept, and the next request asks again: nothing is remembered between requests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.api_answers import assert_success
from tests.support.dns_server import DnsServer
from tests.support.egress_resolvers import MapResolver
from tests.support.local_api import LocalApi, start_local_api
from tests.support.recording_origin import RecordingOrigin, recording_origin

HOST, MISSING = "slow.test", "missing.test"
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>'


@pytest.fixture(scope="module")
def dns() -> Iterator[DnsServer]:
    server = DnsServer(MapResolver({HOST: ["127.0.0.2"]}), delay_s=0.25)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site() -> Iterator[RecordingOrigin]:
    with recording_origin("127.0.0.2") as origin:
        for index in range(60):
            origin.serve(f"/r/{index}.svg", SVG, "image/svg+xml")
        images = "".join(f'<img src="/r/{index}.svg">' for index in range(60))
        broken = "".join(f'<img src="http://{MISSING}:{origin.port}/m/{index}.svg">' for index in range(10))
        origin.serve("/sixty.html", f"<!doctype html><title>sixty</title>{images}")
        origin.serve("/broken.html", f"<!doctype html><title>broken</title>{images}{broken}")
        yield origin


@pytest.fixture(scope="module")
def dns_stack(dns: DnsServer, site: RecordingOrigin) -> Iterator[LocalApi]:
    api = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.2/32", "WEBCAPTURE_EGRESS_DNS_SERVER": dns.address,
                           "WEBCAPTURE_REQUEST_BUDGET_MS": "20000"},
                          prewarm=("AuthorizerFunction", "LinksFunction", "ScreenshotFunction", "ContentFunction"))
    # A fresh stack's first requests may meet containers still starting on a loaded machine: wait until one
    # capture goes through, so the tests count lookups of warm requests.
    for _ in range(5):
        if api.call("POST", "/v1/web/links", json={"url": site.url("/sixty.html")}).status_code == 200:
            break
    yield api
    api.stop()


def capture(api: LocalApi, url: str) -> None:
    response = api.call("POST", "/v1/web/screenshot", json={"url": url, "screenshotOptions": {"fullPage": False}})
    assert response.status_code == 200, response.text[:300]


def test_sixty_resources_on_one_host_cost_one_lookup(
    dns_stack: LocalApi, dns: DnsServer, site: RecordingOrigin
) -> None:
    before, served = dns.lookups(HOST), len(site.requests())
    capture(dns_stack, f"http://{HOST}:{site.port}/sixty.html")
    assert len(site.requests()) - served == 61  # the page and its 60 images, all fetched
    assert dns.lookups(HOST) - before == 1


def test_a_failed_lookup_is_kept_for_the_request_and_asked_again_by_the_next(
    dns_stack: LocalApi, dns: DnsServer, site: RecordingOrigin
) -> None:
    before_host, before_missing = dns.lookups(HOST), dns.lookups(MISSING)
    capture(dns_stack, f"http://{HOST}:{site.port}/broken.html")
    assert dns.lookups(MISSING) - before_missing == 1  # ten images on it, one lookup
    assert dns.lookups(HOST) - before_host == 1
    capture(dns_stack, f"http://{HOST}:{site.port}/broken.html")
    assert dns.lookups(MISSING) - before_missing == 2  # a new request remembers nothing
    assert dns.lookups(HOST) - before_host == 2


def test_content_answers_with_the_page_from_the_slow_host(dns_stack: LocalApi, site: RecordingOrigin) -> None:
    response = dns_stack.call("POST", "/v1/web/content", json={"url": f"http://{HOST}:{site.port}/sixty.html"})
    assert "<title>sixty</title>" in assert_success(response, 1)["data"]["html"]
