"""`make bench`: side-by-side timings on the suite's fixture pages, written to docs/benchmarks.md.

Every comparison runs in this one invocation on the same machine and pages, so the ratios mean something
even though the absolute numbers depend on the machine. Medians of several runs after a warm-up.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8")  # the fixture server is on loopback
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.support.fixture_server import get_server  # noqa: E402
from tests.support.local_api import start_local_api  # noqa: E402
from webcapture import egress  # noqa: E402
from webcapture.browser import lifecycle  # noqa: E402
from webcapture.browser.chromium_pack import resolve_chromium  # noqa: E402
from webcapture.browser.screenshot import take_screenshot  # noqa: E402
from webcapture.models.requests import ScreenshotRequest  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "9"))
WARMUP = 2
DOC = REPO / "docs" / "benchmarks.md"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"


def timed(action: Callable[[], Any], runs: int = RUNS, warmup: int = WARMUP) -> float:
    """Median seconds of `runs` calls after `warmup` unmeasured ones."""
    for _ in range(warmup):
        action()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def raw_playwright(url: str) -> tuple[float, float]:
    """The floor: Playwright alone, on an open browser and with a launch per capture (same Chromium)."""
    install = resolve_chromium()
    env: dict[str, str | float | bool] = {**os.environ, **install.env}
    with sync_playwright() as playwright:
        def launch() -> Any:
            return playwright.chromium.launch(executable_path=str(install.executable), env=env,
                                              args=["--no-sandbox", "--no-zygote", "--disable-gpu"])

        def capture(browser: Any) -> bytes:
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            try:
                page = context.new_page()
                page.goto(url, wait_until="load")
                image: bytes = page.screenshot(full_page=True)
                return image
            finally:
                context.close()

        browser = launch()
        open_browser = timed(lambda: capture(browser))
        browser.close()

        def launch_and_capture() -> None:
            fresh = launch()
            try:
                capture(fresh)
            finally:
                fresh.close()

        per_request = timed(launch_and_capture, runs=max(3, RUNS // 2), warmup=1)
    return open_browser, per_request


def guard_overhead(url: str) -> tuple[float, float]:
    """The same in-process capture with the egress proxy, then with the browser talking directly."""
    request = ScreenshotRequest.model_validate({"url": url})
    with_proxy = timed(lambda: take_screenshot(request))
    lifecycle.shutdown_browser()
    # Benchmark only: the unguarded baseline.
    egress.proxy_server = lambda: None
    egress.chromium_args = lambda: []
    without_proxy = timed(lambda: take_screenshot(request))
    lifecycle.shutdown_browser()
    return with_proxy, without_proxy


def cold_start(url: str, cache_dir: str) -> float:
    """A fresh Python process from import to first screenshot bytes, including any Chromium unpack."""
    code = (
        "import time; t = time.perf_counter();"
        "from webcapture.browser.screenshot import take_screenshot;"
        "from webcapture.models.requests import ScreenshotRequest;"
        f"take_screenshot(ScreenshotRequest.model_validate({{'url': {url!r}}}));"
        "print(time.perf_counter() - t)"
    )
    env = {**os.environ, "WEBCAPTURE_CACHE_DIR": cache_dir}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}, {platform.system()}"


def main() -> int:
    fixtures = get_server()
    page = fixtures.url("/tall.html")
    results: dict[str, Any] = {"machine": machine(), "runs": RUNS}

    api = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8"}, demo_credits=-1)
    try:
        results["api_screenshot_s"] = timed(
            lambda: api.call("POST", "/v1/web/screenshot", json={"url": page}))
        links: dict[int, float] = {}
        for count in (100, 1_000, 10_000, 100_000):
            url = fixtures.url(f"/many-links?n={count}")

            def fetch_links(target: str = url, expected: int = count) -> None:
                body = api.call("POST", "/v1/web/links", json={"url": target}).json()
                # Every link is found; a 100,000-link answer is cut to what fits in 6 MB (linksOnPage says).
                assert body.get("data", {}).get("metadata", {}).get("linksOnPage") == expected, body

            links[count] = timed(fetch_links, runs=max(3, RUNS // 2), warmup=1)
        results["links_s"] = links
    finally:
        api.stop()

    results["raw_open_browser_s"], results["raw_launch_per_request_s"] = raw_playwright(page)
    with tempfile.TemporaryDirectory() as empty_cache:
        results["cold_start_unpack_s"] = cold_start(page, empty_cache)
        results["cold_start_unpacked_s"] = cold_start(page, empty_cache)
    results["guarded_s"], results["unguarded_s"] = guard_overhead(page)
    fixtures.stop()
    write_report(results)
    print(json.dumps(results, indent=2))
    return 0


def write_report(r: dict[str, Any]) -> None:
    api, raw, launch = r["api_screenshot_s"], r["raw_open_browser_s"], r["raw_launch_per_request_s"]
    guard = r["guarded_s"] / r["unguarded_s"]
    rows = [
        "| measurement | median | compared with | ratio | target |",
        "|---|---|---|---|---|",
        f"| warm screenshot through the local API | {api * 1000:.0f} ms | raw Playwright, open browser "
        f"({raw * 1000:.0f} ms) | {api / raw:.2f}x | <= 1.3x |",
        f"| raw Playwright, launch per request | {launch * 1000:.0f} ms | warm screenshot through the API | "
        f"{launch / api:.2f}x slower | >= 3x |",
        f"| in-process capture with the egress proxy | {r['guarded_s'] * 1000:.0f} ms | the same without it "
        f"({r['unguarded_s'] * 1000:.0f} ms) | {guard:.2f}x | <= 1.1x |",
        f"| cold start to first screenshot, unpacking Chromium | {r['cold_start_unpack_s']:.2f} s | | | |",
        f"| cold start to first screenshot, Chromium already unpacked | {r['cold_start_unpacked_s']:.2f} s"
        " | | | |",
    ]
    rows += [f"| links, {count:,} links on the page (API) | {seconds * 1000:.0f} ms | | | "
             f"{'<= 2 s' if count == 100_000 else ''} |" for count, seconds in r["links_s"].items()]
    section = "\n".join([
        START,
        "## Capture speed",
        "",
        f"`make bench` on {r['machine']}; medians of {r['runs']} runs after warm-up (fewer for launches and "
        "links), all in one run on the suite's fixture pages (`tall.html`, `/many-links?n=N`) served on "
        "loopback. The API figures include HTTP, the local API Gateway emulation, the authorizer, metering "
        "against moto's server and the egress proxy.",
        "",
        *rows,
        END,
    ])
    DOC.parent.mkdir(exist_ok=True)
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    if START in text and END in text:
        text = text[: text.index(START)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    DOC.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
