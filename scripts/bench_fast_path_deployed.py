"""`make bench-fast-path-deployed`: the fast path's three timed targets measured on a deployed stack, where
DynamoDB, SQS and the functions are AWS's and not one local process (docs/benchmarks.md#fast-path says
why the re-crawl's figure needs this).

The site is Debian's python3.11-doc, served by you at the root of a public origin that the stack may fetch
(docs/benchmarks.md#fast-path-on-a-deployed-stack shows one way: an S3 website). The crawls, the warm
`markdown` requests and the fidelity comparison are bench_fast_path.py's, on the same pages; what a local
run adds (CPU of local processes, a fresh process's cold start) has no meaning here and is left out.

    python scripts/bench_fast_path_deployed.py --api-url https://abc.execute-api.REGION.amazonaws.com/Prod \\
        --api-key wc_live_... --site-url http://BUCKET.s3-website-REGION.amazonaws.com [--write-docs]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.bench_fast_path import (  # noqa: E402
    CRAWL_TARGET,
    MARKDOWN_TARGET,
    SINCE_TARGET,
    markdown_request_ms,
    timed_crawl,
)
from scripts.benchmark_docs import write_block  # noqa: E402
from scripts.crawl_fidelity import compare, target_row  # noqa: E402
from scripts.deployed_api import DeployedApi  # noqa: E402
from tests.support.docs_site import PYTHON_DOCS  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-url", required=True, help="the stage's base URL (the stack's ApiUrl output)")
    parser.add_argument("--api-key", required=True, help="a key with credits for 2 x --pages pages and more")
    parser.add_argument("--site-url", required=True, help="the origin serving python3.11-doc's html folder")
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    site = args.site_url.rstrip("/")
    if urlsplit(site).path:
        parser.error("--site-url: an origin (scheme and host), serving the html folder at its root")
    api = DeployedApi(args.api_url, args.api_key)
    page = site + "/library/functions.html"
    for engine in ("browser", "http"):
        markdown_request_ms(api, page, engine)  # untimed: a warm function (and browser) for each
    browser_ms, http_ms = [], []
    for _ in range(args.runs):
        browser_ms.append(markdown_request_ms(api, page, "browser"))
        http_ms.append(markdown_request_ms(api, page, "http"))
    start = site + "/index.html"
    auto_s, auto_md, auto_info = timed_crawl(api, start, args.pages, "auto")
    since_s, _, since_info = timed_crawl(api, start, args.pages, "auto", since=auto_info["id"])
    browser_s, browser_md, _ = timed_crawl(api, start, args.pages, "browser")
    fidelity, _ = compare(auto_md, browser_md, PYTHON_DOCS)
    http_median, browser_median = statistics.median(http_ms), statistics.median(browser_ms)
    auto_rate, browser_rate = len(auto_md) / auto_s, len(browser_md) / browser_s
    text = "\n".join([
        f"`make bench-fast-path-deployed` (scripts/bench_fast_path_deployed.py) against a deployed stack "
        f"({urlsplit(args.api_url).hostname}), python3.11-doc served from {urlsplit(site).hostname}.",
        "",
        "| what | browser | fast path | ratio | target |",
        "|---|---|---|---|---|",
        f"| crawl of {args.pages} pages (`engine: auto` vs `browser`), pages/s | {browser_rate:.2f} "
        f"({browser_s:.0f} s) | {auto_rate:.2f} ({auto_s:.1f} s) | {auto_rate / browser_rate:.1f}x | "
        f">= {CRAWL_TARGET:.0f}x |",
        target_row(fidelity),
        f"| one warm `markdown` of library/functions.html (`http` vs `browser`), median of {args.runs} | "
        f"{browser_median:.0f} ms | {http_median:.0f} ms | {http_median / browser_median:.3f}x | "
        f"<= {MARKDOWN_TARGET}x |",
        "| re-crawl with `since` the `auto` crawl, nothing changed (vs that first crawl) | | "
        f"{since_s:.2f} s vs {auto_s:.1f} s; {since_info['job'].get('creditsCost')} credits (first: "
        f"{auto_info['job'].get('creditsCost')}) | {auto_s / since_s:.1f}x faster | >= {SINCE_TARGET:.0f}x, "
        "free |",
        "",
        f"The re-crawl's changes: {since_info['job'].get('changes')}. Engines that ran under auto: "
        f"{auto_info['engines']}.",
    ])
    print(text)
    if args.write_docs:
        write_block("fast-path-deployed", text)
        print("wrote docs/benchmarks.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
