"""`make bench-recovery`: the first normal capture after a timed-out bomb page, against a normal capture.

A page that keeps the browser busy (500 workers looping, and an image that never finishes) answers 504 at
the request budget; what matters is what it leaves behind for the next request in the same container. This
runs the local API with one container per function, and in each round takes --normal captures of a trivial
page (their median is the round's normal capture), then the bomb page (a 504, refunded), then the trivial
page once more, at once: the first capture after the bomb. Both are timed end to end over HTTP, in the same
run and the same container, so other load on the machine falls on both alike. The figure is the median of
the first-after captures over the median of the normal ones; the target is 1.5x.

Rows for the other probe pages of tests/e2e/test_e2e_page_recovery.py (looping iframes, a main thread
looping after load, a memory bomb) come with --all.

    python scripts/bench_recovery.py [--rounds 5] [--normal 3] [--budget-ms 5000] [--all] [--against DIR]
                                     [--write-docs]

--against DIR measures another tree's webcapture package (DIR/layers/shared) as well, in a local API of its
own, after this tree's (for a before/after: a `git worktree` of an older commit).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.local_api import LocalApi, start_local_api  # noqa: E402
from tests.support.probe_pages import ProbeServer  # noqa: E402

DOC = REPO / "docs" / "benchmarks" / "recovery.md"
TARGET = 1.5
# The endpoint each probe page goes through: the main-thread loop is the one only the watchdog ends, which
# the links endpoint reaches (it evaluates in the page, with no timeout of its own).
PROBES = {"workers": "/v1/web/screenshot", "frames": "/v1/web/screenshot", "main-loop": "/v1/web/links",
          "memory": "/v1/web/screenshot"}


def timed(api: LocalApi, path: str, url: str, expect: int | None) -> tuple[float, int]:
    """Seconds the request took end to end, and its status (which must be `expect` unless that is None)."""
    body: dict[str, Any] = {"url": url}
    if path.endswith("screenshot"):
        body["screenshotOptions"] = {"fullPage": False}
    started = time.perf_counter()
    response = api.call("POST", path, json=body)
    elapsed = time.perf_counter() - started
    if expect is not None and response.status_code != expect:
        raise SystemExit(f"{path} {url}: {response.status_code} (expected {expect}): {response.text[:300]}")
    return elapsed, response.status_code


def warm(api: LocalApi, path: str, url: str) -> None:
    """A warm container and browser before anything is timed. The cold start may not fit a short budget on
    a busy machine: the first requests may answer 504 while it finishes."""
    ok = 0
    for _ in range(20):
        body: dict[str, Any] = {"url": url}
        ok = ok + 1 if api.call("POST", path, json=body).status_code == 200 else 0
        if ok == 3:
            return
    raise SystemExit(f"{path}: the container never answered three captures in a row")


@dataclass
class Row:
    figure: str
    normal: float  # median seconds
    after: float
    failed_after: int  # first captures after the probe page that did not answer 200
    rounds: int


def measure(tree: Path, label: str, probes: list[str], rounds: int, normal: int, budget_ms: int) -> list[Row]:
    env = {"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8", "WEBCAPTURE_REQUEST_BUDGET_MS": str(budget_ms),
           "WEBCAPTURE_WARM_START": "0",
           "PYTHONPATH": os.pathsep.join([str(tree / "layers" / "shared"), str(REPO)])}
    server = ProbeServer()
    api = start_local_api(env, demo_credits=100_000, extra_args=["--max-containers", "1"])
    rows: list[Row] = []
    try:
        for probe in probes:
            path = PROBES[probe]
            warm(api, path, server.url("/trivial"))
            normals: list[float] = []
            afters: list[float] = []
            failed = 0
            for _ in range(rounds):
                normals.append(statistics.median(
                    timed(api, path, server.url("/trivial"), 200)[0] for _ in range(normal)))
                timed(api, path, server.url(f"/{probe}"), None)  # a 504, refunded
                # Timed whatever it answers: on a browser the probe page still burns, it may be a 504 too.
                after, status = timed(api, path, server.url("/trivial"), None)
                afters.append(after)
                failed += status != 200
                print(f"  {label} {probe}: normal {normals[-1]:.3f} s, first after {after:.3f} s ({status})",
                      flush=True)
                if status != 200:
                    warm(api, path, server.url("/trivial"))
            rows.append(Row(f"{probe} page timed out ({label})", statistics.median(normals),
                            statistics.median(afters), failed, rounds))
    finally:
        api.stop()
        server.stop()
    return rows


def machine() -> str:
    load = os.getloadavg()[0]
    return f"{platform.machine()}, {os.cpu_count()} cores, load {load:.1f} (1 min) at the end"


def table(rows: list[Row], where: str, command: str) -> str:
    lines = ["| figure | normal capture | first capture after | ratio | target | met | machine | command |",
             "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        ratio = row.after / row.normal
        failures = f" ({row.failed_after} of {row.rounds} not 200)" if row.failed_after else ""
        met = "yes" if ratio <= TARGET and not row.failed_after else "no"
        lines.append(f"| {row.figure} | {row.normal * 1000:.0f} ms | {row.after * 1000:.0f} ms{failures} | "
                     f"{ratio:.2f}x | ≤ {TARGET}x | {met} | {where} | `{command}` |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--normal", type=int, default=3)
    parser.add_argument("--budget-ms", type=int, default=5000)
    parser.add_argument("--all", action="store_true", help="every probe page, not only the workers bomb")
    parser.add_argument("--probe", choices=list(PROBES), action="append", help="only these probe pages")
    parser.add_argument("--against", type=Path, help="another tree to measure the same way")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    probes = args.probe or (list(PROBES) if args.all else ["workers"])
    trees = [("this tree", REPO)]
    if args.against:
        trees.append((args.against.name, args.against.resolve()))
    rows: list[Row] = []
    for label, tree in trees:
        rows += measure(tree, label, probes, args.rounds, args.normal, args.budget_ms)
    command = "python scripts/bench_recovery.py " + " ".join(sys.argv[1:])
    rendered = table(rows, machine(), command.strip())
    print(rendered)
    if args.write_docs:
        write_docs(rendered, args)


def write_docs(rendered: str, args: argparse.Namespace) -> None:
    DOC.parent.mkdir(parents=True, exist_ok=True)
    DOC.write_text(
        "# Recovery after a timed-out page\n\n"
        "The first normal capture after a page that timed out while keeping the browser busy, against a\n"
        "normal capture in the same container and the same run (`scripts/bench_recovery.py`,\n"
        f"`make bench-recovery`). Medians over {args.rounds} rounds; each round's normal capture is the\n"
        f"median of {args.normal}; the request budget is {args.budget_ms} ms, so each probe page answers\n"
        f"504 after that. Target: within {TARGET}x.\n\n"
        f"{rendered}\n"
    )

if __name__ == "__main__":
    main()
