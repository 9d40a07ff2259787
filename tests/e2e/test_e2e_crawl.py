"""POST /v1/web/crawl end to end (docs/crawl-and-map.md#crawl-and-map), over HTTP to a local API of its own:
the submit reserves
`limit x cost`, the pages travel through moto's SQS to the crawl function (real Chromium), each canonical
URL is recorded once in moto's DynamoDB, results page through GET /v1/jobs/{id}, and what the crawl did
not use comes back once at the end.

The site (tests/support/crawl_site.py) is served on loopback: 37 pages over 6 levels (the sample site's
shape, fewer pages per level: what these tests check is the bookkeeping, which a larger tree only makes
slower), 300 more under /many/ for the CLI's long crawl, a sitemap index with a gzip sitemap, robots.txt, a calendar trap, one page under several spellings, a redirect off site
and a link to the internal canary on 127.0.0.3, which must see nothing. The stack allows only the site's
addresses and 127.0.0.1 (the webhook receiver), so 127.0.0.3 is as internal as anything in production.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.support.api_answers import assert_envelope_error
from tests.support.crawl_site import CrawlSite
from tests.support.egress_servers import CanaryServer
from tests.support.jobs_client import (
    all_results,
    credits_left,
    drained,
    job,
    messages_held,
    wait_until_settled,
)
from tests.support.local_api import LocalApi, start_jobs_stack
from tests.support.sample_site import OTHER_ADDRESS, SITE_ADDRESS
from tests.support.webhook_receiver import WebhookReceiver

CREDITS = 5_000
CANARY_HOST = "127.0.0.3"
# Pages per level, depth 0..5: level 1 keeps the sample site's four pages, which the home page's spellings
# and the path-pattern test name.
LEVEL_SIZES = (1, 4, 8, 8, 8, 8)
MANY = 300


@pytest.fixture(scope="module")
def canary() -> Iterator[CanaryServer]:
    server = CanaryServer(CANARY_HOST)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def site(canary: CanaryServer) -> Iterator[CrawlSite]:
    served = CrawlSite(canary=f"{CANARY_HOST}:{canary.port}", level_sizes=LEVEL_SIZES, many=MANY)
    yield served
    served.stop()


@pytest.fixture(scope="module")
def api() -> Iterator[LocalApi]:
    stack = start_jobs_stack(f"{SITE_ADDRESS}/32,{OTHER_ADDRESS}/32,127.0.0.1/32", CREDITS)
    # On a busy machine a cold stack's first calls can answer 500 or 504: the authorizer's or the jobs
    # function's container is still starting when API Gateway's 29 s run out. Both are warmed here (an
    # unknown job is the jobs function's 404), so the tests' own calls (each of which must answer, a
    # cancel's DELETE among them) find them started.
    for path, answered in (("/v1/api-keys/list", 200), ("/v1/jobs/job_warm_up_unknown", 404)):
        for _ in range(5):
            if stack.call("GET", path).status_code == answered:
                break
    yield stack
    stack.stop()


@pytest.fixture
def untouched(canary: CanaryServer) -> Iterator[None]:
    with canary.untouched():
        yield


def crawl(api: LocalApi, body: dict[str, Any], **headers: str) -> requests.Response:
    response = api.call("POST", "/v1/web/crawl", json=body, headers=headers)
    # A failure of ours says why: the function's own record of it, from the stack's log.
    assert response.status_code != 500, [line for line in api.output if "unhandled error" in line][-2:]
    return response


def started(api: LocalApi, body: dict[str, Any]) -> str:
    response = crawl(api, body)
    assert response.status_code == 202, response.text
    data = response.json()["data"]
    assert data["status"] == "queued" and data["total"] == 1
    assert data["statusUrl"] == f"{api.url}/v1/jobs/{data['jobId']}"
    assert response.json()["creditsCost"] == body.get("limit", 100)
    return str(data["jobId"])


def pages(results: list[dict[str, Any]]) -> list[str]:
    """The URL each result is for: a page's own (data.url is where it ended up) or its error's."""
    return [r["error"]["url"] if "error" in r else r["data"]["url"] for r in results]


def issue_paths(response: requests.Response) -> list[list[Any]]:
    assert response.status_code == 422, response.text
    return [issue["path"] for issue in response.json()["error"]["issues"]]


def test_bad_input_is_refused_before_any_job_or_credit(
        api: LocalApi, site: CrawlSite, canary: CanaryServer, untouched: None) -> None:
    before = credits_left(api)
    start = site.url("/")
    assert issue_paths(crawl(api, {"url": start, "limit": 0})) == [["limit"]]
    assert issue_paths(crawl(api, {"url": start, "limit": 100_001})) == [["limit"]]
    assert issue_paths(crawl(api, {"url": start, "maxDepth": 21})) == [["maxDepth"]]
    assert issue_paths(crawl(api, {"url": start, "formats": ["json"]})) == [["extract"]]
    assert issue_paths(crawl(api, {"url": start, "formats": ["pdf"], "delay": 10_001,
                                   "includePaths": ["/a"] * 51})) == [
        ["includePaths"], ["delay"], ["formats", 0]]
    # json asks the AI model, and this stack has none: refused before anything is reserved.
    assert_envelope_error(crawl(api, {"url": start, "formats": ["json"], "extract": {"prompt": "Title?"}}),
                          503, "AI_NOT_CONFIGURED")
    for url in (f"http://{CANARY_HOST}:{canary.port}/", f"http://2130706435:{canary.port}/",
                "http://169.254.169.254/latest/meta-data/"):
        assert_envelope_error(crawl(api, {"url": url}), 400, "URL_NOT_ALLOWED")
    # More than the key has: 429 and nothing queued.
    assert_envelope_error(crawl(api, {"url": start, "limit": CREDITS + 1}), 429, "USAGE_EXCEEDED")
    assert credits_left(api) == before
    assert messages_held(api, "Crawl") == 0


def test_path_patterns_are_globs_and_a_regular_expression_is_read_as_one(
        api: LocalApi, site: CrawlSite, untouched: None) -> None:
    base = {"url": site.url("/"), "maxDepth": 1, "sitemap": "skip", "limit": 20}
    as_glob = started(api, {**base, "includePaths": ["/l1/*.html"]})
    # As a regular expression this would match the level-1 pages; as a glob its brackets are literal.
    as_regex = started(api, {**base, "includePaths": ["/l1/p[0-9].html"]})
    globbed = wait_until_settled(api, as_glob, give_up_s=300)
    # Globs match the path: /l1/p2.html under its query spelling is a page of its own.
    assert sorted(pages(all_results(api, as_glob, 100))) == sorted(site.url(path) for path in [
        "/", "/l1/p0.html", "/l1/p1.html", "/l1/p2.html", "/l1/p3.html", "/l1/p2.html?a=1&b=2"])
    assert globbed["creditsCost"] == 6
    regexed = wait_until_settled(api, as_regex, give_up_s=300)
    assert pages(all_results(api, as_regex, 100)) == [site.url("/")] and regexed["creditsCost"] == 1


def test_a_site_is_crawled_each_page_once_within_the_depth(
        api: LocalApi, site: CrawlSite, untouched: None) -> None:
    before = credits_left(api)
    hits_before = len(site.main.hits)
    job_id = started(api, {"url": site.url("/"), "limit": 1_000, "maxConcurrency": 4})
    settled = wait_until_settled(api, job_id, give_up_s=1_500)
    results = all_results(api, job_id, 100)
    crawled = pages(results)
    assert Counter(crawled).most_common(1)[0][1] == 1, "a page was recorded twice"
    assert set(crawled) == site.expected_pages()
    assert [r["index"] for r in results] == list(range(len(results))) and settled["total"] == len(results)
    by_url = dict(zip(crawled, results, strict=True))
    home = by_url[site.url("/")]["data"]
    assert (home["depth"], home["statusCode"]) == (0, 200) and "# Home" in home["markdown"]
    assert by_url[site.url("/calendar/2026/05")]["data"]["depth"] == 5
    moved = by_url[site.url("/moved")]
    assert moved["status"] == "failed" and moved["error"]["code"] == "SKIPPED"
    assert f"http://{OTHER_ADDRESS}/landing" in moved["error"]["message"]
    # Only the skipped redirect was not charged; the rest of the 1,000 reserved came back at the end.
    assert (settled["status"], settled["completed"], settled["failed"]) == ("completed", len(crawled) - 1, 1)
    assert settled["creditsCost"] == len(crawled) - 1
    assert credits_left(api) == before - settled["creditsCost"]
    fetched = [hit.split("?")[0] for hit in site.main.hits[hits_before:]]
    assert "/private/" not in fetched and "/calendar/2026/06" not in fetched
    # The last page's message is acknowledged after its worker settled the job: it may still be in flight
    # here. Once the queue drains, the settled job is what it was.
    assert drained(api, "Crawl", give_up_s=60) == 0
    final = job(api, job_id, limit=1)
    assert [final[k] for k in ("status", "completed", "failed", "creditsCost")] == [
        settled[k] for k in ("status", "completed", "failed", "creditsCost")]
    assert credits_left(api) == before - settled["creditsCost"]


def test_a_refused_link_is_url_not_allowed_and_each_page_has_its_webhook(
        api: LocalApi, site: CrawlSite, canary: CanaryServer, untouched: None) -> None:
    receiver = WebhookReceiver()
    try:
        receiver.secret = api.call("GET", "/v1/webhooks/secret").json()["data"]["secret"]
        job_id = started(api, {
            "url": site.url("/"), "maxDepth": 1, "sitemap": "skip", "allowExternal": True, "limit": 30,
            "includePaths": ["/", "/l1/p0.html", "/secret", "/landing", "/moved"],
            "formats": ["markdown", "links", "html", "screenshot"],
            "webhook": {"url": receiver.url, "events": ["item.completed", "job.completed"],
                        "metadata": {"run": "crawl"}}})
        settled = wait_until_settled(api, job_id, give_up_s=300)
        results = all_results(api, job_id, 2)
        deliveries = receiver.wait_for(len(results) + 1, 60)
    finally:
        receiver.stop()
    by_url = dict(zip(pages(results), results, strict=True))
    canary_link = f"http://{CANARY_HOST}:{canary.port}/secret"
    assert set(by_url) == {site.url("/"), site.url("/l1/p0.html"), canary_link, f"http://{OTHER_ADDRESS}/landing"}
    assert by_url[canary_link]["error"]["code"] == "URL_NOT_ALLOWED"
    page = by_url[site.url("/l1/p0.html")]["data"]
    assert {"markdown", "links", "html", "screenshot"} <= set(page)
    assert [link["url"] for link in page["links"]] == [site.url(p) for p in site.site.children["/l1/p0.html"]]
    shot = requests.get(page["screenshot"]["permanentUrl"], timeout=30)
    assert shot.status_code == 200 and shot.content.startswith(b"\x89PNG") and page["screenshot"]["fileId"]
    assert settled["creditsCost"] == 3  # the refused link is refunded
    verified = [d.verified for d in deliveries]
    assert all(v is not None for v in verified), "a signature did not verify"
    items = sorted((v["index"], v["itemStatus"]) for v in verified if v and v["type"] == "item.completed")
    assert items == sorted((r["index"], r["status"]) for r in results)
    (done,) = [v for v in verified if v and v["type"] == "job.completed"]
    assert (done["jobId"], done["creditsCost"], done["metadata"]) == (job_id, 3, {"run": "crawl"})


def test_cancel_stops_discovery_and_gives_back_what_was_not_crawled(
        api: LocalApi, site: CrawlSite, untouched: None) -> None:
    before = credits_left(api)
    # One page at a time, two seconds apart: the crawl has barely started when it is cancelled.
    job_id = started(api, {"url": site.url("/"), "limit": 600, "sitemap": "skip", "maxConcurrency": 1,
                           "delay": 2_000})
    while job(api, job_id)["completed"] < 2:
        time.sleep(0.2)
    cancelled = api.call("DELETE", f"/v1/jobs/{job_id}")
    assert cancelled.status_code == 200 and cancelled.json()["data"]["status"] in ("cancelling", "cancelled")
    # From `cancelling` on, no page is recorded: the total the DELETE answered is the crawl's last, however
    # many pages a busy machine let it find before the DELETE arrived.
    at_cancel = cancelled.json()["data"]["total"]
    settled = wait_until_settled(api, job_id, give_up_s=300)
    assert settled["status"] == "cancelled" and settled["cancelled"] >= 1
    assert settled["total"] == at_cancel < 600
    results = all_results(api, job_id, 100)
    assert len(results) == settled["total"]
    charged = sum(r["status"] == "completed" for r in results)
    assert settled["creditsCost"] == charged and credits_left(api) == before - charged
    # The cancelled pages' messages come up, find their pages done and are acknowledged: nothing more is
    # found or run (a wait bound for a busy machine's pollers, not a timed check).
    assert drained(api, "Crawl", give_up_s=120) == 0
    assert job(api, job_id)["total"] == settled["total"]


def test_the_same_idempotency_key_answers_the_same_crawl(api: LocalApi, site: CrawlSite, untouched: None) -> None:
    before = credits_left(api)
    body = {"url": site.url("/about.html"), "maxDepth": 0, "sitemap": "skip", "limit": 3}
    first = crawl(api, body, **{"Idempotency-Key": "crawl-once"})
    again = crawl(api, body, **{"Idempotency-Key": "crawl-once"})
    assert first.status_code == again.status_code == 202
    assert again.json()["data"]["jobId"] == first.json()["data"]["jobId"] and again.json()["creditsCost"] == 0
    other = crawl(api, {**body, "limit": 4}, **{"Idempotency-Key": "crawl-once"})
    assert_envelope_error(other, 409, "IDEMPOTENCY_CONFLICT")
    settled = wait_until_settled(api, first.json()["data"]["jobId"], give_up_s=300)
    assert settled["creditsCost"] == 1 and credits_left(api) == before - 1


def webcapture(api: LocalApi, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": api.api_key}
    return subprocess.run([sys.executable, "-m", "webcapture_client.cli", *args], env=env, capture_output=True,
                          text=True, timeout=600, check=False)


def test_the_cli_writes_one_file_per_page(api: LocalApi, site: CrawlSite, tmp_path: Path, untouched: None) -> None:
    run = webcapture(api, "crawl", site.url("/l1/p0.html"), "--max-depth", "1", "--sitemap", "skip",
                     "--limit", "10", "--wait", "--out", str(tmp_path / "pages"), "--quiet")
    assert run.returncode == 0, run.stderr
    written = [Path(line) for line in run.stdout.splitlines()]
    children = site.site.children["/l1/p0.html"]
    assert sorted(path.name for path in written) == sorted(
        ["0000-l1_p0.html.md", *(f"{i:04d}-{p.strip('/').replace('/', '_')}.md"
                                 for i, p in enumerate(children, start=1))])
    assert "Text of Page /l1/p0.html at depth 1." in (tmp_path / "pages" / "0000-l1_p0.html.md").read_text()
    as_json = webcapture(api, "crawl", site.url("/about.html"), "--max-depth", "0", "--format", "markdown",
                         "--format", "links", "--wait", "--out", str(tmp_path / "json"), "--quiet")
    assert as_json.returncode == 0, as_json.stderr
    (page,) = [json.loads(Path(line).read_text()) for line in as_json.stdout.splitlines()]
    assert page["url"] == site.url("/about.html") and page["links"][0]["url"] == site.url("/")
    # 300 pages, every one written: /many/ and the first 299 of the 300 it links to.
    many = webcapture(api, "crawl", site.url("/many/"), "--limit", "300", "--sitemap", "skip",
                      "--max-concurrency", "4", "--wait", "--out", str(tmp_path / "many"), "--quiet")
    assert many.returncode == 0, many.stderr
    files = sorted((tmp_path / "many").iterdir())
    assert len(files) == 300 and len(many.stdout.splitlines()) == len(files)
    assert sorted(int(path.name[:4]) for path in files) == sorted(set(int(path.name[:4]) for path in files))
    refused = webcapture(api, "crawl", f"http://{CANARY_HOST}:1/", "--quiet")
    assert refused.returncode == 4 and "URL_NOT_ALLOWED" in refused.stderr
