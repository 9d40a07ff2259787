"""The little HTTP/1.x the proxy needs: read a head, rewrite it, answer with a short status.

Bodies are never parsed: the proxy relays them byte for byte, so it never has to agree with the server on
where a body ends (no request smuggling through a framing disagreement), and nothing is buffered.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import suppress
from dataclasses import dataclass
from http import HTTPStatus
from typing import Final

from webcapture.egress.hosts import Target
from webcapture.egress.refusals import EGRESS_HEADER, EGRESS_HEADER_FAMILY

HEAD_LIMIT: Final = 64 * 1024  # longest head we read, and the stream's line limit
MAX_HEADER_LINES: Final = 256

_TOKEN: Final = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# Hop-by-hop headers (RFC 9110 7.6.1) plus the proxy's own. Content-Length and Transfer-Encoding stay even if
# Connection names them: the body is relayed unchanged, so its framing must travel with it.
_HOP_BY_HOP: Final = frozenset(
    {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te",
     "trailer", "upgrade"}
)  # fmt: skip
_FRAMING: Final = frozenset({"content-length", "transfer-encoding"})
_FAMILY: Final = EGRESS_HEADER_FAMILY.lower()


class HeadError(ValueError):
    """A malformed, truncated or oversized head."""


@dataclass(frozen=True, slots=True)
class RequestHead:
    method: str
    target: str
    version: str
    headers: tuple[tuple[str, str], ...]


async def read_lines(reader: asyncio.StreamReader) -> list[bytes] | None:
    """The lines of one head, without line endings; None if the peer closed before sending anything."""
    lines: list[bytes] = []
    total = 0
    while True:
        try:
            line = await reader.readline()
        except ValueError as exc:  # a line longer than the stream's limit
            raise HeadError("head line too long") from exc
        if not line:
            if not lines:
                return None
            raise HeadError("head truncated")
        if not line.endswith(b"\n"):
            raise HeadError("head truncated")
        total += len(line)
        if total > HEAD_LIMIT or len(lines) > MAX_HEADER_LINES:
            raise HeadError("head too large")
        line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
        if not line:
            if lines:
                return lines
            continue  # RFC 9112 2.2: empty lines before a request line are ignored
        lines.append(line)


def parse_request(lines: list[bytes]) -> RequestHead:
    parts = lines[0].split(b" ")
    if len(parts) != 3 or not _TOKEN.fullmatch(parts[0]) or parts[2] not in (b"HTTP/1.1", b"HTTP/1.0"):
        raise HeadError("bad request line")
    try:
        target = parts[1].decode("ascii")
    except UnicodeDecodeError as exc:
        raise HeadError("bad request target") from exc
    if not target or any(ord(char) < 0x21 or ord(char) == 0x7F for char in target):
        raise HeadError("bad request target")
    return RequestHead(parts[0].decode("ascii"), target, parts[2].decode("ascii"), parse_headers(lines[1:]))


def parse_headers(lines: list[bytes]) -> tuple[tuple[str, str], ...]:
    headers = []
    for line in lines:
        name, sep, value = line.partition(b":")
        # Whitespace before the colon and obsolete line folding are smuggling tools: refuse (RFC 9112 5).
        if not sep or not _TOKEN.fullmatch(name):
            raise HeadError("bad header line")
        headers.append((name.decode("ascii"), value.strip(b" \t").decode("latin-1")))
    return tuple(headers)


def origin_request(head: RequestHead, target: Target) -> bytes:
    """The request to send upstream: origin-form, Host from the URL, hop-by-hop headers gone, and
    Connection: close so the upstream connection serves this one request."""
    lines = [f"{head.method} {target.path} {head.version}", f"Host: {target.authority}"]
    dropped = _dropped(head.headers) | {"host"}
    lines += [f"{name}: {value}" for name, value in head.headers if name.lower() not in dropped]
    lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def relay_response_head(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Pass the upstream's response head(s) on, the final one with Connection: close, so the client never
    reuses this connection for another host (each client connection carries exactly one request)."""
    while True:
        lines = await read_lines(reader)
        if lines is None:
            return
        status = lines[0].split(b" ", 2)
        if not lines[0].startswith(b"HTTP/1.") or len(status) < 2 or not status[1].isdigit():
            raise HeadError("bad status line")
        code = int(status[1])
        if 100 <= code < 200 and code != 101:
            writer.write(b"\r\n".join(lines) + b"\r\n\r\n")  # interim (100 Continue, 103): more follows
            continue
        if code == 101:
            writer.write(b"\r\n".join(lines) + b"\r\n\r\n")  # the connection becomes a tunnel as it is
            return
        headers = parse_headers(lines[1:])
        dropped = _dropped(headers)
        kept = [
            f"{name}: {value}".encode("latin-1")
            for name, value in headers
            # The proxy's own verdict header is the proxy's alone: an upstream copy is a forgery.
            if name.lower() not in dropped and not name.lower().startswith(_FAMILY)
        ]
        writer.write(b"\r\n".join([lines[0], *kept, b"Connection: close"]) + b"\r\n\r\n")
        return


def status_response(status: int, outcome: str, message: str) -> bytes:
    """A response the proxy makes itself: small, marked with EGRESS_HEADER, closing."""
    body = (message + "\n").encode("utf-8")
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        f"Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"{EGRESS_HEADER}: {outcome}\r\n"
        f"Connection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


async def send(writer: asyncio.StreamWriter, data: bytes, timeout: float = 5.0) -> None:
    writer.write(data)
    with suppress(OSError, TimeoutError):
        await asyncio.wait_for(writer.drain(), timeout)


def _dropped(headers: tuple[tuple[str, str], ...]) -> set[str]:
    named = {
        token.strip().lower()
        for name, value in headers
        if name.lower() in ("connection", "proxy-connection")
        for token in value.split(",")
    }
    return (set(_HOP_BY_HOP) | named) - _FRAMING
