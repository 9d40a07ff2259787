"""`make bench-crawl-size`: a whole crawl of a large synthetic site with `engine: http`, over the local API on
loopback, watched from its first thousand pages to its last: pages per second and the memory of the crawl's
function containers for each thousand, then every result read back through paging; written to
docs/benchmarks.md.

The site is shaped so that every page costs the same: the start page links to the first WIDTH pages, and
each other page links home and to the page WIDTH further on, so each page crawled records one new URL and
the frontier stays WIDTH pages wide (enough for every worker to sweep a share of it) down to `maxDepth`
20 (20,001 pages). On a site where each page links to ten new ones, the first tenth of a crawl records
every URL the limit allows (ten per page) and the rest records none, so its pages/s rise as it goes.
Unlike `bench_fast_path.py --synthetic`, which times one process's page work, this is the service's own
crawl: its bookkeeping (DynamoDB items, SQS messages, result pages) against moto's server, its workers in
the local API's containers. moto keeps every item in its own memory, so the local API process grows with
the crawl (what AWS would charge for those items is docs/crawl-and-map.md's); the containers' memory is
the crawl's own.

    python scripts/bench_crawl_at_size.py [--pages 20000] [--workers 3] [--samples] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.bench_fast_path import send_numbered_page  # noqa: E402
from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.jobs_client import all_results, job, settled  # noqa: E402
from tests.support.local_api import LocalApi, start_local_api  # noqa: E402
from tests.support.stack_processes import containers_under  # noqa: E402

ADDRESS = "127.0.4.3"
WIDTH = 1_000
POLL_S = 1.0


class _Site(BaseHTTPRequestHandler):
    """Page 1 links to pages 2..WIDTH+1, page n to page 1 and page n+WIDTH; a heading, ~3 KB of
    paragraphs, an ETag."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *_: Any) -> None:
        pass

    def do_GET(self) -> None:
        name = self.path.strip("/").removeprefix("p") or "1"
        if not name.isdigit():  # robots.txt and the like: the site has none
            self.send_error(404)
            return
        number = int(name)
        linked = range(2, WIDTH + 2) if number == 1 else [number + WIDTH]
        links = "".join(f"<a href='/p{n}'>page {n}</a> " for n in linked)
        text = f"<p>Page {number} of the site: a paragraph that a reader reads, then another. </p>" * 40
        body = (f"<!doctype html><title>Page {number}</title><nav><a href='/p1'>home</a> {links}</nav>"
                f"<main><h1>Page {number}</h1>{text}</main>").encode()
        send_numbered_page(self, number, body)


def _rss_mb(pids: list[int]) -> list[float]:
    sizes = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as status:
                line = next(line for line in status if line.startswith("VmRSS:"))
            sizes.append(int(line.split()[1]) / 1024)
        except (OSError, StopIteration):  # it ended meanwhile
            continue
    return sizes


