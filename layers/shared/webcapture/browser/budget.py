"""The per-request time budget (API Gateway gives up at 29 s; settings.request_budget_ms leaves room to
store and answer).

Every Playwright call that takes a timeout gets the time that is left. Some calls take none (evaluate,
CDP commands): a page stuck in a script loop would hold them forever, so a watchdog thread steps in once the
budget is spent plus a grace period: it kills the page's renderer (the browser lives on), and if the call is
still blocked a grace period later, the whole browser. The blocked call then fails and the request becomes
a NavigationTimeout.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from webcapture.errors import NavigationTimeout

# Time the graceful timeouts get to fire before the watchdog steps in.
WATCHDOG_GRACE_S = 1.0
# Below this, starting another step (a retry, a wait) cannot finish in time anyway.
MIN_STEP_MS = 50


@dataclass
class Deadline:
    budget_ms: int
    started: float = field(default_factory=time.monotonic)

    @property
    def remaining_ms(self) -> float:
        return self.budget_ms - (time.monotonic() - self.started) * 1000

    def timeout_ms(self) -> float:
        """The remaining time as a Playwright timeout; raises once the budget is spent (0 means 'no
        timeout' to Playwright, so it must never be passed)."""
        left = self.remaining_ms
        if left < MIN_STEP_MS:
            raise self.expired()
        return left

    def expired(self) -> NavigationTimeout:
        return NavigationTimeout(f"The page did not load within the time budget of {self.budget_ms} ms")


class Watchdog:
    def __init__(self) -> None:
        self.fired = threading.Event()


@contextmanager
def watchdog(deadline: Deadline, *steps: Callable[[], None]) -> Iterator[Watchdog]:
    """Run steps, each WATCHDOG_GRACE_S after the one before, the first once the budget and a grace period
    are spent, until the block ends: the gentlest remedy first, a harsher one only if the block still runs."""
    dog = Watchdog()
    stop = threading.Event()

    def fire() -> None:
        if stop.wait(max(deadline.remaining_ms / 1000, 0) + WATCHDOG_GRACE_S):
            return
        dog.fired.set()
        for index, step in enumerate(steps):
            if index and stop.wait(WATCHDOG_GRACE_S):
                return
            step()

    timer = threading.Thread(target=fire, name="webcapture-watchdog", daemon=True)
    timer.start()
    try:
        yield dog
    finally:
        stop.set()
