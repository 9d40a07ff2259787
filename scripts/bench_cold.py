"""`make bench-cold`: a browser function's cold start, from process start to its first screenshot.

What it runs is the Lambda code path on what `make build` made (built first if needed): the
ScreenshotFunction's folder with its layers laid out as an /opt stand-in, a fresh python3.12 with exactly
Lambda's import path (-I -S -B), Lambda's environment, an empty cache folder as /tmp. The child imports the
handler module (which starts the warm-up: webcapture.warm_start) and then takes a screenshot of a loopback
page through the browser core (webcapture.browser.take_screenshot, what the handler calls after the
authorizer's context and metering, which need AWS and are not part of a cold start's browser work).

Two deviations from Lambda, both settings the code reads on every platform: /opt cannot be written here, so
WEBCAPTURE_CHROMIUM_PACK names the laid-out <opt>/chromium (on Lambda the same code picks /opt/chromium);
and WEBCAPTURE_EGRESS_ALLOW lets the browser reach the loopback page.

Variants, run in turns (a, b, a, b...) so other load falls on all alike:
    warm start      this build: unpack and launch begin at import (the default)
    on request      WEBCAPTURE_WARM_START=0: everything waits for the first request

--against <build dir> (repeatable) adds another build's warm start to the same turns, e.g. main's build
copied aside: on a shared machine only such side-by-side figures compare.

This machine's own speed moves by up to 2x from one minute to the next (other tenants of its host; no steal
time shows), so each round of turns also times a fixed piece of CPU work in fresh python3.12 processes, one
per core at once (2,000,000 additions each: about 0.30 s when the machine runs at full speed), printed under
the table: a figure only compares with others taken at the same machine speed.

Each run reports, in seconds from the process's start: handler imported, Node unpacked, driver started,
Chromium unpacked, browser launched, first screenshot. Medians of --runs (5). The last line is
`cold start to first screenshot: X.XX s (median of 5)`, the warm-start variant.

    python scripts/bench_cold.py [--runs 5] [--json] [--against BUILD_DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.artifact.harness import (  # noqa: E402
    BUILD_DIR,
    BuiltFunction,
    built_functions,
    find_python312,
    lambda_environment,
    lay_out_opt,
)
from tests.support.fixture_server import get_server, stop_server  # noqa: E402

FUNCTION = "ScreenshotFunction"
STEPS = ("handler imported", "node unpacked", "driver started", "chromium unpacked", "browser launched",
         "first screenshot", "python process CPU")
VARIANTS: dict[str, dict[str, str]] = {"warm start": {}, "on request": {"WEBCAPTURE_WARM_START": "0"}}

# Runs in the fresh python3.12: standard library only until the path is Lambda's.
_CHILD = """
import json, sys, time
spawned = float(sys.argv[4])
task_root, opt, url = sys.argv[1:4]
sys.path[:0] = [task_root, f"{opt}/python/lib/python3.12/site-packages", f"{opt}/python"]
import app  # the handler module: its first import starts the warm-up
imported = time.monotonic()
from webcapture.browser import take_screenshot
from webcapture.browser.lifecycle import host
from webcapture.models.requests import ScreenshotRequest
shot = take_screenshot(ScreenshotRequest.model_validate({"url": url}))
done = time.monotonic()
assert shot.image[:8] == b"\\x89PNG\\r\\n\\x1a\\n", "not a png"
# Builds without the milestones (an older build given with --against) report the first screenshot alone.
steps = {"handler imported": imported, **getattr(host(), "milestones", {}), "first screenshot": done}
timings = {step: at - spawned for step, at in steps.items()}
# This process's own CPU (imports, driver I/O) and its finished children's (the unpacking), a figure other
# load on the machine barely moves. Node and Chromium, still running, are not in it.
import resource
usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
timings["python process CPU"] = sum(each.ru_utime + each.ru_stime for each in usage)
print(json.dumps(timings))
"""


_CALIBRATION = (
    "import time\nstarted = time.perf_counter()\ntotal = 0\nfor number in range(2_000_000):\n"
    "    total += number\nprint(time.perf_counter() - started)"
)


def machine_speed(python: Path) -> float:
    """Seconds a fixed piece of pure-Python CPU work takes right now, one copy per core at once (a cold start
    keeps both cores busy), the slower copy's figure."""
    copies = [subprocess.Popen([str(python), "-I", "-S", "-B", "-c", _CALIBRATION], stdout=subprocess.PIPE,
                               text=True) for _ in range(os.cpu_count() or 1)]
    return max(float(copy.communicate(timeout=60)[0].strip()) for copy in copies)


