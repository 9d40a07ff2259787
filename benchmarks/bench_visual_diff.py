"""`make bench-visual-diff`: a screenshot monitor's visual diff of two 1280x8000 full-page captures against
one capture of that page, side by side in one run (target: the diff in at most 0.5x the capture's time).

- capture: the service's browser core (webcapture.browser.take_screenshot, what /v1/web/screenshot and a
  screenshot check call), `fullPage`, a warm browser, of a generated 1280x8000 page on loopback (headings,
  paragraphs, coloured cards: text renders and compresses as a real page's does);
- diff: webcapture.monitors.visual_diff on two such captures that differ in one card's colour and one
  paragraph: both inflated, the rows that differ decoded and compared, boxed, and the new one marked and
  stored again as PNG.

The two run in turns (capture, diff, capture, diff, ...), so other load on the machine falls on both alike;
medians. For scale, in the same turns: Pillow decoding the two captures whole (what the diff did before it
compared stored rows). Also, once: the PNG decoder the diff could have had without a dependency (zlib and pure Python,
tests/support/png_pixels) on the capture's first 800 rows, scaled to its 8000.

    python benchmarks/bench_visual_diff.py [--runs 5] [--write-docs]

`--write-docs` rewrites the `visual-diff` block of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "layers" / "shared"))
os.environ.setdefault("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8,::1/128")

from PIL import Image  # noqa: E402

from scripts.benchmark_docs import markdown_table, write_block  # noqa: E402
from tests.support.png_pixels import decode_png  # noqa: E402
from webcapture.browser import shutdown_browser, take_screenshot  # noqa: E402
from webcapture.errors import NavigationFailed  # noqa: E402
from webcapture.models.requests import ScreenshotRequest  # noqa: E402
from webcapture.monitors.visual_diff import visual_diff  # noqa: E402

WIDTH, HEIGHT = 1280, 8000
TARGET = 0.5
WORDS = ("pricing", "plan", "monthly", "annual", "support", "storage", "users", "export", "audit", "single",
         "sign-on", "backups", "region", "uptime", "invoice", "seats", "trial", "discount", "contract",
         "renewal", "notice")


def page(variant: str) -> bytes:
    """A 1280x8000 page of sections; variant "b" changes one card's colour and one paragraph."""
    sections = []
    for index in range(40):
        colour = "#c0392b" if variant == "b" and index == 12 else f"hsl({index * 37 % 360}, 55%, 60%)"
        words = [WORDS[(index * 7 + n) % len(WORDS)] for n in range(60)]
        if variant == "b" and index == 25:
            words[10:14] = ["now", "twelve", "euros", "monthly"]
        sections.append(
            f'<section><h2>Section {index + 1}: {WORDS[index % len(WORDS)]}</h2>'
            f'<div class="card" style="background:{colour}"></div><p>{" ".join(words).capitalize()}.</p>'
            f'<p>{" ".join(reversed(words))}.</p></section>')
    return (
        "<!doctype html><html><head><meta charset=utf-8><title>Visual diff benchmark</title><style>"
        f"html,body{{margin:0;background:#fafaf7;font:16px/1.5 sans-serif;color:#222}}"
        f"main{{width:{WIDTH - 160}px;height:{HEIGHT}px;padding:0 80px;overflow:hidden}}"
        "section{height:200px;box-sizing:border-box;padding-top:8px}h2{margin:0 0 6px;font-size:20px}"
        ".card{float:right;width:160px;height:110px;margin-left:24px;border-radius:8px}p{margin:0 0 6px}"
        f"</style></head><body><main>{''.join(sections)}</main></body></html>"
    ).encode()


