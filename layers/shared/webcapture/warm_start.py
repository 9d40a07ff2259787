"""Browser functions get their browser ready during Lambda's init phase, not on the first request.

Importing this module (the first import of a browser function's handler module, before the heavy ones)
starts one background thread that unpacks Chromium and Playwright's Node (at the same time), starts the
driver and launches the browser, while the handler's own imports run and, on a cold start, while Lambda
hands over the first event. The first request then finds the browser launched, or waits on the same
worker for the launch already under way (webcapture.browser.lifecycle queues it behind the warm-up).

Only the browser functions import it: the others must not unpack 337 MB into /tmp. Nothing here may make
an import fail: a failure is logged and the first request tries again, as it would have without this.
The per-folder unpack locks keep several processes (local API containers) to one unpack each.
WEBCAPTURE_WARM_START=0 turns it off (the cold-start benchmark's comparison does).

It lives outside webcapture.browser so that its import loads nothing heavy: the thread starts first.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from webcapture.settings import get_settings

log = logging.getLogger(__name__)

_started = threading.Event()
_settled = threading.Event()
_lock = threading.Lock()


def begin() -> bool:
    """Start the warm-up thread once per process; False when it had started already or is turned off."""
    with _lock:
        if _started.is_set() or not get_settings().warm_start:
            return False
        _started.set()
    threading.Thread(target=_warm_up, name="webcapture-warm-start", daemon=True).start()
    return True


def wait(timeout_s: float | None = None) -> bool:
    """Block until the warm-up has launched the browser or failed; False on timeout (tests, benchmarks)."""
    return _settled.wait(timeout_s)


def _warm_up() -> None:
    try:
        settings = get_settings()
        # The unpacks first, each on its own thread waiting on its own child process (unpack_once): their
        # modules are light, and they overlap the imports that follow here and in the handler on the
        # other core, without competing for the GIL.
        from webcapture.browser.launch import chromium_pack, node_runtime

        _in_thread("unpack-chromium", lambda: chromium_pack.resolve_chromium(settings))
        _in_thread("unpack-node", lambda: node_runtime.ensure_playwright_node(settings))
        from webcapture.browser.lifecycle import host

        # Waits for both unpacks (the per-folder locks), starts the driver and launches the browser.
        host().warm_up(settings.request_budget_ms).add_done_callback(lambda _: _settled.set())
    except Exception as exc:  # the first request retries; an import must never fail because of this
        log.warning("starting the browser at init failed (the first request retries): %r", exc)
        _settled.set()


def _in_thread(name: str, job: Callable[[], object]) -> None:
    def run() -> None:
        try:
            job()
        except Exception as exc:  # the launch that follows meets the same error and reports it
            log.warning("%s at init failed: %r", name, exc)

    threading.Thread(target=run, name=f"webcapture-{name}", daemon=True).start()


begin()
