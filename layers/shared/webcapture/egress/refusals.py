"""Refusals: logged, counted, and kept where the browser code can ask about them.

The proxy knows a request was refused; Chromium only sees a 403 or a failed tunnel. So that a main
document redirected to an internal address becomes 400 URL_NOT_ALLOWED rather than a generic navigation
failure, the browser code opens a `refusal_log()` around its navigation and asks it afterwards. A refusal
is recorded before the proxy answers, so by the time Chromium reports the failure the record exists.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, Literal

from aws_lambda_powertools import Logger
from aws_lambda_powertools.metrics import MetricUnit, single_metric

from webcapture.egress.hosts import Host, HostError, host_text, parse_host, parse_url, split_host_port
from webcapture.settings import get_settings

# Response header the proxy sets on everything it answers itself; the value says why. Its name ends in a
# random part chosen per process, so a page cannot fake the proxy's verdict by sending the header itself
# (over HTTPS the proxy relays an encrypted tunnel and could not strip it); over plain HTTP the proxy also
# drops every header of this family from upstream answers (http1.py).
EGRESS_HEADER_FAMILY: Final = "X-Webcapture-Egress"
EGRESS_HEADER: Final = f"{EGRESS_HEADER_FAMILY}-{secrets.token_hex(8)}"
REFUSED: Final = "refused"  # policy refusal: 403
UNRESOLVED: Final = "unresolved"  # DNS failure: 502
UNREACHABLE: Final = "unreachable"  # connect failed: 502
TIMED_OUT: Final = "timeout"  # connect timed out: 504

METRIC_NAME: Final = "EgressRefused"

Stage = Literal["edge", "proxy", "fetch"]  # fetch: our own HTTP requests (egress.fetch)


@dataclass(frozen=True, slots=True)
class Refusal:
    host: str  # canonical host: a lowercase name, a dotted IPv4 address, or an IPv6 address without brackets
    port: int | None
    address: str | None  # the offending address; None when refused before any (scheme, bad host, port)
    reason: str  # short and from a fixed set, e.g. "loopback", "link-local", "port", "scheme"
    stage: Stage
    url: str | None = None
    at: float = field(default_factory=time.time)


class RefusalLog:
    """The refusals recorded while it was open. Thread-safe: the proxy adds from its own thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[Refusal] = []

    def add(self, refusal: Refusal) -> None:
        with self._lock:
            self._items.append(refusal)

    @property
    def refusals(self) -> tuple[Refusal, ...]:
        with self._lock:
            return tuple(self._items)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def find(self, url: str) -> Refusal | None:
        """The latest refusal for the URL's host and port (a CONNECT refusal for host:443 answers for any
        https URL on that host). Accepts a URL or a bare "host[:port]"."""
        host: Host
        port: int | None
        try:
            if "://" in url:
                target = parse_url(url)
                host, port = target.host, target.port
            else:
                host, port = _host_port(url)
        except HostError:
            return None
        text = host_text(host)
        for refusal in reversed(self.refusals):
            if refusal.host == text and (port is None or refusal.port in (None, port)):
                return refusal
        return None


_active: set[RefusalLog] = set()
_active_lock = threading.Lock()


@contextmanager
def refusal_log() -> Iterator[RefusalLog]:
    """Collect every refusal (edge and proxy) made while the block runs.

    All open logs see every refusal: in Lambda one request runs per container at a time, so the log is the
    request's. Where captures run concurrently in one process (local dev), a log may also hold another
    capture's refusals; `find(url)` narrows it to the host that matters.
    """
    log = RefusalLog()
    with _active_lock:
        _active.add(log)
    try:
        yield log
    finally:
        with _active_lock:
            _active.discard(log)


def record_refusal(refusal: Refusal) -> None:
    """Log the refusal as a structured event, count it, and add it to every open refusal log."""
    with _active_lock:
        logs = tuple(_active)
    for log in logs:
        log.add(refusal)
    # Observability must never break the guard, so failures here are swallowed after logging.
    with suppress(Exception):
        _logger().warning(
            "egress refused",
            extra={
                "event": "egress_refused",
                "host": refusal.host[:255],  # bounded: a malformed request may carry anything here
                "port": refusal.port,
                "address": refusal.address,
                "reason": refusal.reason,
                "stage": refusal.stage,
                "url": None if refusal.url is None else refusal.url[:2048],
            },
        )
    with suppress(Exception):
        _emit_metric(refusal)


def egress_outcome(headers: Mapping[str, str]) -> str | None:
    """The value of this process's EGRESS_HEADER in a response's headers (any case), or None when the proxy
    did not answer that response itself."""
    wanted = EGRESS_HEADER.lower()
    for name, value in headers.items():
        if name.lower() == wanted:
            return value.strip().lower()
    return None


def _emit_metric(refusal: Refusal) -> None:
    # single_metric prints one EMF record at once. Refusals happen on the proxy's thread, outside the
    # handler's Metrics flush cycle, so buffering them in the shared Metrics object could lose them (or race
    # with the handler's flush); an immediate record per refusal is always delivered and is cheap at the
    # rate refusals happen. Dimensions stay low-cardinality: never the host.
    namespace = get_settings().metrics_namespace
    with single_metric(name=METRIC_NAME, unit=MetricUnit.Count, value=1, namespace=namespace) as metric:
        metric.add_dimension(name="reason", value=refusal.reason)
        metric.add_dimension(name="stage", value=refusal.stage)


@lru_cache(maxsize=1)
def _logger() -> Logger:
    return Logger(service=get_settings().service_name)


def _host_port(text: str) -> tuple[Host, int | None]:
    host_raw, port = split_host_port(text, 0)  # 0: no port given
    return parse_host(host_raw), port or None
