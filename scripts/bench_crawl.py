"""`make bench-crawl`: the 500-page sample site crawled for Markdown against a batch of the same pages, over
the local API on loopback; written to docs/benchmarks/crawl.md.

The crawl finds its pages as it goes (each page's links recorded once in DynamoDB, then queued), where the
batch is handed every URL at submit: the ratio is what discovery, per-host pacing and the crawl's own
bookkeeping cost over running the same pages. The batch's URLs are the ones the crawl of the same round
recorded (its 500 pages and the few others the site links to), as markdown requests with the crawl's
defaults. Both run on the same stack and containers, in turns (crawl, batch, crawl, batch...), so load
from elsewhere falls on both alike; each is timed from submit until GET /v1/jobs/{id} shows it settled,
and the figures are medians of the rounds.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.crawl_site import CrawlSite  # noqa: E402
from tests.support.jobs_client import all_results, wait_until_settled  # noqa: E402
from tests.support.local_api import LocalApi, start_local_api  # noqa: E402
from tests.support.sample_site import OTHER_ADDRESS, SITE_ADDRESS  # noqa: E402

DOC = REPO / "docs" / "benchmarks" / "crawl.md"
TITLE = "# Benchmark: a crawl against a batch of the same pages\n"
TARGET = 1.2


def _submitted(api: LocalApi, path: str, body: dict[str, object]) -> str:
    answer = api.call("POST", path, json=body)
    if answer.status_code != 202:
        raise RuntimeError(f"{path} refused: {answer.status_code} {answer.text[:200]}")
    return str(answer.json()["data"]["jobId"])


def _crawl_round(api: LocalApi, site: CrawlSite, workers: int) -> tuple[float, list[str]]:
    """(seconds from submit to settled, the URLs the crawl recorded)."""
    started = time.perf_counter()
    job_id = _submitted(api, "/v1/web/crawl", {"url": site.url("/"), "limit": 1_000, "sitemap": "skip",
                                               "maxConcurrency": workers})
    job = wait_until_settled(api, job_id, give_up_s=3_600)
    seconds = time.perf_counter() - started
    results = all_results(api, job_id, 100)
    if job["completed"] < len(site.site.pages):
        raise RuntimeError(f"the crawl did not reach every page: {job}")
    return seconds, [r["error"]["url"] if "error" in r else r["data"]["url"] for r in results]


def _batch_round(api: LocalApi, urls: list[str]) -> float:
    started = time.perf_counter()
    job_id = _submitted(api, "/v1/batch", {"operation": "markdown", "requests": [{"url": u} for u in urls]})
    job = wait_until_settled(api, job_id, give_up_s=3_600)
    if job["completed"] < len(urls) - 1:  # the redirect off site answers there as a page
        raise RuntimeError(f"the batch did not complete: {job}")
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=3, help="function containers and queue pollers")
    parser.add_argument("--write-docs", action="store_true", help=f"write {DOC.relative_to(REPO)}")
    args = parser.parse_args(argv)
    site = CrawlSite(canary="127.0.0.3:9")
    stack = start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": f"{SITE_ADDRESS}/32,{OTHER_ADDRESS}/32", "WEBCAPTURE_WARM_START": "0",
         "WEBCAPTURE_DEFAULT_MAX_CONCURRENCY": str(args.workers + 1)},
        demo_credits=-1,
        extra_args=["--max-containers", str(args.workers), "--parameter",
                    f"JobsWorkerConcurrency={args.workers}"])
    crawl_s: list[float] = []
    batch_s: list[float] = []
    try:
        with stack.errors_shown():
            for round_number in range(args.rounds):
                seconds, urls = _crawl_round(stack, site, args.workers)
                crawl_s.append(seconds)
                batch_s.append(_batch_round(stack, urls))
                print(f"round {round_number + 1}: crawl {crawl_s[-1]:.1f} s, batch of its {len(urls)} pages "
                      f"{batch_s[-1]:.1f} s", flush=True)
    finally:
        stack.stop()
        site.stop()
    crawl_median, batch_median = statistics.median(crawl_s), statistics.median(batch_s)
    ratio = crawl_median / batch_median
    text = "\n".join([
        "`make bench-crawl` (scripts/bench_crawl.py), over the local API on loopback: the 500-page sample "
        "site (tests/support/crawl_site.py) crawled for Markdown from its home page (`limit` 1,000, "
        f"`sitemap: skip`, `maxConcurrency` {args.workers}), then the same pages as one markdown batch; "
        f"{args.workers} function containers and queue pollers for both, in turns, {args.rounds} "
        "round(s), medians, each timed from submit until the job shows settled.",
        "",
        "| what | median | target |",
        "|---|---|---|",
        f"| crawl of the site (discovery, claims, host slots, each page once) | {crawl_median:.1f} s | |",
        f"| batch of the same pages, handed every URL at submit | {batch_median:.1f} s | |",
        f"| crawl / batch | {ratio:.2f}x | <= {TARGET}x |",
        "",
        "Every round: " + ", ".join(f"crawl {c:.1f} s / batch {b:.1f} s"
                                    for c, b in zip(crawl_s, batch_s, strict=True)) + ".",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; the "
        "host is shared, so absolute times move between runs, the ratio much less.",
    ])
    print(TITLE + "\n" + text)
    if args.write_docs:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        if not DOC.exists():
            DOC.write_text(TITLE, encoding="utf-8")
        write_block("crawl", text, doc=DOC)
        print(f"wrote {DOC.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
