"""`make bench-jobs`: a batch of 100 screenshots against the same 100 sent synchronously, and the time from
the last item to its job.completed webhook, over the local API on loopback; written to
docs/benchmarks/jobs.md.

The synchronous side sends the 100 requests from as many concurrent clients as the batch has workers (the
SQS event source's MaximumConcurrency), each asking for the stored JSON form the batch's items produce.
Both run against the same stack and containers, in turns (sync, batch, sync, batch...), so load from
elsewhere falls on both alike; the figures are medians of the rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.support.fixture_server import get_server, stop_server  # noqa: E402
from tests.support.jobs_client import wait_until_settled  # noqa: E402
from tests.support.local_api import LocalApi, start_local_api  # noqa: E402
from tests.support.webhook_receiver import WebhookReceiver  # noqa: E402

DOC = REPO / "docs" / "benchmarks" / "jobs.md"
ITEMS = 100


def _sync_round(api: LocalApi, urls: list[str], workers: int) -> float:
    def shot(url: str) -> None:
        answer = api.call("POST", "/v1/web/screenshot", json={"url": url},
                          headers={"Accept": "application/json"})
        if answer.status_code != 200:
            raise RuntimeError(f"sync screenshot failed: {answer.status_code} {answer.text[:200]}")

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(shot, urls))
    return time.perf_counter() - started


def _wall(iso: str) -> float:
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()


def _batch_round(api: LocalApi, urls: list[str], receiver: WebhookReceiver) -> tuple[float, float]:
    """(seconds from submit to the job.completed webhook, seconds from the last item to that webhook)."""
    seen = len(receiver.deliveries)
    started, started_wall = time.perf_counter(), time.time()
    answer = api.call("POST", "/v1/batch", json={"operation": "screenshot",
                                                 "requests": [{"url": url} for url in urls],
                                                 "webhook": {"url": receiver.url}})
    if answer.status_code != 202:
        raise RuntimeError(f"batch refused: {answer.status_code} {answer.text[:200]}")
    deliveries = receiver.wait_for(seen + 1, 1800)
    arrived = time.perf_counter()
    arrived_wall = started_wall + (arrived - started)
    job = wait_until_settled(api, answer.json()["data"]["jobId"], give_up_s=60)
    if job["completed"] != len(urls) or deliveries[seen].verified is None:
        raise RuntimeError(f"the batch did not complete cleanly: {job}")
    # The job's updatedAt is written with its final status, right after its last item's result.
    return arrived - started, arrived_wall - _wall(job["updatedAt"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4, help="the batch's workers = the sync clients")
    parser.add_argument("--write-docs", action="store_true", help=f"write {DOC.relative_to(REPO)}")
    args = parser.parse_args(argv)
    site = get_server()
    stack = start_local_api(
        {"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.1/32",
         "WEBCAPTURE_DEFAULT_MAX_CONCURRENCY": str(args.workers + 1)},
        demo_credits=-1,
        extra_args=["--max-containers", str(args.workers), "--parameter",
                    f"JobsWorkerConcurrency={args.workers}"])
    receiver = WebhookReceiver()
    try:
        with stack.errors_shown():
            receiver.secret = stack.call("GET", "/v1/webhooks/secret").json()["data"]["secret"]
            warm = [site.url(f"/plain.html?warm={i}") for i in range(args.workers * 2)]
            _sync_round(stack, warm, args.workers)
            _batch_round(stack, warm, receiver)
            sync_s, batch_s, webhook_s = [], [], []
            for round_number in range(args.rounds):
                urls = [site.url(f"/plain.html?r={round_number}&i={i}") for i in range(ITEMS)]
                sync_s.append(_sync_round(stack, urls, args.workers))
                total, after_last = _batch_round(stack, [f"{u}&b=1" for u in urls], receiver)
                batch_s.append(total)
                webhook_s.append(after_last)
                print(f"round {round_number + 1}: sync {sync_s[-1]:.2f} s, batch {total:.2f} s "
                      f"(webhook {after_last * 1000:.0f} ms after the last item)", flush=True)
    finally:
        receiver.stop()
        stack.stop()
        stop_server()
    sync_median, batch_median = statistics.median(sync_s), statistics.median(batch_s)
    ratio = batch_median / sync_median
    lines = [
        "# Jobs: a batch against the same requests sent synchronously",
        "",
        "`make bench-jobs` (scripts/bench_jobs.py), over the local API on loopback: 100 screenshots of "
        f"`plain.html`, stored (JSON form), {args.workers} workers for the batch (the SQS event source's "
        f"MaximumConcurrency) and {args.workers} concurrent clients for the synchronous side, in turns, "
        f"{args.rounds} rounds, medians. Machine: {os.cpu_count()} cores, shared.",
        "",
        "| what | median | target |",
        "|---|---|---|",
        f"| 100 sync screenshots, {args.workers} clients | {sync_median:.2f} s | |",
        f"| the same as one batch, submit to job.completed webhook | {batch_median:.2f} s | |",
        f"| batch / sync | {ratio:.2f}x | within 1.15x |",
        f"| last item to job.completed webhook | {statistics.median(webhook_s) * 1000:.0f} ms | < 1 s |",
        "",
        "Every round: " + ", ".join(f"sync {s:.2f} s / batch {b:.2f} s / webhook {w * 1000:.0f} ms"
                                    for s, b, w in zip(sync_s, batch_s, webhook_s, strict=True)) + ".",
        "",
    ]
    print("\n".join(lines))
    if args.write_docs:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
