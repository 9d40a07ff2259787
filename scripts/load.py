"""`make load`: concurrent clients against the local API, mixed endpoints, a fixed number of requests.

Everything is on loopback: the local API (`python -m localapi`, each function in its own warm containers,
up to --containers per function), the suite's fixture pages, and the fake OpenAI-compatible server for
ai-extract. Each client has its own API key (so a per-key concurrency limit never refuses the load itself),
with more credits than it can spend. Reports throughput, latency percentiles (all and per endpoint),
answers by status and error code, and checks that the credits spent equal the successful requests' costs,
exactly.

    python scripts/load.py [--clients 50] [--requests 300] [--containers 2] [--write-docs docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
# This process creates the clients' keys in the stack's moto: fake credentials, a fixed region.
for _name, _value in (("AWS_ACCESS_KEY_ID", "local"), ("AWS_SECRET_ACCESS_KEY", "local"),
                      ("AWS_DEFAULT_REGION", "us-east-1")):
    os.environ.setdefault(_name, _value)

from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.fake_openai import FakeOpenAI, completion  # noqa: E402
from tests.support.fixture_server import get_server, stop_server  # noqa: E402
from tests.support.local_api import LocalApi, start_local_api  # noqa: E402

CREDITS_PER_KEY = 10_000


@dataclass(frozen=True)
class Endpoint:
    name: str
    weight: int
    cost: int
    send: Callable[[requests.Session, str, str], requests.Response]


def _post(path: str, body: Callable[[], dict[str, Any]], accept: str | None = None,
          ) -> Callable[[requests.Session, str, str], requests.Response]:
    def send(session: requests.Session, base: str, key: str) -> requests.Response:
        headers = {"Authorization": f"Bearer {key}"}
        if accept:
            headers["Accept"] = accept
        return session.post(base + path, json=body(), headers=headers, timeout=60)

    return send


def _list_keys(session: requests.Session, base: str, key: str) -> requests.Response:
    return session.get(base + "/v1/api-keys/list", headers={"Authorization": f"Bearer {key}"}, timeout=60)


def endpoints() -> list[Endpoint]:
    fixtures = get_server()
    plain, links = fixtures.url("/plain.html"), fixtures.url("/many-links?n=50")
    small = {"viewport": {"width": 800, "height": 600}, "screenshotOptions": {"fullPage": False}}
    return [
        Endpoint("screenshot (png bytes)", 40, 1,
                 _post("/v1/web/screenshot", lambda: {"url": plain, **small})),
        Endpoint("screenshot (stored, JSON)", 10, 1,
                 _post("/v1/web/screenshot", lambda: {"url": plain, **small}, accept="application/json")),
        Endpoint("links", 25, 1, _post("/v1/web/links", lambda: {"url": links})),
        Endpoint("ai-extract (text)", 15, 5,
                 _post("/v1/web/ai-extract", lambda: {"url": plain, "responseType": "text"})),
        Endpoint("api-keys/list", 10, 0, _list_keys),
    ]


@dataclass
class Result:
    endpoint: str
    status: int
    code: str
    seconds: float
    cost: int


def error_code(response: requests.Response) -> str:
    if response.status_code < 400:
        return ""
    try:
        body = response.json()
    except ValueError:
        return "(not JSON)"
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("code") or error.get("name") or "?")
    return "?"


def schedule(count: int, mix: list[Endpoint]) -> list[Endpoint]:
    """count requests in a fixed interleaved order that follows the weights (no randomness: runs compare)."""
    total = sum(e.weight for e in mix)
    order: list[Endpoint] = []
    credit = {e.name: 0.0 for e in mix}
    for _ in range(count):
        for e in mix:
            credit[e.name] += e.weight / total
        chosen = max(mix, key=lambda e: credit[e.name])
        credit[chosen.name] -= 1
        order.append(chosen)
    return order


def run_load(api: LocalApi, keys: list[str], order: list[Endpoint]) -> tuple[list[Result], float]:
    results: list[Result] = []
    lock = threading.Lock()
    next_index = iter(range(len(order)))

    def client(key: str) -> None:
        session = requests.Session()
        while True:
            with lock:
                index = next(next_index, None)
            if index is None:
                return
            endpoint = order[index]
            started = time.monotonic()
            try:
                response = endpoint.send(session, api.url, key)
                status, code = response.status_code, error_code(response)
            except requests.RequestException as exc:
                status, code = 0, type(exc).__name__
            with lock:
                results.append(Result(endpoint.name, status, code, time.monotonic() - started, endpoint.cost))

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(key,)) for key in keys]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, time.monotonic() - started


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))]


def containers_started(api: LocalApi) -> Counter[str]:
    """Live containers per function at the end (processes named `c:<function>`, under the local API)."""
    from webcapture.browser.launch import processes

    started: Counter[str] = Counter()
    for pid in processes.descendants(api.process.pid):
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if name.startswith("c:"):
            started[name[2:]] += 1
    return started


def report(results: list[Result], elapsed: float, args: argparse.Namespace, spent: int,
           containers: Counter[str]) -> tuple[str, bool]:
    ok = [r for r in results if 200 <= r.status < 400]
    expected = sum(r.cost for r in ok)
    lines = [
        f"{len(results)} requests from {args.clients} concurrent clients (one API key each), at most "
        f"{args.containers} warm containers per function, on {platform.machine()} with {os.cpu_count()} "
        f"cores: **{len(results) / elapsed:.1f} requests/s** over {elapsed:.0f} s.",
        "",
        "| endpoint | requests | ok | p50 s | p99 s |",
        "|---|---:|---:|---:|---:|",
    ]
    by_endpoint: dict[str, list[Result]] = {}
    for r in results:
        by_endpoint.setdefault(r.endpoint, []).append(r)
    for name, group in [*by_endpoint.items(), ("all", results)]:
        seconds = [r.seconds for r in group]
        good = sum(1 for r in group if 200 <= r.status < 400)
        lines.append(f"| {name} | {len(group)} | {good} | {statistics.median(seconds):.2f} | "
                     f"{percentile(seconds, 0.99):.2f} |")
    answers = Counter(f"{r.status} {r.code}".strip() for r in results)
    lines += ["", "Answers: " + ", ".join(f"{k}: {v}" for k, v in sorted(answers.items())) + "."]
    lines.append("Containers at the end: "
                 + ", ".join(f"{k} {v}" for k, v in sorted(containers.items())) + ".")
    exact = spent == expected
    lines.append(f"Credits spent {spent} == sum of the successful requests' costs {expected}: "
                 f"**{'yes' if exact else 'NO'}**.")
    return "\n".join(lines), exact


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=300)
    # 2 cores: more browser containers than that only share the same cores (and the memory of a Chromium each)
    parser.add_argument("--containers", type=int, default=2, help="warm containers per function (cap)")
    parser.add_argument("--write-docs", type=Path, default=None)
    args = parser.parse_args()

    mix = endpoints()
    order = schedule(args.requests, mix)
    with FakeOpenAI() as fake_openai:
        fake_openai.script(*[completion("A short page about nothing much.")
                             for _ in range(sum(1 for e in order if e.cost == 5))])
        api = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8",
                               "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "sk-load-test",
                               "POWERTOOLS_LOG_LEVEL": "WARNING", "POWERTOOLS_METRICS_DISABLED": "true"},
                              extra_args=["--max-containers", str(args.containers)])
        try:
            for name, value in api.environment.items():
                os.environ[name] = value
            from webcapture.auth.api_keys import create_key, find_by_key

            keys = [create_key(f"load-user-{i}", "load", remaining=CREDITS_PER_KEY)[0]
                    for i in range(args.clients)]
            results, elapsed = run_load(api, keys, order)
            spent = 0
            for key in keys:
                record = find_by_key(key)
                assert record is not None
                spent += CREDITS_PER_KEY - int(record.public()["remaining"])
            containers = containers_started(api)
        finally:
            api.stop()
            stop_server()
    text, exact = report(results, elapsed, args, spent, containers)
    print(text)
    if args.write_docs:
        write_block("load", text, args.write_docs)
    return 0 if exact else 1


if __name__ == "__main__":
    sys.exit(main())