def ensure_build() -> None:
    layer = BUILD_DIR / "BrowserLayer"
    node = BUILD_DIR / "NodeLayer" / "python" / "playwright" / "driver" / "node.lz4"
    if not (BUILD_DIR / "template.yaml").is_file() or not (layer / "python" / "playwright").is_dir() \
            or not node.is_file():
        subprocess.run(["make", "build"], cwd=REPO, check=True)


def one_run(python: Path, function: BuiltFunction, opt: Path, url: str,
            extra: dict[str, str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="webcapture-cold-") as sandbox:
        env = lambda_environment(function, Path(sandbox), {
            "WEBCAPTURE_CHROMIUM_PACK": str(opt / "chromium"),
            "WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8",
            "POWERTOOLS_TRACE_DISABLED": "true",
            **extra,
        })
        spawned = time.monotonic()
        command = [str(python), "-I", "-S", "-B", "-c", _CHILD, str(function.code_dir), str(opt), url,
                   str(spawned)]
        completed = subprocess.run(
            command, env=env, cwd=function.code_dir, capture_output=True, text=True, timeout=180, check=False,
        )
        if completed.returncode != 0:
            # The head says what failed (Playwright's call log, at the end, can be long).
            errors = completed.stderr if len(completed.stderr) < 6000 else (
                f"{completed.stderr[:3000]}\n[...]\n{completed.stderr[-3000:]}")
            raise SystemExit(f"the cold start of {opt} failed:\n{completed.stdout}\n{errors}")
        timings: dict[str, float] = json.loads(completed.stdout.strip().splitlines()[-1])
        return timings


def table(results: dict[str, list[dict[str, float]]], runs: int) -> str:
    names = list(results)
    rows = [f"| step (seconds from process start, median of {runs}) | " + " | ".join(names) + " |",
            "|---|" + "---:|" * len(names)]
    for step in STEPS:
        cells = []
        for name in names:
            values = [run[step] for run in results[name] if step in run]
            cells.append(f"{statistics.median(values):.2f} s" if values else "-")
        label = f"**{step}**" if step == "first screenshot" else step
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--against", type=Path, action="append", default=[], metavar="BUILD_DIR",
                        help="another build's folder (say, main's, copied aside), run warm in the same turns")
    args = parser.parse_args(argv)
    python = find_python312()
    if python is None:
        raise SystemExit("needs CPython 3.12, Lambda's runtime: pyenv install 3.12, or WEBCAPTURE_PYTHON312")
    ensure_build()
    function = built_functions(BUILD_DIR)[FUNCTION]
    url = get_server().url("/plain.html")
    results: dict[str, list[dict[str, float]]] = {name: [] for name in VARIANTS}
    speeds: list[float] = []
    try:
        with tempfile.TemporaryDirectory(prefix="webcapture-opt-") as root:
            opt = lay_out_opt(function.layer_dirs, Path(root) / "opt")
            turns = [(name, function, opt, extra) for name, extra in VARIANTS.items()]
            for number, other in enumerate(args.against):
                # Another build, warm start, in the same turns: side by side despite other load.
                theirs = built_functions(other.resolve())[FUNCTION]
                turns.append((f"{other.name} (warm start)", theirs,
                              lay_out_opt(theirs.layer_dirs, Path(root) / f"against-{number}"), {}))
                results[turns[-1][0]] = []
            for _ in range(args.runs):
                speeds.append(machine_speed(python))
                for name, built, laid_out, extra in turns:
                    results[name].append(one_run(python, built, laid_out, url, extra))
    finally:
        stop_server()
    if args.json:
        print(json.dumps(results))
    machine = f"{os.cpu_count()} cores, {platform.machine()}, {platform.python_implementation()} 3.12"
    print(f"Cold start of {FUNCTION} from the built layers ({machine}):\n")
    print(table(results, args.runs))
    print(f"\nmachine speed: the fixed Python loop, one copy per core at once, took "
          f"{statistics.median(speeds):.2f} s (median of {len(speeds)}, "
          f"{min(speeds):.2f}-{max(speeds):.2f} s; about 0.30 s at full speed)")
    first = statistics.median(run["first screenshot"] for run in results["warm start"])
    print(f"\ncold start to first screenshot: {first:.2f} s (median of {args.runs})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
