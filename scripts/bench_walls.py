"""`make bench-walls`: what the bot-wall check (docs/actions-and-blocked-pages.md#actions-and-blocked-pages)
costs per page, and that no ordinary page is taken for a wall, on the main-content benchmark pages (54 real
article pages, gzip HTML).

Three ways, in turns on every page so the figures compare on a busy machine:
- in the browser, as every capture runs it (pinned Chromium, page scripts off, every request refused): the
  signals script timed inside the page (performance.now, so the busy machine's IPC does not blur it), plus
  the decision in Python; and, for context, the whole call as a capture makes it and an empty evaluate (the
  round trip to the browser any call costs);
- from the HTML (webcapture.content.bot_walls.signals_from_html and the decision), as the tests use it;
- the main-content step (Markdown of the article) on the same page, for scale: the check's cost is given
  as a ratio of it.

    python scripts/bench_walls.py [FOLDER] [--repeat N] [--write-docs]

FOLDER holds `html/*.html.gz` (default: the copy in this repository, when there is one).
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "layers" / "shared"))

from webcapture.content.bot_walls import detect_wall, signals_from_html  # noqa: E402
from webcapture.content.main_content import main_content_markdown  # noqa: E402

# Where a copy of the benchmark pages may live in this repository.
CANDIDATE_FOLDERS = (REPO / "benchmarks" / "main-content", REPO / "tests" / "benchmarks" / "main-content",
                     REPO / "tests" / "fixtures" / "main-content",
                     REPO / "docs" / "benchmarks" / "main-content")
DOC = REPO / "docs" / "benchmarks" / "walls.md"
TARGET_MS = 5.0


def _pages(folder: Path) -> list[tuple[str, str]]:
    files = sorted((folder / "html").glob("*.html.gz"))
    if not files:
        raise SystemExit(f"no html/*.html.gz under {folder}")
    return [(path.name.split(".")[0][:12], gzip.decompress(path.read_bytes()).decode("utf-8", "replace"))
            for path in files]


def _timed(work: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = work()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def measure(pages: list[tuple[str, str]], repeat: int) -> dict[str, list[float] | list[str]]:
    from playwright.sync_api import Route, sync_playwright

    from webcapture.browser.launch.chromium_pack import resolve_chromium
    from webcapture.browser.page import target_checks
    from webcapture.browser.page.target_checks import page_signals
    from webcapture.content import bot_walls

    args = [list(bot_walls.MARKER_IDS), list(bot_walls.MARKER_CLASSES), list(bot_walls.INLINE_MARKERS),
            list(bot_walls.TEXT_TITLES), list(bot_walls.TEXT_SOURCES), bot_walls.TEXT_SAMPLE_CHARS]
    in_page = ("([args, repeat]) => { const signals = " + target_checks._SIGNALS_JS.strip()
               + "; const times = []; for (let i = 0; i < repeat; i++) { const t = performance.now(); "
               "signals(args); times.push(performance.now() - t); } times.sort((a, b) => a - b); "
               "return times[Math.floor(times.length / 2)]; }")

    install = resolve_chromium()
    browser_ms: list[float] = []
    empty_ms: list[float] = []
    own_ms: list[float] = []
    html_ms: list[float] = []
    main_ms: list[float] = []
    walls: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(install.executable), env={**os.environ, **install.env}, args=["--no-sandbox"])
        context = browser.new_context(java_script_enabled=False)

        def refuse(route: Route) -> None:
            route.abort()

        context.route("**/*", refuse)
        page = context.new_page()
        try:
            for name, html in pages:
                page.set_content(html, wait_until="domcontentloaded")
                empty, _ = _timed(lambda: page.evaluate("() => 0"), repeat)
                in_browser, found = _timed(lambda: detect_wall(page_signals(page, 200, None)), repeat)
                signals = page_signals(page, 200, None)
                script_ms = float(page.evaluate(in_page, [args, repeat]))
                decide, _ = _timed(lambda: detect_wall(signals), repeat)  # noqa: B023
                own_ms.append(script_ms + decide)
                from_html, found_html = _timed(lambda: detect_wall(signals_from_html(html, 200)), repeat)  # noqa: B023
                main, _ = _timed(lambda: main_content_markdown(html, "https://example.com/"), 1)  # noqa: B023
                browser_ms.append(in_browser)
                empty_ms.append(empty)
                html_ms.append(from_html)
                main_ms.append(main)
                if found is not None or found_html is not None:
                    walls.append(f"{name}: {found or found_html}")
        finally:
            browser.close()
    return {"browser": browser_ms, "empty": empty_ms, "own": own_ms, "html": html_ms, "main": main_ms,
            "walls": walls}


def _row(label: str, values: list[float], main: list[float]) -> str:
    ratio = statistics.median(v / m for v, m in zip(values, main, strict=True) if m > 0)
    p95 = sorted(values)[max(int(len(values) * 0.95) - 1, 0)]
    return (f"| {label} | {statistics.median(values):.2f} | {p95:.2f} | {max(values):.2f} | "
            f"{ratio * 100:.2f}% |")


def report(results: dict[str, list[float] | list[str]], count: int, repeat: int) -> str:
    browser = [float(v) for v in results["browser"]]
    empty = [float(v) for v in results["empty"]]
    own = [float(v) for v in results["own"]]
    html = [float(v) for v in results["html"]]
    main = [float(v) for v in results["main"]]
    walls = [str(v) for v in results["walls"]]
    worst = max(statistics.median(own), statistics.median(html))
    verdict = "met" if worst < TARGET_MS and not walls else "NOT met"
    lines = [
        f"{count} main-content benchmark pages, median of {repeat} runs per page, ms per page "
        f"(target: the check's own median under {TARGET_MS:g} ms, no page taken for a wall: **{verdict}**).",
        "",
        "| wall check | median ms | p95 ms | max ms | median share of the main-content step's time |",
        "|---|---|---|---|---|",
        _row("**in the browser, its own cost** (signals script timed in the page + decision)", own, main),
        _row("in the browser, the whole call as a capture makes it", browser, main),
        _row("an empty evaluate (the round trip any browser call costs), for context", empty, main),
        _row("**from the HTML** (signals_from_html + decision)", html, main),
        f"| main-content step, for scale | {statistics.median(main):.2f} | "
        f"{sorted(main)[max(int(len(main) * 0.95) - 1, 0)]:.2f} | {max(main):.2f} | 100% |",
        "",
        f"Pages taken for a wall: {len(walls)}" + ("" if not walls else " (" + "; ".join(walls) + ")"),
        "",
        "The HTML path's tail is the pages that hold one of the walls' words (\"captcha\", "
        "\"challenge\", \"cf-\"...): those are read as text, at the regular expressions' speed; the "
        "browser reads the text of such a page only when it is short. Round trips to the browser depend on "
        "the machine's load (this host is shared); the in-page and HTML figures do not.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("folder", nargs="?", type=Path, help="the benchmark folder (holds html/*.html.gz)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write-docs", action="store_true", help=f"write {DOC.relative_to(REPO)}")
    args = parser.parse_args()
    folder = args.folder or next((path for path in CANDIDATE_FOLDERS if (path / "html").is_dir()), None)
    if folder is None:
        raise SystemExit("name the main-content benchmark folder (it holds html/*.html.gz)")
    pages = _pages(folder)
    table = report(measure(pages, args.repeat), len(pages), args.repeat)
    print(table)
    if args.write_docs:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text("# Bot-wall check: cost per page\n\n`make bench-walls` (scripts/bench_walls.py). "
                       "The check runs on every capture's final page "
                       "(docs/actions-and-blocked-pages.md#bot-walls).\n\n" + table + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
