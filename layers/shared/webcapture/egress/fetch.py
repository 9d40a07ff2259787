"""HTTP GET from our own code (robots.txt, sitemaps, a page read without the browser) under the egress policy.

The browser's requests go through the proxy; these do not need it, since the same rules apply here
directly, hop by hop: each URL (the first and every redirect's `Location`) is parsed as a browser parses it
(`hosts.parse_url`), resolved once and judged (`policy.route`), and the socket connects to an address that
was checked, never to a second lookup. One request per connection. Bodies are read in pieces, never past
the caller's byte limit, and every step keeps to the caller's deadline.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import cache
from typing import Final
from urllib.parse import quote, urljoin

from webcapture.egress.hosts import HostError, Target, parse_url
from webcapture.egress.policy import EgressRefused, Route, route
from webcapture.egress.refusals import Refusal, record_refusal
from webcapture.egress.resolver import HostUnresolved
from webcapture.errors import NavigationTimeout
from webcapture.network_words import network_words

MAX_REDIRECTS: Final = 5
# The longest wait for a connection, or for the next byte of an answer, whatever the deadline leaves.
CONNECT_TIMEOUT_S: Final = 10.0
IDLE_TIMEOUT_S: Final = 15.0
CHUNK_BYTES: Final = 64 * 1024
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
# What may stand in a request line as it is: the rest (spaces, controls, non-ASCII) is percent-encoded
# (UTF-8) as browsers send it; escapes already there are kept.
_REQUEST_LINE_SAFE: Final = "/?#[]@!$&'()*+,;=:%-._~"


class FetchRefused(Exception):
    """The policy refuses this URL (or a redirect's target): never connected."""

    def __init__(self, url: str, reason: str) -> None:
        self.url, self.reason = url, reason
        super().__init__(f"{url}: refused by the egress policy ({reason})")


class FetchFailed(Exception):
    """The URL could not be fetched: DNS, connection, TLS, a broken answer, too many redirects, time."""


@dataclass
class Response:
    """An answer whose body has not been read yet; `chunks` reads it."""

    url: str  # after redirects
    status: int
    headers: http.client.HTTPMessage
    deadline: float
    redirects: tuple[str, ...] = ()
    _answer: http.client.HTTPResponse | None = field(default=None, repr=False)

    def header(self, name: str) -> str:
        return self.headers.get(name, "") or ""

    def chunks(self, limit: int) -> Iterator[bytes]:
        """The body in pieces, at most `limit` bytes in all (the rest is never read); FetchFailed when the
        connection breaks or the deadline passes mid-body."""
        answer, left = self._answer, limit
        while answer is not None and left > 0:
            _settimeout(answer, self.deadline)
            try:
                piece = answer.read1(min(CHUNK_BYTES, left))
            except (OSError, http.client.HTTPException) as error:
                raise FetchFailed(f"{self.url}: the answer broke off ({_describe(error)})") from None
            if not piece:
                return
            left -= len(piece)
            yield piece

    def read(self, limit: int) -> tuple[bytes, bool]:
        """The body up to `limit` bytes, and whether there was more."""
        body = b"".join(self.chunks(limit + 1))
        return body[:limit], len(body) > limit


def _describe(error: BaseException) -> str:
    # Our words, never the socket's: its text names the errno, and the address and port connected to.
    return network_words(error)


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise NavigationTimeout("The time budget ran out while fetching")
    return left


def _settimeout(answer: http.client.HTTPResponse, deadline: float) -> None:
    sock = getattr(answer.fp, "raw", None)
    sock = getattr(sock, "_sock", None)
    if isinstance(sock, socket.socket):
        try:
            sock.settimeout(min(IDLE_TIMEOUT_S, _left(deadline)))
        except NavigationTimeout:
            raise FetchFailed("The time budget ran out while reading the answer") from None


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def _refuse(url: str, target: Target | None, reason: str, address: str | None = None) -> FetchRefused:
    host = "" if target is None else target.host_text
    port = None if target is None else target.port
    record_refusal(Refusal(host=host, port=port, address=address, reason=reason, stage="fetch", url=url))
    return FetchRefused(url, reason)


def _route(url: str) -> tuple[Target, Route]:
    try:
        target = parse_url(url)
    except HostError:
        raise _refuse(url, None, "invalid-url") from None
    if target.scheme not in ("http", "https"):
        raise _refuse(url, target, "scheme")
    try:
        return target, route(target.host, target.port)
    except EgressRefused as refused:
        address = None if refused.address is None else str(refused.address)
        raise _refuse(url, target, refused.reason, address) from None
    except HostUnresolved:
        raise FetchFailed(f"{target.host_text} could not be resolved") from None


def _connect(target: Target, checked: Route, deadline: float) -> socket.socket:
    """A socket to the first checked address that answers (TLS for https, the name verified)."""
    failure: BaseException | None = None
    for address in checked.addresses:
        family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.settimeout(min(CONNECT_TIMEOUT_S, _left(deadline)))
            sock.connect((str(address), target.port))
            if target.scheme == "https":
                sock = _tls().wrap_socket(sock, server_hostname=target.host_text)
            sock.settimeout(min(IDLE_TIMEOUT_S, _left(deadline)))
            return sock
        except (OSError, ssl.SSLError) as error:
            failure = error
            sock.close()
    raise FetchFailed(f"could not connect ({_describe(failure or OSError())})")


def _request(target: Target, sock: socket.socket, headers: dict[str, str]) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection(target.authority)
    connection.sock = sock  # already connected to the checked address: http.client must not look up
    path = quote(target.path, safe=_REQUEST_LINE_SAFE, encoding="utf-8", errors="surrogatepass")
    connection.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
    connection.putheader("Host", target.authority)
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.putheader("Connection", "close")
    connection.endheaders()
    return connection.getresponse()


@contextmanager
def get(url: str, *, deadline: float, headers: dict[str, str] | None = None,
        max_redirects: int = MAX_REDIRECTS, origin_headers: dict[str, str] | None = None,
        ) -> Iterator[Response]:
    """GET `url`, following redirects (each hop judged alone). FetchRefused when a hop is refused,
    FetchFailed when it cannot be fetched; NavigationTimeout when the deadline passed before a step.
    `origin_headers` (credentials, cookies) go only to hops on the first URL's origin."""
    sent = {"Accept-Encoding": "identity", **(headers or {})}
    redirects: list[str] = []
    current = url
    origin: tuple[str, str, int] | None = None
    while True:
        target, checked = _route(current)
        here = (target.scheme, target.host_text.lower(), target.port)
        origin = origin or here
        hop = {**sent, **(origin_headers or {})} if origin_headers and here == origin else sent
        sock = _connect(target, checked, deadline)
        try:
            answer = _request(target, sock, hop)
        except (OSError, http.client.HTTPException) as error:
            sock.close()
            raise FetchFailed(f"{target.host_text}: no valid answer ({_describe(error)})") from None
        location = answer.getheader("Location")
        if answer.status in _REDIRECTS and location:
            answer.close()
            sock.close()
            if len(redirects) >= max_redirects:
                raise FetchFailed(f"{url}: more than {max_redirects} redirects")
            try:
                current = urljoin(current, location.strip())
            except ValueError:  # "http://[::1" and the like: no URL at all
                raise FetchFailed(f"{current}: redirected to an invalid URL") from None
            redirects.append(current)
            continue
        response = Response(current, answer.status, answer.headers, deadline, tuple(redirects), answer)
        try:
            yield response
        finally:
            with suppress(OSError):
                answer.close()
            with suppress(OSError):
                sock.close()
        return
