"""POST /v1/web/map end to end: HTTP to the local API, the real handler, metering against moto's server,
the sample site on loopback (127.0.8.2:80), and the internal canary on 127.0.0.1 that must see nothing.

The API runs with only the site's addresses allowed, so 127.0.0.1 is as internal as anything in production.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.egress_servers import CanaryServer
from tests.support.local_api import LocalApi, start_local_api
from tests.support.sample_site import (
    BOMB_ADDRESS,
    OTHER_ADDRESS,
    SITE_ADDRESS,
    SampleSite,
    SiteServer,
    bomb_routes,
)
from webcapture.browser.launch import processes

CREDITS = 100


@pytest.fixture(scope="module")
def canary() -> Iterator[CanaryServer]:
    server = CanaryServer("127.0.0.1")
    yield server
    server.stop()


@pytest.fixture(scope="module")
def sample(canary: CanaryServer) -> Iterator[SampleSite]:
    site = SampleSite(SITE_ADDRESS, canary=f"127.0.0.1:{canary.port}")
    server = SiteServer(site.routes())
    yield site
    server.stop()


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    allowed = f"{SITE_ADDRESS}/32,{OTHER_ADDRESS}/32,{BOMB_ADDRESS}/32"
    stack = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": allowed}, demo_credits=CREDITS)
    yield stack
    stack.stop()


@pytest.fixture
def untouched(canary: CanaryServer) -> Iterator[None]:
    with canary.untouched():
        yield


def remaining(api: LocalApi) -> Any:
    keys = assert_success(api.call("GET", "/v1/api-keys/list"), 0)["data"]["apiKeys"]
    return next(key["remaining"] for key in keys if key["id"] == api.key_id)


def map_site(api: LocalApi, body: dict[str, Any]) -> Any:
    response = api.call("POST", "/v1/web/map", json=body)
    # A failure of ours says why: the function's own record of it, from the stack's log.
    assert response.status_code != 500, [line for line in api.output if "unhandled error" in line][-2:]
    return response


def test_map_answers_the_sitemaps_urls_and_the_start_pages_links_for_one_credit(
        api: LocalApi, sample: SampleSite, untouched: None) -> None:
    before = remaining(api)
    expected = list(dict.fromkeys(sample.url(path) for path in [
        "/", *sample.sitemap_paths(), *sample.home_link_paths_in_scope(ignore_query=True)]))
    # A limit the sitemaps and the start page fill: map walks the site's links only when they give less.
    body = assert_success(map_site(api, {"url": sample.url("/"), "limit": len(expected)}), 1)
    urls = [link["url"] for link in body["data"]["links"]]
    assert urls == expected
    assert body["data"]["total"] == len(urls)
    # robots.txt names a sitemap on the canary and one redirecting to it: both refused, said in the warning.
    assert "refused by the egress policy" in body["data"]["warning"]
    assert remaining(api) == before - 1


def test_map_options_over_http(api: LocalApi, sample: SampleSite, untouched: None) -> None:
    only = assert_success(map_site(api, {"url": sample.url("/"), "sitemap": "only", "limit": 3}), 1)
    assert [link["url"] for link in only["data"]["links"]] == [sample.url(p) for p in sample.sitemap_paths()[:3]]
    skip = assert_success(map_site(api, {"url": sample.url("/"), "sitemap": "skip", "limit": 2,
                                         "ignoreQueryParameters": False, "search": "p2"}), 1)
    # The home page links to /l1/p2.html, and to it with parameters in two orders: one spelling of those.
    assert [link["url"] for link in skip["data"]["links"]] == [sample.url("/l1/p2.html"),
                                                              sample.url("/l1/p2.html?a=1&b=2")]


def test_bad_input_is_a_422_listing_every_issue_and_costs_nothing(api: LocalApi, untouched: None) -> None:
    before = remaining(api)
    response = map_site(api, {"url": "ftp://example.com/", "limit": 0, "sitemap": "sometimes",
                              "includeSubdomains": "yes"})
    assert response.status_code == 422
    issues = {tuple(issue["path"]): issue for issue in response.json()["error"]["issues"]}
    assert issues[("url",)]["code"] == "invalid_string"
    assert issues[("limit",)]["code"] == "too_small"
    assert issues[("sitemap",)]["code"] == "invalid_enum_value"
    assert issues[("includeSubdomains",)]["code"] == "invalid_type"
    too_many = map_site(api, {"url": "https://example.com/", "limit": 5001})
    assert too_many.status_code == 422
    assert too_many.json()["error"]["issues"][0]["code"] == "too_big"
    assert map_site(api, {}).json()["error"]["issues"][0]["message"] == "Required"
    assert remaining(api) == before


def test_an_internal_start_url_is_a_400_before_any_credit(
        api: LocalApi, canary: CanaryServer, untouched: None) -> None:
    before = remaining(api)
    for url in (f"http://127.0.0.1:{canary.port}/", f"http://2130706433:{canary.port}/",
                f"http://[::1]:{canary.port}/", "http://169.254.169.254/latest/meta-data/"):
        assert_envelope_error(map_site(api, {"url": url}), 400, "URL_NOT_ALLOWED")
    assert remaining(api) == before


def test_a_start_page_redirecting_inside_is_a_400_and_refunded(
        api: LocalApi, sample: SampleSite, canary: CanaryServer, untouched: None) -> None:
    # /sitemaps/to-internal.xml answers 302 to the canary: as a start page, that is the target refused.
    before = remaining(api)
    assert_envelope_error(map_site(api, {"url": sample.url("/sitemaps/to-internal.xml")}), 400,
                          "URL_NOT_ALLOWED")
    assert remaining(api) == before


@pytest.mark.parametrize("kind", ["gzip", "laughs"])
def test_sitemap_bombs_give_a_bounded_partial_answer(api: LocalApi, kind: str, untouched: None) -> None:
    server = SiteServer(bomb_routes(kind), BOMB_ADDRESS)
    try:
        body = assert_success(map_site(api, {"url": f"http://{BOMB_ADDRESS}/"}), 1)
    finally:
        server.stop()
    assert [link["url"] for link in body["data"]["links"]] == [f"http://{BOMB_ADDRESS}/",
                                                              f"http://{BOMB_ADDRESS}/a.html"]
    assert "sitemap" in body["data"]["warning"]


def _tree_peak_mb(root: int) -> float:
    """The peak resident memory (VmHWM) of the local API and everything it started, added up, in MB."""
    pids, total_kb = [root], 0
    while pids:
        pid = pids.pop()
        pids.extend(processes.children(pid))
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            total_kb += next((int(line.split()[1]) for line in status.splitlines()
                              if line.startswith("VmHWM:")), 0)
    return total_kb / 1024


def test_a_nested_sitemap_bomb_is_stopped_in_time_and_in_little_memory(api: LocalApi, untouched: None) -> None:
    # robots.txt names /nest.xml.gz: one <url> of four million children (16 MB inflated), which took a map
    # function from 157 MB to 807 MB. Every process the answer needs is up before the peak is read.
    server = SiteServer(bomb_routes("nested"), BOMB_ADDRESS)
    try:
        assert_success(map_site(api, {"url": f"http://{BOMB_ADDRESS}/", "sitemap": "skip"}), 1)
        before = _tree_peak_mb(api.process.pid)
        start = time.monotonic()
        body = assert_success(map_site(api, {"url": f"http://{BOMB_ADDRESS}/"}), 1)
        took = time.monotonic() - start
        grown = _tree_peak_mb(api.process.pid) - before
    finally:
        server.stop()
    assert "XML elements" in body["data"]["warning"]
    assert took < 10, took
    assert grown < 100, grown


def webcapture_map(api: LocalApi, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": api.api_key}
    return subprocess.run([sys.executable, "-m", "webcapture_client.cli", "map", *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_cli_prints_one_url_per_line(api: LocalApi, sample: SampleSite, untouched: None) -> None:
    expected = [sample.url(path)
                for path in dict.fromkeys(["/", *sample.home_link_paths_in_scope(ignore_query=True)])]
    run = webcapture_map(api, sample.url("/"), "--sitemap", "skip", "--limit", str(len(expected)), "--quiet")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"{sample.url('/')}\tHome"
    assert [line.split("\t")[0] for line in lines] == expected
    as_json = webcapture_map(api, sample.url("/"), "--sitemap", "only", "--limit", "2", "--json", "--quiet")
    assert json.loads(as_json.stdout)["total"] == 2
    refused = webcapture_map(api, "http://127.0.0.1:1/", "--quiet")
    assert refused.returncode == 4 and "URL_NOT_ALLOWED" in refused.stderr
