"""The dead-hosts WordPress article (tests/support/pages/repro/README.md) as Markdown through the service's
code, side by side with raw Playwright on the same Chromium pack, on the same loopback page, in turns.

- service: webcapture.operations' markdown path (load_page in the service's warm browser, behind its egress
  proxy, then html_to_markdown), `waitUntil` domcontentloaded, then load;
- raw: Playwright alone, an open browser, no proxy: a fresh context, page.goto(url, wait_until=...),
  page.content().

Every outside name is unresolvable (the article's eight hosts are dead, as in a sandbox).

    python benchmarks/bench_repro_page.py [--runs N] [--write-docs]

`--write-docs` rewrites the `repro-page` block of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "layers" / "shared"))
os.environ.setdefault("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8,::1/128")

from playwright.sync_api import sync_playwright  # noqa: E402

from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.dns_server import answering  # noqa: E402
from tests.support.egress_resolvers import MapResolver  # noqa: E402
from tests.support.fixture_server import get_server, stop_server  # noqa: E402
from webcapture.browser import load_page, shutdown_browser  # noqa: E402
from webcapture.browser.launch.chromium_pack import resolve_chromium  # noqa: E402
from webcapture.browser.launch.launch_flags import LAMBDA_FLAGS  # noqa: E402
from webcapture.content.markdown import html_to_markdown  # noqa: E402
from webcapture.models.requests import MarkdownRequest  # noqa: E402

PATH = "/repro/wordpress-article-dead-hosts"


def service(url: str, wait_until: str) -> float:
    started = time.monotonic()
    page = load_page(url, 0, MarkdownRequest.model_validate({"url": url, "waitUntil": wait_until}))
    markdown = html_to_markdown(page.html, page.final_url, only_main_content=True)
    assert "Chief Strategy Officer" in markdown, markdown[:300]
    return (time.monotonic() - started) * 1000


def raw(browser: Any, url: str, wait_until: str) -> float:
    started = time.monotonic()
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url, wait_until=wait_until)
        page.content()
    finally:
        context.close()
    return (time.monotonic() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    url = get_server().url(PATH)
    install = resolve_chromium()
    rows = []
    with answering(MapResolver({})), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(install.executable),
                                             env={**os.environ, **install.env}, args=list(LAMBDA_FLAGS))
        for wait_until in ("domcontentloaded", "load"):
            service(url, wait_until), raw(browser, url, wait_until)  # warm both
            ours, theirs = [], []
            for _ in range(args.runs):
                ours.append(service(url, wait_until))
                theirs.append(raw(browser, url, wait_until))
            a, b = statistics.median(ours), statistics.median(theirs)
            rows.append(f"| `{wait_until}` | {a:.0f} ms | {b:.0f} ms | {a / b:.2f}x | <= 2x | "
                        f"{'met' if a <= 2 * b else 'NOT met'} |")
            print(rows[-1], flush=True)
        browser.close()
    shutdown_browser()
    stop_server()
    table = "\n".join(["| waitUntil | markdown, service code (median) | raw Playwright, no proxy (median) | ratio "
                       "| target | met |", "|---|---:|---:|---:|---|---|", *rows])
    text = (f"{table}\n\n{args.runs} runs each in turns, warm browsers, "
            f"`python benchmarks/bench_repro_page.py --runs {args.runs} --write-docs`.")
    if args.write_docs:
        write_block("repro-page", text)


if __name__ == "__main__":
    main()
