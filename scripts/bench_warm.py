"""`make bench-warm`: the service's warm screenshot against a baseline build of the service.

The warm target is a warm capture of plain.html at least 25% faster than the baseline, commit f538ae6 (the
older GL flags, `--use-gl=angle --use-angle=swiftshader`, and no spare context), in the same run. This runs
both: each tree's own
browser core (webcapture.browser.take_screenshot, what /v1/web/screenshot calls once the request is
authorised and metered) with its own launch flags, in its own Python process, on the same Chromium pack and
the same loopback pages, in turns (a, b, c, b, c, a, ...), so other load on the machine falls on all alike.

Variants:
    baseline           f538ae6 (a git worktree of it, made in .cache/bench-warm-baseline unless --baseline
                       names one)
    no spare           this tree with WEBCAPTURE_SPARE_CONTEXT=0: every request makes its own context
    this tree          as it ships: a spare context and page made between requests
                       (webcapture.browser.page.spare_context)

Two rounds: "spaced", each request followed by an untimed 0.3 s pause (requests that do not arrive back to
back, the spare has time to be made), and "back to back", --burst requests in a row with no pause, timed
one by one (the spare is made while the next request already waits: the worst case for it). Medians; the
ratios are to the baseline.

    python scripts/bench_warm.py [--runs 15] [--burst 10] [--baseline DIR] [--write-docs]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.fixture_server import get_server, stop_server  # noqa: E402

BASELINE_COMMIT = "f538ae6"
PAGES = {"plain.html": False, "tall.html": True}  # page: full page?
PAUSE_S = 0.3

# Runs in each variant's own Python: that tree's package first on the path. Reads "<url> <full> <count>"
# lines and answers each with the milliseconds of <count> screenshots in a row.
_WORKER = """
import json, sys, time
tree = sys.argv[1]
sys.path[:0] = [tree + "/layers/shared", tree]
from webcapture.browser import take_screenshot
from webcapture.models.requests import ScreenshotRequest
for line in sys.stdin:
    url, full, count = line.split()
    request = ScreenshotRequest.model_validate({"url": url, "screenshotOptions": {"fullPage": full == "1"}})
    times = []
    for _ in range(int(count)):
        started = time.perf_counter()
        shot = take_screenshot(request)
        times.append((time.perf_counter() - started) * 1000)
        assert shot.image[:4] == b"\\x89PNG"
    print(json.dumps(times), flush=True)
"""


class Variant:
    def __init__(self, name: str, tree: Path, env: dict[str, str], cache: Path) -> None:
        self.name = name
        environment = {
            **os.environ,
            **env,
            "WEBCAPTURE_CHROMIUM_PACK": str(REPO / ".cache" / "chromium-pack"),
            "WEBCAPTURE_CACHE_DIR": str(cache),
            "WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8",
            "WEBCAPTURE_WARM_START": "0",
            "POWERTOOLS_TRACE_DISABLED": "true",
        }
        self.process = subprocess.Popen(  # our own interpreter and trees
            [sys.executable, "-c", _WORKER, str(tree)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment,
        )

    def shots(self, url: str, full_page: bool, count: int) -> list[float]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{url} {int(full_page)} {count}\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise SystemExit(f"{self.name}: the worker died")
        times: list[float] = json.loads(answer)
        return times

    def stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def baseline_tree(given: Path | None) -> Path:
    if given is not None:
        return given
    tree = REPO / ".cache" / "bench-warm-baseline"
    if not (tree / "layers" / "shared" / "webcapture").is_dir():
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), BASELINE_COMMIT], cwd=REPO,
                       check=True)
    return tree


def measure(variants: list[Variant], runs: int, burst: int) -> dict[str, dict[str, float]]:
    server = get_server()
    results: dict[str, dict[str, float]] = {}
    try:
        for page, full_page in PAGES.items():
            url = server.url(f"/{page}")
            for variant in variants:
                variant.shots(url, full_page, 3)  # warm: the browser launched, the page's files cached
            spaced: dict[str, list[float]] = {variant.name: [] for variant in variants}
            in_row: dict[str, list[float]] = {variant.name: [] for variant in variants}
            for turn in range(runs):
                shift = turn % len(variants)
                for variant in variants[shift:] + variants[:shift]:
                    spaced[variant.name] += variant.shots(url, full_page, 1)
                    time.sleep(PAUSE_S)
            for turn in range(max(runs // burst, 3)):
                shift = turn % len(variants)
                for variant in variants[shift:] + variants[:shift]:
                    time.sleep(PAUSE_S)
                    in_row[variant.name] += variant.shots(url, full_page, burst)
            results[f"`{page}`, spaced"] = {name: statistics.median(v) for name, v in spaced.items()}
            results[f"`{page}`, back to back"] = {name: statistics.median(v) for name, v in in_row.items()}
    finally:
        stop_server()
    return results


def report(results: dict[str, dict[str, float]], names: list[str], runs: int, burst: int) -> str:
    machine = platform.processor() or platform.machine()
    lines = [
        f"`python scripts/bench_warm.py` on {os.cpu_count()} cores, {machine}, Python "
        f"{platform.python_version()}; load average {os.getloadavg()[0]:.1f} at the end. The service's "
        f"browser core (take_screenshot) of each tree in its own process, in turns; medians of {runs} spaced "
        f"requests (an untimed {PAUSE_S} s pause after each) and of bursts of {burst} back to back. Ratios "
        f"are to the baseline ({BASELINE_COMMIT}).",
        "",
        "| page, arrival | " + " | ".join(names) + " |",
        "|---|" + "---:|" * len(names),
    ]
    for row, medians in results.items():
        base = medians[names[0]]
        cells = [f"{medians[names[0]]:.0f} ms"]
        cells += [f"{medians[name]:.0f} ms ({medians[name] / base:.2f}x)" for name in names[1:]]
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--burst", type=int, default=10)
    parser.add_argument("--baseline", type=Path, help="a checkout of the baseline (default: a worktree here)")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    scratch = REPO / ".cache" / "bench-warm"
    specs: list[tuple[str, Path, dict[str, Any]]] = [
        ("baseline", baseline_tree(args.baseline), {}),
        ("no spare", REPO, {"WEBCAPTURE_SPARE_CONTEXT": "0"}),
        ("this tree", REPO, {}),
    ]
    # One cache folder: each tree unpacks the pack once (under its own key); each process has its own scratch.
    variants = [Variant(name, tree, env, scratch) for name, tree, env in specs]
    try:
        results = measure(variants, args.runs, args.burst)
    finally:
        for variant in variants:
            variant.stop()
    section = report(results, [name for name, _, _ in specs], args.runs, args.burst)
    print(section)
    if args.write_docs:
        write_block("warm", section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
