"""moto's server finds each request's service once per host, not once per request.

For every request, moto's server (DomainDispatcherApplication) asks which backend serves the request's
host: it lists moto's package folder (a `listdir` and an `isdir` for each of its ~150 services) and then
tries the URL patterns of every service in turn until one matches. The answer depends on the host alone
and never changes while the server runs, yet it cost about a tenth of the emulator's CPU during a crawl's
re-crawl, in the emulator's one process, on the same two cores as the functions it serves. The answer is
kept per host after moto's own lookup gives it (tests/unit/test_moto_routing.py).
"""

from __future__ import annotations

import threading
from typing import Any

from moto.moto_server.werkzeug_app import DomainDispatcherApplication

# moto's own lookup, kept when the memo replaces it (a module global, so a test can count its calls).
_moto_lookup = DomainDispatcherApplication.get_backend_for_host
_patched = False
_lock = threading.Lock()


def _once_per_host(self: DomainDispatcherApplication, host: str | None) -> Any:
    # moto calls this under the dispatcher's own lock, so the memo needs none of its own.
    found: dict[str | None, Any] = self.__dict__.setdefault("_webcapture_backends", {})
    if host not in found:
        found[host] = _moto_lookup(self, host)
    return found[host]


def make_backend_lookup_once_per_host() -> None:
    """Put the per-host memo in front of moto's lookup (once per process)."""
    global _patched
    with _lock:
        if not _patched:
            DomainDispatcherApplication.get_backend_for_host = _once_per_host  # type: ignore[method-assign]
            _patched = True
