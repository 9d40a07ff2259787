"""A deliberately simple HTTP client for talking to the egress proxy over raw sockets, so tests control
every byte (absolute-form requests, CONNECT, odd spellings) and see every byte of the answer."""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Response:
    status: int
    headers: dict[str, str] = field(default_factory=dict)  # lowercased names
    body: bytes = b""


def proxy_address(proxy_url: str) -> tuple[str, int]:
    parts = urlsplit(proxy_url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def open_proxy(proxy_url: str, timeout: float = 10.0) -> socket.socket:
    return socket.create_connection(proxy_address(proxy_url), timeout=timeout)


def read_head(sock: socket.socket) -> tuple[Response, bytes]:
    """Read a response head; returns it and whatever body bytes came with it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a full head: {data!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    response = Response(int(lines[0].split(" ")[1]))
    for line in lines[1:]:
        name, _, value = line.partition(":")
        response.headers[name.strip().lower()] = value.strip()
    return response, rest


def read_to_close(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def send_raw(proxy_url: str, request: bytes, timeout: float = 10.0) -> Response:
    """Send `request` as is and read the answer until the proxy closes the connection."""
    with open_proxy(proxy_url, timeout) as sock:
        sock.sendall(request)
        response, rest = read_head(sock)
        response.body = rest + read_to_close(sock)
        return response


def get(proxy_url: str, url: str, headers: dict[str, str] | None = None) -> Response:
    """GET `url` through the proxy in absolute form, as Chromium sends plain-HTTP requests."""
    host = urlsplit(url).netloc
    lines = [f"GET {url} HTTP/1.1", f"Host: {host}", "Proxy-Connection: keep-alive"]
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return send_raw(proxy_url, ("\r\n".join(lines) + "\r\n\r\n").encode())


def connect(proxy_url: str, authority: str, timeout: float = 10.0) -> tuple[Response, socket.socket]:
    """Send CONNECT; returns the proxy's answer and the socket (a tunnel when the status is 200)."""
    sock = open_proxy(proxy_url, timeout)
    sock.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
    response, rest = read_head(sock)
    response.body = rest  # a refusal's body; empty for an established tunnel
    return response, sock
