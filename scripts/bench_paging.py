"""`make bench-paging`: a 1,000-item batch of `markdown` results totalling more than 50 MB, read back whole at
`limit` 1, 10, 50 and 100, over the local API on loopback; written to docs/benchmarks/jobs.md.

A size run, not a race: it shows that at a user's size every result is reachable at every `limit`, each
index exactly once, and what the submit, the run and each full read cost in time and requests. The items
are answered from the cache (one synchronous `markdown` of the page first), so the run measures the job's
own path (queue, results, paging), not 1,000 page loads. The e2e suite runs the same checks on 300 items
(tests/e2e/test_e2e_jobs_settle.py).

    python scripts/bench_paging.py [--items 1000] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.fixture_server import get_server, stop_server  # noqa: E402
from tests.support.jobs_client import wait_until_settled  # noqa: E402
from tests.support.local_api import LocalApi, start_jobs_stack  # noqa: E402

DOC = REPO / "docs" / "benchmarks" / "jobs.md"
LIMITS = (100, 50, 10, 1)
MIN_TOTAL_BYTES = 50_000_000
# A read the stage throttled (it sends no Retry-After) is made again after this long.
THROTTLED_WAIT_S = 0.5


def read_all(api: LocalApi, job_id: str, limit: int) -> tuple[list[dict[str, Any]], int, int]:
    """Every result through `next`, how many reads that took, and how many the stage's throttle refused
    (429: waited out as a client does, Retry-After or THROTTLED_WAIT_S, and read again)."""
    results: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": limit}
    requests = throttled = 0
    while True:
        answer = api.call("GET", f"/v1/jobs/{job_id}", params=params)
        if answer.status_code == 429:
            throttled += 1
            time.sleep(float(answer.headers.get("Retry-After") or THROTTLED_WAIT_S))
            continue
        assert answer.status_code == 200, answer.text
        data = answer.json()["data"]
        requests += 1
        assert len(data["results"]) <= limit
        results.extend(data["results"])
        if data["next"] is None:
            return results, requests, throttled
        params = {"limit": limit, "cursor": data["next"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=1_000)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    api = start_jobs_stack("127.0.0.1/32", 10 * args.items)
    try:
        page = {"url": get_server().url("/long-article.html"), "maxAge": 3_600}
        first = api.call("POST", "/v1/web/markdown", json=page)
        assert first.status_code == 200, first.text
        size = len(first.json()["data"]["markdown"].encode())
        started = time.monotonic()
        batch = {"operation": "markdown", "requests": [page] * args.items}
        accepted = api.call("POST", "/v1/batch", json=batch)
        submit_s = time.monotonic() - started
        assert accepted.status_code == 202, accepted.text
        job_id = accepted.json()["data"]["jobId"]
        settled = wait_until_settled(api, job_id, give_up_s=3_600)
        run_s = time.monotonic() - started
        assert (settled["status"], settled["completed"]) == ("completed", args.items), settled
        rows = []
        for limit in LIMITS:
            reads_before = time.monotonic()
            results, requests, throttled = read_all(api, job_id, limit)
            indexes = sorted(r["index"] for r in results)
            whole = indexes == list(range(args.items))
            total = sum(len(r["data"]["markdown"].encode()) for r in results)
            rows.append(f"| {limit} | {len(results):,} | {'yes' if whole else 'NO'} | {total / 1e6:.1f} MB "
                        f"| {requests:,} | {throttled:,} | {time.monotonic() - reads_before:.1f} s |")
            assert whole, f"limit {limit}: {len(results)} results, {len(set(indexes))} distinct"
            assert total > MIN_TOTAL_BYTES, f"{total} bytes"
    finally:
        api.stop()
        stop_server()
    text = "\n".join([
        f"A batch of {args.items:,} `markdown` items of one {size / 1000:.0f} KB page "
        "(answered from the cache), "
        f"{args.items * size / 1e6:.1f} MB of results: submit answered in {submit_s:.1f} s, the job settled "
        f"{run_s:.0f} s after the submit. Every result read back whole at each `limit`, each index once:",
        "",
        "| limit | results read | every index once | Markdown read | requests | throttled (429, read again) "
        "| time |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d} on {os.cpu_count()} cores, local API over moto's server "
        "(`make bench-paging`).",
    ])
    print(text)
    if args.write_docs:
        write_block("paging", text, DOC)


if __name__ == "__main__":
    main()