class _Watch:
    """The crawl's progress and memory, read every POLL_S: (seconds since submit, pages completed, the
    largest crawl container's RSS, the local API process's RSS)."""

    def __init__(self, api: LocalApi, job_id: str, started: float) -> None:
        self.api, self.job_id, self.started = api, job_id, started
        self.samples: list[tuple[float, int, float, float]] = []
        self.final: dict[str, Any] = {}

    def run(self, give_up_s: float) -> None:
        assert self.api.process is not None
        root = self.api.process.pid
        while time.perf_counter() - self.started < give_up_s:
            data = job(self.api, self.job_id, limit=1)
            containers = _rss_mb(containers_under(root, "CrawlFunction"))
            self.samples.append((time.perf_counter() - self.started, int(data["completed"]),
                                 max(containers, default=0.0), sum(_rss_mb([root]))))
            if settled(data):
                self.final = data
                return
            time.sleep(POLL_S)
        raise RuntimeError(f"crawl {self.job_id} did not end within {give_up_s} s: {self.samples[-1]}")

    def when(self, pages: int) -> tuple[float, float, float]:
        """The first sample with at least `pages` completed: its time and the two RSS figures."""
        seconds, _, crawl_mb, api_mb = next(s for s in self.samples if s[1] >= pages)
        return seconds, crawl_mb, api_mb


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--samples", action="store_true",
                        help="also print every sample: seconds, pages completed, the RSS figures in MB")
    args = parser.parse_args(argv)
    if args.pages < 3_000 or args.pages % 1_000 or args.pages > 20 * WIDTH:
        parser.error("--pages: a multiple of 1,000 from 3,000 to 20,000")
    site = ThreadingHTTPServer((ADDRESS, 0), _Site)
    site.daemon_threads = True
    threading.Thread(target=site.serve_forever, daemon=True).start()
    origin = f"http://{ADDRESS}:{site.server_address[1]}"
    stack = start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": f"{ADDRESS}/32", "WEBCAPTURE_WARM_START": "0",
         "WEBCAPTURE_DEFAULT_MAX_CONCURRENCY": str(args.workers)},
        demo_credits=-1, prewarm=("CrawlFunction",),
        extra_args=["--max-containers", str(args.workers), "--parameter",
                    f"JobsWorkerConcurrency={args.workers}"])
    try:
        with stack.errors_shown():
            started = time.perf_counter()
            answer = stack.call("POST", "/v1/web/crawl", json={
                "url": origin + "/p1", "limit": args.pages, "maxDepth": 20, "sitemap": "skip",
                "engine": "http", "maxConcurrency": args.workers, "formats": ["markdown"]})
            if answer.status_code != 202:
                raise RuntimeError(f"crawl refused: {answer.status_code} {answer.text[:300]}")
            watch = _Watch(stack, answer.json()["data"]["jobId"], started)
            watch.run(give_up_s=4 * 3_600)
            read_started = time.perf_counter()
            results = all_results(stack, watch.job_id, 100)
            read_s = time.perf_counter() - read_started
    finally:
        stack.stop()
        site.shutdown()
        site.server_close()
    if args.samples:
        print("\n".join(f"{t:.1f} {done} {crawl:.0f} {api:.0f}" for t, done, crawl, api in watch.samples))
    text = _report(args, watch, results, read_s)
    print(text)
    if args.write_docs:
        write_block("crawl-at-size", text)
    return 0


def _report(args: argparse.Namespace, watch: _Watch, results: list[dict[str, Any]], read_s: float) -> str:
    urls = [r["data"]["url"] for r in results if "data" in r]
    if len(urls) < args.pages:
        raise RuntimeError(f"{len(urls)} results of {args.pages}: {watch.final}")
    marks = [watch.when(pages) for pages in range(0, args.pages + 1, 1_000)]
    rows = []
    rates = []
    for index in range(1, len(marks)):
        (before, _, _), (after, crawl_mb, api_mb) = marks[index - 1], marks[index]
        rates.append(1_000 / (after - before) if after > before else float("inf"))
        rows.append((index, rates[-1], crawl_mb, api_mb))
    shown = [row for row in rows if row[0] <= 3 or row[0] > len(rows) - 3]
    first, last = rows[0], rows[-1]
    total_s = watch.samples[-1][0]
    return "\n".join([
        f"`python scripts/bench_crawl_at_size.py --pages {args.pages}`: one crawl with `engine: http` of a "
        f"synthetic site (each page ~3 KB of text; the start page links to {WIDTH:,} pages, every other "
        f"page to the one {WIDTH:,} further on) on {ADDRESS}, over the local "
        f"API (moto's server, {args.workers} crawl containers, `maxConcurrency: {args.workers}`), its "
        f"progress read every {POLL_S:.0f} s.",
        "",
        "| pages | pages/s | largest crawl container (RSS) | local API process, moto's store in it (RSS) |",
        "|---|---|---|---|",
        *(f"| {1_000 * (i - 1) + 1:,}-{1_000 * i:,} | {rate:.1f} | {crawl:.0f} MB | {api:.0f} MB |"
          for i, rate, crawl, api in shown),
        "",
        f"The whole crawl: {args.pages:,} pages in {total_s:.0f} s ({args.pages / total_s:.1f} pages/s; "
        f"median of the thousands {statistics.median(rates):.1f}, lowest {min(rates):.1f}, highest "
        f"{max(rates):.1f}). Last thousand against the first: {last[1] / first[1]:.2f}x the pages/s, "
        f"the largest crawl container {last[2] - first[2]:+.0f} MB. Status {watch.final.get('status')}, "
        f"completed {watch.final.get('completed')}, failed {watch.final.get('failed')}.",
        "",
        f"Read back through `next` (100 a page): {len(results):,} results in {read_s:.1f} s, "
        f"{len(set(urls)):,} distinct page URLs.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work), "
        f"Python {platform.python_version()}.",
    ])


if __name__ == "__main__":
    sys.exit(main())
