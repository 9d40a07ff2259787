"""`make bench-main-content`: main-content extractors scored and timed on the main-content benchmark pages.

F1, precision and recall as the benchmark's score.py computes them (benchmarks/main-content, 54
article pages), and milliseconds per page. All candidates run in turns on each page in this one
invocation, so the timings compare even on a busy machine. Readability.js runs in the pinned Chromium,
timed on the page already loaded (as it would run in ours), when READABILITY_JS names its file (npm's
@mozilla/readability); readability-lxml runs when installed. `--extra module:function` adds any other
`function(html, url) -> str`.

    python scripts/bench_main_content.py [--extra module:function ...] [--write-docs]
"""

from __future__ import annotations

import argparse
import gzip
import importlib
import importlib.util
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import trafilatura

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark_docs import DOC, write_block  # noqa: E402
from webcapture.content.main_content import full_page_markdown, main_content_markdown  # noqa: E402

BENCHMARK = REPO / "benchmarks" / "main-content"
Extractor = Callable[[str, str], str]


def _trafilatura(**options: Any) -> Extractor:
    def extract(html: str, url: str) -> str:
        return trafilatura.extract(html, url=url, **options) or ""

    return extract


TUNED = {"include_comments": False, "favor_precision": True}
CANDIDATES: dict[str, Extractor] = {
    "**webcapture main content**: pruned DOM, trafilatura (tuned), the Markdown writer":
        main_content_markdown,
    "webcapture full page (everything visible, `onlyMainContent: false`)": full_page_markdown,
    "trafilatura 2.3.1 defaults (text)": _trafilatura(),
    "trafilatura, no comments (text)": _trafilatura(include_comments=False),
    "trafilatura, no comments, favor_precision (text)": _trafilatura(**TUNED),
    "trafilatura, no comments, favor_recall (text)": _trafilatura(include_comments=False, favor_recall=True),
    "trafilatura, no comments, favor_precision, fast (no fallback extractors; text)": _trafilatura(
        **TUNED, fast=True
    ),
    "trafilatura, tuned, Markdown out (links, formatting)": _trafilatura(
        **TUNED, output_format="markdown", include_links=True, include_formatting=True
    ),
    "trafilatura, tuned, Markdown out without tables": _trafilatura(
        **TUNED, output_format="markdown", include_tables=False
    ),
    "trafilatura, tuned, Markdown out with images": _trafilatura(
        **TUNED, output_format="markdown", include_images=True
    ),
}


def _readability_lxml() -> Extractor | None:
    try:
        readability = importlib.import_module("readability")
        html_module = importlib.import_module("lxml.html")
    except ImportError:
        return None

    def extract(html: str, url: str) -> str:
        return str(html_module.fromstring(readability.Document(html).summary()).text_content())

    return extract


@contextmanager
def _readability_js(source: Path) -> Iterator[Extractor]:
    """Readability.js in the pinned Chromium: page scripts off, every request refused (nothing leaves)."""
    from playwright.sync_api import Route, sync_playwright

    from webcapture.browser.launch.chromium_pack import resolve_chromium

    install = resolve_chromium()
    run = (
        "() => { "
        + source.read_text(encoding="utf-8")
        + "\n; const a = new Readability(document.cloneNode(true)).parse(); return a ? a.textContent : ''; }"
    )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(install.executable), env={**os.environ, **install.env}, args=["--no-sandbox"]
        )
        context = browser.new_context(java_script_enabled=False)

        def refuse(route: Route) -> None:
            route.abort()

        context.route("**/*", refuse)
        page = context.new_page()
        loaded: dict[str, float] = {}

        def extract(html: str, url: str) -> str:
            page.set_content(html, wait_until="domcontentloaded")
            started = time.perf_counter()
            text = str(page.evaluate(run) or "")
            loaded["evaluate_s"] = time.perf_counter() - started
            return text

        extract.loaded = loaded  # type: ignore[attr-defined]
        try:
            yield extract
        finally:
            browser.close()


def _score_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("main_content_score", BENCHMARK / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(candidates: dict[str, Extractor]) -> list[tuple[str, float, float, float, float]]:
    """(name, F1, precision, recall, ms per page) of each candidate, run in turns on every page."""
    score = _score_module()
    truth = json.loads((BENCHMARK / "ground-truth.json").read_text(encoding="utf-8"))
    rows: dict[str, list[tuple[float, float, float]]] = {name: [] for name in candidates}
    seconds = dict.fromkeys(candidates, 0.0)
    for page_id, expected in sorted(truth.items()):
        page = BENCHMARK / "html" / f"{page_id}.html.gz"
        html = gzip.decompress(page.read_bytes()).decode("utf-8", "replace")
        url = expected.get("url") or "https://example.com/"
        for name, extract in candidates.items():
            started = time.perf_counter()
            output = extract(html, url)
            loaded = getattr(extract, "loaded", None)  # in-browser: the extraction only, not the page load
            seconds[name] += loaded["evaluate_s"] if loaded else time.perf_counter() - started
            predicted = score.MD_LINK.sub(lambda match: match.group(1), output)
            rows[name].append(score.tp_fp_fn(expected.get("articleBody", ""), predicted))
    results = []
    for name, page_rows in rows.items():
        precision = statistics.mean(score.precision(*row) for row in page_rows if row[0] + row[1] > 0)
        recall = statistics.mean(score.recall(*row) for row in page_rows if row[0] + row[2] > 0)
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        results.append((name, f1, precision, recall, seconds[name] * 1000 / len(truth)))
    return results


def table(results: list[tuple[str, float, float, float, float]]) -> str:
    lines = ["| extractor | F1 | precision | recall | ms/page |", "|---|---|---|---|---|"]
    lines += [f"| {name} | {f1:.3f} | {p:.3f} | {r:.3f} | {ms:.0f} |" for name, f1, p, r, ms in results]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--extra", action="append", default=[], help="module:function to score as well")
    parser.add_argument("--write-docs", action="store_true", help=f"replace the table in {DOC.name}")
    args = parser.parse_args()
    candidates = dict(CANDIDATES)
    if (readability_lxml := _readability_lxml()) is not None:
        candidates["readability-lxml (`Document.summary`, text)"] = readability_lxml
    for spec in args.extra:
        module, function = spec.split(":")
        candidates[spec] = getattr(importlib.import_module(module), function)
    source = os.environ.get("READABILITY_JS")
    with _readability_js(Path(source)) if source else _nothing() as in_browser:
        if in_browser is not None:
            candidates["Readability.js 0.6.0 in Chromium (`textContent`)"] = in_browser
        text = table(measure(candidates))
    print(text)
    if args.write_docs:
        write_block("main-content", text)


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


if __name__ == "__main__":
    main()