class _Pages(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = page(self.path.rsplit("/", 1)[-1])
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


FAILED_CAPTURES: list[str] = []


def capture(url: str) -> tuple[bytes, float]:
    """One timed capture. Chromium now and then has no frame to give for this tall a page, twice in a row
    (a 502 to the API's caller): such a capture is counted, reported, and taken again (at most twice)."""
    request = ScreenshotRequest.model_validate({
        "url": url, "viewport": {"width": WIDTH, "height": 800}, "screenshotOptions": {"fullPage": True}})
    for _ in range(2):
        started = time.perf_counter()
        try:
            shot = take_screenshot(request)
            break
        except NavigationFailed as error:
            FAILED_CAPTURES.append(str(error))
    else:
        shot = take_screenshot(request)
    elapsed = (time.perf_counter() - started) * 1000
    assert (shot.width, shot.height) == (WIDTH, HEIGHT), (shot.width, shot.height)
    return shot.image, elapsed


def timed_diff(before: bytes, after: bytes) -> float:
    started = time.perf_counter()
    diff = visual_diff(before, after)
    elapsed = (time.perf_counter() - started) * 1000
    assert 0 < diff.changed_ratio < 0.05 and 2 <= len(diff.boxes) <= 6, diff.as_json()  # a card, a paragraph
    return elapsed


def timed_same(capture: bytes) -> float:
    """A page that did not change: the capture against a copy of itself."""
    again = bytes(bytearray(capture))
    started = time.perf_counter()
    diff = visual_diff(capture, again)
    elapsed = (time.perf_counter() - started) * 1000
    assert diff.changed_ratio == 0 and diff.marked_png == capture
    return elapsed


def decode_ms(before: bytes, after: bytes) -> float:
    """Pillow decoding the two captures whole, one after the other."""
    started = time.perf_counter()
    for data in (before, after):
        Image.open(io.BytesIO(data)).load()
    return (time.perf_counter() - started) * 1000


def pure_python_decode_ms(image: bytes, rows: int = 800) -> float:
    """zlib and pure-Python unfiltering of the first `rows` rows, scaled to the whole capture."""
    started = time.perf_counter()
    pixels = decode_png(image)
    pixels.at(0, rows - 1)  # unfilters rows 0..rows-1
    return (time.perf_counter() - started) * 1000 * float(pixels.height) / rows


def measure(runs: int) -> dict[str, float]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/page"
    try:
        before, _ = capture(f"{base}/a")  # warms the browser too
        after, _ = capture(f"{base}/b")
        timed_diff(before, after)
        captures, diffs, decodes, sames = [], [], [], []
        for run in range(runs):
            captures.append(capture(f"{base}/{'ab'[run % 2]}")[1])
            diffs.append(timed_diff(before, after))
            decodes.append(decode_ms(before, after))
            sames.append(timed_same(before))
        return {"capture_ms": statistics.median(captures), "diff_ms": statistics.median(diffs),
                "decode_ms": statistics.median(decodes), "same_ms": statistics.median(sames),
                "png_bytes": len(after), "pure_python_ms": pure_python_decode_ms(after)}
    finally:
        shutdown_browser()
        server.shutdown()
        server.server_close()


def report(figures: dict[str, float], runs: int) -> str:
    ratio = figures["diff_ms"] / figures["capture_ms"]
    rows = [
        f"| visual diff of two 1280x8000 captures (inflate both, compare, box, mark, deflate) "
        f"| {figures['diff_ms']:.0f} ms | one `fullPage` capture of the page: {figures['capture_ms']:.0f} ms "
        f"| {ratio:.2f}x | <= {TARGET}x | {'met' if ratio <= TARGET else 'NOT met'} |",
        f"| the same page unchanged (the capture against a copy of itself) | {figures['same_ms']:.0f} ms "
        f"| the same capture | {figures['same_ms'] / figures['capture_ms']:.2f}x | | |",
        f"| for scale: Pillow decoding the two captures whole, one after the other "
        f"| {figures['decode_ms']:.0f} ms | the same capture | {figures['decode_ms'] / figures['capture_ms']:.2f}x "
        f"| | |",
        f"| decoding one capture with zlib and pure Python (no dependency; 800 rows, scaled) "
        f"| {figures['pure_python_ms']:.0f} ms | the same capture | "
        f"{figures['pure_python_ms'] / figures['capture_ms']:.1f}x | | |",
    ]
    cpu = platform.processor() or platform.machine()
    return "\n".join([
        markdown_table("| what | median | side by side | ratio | target | met |",
                       "|---|---:|---|---:|---|---|", rows),
        "",
        f"{runs} runs in turns, warm browser, a {figures['png_bytes'] / 1e6:.1f} MB PNG capture; "
        f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}, load average "
        f"{os.getloadavg()[0]:.1f}; `python benchmarks/bench_visual_diff.py --runs {runs} --write-docs`. "
        f"Captures Chromium failed (taken again): {len(FAILED_CAPTURES)}.",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--write-docs", action="store_true", help="write the result into docs/benchmarks.md")
    args = parser.parse_args()
    text = report(measure(args.runs), args.runs)
    print(text)
    if args.write_docs:
        write_block("visual-diff", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
