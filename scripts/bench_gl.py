"""`make bench-gl`: Chromium's GL mode against capture time, and whether WebGL still draws.

Lambda has no GPU. How Chromium renders without one is a launch flag, and it costs every capture:
    baseline            --no-zygote --use-gl=angle --use-angle=swiftshader: everything on SwiftShader, every
                        renderer a fresh exec (the ratios' base)
    angle/swiftshader   --use-gl=angle --use-angle=swiftshader: the whole compositor runs on SwiftShader,
                        a GPU emulated on the CPU
    swiftshader-webgl   --use-angle=swiftshader-webgl: SwiftShader for WebGL only; the page is composited
                        by Skia's software rasteriser
    default, no zygote  no GL flag, --no-zygote: every renderer a fresh exec of the browser binary: the
                        shipped flags (LAMBDA_FLAGS)
    default             no GL flag (WebGL falls back to SwiftShader: --enable-unsafe-swiftshader), renderers
                        forked by the zygote (not shipped: launch crashes at cold starts)
Every other flag is webcapture's (launch_flags.LAMBDA_FLAGS). Raw Playwright on the pinned Chromium, one
browser per mode, a fresh context per capture as the service makes; modes run in turns (a, b, c, a, ...)
so other load falls on all alike. Pages: plain.html (1280x800), tall.html (a 1280x3000 full page) and
webgl.html (a canvas drawn by WebGL: its pixels tell whether WebGL drew). Besides the wall time, the CPU
time the browser's processes spent per capture (its own, its live children's and its reaped renderers'),
which other load on the machine does not inflate.

Each page is captured two ways, each its own table: Playwright's `page.screenshot` (what a Playwright
user calls) and the service's own capture (webcapture.browser.screenshot: the layout metrics, then CDP's
Page.captureScreenshot of the page's region, what every /v1/web/screenshot does on its loaded page), which
skips Playwright's screenshot preparation (fonts, caret, a round trip per frame) and so shows what the GL
mode costs the service's capture.

    python scripts/bench_gl.py [--runs 15] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.fixture_server import get_server, stop_server  # noqa: E402
from tests.support.png_pixels import decode_png  # noqa: E402
from tests.support.service_capture import service_shot  # noqa: E402
from webcapture.browser.launch import processes  # noqa: E402
from webcapture.browser.launch.chromium_pack import resolve_chromium  # noqa: E402
from webcapture.browser.launch.launch_flags import LAMBDA_FLAGS  # noqa: E402

_GL = ("--use-gl=angle", "--use-angle=swiftshader", "--use-angle=swiftshader-webgl")
_BASE = tuple(flag for flag in LAMBDA_FLAGS if flag not in (*_GL, "--no-zygote"))
MODES: dict[str, tuple[str, ...]] = {
    "baseline": (*_BASE, "--no-zygote", "--use-gl=angle", "--use-angle=swiftshader"),
    "angle/swiftshader": (*_BASE, "--use-gl=angle", "--use-angle=swiftshader"),
    "swiftshader-webgl": (*_BASE, "--use-angle=swiftshader-webgl"),
    "default, no zygote": (*_BASE, "--no-zygote"),
    "default": _BASE,
}
PAGES = {"plain.html": False, "tall.html": True, "webgl.html": False}  # page: full page?
TEAL, MAGENTA = (0, 128, 128), (255, 0, 255)


def tree_cpu_s(pid: int) -> float:
    """CPU seconds of pid, its reaped children (renderers of closed contexts) and its live descendants."""
    def fields(one: int) -> list[str]:
        try:
            stat = Path(f"/proc/{one}/stat").read_text()
        except OSError:
            return []
        return stat[stat.rindex(")") + 2 :].split()

    own = fields(pid)
    ticks = sum(int(own[i]) for i in (11, 12, 13, 14)) if own else 0  # utime, stime, cutime, cstime
    for child in processes.descendants(pid):
        theirs = fields(child)
        ticks += sum(int(theirs[i]) for i in (11, 12)) if theirs else 0
    return ticks / os.sysconf("SC_CLK_TCK")


def browser_pid(marker: str) -> int:
    for pid in processes.descendants(os.getpid()):
        args = processes.cmdline(pid)
        if marker in args and not any(a.startswith("--type=") for a in args):
            return pid
    raise SystemExit(f"no browser with {marker}")


def playwright_shot(page: Page, full_page: bool) -> bytes:
    return page.screenshot(full_page=full_page)


SHOTS: dict[str, Callable[[Page, bool], bytes]] = {
    "Playwright's page.screenshot": playwright_shot, "the service's capture": service_shot}


def capture(browser: Browser, url: str, full_page: bool, shot: Callable[[Page, bool], bytes]) -> bytes:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.goto(url, wait_until="load")
        return shot(page, full_page)
    finally:
        context.close()


def webgl_draws(image: bytes) -> bool:
    """The canvas's teal clear colour and the shader's magenta square, where webgl.html puts them."""
    pixels = decode_png(image)
    return pixels.at(20, 20)[:3] == TEAL and pixels.at(200, 150)[:3] == MAGENTA


def measure(runs: int) -> dict[str, Any]:
    install = resolve_chromium()
    server = get_server()
    env: dict[str, str | float | bool] = {**os.environ, **install.env}
    results: dict[str, Any] = {"ms": {}, "cpu_ms": {}, "webgl": {}}  # ms and cpu_ms by way, then page
    with sync_playwright() as playwright:
        # The marker (a switch Chromium ignores) finds each mode's browser process.
        browsers = {mode: playwright.chromium.launch(executable_path=str(install.executable), env=env,
                                                      args=[*flags, f"--webcapture-gl-mode={index}"])
                    for index, (mode, flags) in enumerate(MODES.items())}
        pids = {mode: browser_pid(f"--webcapture-gl-mode={index}") for index, mode in enumerate(MODES)}
        try:
            webgl = server.url("/webgl.html")
            for mode, browser in browsers.items():
                results["webgl"][mode] = all(webgl_draws(capture(browser, webgl, False, shot))
                                             for shot in SHOTS.values())
            for way, shot in SHOTS.items():
                results["ms"][way], results["cpu_ms"][way] = {}, {}
                for name, full_page in PAGES.items():
                    wall, cpu = in_turns(browsers, pids, server.url(f"/{name}"), full_page, shot, runs)
                    results["ms"][way][name], results["cpu_ms"][way][name] = wall, cpu
        finally:
            for browser in browsers.values():
                browser.close()
            stop_server()
    return results


def in_turns(browsers: dict[str, Browser], pids: dict[str, int], url: str, full_page: bool,
             shot: Callable[[Page, bool], bytes], runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """Median wall and mean browser CPU per capture (ms) by mode, the modes in turns."""
    samples: dict[str, list[float]] = {mode: [] for mode in MODES}
    cpu: dict[str, list[float]] = {mode: [] for mode in MODES}
    for round_ in range(runs + 2):
        for mode, browser in browsers.items():
            started, cpu_before = time.perf_counter(), tree_cpu_s(pids[mode])
            capture(browser, url, full_page, shot)
            if round_ >= 2:  # two warm-up rounds
                samples[mode].append(time.perf_counter() - started)
                cpu[mode].append(tree_cpu_s(pids[mode]) - cpu_before)
    return ({mode: statistics.median(v) * 1000 for mode, v in samples.items()},
            {mode: statistics.mean(v) * 1000 for mode, v in cpu.items()})


def report(results: dict[str, Any], runs: int) -> str:
    modes = list(MODES)
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    rows = [
        "## GL mode and capture time",
        "",
        f"`python scripts/bench_gl.py` on {os.cpu_count()} cores, {cpu}: raw Playwright on the pinned "
        "Chromium with webcapture's flags but the GL mode, a fresh context per capture, modes in turns; "
        "each page captured by Playwright's `page.screenshot` and by the service's own capture (CDP's "
        f"Page.captureScreenshot of the page's region, as every /v1/web/screenshot); medians of {runs}. "
        "Ratios are to `baseline` (`--no-zygote --use-gl=angle --use-angle=swiftshader`); "
        "`default, no zygote` is the shipped `LAMBDA_FLAGS`.",
        "",
        "| page | " + " | ".join(f"`{mode}`" for mode in modes) + " |",
        "|---|" + "---:|" * len(modes),
    ]
    for way in SHOTS:
        rows.append(f"| **{way}** |" + " |" * len(modes))
        for key, label in (("ms", "wall, median"), ("cpu_ms", "browser CPU, mean")):
            for name, by_mode in results[key][way].items():
                base = by_mode[modes[0]]
                cells = [f"{by_mode[mode]:.0f} ms"
                         + ("" if mode == modes[0] else f" ({by_mode[mode] / base:.2f}x)")
                         for mode in modes]
                rows.append(f"| `{name}` ({label}) | " + " | ".join(cells) + " |")
    rows.append("| WebGL draws (`webgl.html`'s pixels) | "
                + " | ".join("yes" if results["webgl"][mode] else "**no**" for mode in modes) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8")
    section = report(measure(args.runs), args.runs)
    print(section)
    if args.write_docs:
        write_block("gl", section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
