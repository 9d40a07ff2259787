"""`make bench-fast-path`: the fast path against the browser, side by side in one run, over the local API on
loopback, on a real documentation site (Debian's python3.11-doc: 530 Sphinx pages, no sitemap) served as
files; written to docs/benchmarks.md.

- A 300-page crawl of the site with `engine: auto` against the same crawl with `engine: browser` (same
  stack, same containers, in turns): pages per second, and each page's Markdown compared between the two
  (exactly equal, and a token F1 between them).
- One warm `markdown` request with `engine: http` against the same with `engine: browser` (medians of
  --runs, alternated, after one untimed request of each).
- The memory each takes: the local API's function processes' peak RSS is not separable per request here,
  so the figure reported is the stack's (see docs/cost.md for how it is used).

    python scripts/bench_fast_path.py [--pages 300] [--runs 9] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.docs_site import PYTHON_DOCS, DocsServer  # noqa: E402
from tests.support.jobs_client import all_results, wait_until_settled  # noqa: E402
from tests.support.local_api import LocalApi, start_local_api  # noqa: E402

ADDRESS = "127.0.4.2"
CRAWL_TARGET = 10.0
MARKDOWN_TARGET = 0.1
_WORD = re.compile(r"\w+")


def _f1(a: str, b: str) -> float:
    left, right = Counter(_WORD.findall(a)), Counter(_WORD.findall(b))
    common = sum((left & right).values())
    if not left and not right:
        return 1.0
    if not common:
        return 0.0
    precision, recall = common / sum(right.values()), common / sum(left.values())
    return 2 * precision * recall / (precision + recall)


def _crawl(api: LocalApi, url: str, pages: int, engine: str) -> tuple[float, dict[str, str], dict[str, Any]]:
    started = time.perf_counter()
    answer = api.call("POST", "/v1/web/crawl", json={"url": url, "limit": pages, "sitemap": "skip",
                                                     "maxConcurrency": 3, "engine": engine})
    if answer.status_code != 202:
        raise RuntimeError(f"crawl refused: {answer.status_code} {answer.text[:300]}")
    job_id = answer.json()["data"]["jobId"]
    job = wait_until_settled(api, job_id, give_up_s=3_600)
    seconds = time.perf_counter() - started
    markdown = {r["data"]["url"]: r["data"].get("markdown", "") for r in all_results(api, job_id, 100)
                if "data" in r}
    engines = Counter(r["data"].get("metadata", {}).get("engine") for r in all_results(api, job_id, 100)
                      if "data" in r)
    return seconds, markdown, {"job": job, "engines": dict(engines)}


def _markdown_ms(api: LocalApi, url: str, engine: str) -> float:
    started = time.perf_counter()
    answer = api.call("POST", "/v1/web/markdown", json={"url": url, "engine": engine})
    elapsed = (time.perf_counter() - started) * 1000
    if answer.status_code != 200 or answer.json()["data"]["metadata"]["engine"] != engine:
        raise RuntimeError(f"markdown {engine}: {answer.status_code} {answer.text[:300]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    site = DocsServer(PYTHON_DOCS, ADDRESS)
    stack = start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": f"{ADDRESS}/32", "WEBCAPTURE_WARM_START": "0",
         "WEBCAPTURE_DEFAULT_MAX_CONCURRENCY": str(args.workers + 1)},
        demo_credits=-1,
        extra_args=["--max-containers", str(args.workers), "--parameter",
                    f"JobsWorkerConcurrency={args.workers}"])
    start = site.origin + "/index.html"
    page = site.origin + "/library/functions.html"
    try:
        with stack.errors_shown():
            for engine in ("browser", "http"):
                _markdown_ms(stack, page, engine)  # untimed: a warm container and browser for each
            http_ms: list[float] = []
            browser_ms: list[float] = []
            for _ in range(args.runs):
                browser_ms.append(_markdown_ms(stack, page, "browser"))
                http_ms.append(_markdown_ms(stack, page, "http"))
            print(f"markdown: browser {statistics.median(browser_ms):.0f} ms, http "
                  f"{statistics.median(http_ms):.0f} ms", flush=True)
            auto_s, auto_md, auto_info = _crawl(stack, start, args.pages, "auto")
            print(f"crawl auto: {auto_s:.1f} s {auto_info['engines']}", flush=True)
            browser_s, browser_md, browser_info = _crawl(stack, start, args.pages, "browser")
            print(f"crawl browser: {browser_s:.1f} s {browser_info['engines']}", flush=True)
    finally:
        stack.stop()
        site.stop()
    both = sorted(set(auto_md) & set(browser_md))
    equal = sum(auto_md[url] == browser_md[url] for url in both)
    scores = [_f1(browser_md[url], auto_md[url]) for url in both]
    auto_rate, browser_rate = len(auto_md) / auto_s, len(browser_md) / browser_s
    http_median, browser_median = statistics.median(http_ms), statistics.median(browser_ms)
    worst = sorted(zip(scores, both, strict=True))[:3]
    text = "\n".join([
        "`make bench-fast-path` (scripts/bench_fast_path.py), over the local API on loopback, on Debian's "
        f"python3.11-doc (530 Sphinx pages, no sitemap) served as files on {ADDRESS}; {args.workers} "
        "function containers and queue pollers; the engines in turns within one run.",
        "",
        "| what | browser | fast path | ratio | target |",
        "|---|---|---|---|---|",
        f"| crawl of {args.pages} pages (`engine: auto` vs `browser`), pages/s | {browser_rate:.2f} "
        f"({browser_s:.0f} s) | {auto_rate:.2f} ({auto_s:.1f} s) | {auto_rate / browser_rate:.1f}x | "
        f">= {CRAWL_TARGET:.0f}x |",
        f"| one warm `markdown` of library/functions.html (`http` vs `browser`), median of {args.runs} | "
        f"{browser_median:.0f} ms | {http_median:.0f} ms | {http_median / browser_median:.3f}x | "
        f"<= {MARKDOWN_TARGET}x |",
        "",
        f"Markdown of the {len(both)} pages both crawls completed: {equal} exactly equal; token F1 between "
        f"the two mean {statistics.mean(scores):.4f}, lowest {min(scores):.4f} "
        f"({', '.join(f'{url.removeprefix(site.origin)} {score:.3f}' for score, url in worst)}). "
        f"Engines that ran under auto: {auto_info['engines']}.",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work), Python "
        f"{platform.python_version()}.",
    ])
    print(text)
    if args.write_docs:
        write_block("fast-path", text)
        print("wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
