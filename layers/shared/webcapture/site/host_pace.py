"""How fast a crawl may load pages of one host (docs/crawl-and-map.md#crawl-and-map: `maxConcurrency` per
host, `delay` between requests to a host, robots.txt `Crawl-delay`).

The rules, without storage: a request may start when fewer than `max_concurrency` of the host's pages are
loading and `delay_s` has passed since the last start. A `Crawl-delay` is the site asking for requests
one after another, that far apart: it raises the delay to it and the concurrency to one. The shared
state of a crawl spread over many workers lives in DynamoDB (site.host_gate) and follows these rules.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from webcapture.site.robots import RobotsRules

# How long a worker that finds the host busy waits before it asks again, at least.
MIN_WAIT_S = 0.2


@dataclass(frozen=True)
class HostPace:
    max_concurrency: int = 2
    delay_s: float = 0.0

    @classmethod
    def of(cls, max_concurrency: int, delay_ms: int, robots: RobotsRules | None = None) -> HostPace:
        crawl_delay = 0.0 if robots is None else robots.crawl_delay_s
        if crawl_delay > 0:
            return cls(max_concurrency=1, delay_s=max(delay_ms / 1000, crawl_delay))
        return cls(max_concurrency=max_concurrency, delay_s=delay_ms / 1000)


@dataclass(frozen=True)
class HostState:
    in_flight: int = 0
    next_start: float = 0.0  # the earliest instant (epoch seconds) the next request may start


def admit(pace: HostPace, state: HostState, now: float) -> tuple[float, HostState]:
    """(0, the state with this request started) when it may start now; else (seconds to wait, state)."""
    if now < state.next_start:
        return max(state.next_start - now, MIN_WAIT_S), state
    if state.in_flight >= pace.max_concurrency:
        return max(pace.delay_s, MIN_WAIT_S), state
    return 0.0, HostState(state.in_flight + 1, now + pace.delay_s)


def finish(state: HostState) -> HostState:
    return replace(state, in_flight=max(state.in_flight - 1, 0))
