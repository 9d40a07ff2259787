"""The fast path end to end (docs/fast-path.md), over HTTP to a local API of its own with moto and real
Chromium: `auto` renders a script-built page and fetches a static one; `http` with `actions` is a 422
naming the field; `http` following a redirect to an internal address is a 400 URL_NOT_ALLOWED and the
canary on 127.0.0.1 never sees a connection; an `auto` crawl of pages whose menu a script builds renders
one of them and follows the menu, where an `http` crawl cannot; an incremental crawl after one page changed and one was
deleted reports 1 changed, 1 removed, the rest same, and charges only the changed page; the same
re-crawl from the CLI (`webcapture crawl URL --since JOB_ID --wait --out DIR`, as docs/crawl-and-map.md
shows it) writes only the changed page and says what changed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.egress_names import CANARY, PUBLIC
from tests.support.egress_servers import CanaryServer
from tests.support.fast_pages import FastPageServer
from tests.support.jobs_client import all_results, credits_left, wait_until_settled
from tests.support.local_api import LocalApi, start_jobs_stack

CREDITS = 200
PAGES = 5
SCRIPT_BUILT = (b"<html><head><title>App</title></head><body><div id='root'></div><script>"
                b"document.getElementById('root').innerHTML = '<main><h1>Built by script</h1><p>' + "
                b"'Only after JavaScript ran does this text exist. '.repeat(20) + '</p></main>';"
                b"</script></body></html>")


MENU_PAGES = 4
MENU_JS = ("document.getElementById('main-nav').innerHTML = " + repr("".join(
    f"<a href='/m{n}'>section {n}</a>" for n in range(1, MENU_PAGES + 1))) + ";").encode()


def _menu_page(number: int) -> bytes:
    """A page whose menu only its script builds (as Doxygen's are), its article in its HTML."""
    return (f"<html><title>Section {number}</title><body><div id='main-nav'></div>"
            "<script src='/menu.js'></script><main><h1>Section " + str(number) + "</h1>"
            + f"<p>The article of section {number}, served whole. " * 20 + "</p></main></body></html>").encode()


def _page(number: int, words: str) -> bytes:
    links = "".join(f"<a href='/p{n}'>page {n}</a>" for n in range(1, PAGES + 1))
    return (f"<html><title>Page {number}</title><body><nav>{links}</nav><main><h1>Page {number}</h1>"
            + f"<p>{words} " * 20 + "</p></main></body></html>").encode()


@pytest.fixture(scope="module")
def canary() -> Iterator[CanaryServer]:
    server = CanaryServer(CANARY)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site() -> Iterator[FastPageServer]:
    server = FastPageServer(PUBLIC)
    server.pages["/app"] = (SCRIPT_BUILT, "text/html", "")
    server.pages["/menu.js"] = (MENU_JS, "application/javascript", "")
    for n in range(1, MENU_PAGES + 1):
        server.pages[f"/m{n}"] = (_menu_page(n), "text/html", "")
    for n in range(1, PAGES + 1):
        server.pages[f"/p{n}"] = (_page(n, f"words of page {n}"), "text/html", f'"p{n}-v1"')
    yield server
    server.stop()


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_jobs_stack(f"{PUBLIC}/32", CREDITS)
    yield stack
    stack.stop()


def _markdown(api: LocalApi, body: dict[str, Any]) -> Any:
    return api.call("POST", "/v1/web/markdown", json=body)


def test_auto_renders_a_script_built_page_and_fetches_a_static_one(api: LocalApi, site: FastPageServer) -> None:
    built = assert_success(_markdown(api, {"url": f"http://{PUBLIC}:{site.port}/app", "engine": "auto"}), 1)
    assert built["data"]["metadata"]["engine"] == "browser"
    assert "Only after JavaScript ran" in built["data"]["markdown"]
    static = assert_success(_markdown(api, {"url": f"http://{PUBLIC}:{site.port}/page", "engine": "auto"}), 1)
    assert static["data"]["metadata"]["engine"] == "http"
    assert "every word a reader sees" in static["data"]["markdown"]
    assert static["data"]["metadata"]["etag"] == '"v1"'


def test_http_with_actions_is_a_422_naming_the_field(api: LocalApi, site: FastPageServer) -> None:
    before = credits_left(api)
    answer = _markdown(api, {"url": f"http://{PUBLIC}:{site.port}/page", "engine": "http",
                             "actions": [{"type": "click", "selector": "#more"}]})
    assert answer.status_code == 422, answer.text
    (issue,) = answer.json()["error"]["issues"]
    assert issue["code"] == "custom" and issue["path"] == ["actions"]
    assert credits_left(api) == before


def test_http_following_a_redirect_inside_is_refused_and_the_canary_untouched(
        api: LocalApi, site: FastPageServer, canary: CanaryServer) -> None:
    before = credits_left(api)
    inside = quote(f"http://{CANARY}:{canary.port}/secret", safe="")
    with canary.untouched():
        answer = _markdown(api, {"url": f"http://{PUBLIC}:{site.port}/redirect?to={inside}", "engine": "http"})
        assert_envelope_error(answer, 400, "URL_NOT_ALLOWED")
    assert credits_left(api) == before


def _crawl(api: LocalApi, site: FastPageServer, start: str = "/p1", **more: Any) -> dict[str, Any]:
    answer = api.call("POST", "/v1/web/crawl", json={"url": f"http://{PUBLIC}:{site.port}{start}", "limit": 20,
                                                     "sitemap": "skip", "respectRobotsTxt": False, **more})
    assert answer.status_code == 202, answer.text
    job_id = answer.json()["data"]["jobId"]
    job = wait_until_settled(api, job_id, give_up_s=300)
    return {**job, "results": all_results(api, job_id, 100)}


def test_an_incremental_crawl_reports_one_changed_one_removed_and_charges_only_the_change(
        api: LocalApi, site: FastPageServer) -> None:
    first = _crawl(api, site)
    assert first["completed"] == PAGES and first["creditsCost"] == PAGES
    site.pages["/p2"] = (_page(2, "new words on page 2"), "text/html", '"p2-v2"')
    del site.pages["/p5"]
    before = credits_left(api)
    again = _crawl(api, site, since=first["jobId"])
    statuses = {r["data"]["url"].rsplit("/", 1)[1]: r["data"]["changeStatus"] for r in again["results"]}
    assert statuses == {"p1": "same", "p2": "changed", "p3": "same", "p4": "same", "p5": "removed"}
    assert again["changes"] == {"new": 0, "changed": 1, "same": 3, "removed": 1}
    assert again["creditsCost"] == 1 and before - credits_left(api) == 1


def test_an_auto_crawl_renders_one_page_of_a_menu_built_by_script_and_follows_the_menu(
        api: LocalApi, site: FastPageServer) -> None:
    crawled = _crawl(api, site, start="/m1")
    engines = {r["data"]["url"].rsplit("/", 1)[1]: r["data"]["metadata"]["engine"] for r in crawled["results"]}
    assert sorted(engines) == [f"m{n}" for n in range(1, MENU_PAGES + 1)]
    assert sorted(engines.values()) == ["browser"] + ["http"] * (MENU_PAGES - 1)
    assert all("served whole" in r["data"]["markdown"] for r in crawled["results"])
    fetched = _crawl(api, site, start="/m1", engine="http")  # no browser: the menu's pages are not found
    assert [r["data"]["url"].rsplit("/", 1)[1] for r in fetched["results"]] == ["m1"]


def test_an_unknown_since_is_a_404_and_charges_nothing(api: LocalApi, site: FastPageServer) -> None:
    before = credits_left(api)
    answer = api.call("POST", "/v1/web/crawl", json={"url": f"http://{PUBLIC}:{site.port}/p1",
                                                     "since": "00000000-0000-0000-0000-000000000000"})
    assert_envelope_error(answer, 404, "NOT_FOUND")
    assert credits_left(api) == before


def _cli(api: LocalApi, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": api.api_key}
    return subprocess.run([sys.executable, "-m", "webcapture_client.cli", *args], env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def _docs_page(number: int, words: str) -> bytes:
    links = "".join(f"<a href='/docs/d{n}'>doc {n}</a>" for n in range(1, 5))
    return (f"<html><title>Doc {number}</title><body><nav>{links}</nav><main><h1>Doc {number}</h1>"
            + f"<p>{words} " * 20 + "</p></main></body></html>").encode()


def test_the_cli_re_crawls_incrementally_and_writes_only_what_changed(
        api: LocalApi, site: FastPageServer, tmp_path: Path) -> None:
    for n in range(1, 5):
        site.pages[f"/docs/d{n}"] = (_docs_page(n, f"words of doc {n}"), "text/html", f'"d{n}-v1"')
    start = f"http://{PUBLIC}:{site.port}/docs/d1"
    first = _cli(api, "crawl", start, "--sitemap", "skip", "--ignore-robots", "--limit", "20", "--wait",
                 "--out", str(tmp_path / "pages"))
    assert first.returncode == 0, first.stderr
    assert len(first.stdout.splitlines()) == 4
    job_id = re.search(r"webcapture: crawl (\S+) queued", first.stderr)
    assert job_id is not None, first.stderr
    site.pages["/docs/d3"] = (_docs_page(3, "new words of doc 3"), "text/html", '"d3-v2"')
    del site.pages["/docs/d4"]
    again = _cli(api, "crawl", start, "--sitemap", "skip", "--ignore-robots", "--limit", "20",
                 "--since", job_id[1], "--wait", "--out", str(tmp_path / "changed"))
    assert again.returncode == 0, again.stderr
    (written,) = again.stdout.splitlines()
    assert Path(written).name.endswith("-docs_d3.md") and "new words of doc 3" in Path(written).read_text()
    assert (f"webcapture: since crawl {job_id[1]}: 0 new, 1 changed, 2 same, 1 removed "
            "(same and removed pages are free)") in again.stderr
    assert f"webcapture: removed: http://{PUBLIC}:{site.port}/docs/d4\n" in again.stderr
