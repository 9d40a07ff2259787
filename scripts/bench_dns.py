"""`make bench-dns`: a page with 60 resources on a slow-resolving host, against the same page with the host
already in the resolver's cache, side by side in one run.

The egress guard looks each host up once per request and keeps the answer for the request's life
(webcapture.egress.resolver.HostAnswers), so a slow resolver should cost one lookup a capture, not one a
connection. Both variants run the service's browser core (webcapture.browser.take_screenshot) in this
process, on the same Chromium and the same loopback page (on 127.0.0.2, under the name slow.test), in turns
(slow, cached, slow, cached, ...) so other load on the machine falls on both alike. The guard asks a
loopback DNS server (WEBCAPTURE_EGRESS_DNS_SERVER): in one variant it holds every answer back --delay-ms
(a resolver that has to ask upstream), in the other it answers at once (the host in its cache). Medians;
the ratio is slow / cached (target: within 1.2x).

    python scripts/bench_dns.py [--runs 9] [--delay-ms 100] [--write-docs]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "layers" / "shared"), str(REPO)]
os.environ["WEBCAPTURE_EGRESS_ALLOW"] = "127.0.0.2/32"

from tests.support.dns_server import answering  # noqa: E402
from tests.support.egress_resolvers import MapResolver  # noqa: E402
from tests.support.recording_origin import recording_origin  # noqa: E402
from webcapture.browser import take_screenshot  # noqa: E402
from webcapture.browser.lifecycle import shutdown_browser  # noqa: E402
from webcapture.models.requests import ScreenshotRequest  # noqa: E402

DOC = REPO / "docs" / "benchmarks" / "dns.md"
HOST = "slow.test"
RESOURCES = 60
TARGET = 1.2
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>'


def capture(url: str) -> float:
    request = ScreenshotRequest.model_validate({"url": url, "screenshotOptions": {"fullPage": False}})
    started = time.perf_counter()
    take_screenshot(request)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--delay-ms", type=int, default=100)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    names = MapResolver({HOST: ["127.0.0.2"]})
    times: dict[str, list[float]] = {"slow": [], "cached": []}
    lookups: dict[str, list[int]] = {"slow": [], "cached": []}
    with recording_origin("127.0.0.2") as origin:
        for index in range(RESOURCES):
            origin.serve(f"/r/{index}.svg", SVG, "image/svg+xml")
        images = "".join(f'<img src="http://{HOST}:{origin.port}/r/{i}.svg">' for i in range(RESOURCES))
        origin.serve("/page.html", f"<!doctype html><title>60</title><body>{images}</body>")
        # Every capture has a context of its own, so nothing comes from Chromium's cache in either variant.
        url = f"http://{HOST}:{origin.port}/page.html"
        with answering(names):
            capture(url)  # launch the browser and warm everything up, untimed
        for run in range(args.runs):
            for variant in ("slow", "cached"):
                delay = args.delay_ms / 1000 if variant == "slow" else 0.0
                with answering(names, delay_s=delay) as server:
                    times[variant].append(capture(url))
                    lookups[variant].append(server.lookups(HOST))
            print(f"run {run + 1}: slow {times['slow'][-1]:.0f} ms ({lookups['slow'][-1]} lookups), "
                  f"cached {times['cached'][-1]:.0f} ms", flush=True)
    shutdown_browser()
    slow, cached = statistics.median(times["slow"]), statistics.median(times["cached"])
    ratio = slow / cached
    report = render(args, slow, cached, ratio, max(lookups["slow"]))
    print(report)
    if args.write_docs:
        DOC.parent.mkdir(parents=True, exist_ok=True)
        DOC.write_text(report, encoding="utf-8")


def render(args: argparse.Namespace, slow: float, cached: float, ratio: float, most_lookups: int) -> str:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    met = "met" if ratio <= TARGET else "not met"
    row = (f"| median capture, {args.runs} runs each, in turns | {slow:.0f} ms | {cached:.0f} ms "
           f"| {ratio:.2f}x | within {TARGET}x | {met} |")
    command = f"python scripts/bench_dns.py --runs {args.runs} --delay-ms {args.delay_ms} --write-docs"
    return f"""# DNS: a slow resolver costs one lookup a capture

A page with {RESOURCES} images on one host, captured (viewport screenshot) through the service's browser core
while the resolver holds every answer back {args.delay_ms} ms, against the same page while it answers at once
(the host in its cache). The egress guard looks each host up once per request and every connection to it
uses that answer, so the slow resolver adds one lookup, not one per connection.

| figure | slow resolver ({args.delay_ms} ms) | host in the cache | ratio | target | met |
|---|---|---|---|---|---|
{row}

Lookups of the host in one capture with the slow resolver, at most: {most_lookups}.

- Machine: {machine} (shared with other work while it ran).
- Command: `make bench-dns` (`{command}`).
"""


if __name__ == "__main__":
    main()
