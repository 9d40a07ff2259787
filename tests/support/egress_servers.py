"""Loopback servers for the egress tests.

- CanaryServer: the "internal" service on 127.0.0.1. Counts every TCP connection it accepts, so a test can
  assert that nothing, not even a connection without a request, reached it.
- PublicServer: the "public" fixture on 127.0.0.2 (allowed only through WEBCAPTURE_EGRESS_ALLOW in tests).
  It listens on the same port number as the canary, so a proxy that looked a name up twice and connected
  to the second answer would land on the canary.
- EchoServer: a TCP echo on 127.0.0.2, for CONNECT tunnels.
"""

from __future__ import annotations

import hashlib
import json
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


class _Counting:
    """Mixin: count accepted connections before any byte is read."""

    lock: threading.Lock
    connections: int

    def verify_request(self, request: Any, client_address: Any) -> bool:
        with self.lock:
            self.connections += 1
        return True


class _HTTPServer(_Counting, ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # the default 5 drops bursts of connects (a 1 s SYN retry each)

    def __init__(self, host: str, port: int, handler: type[BaseHTTPRequestHandler]) -> None:
        self.lock = threading.Lock()
        self.connections = 0
        self.requests: list[dict[str, Any]] = []
        self.bytes_sent = 0
        super().__init__((host, port), handler)

    def record(self, handler: BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.requests.append(
                {"method": handler.command, "path": handler.path, "headers": dict(handler.headers.items())}
            )


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive unless asked to close: the proxy must ask
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, body: bytes, content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class _CanaryHandler(_Handler):
    def do_GET(self) -> None:
        self.server.record(self)
        self._reply(200, b"canary")

    do_POST = do_HEAD = do_PUT = do_DELETE = do_OPTIONS = do_GET


class _PublicHandler(_Handler):
    def do_GET(self) -> None:
        self.server.record(self)
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        if url.path == "/hello":
            self._reply(200, b"hello from public")
        elif url.path == "/headers":
            self._reply(200, json.dumps(dict(self.headers.items())).encode(), "application/json")
        elif url.path == "/big":
            self._big(int(query["size"]))
        elif url.path == "/chunked":
            self._chunked(int(query.get("chunks", "5")))
        elif url.path == "/redirect":
            self.send_response(int(query.get("status", "302")))
            self.send_header("Location", query["to"])
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._reply(404, b"not found")

    def do_POST(self) -> None:
        self.server.record(self)
        remaining = int(self.headers["Content-Length"])
        digest = hashlib.sha256()
        while remaining:
            data = self.rfile.read(min(remaining, 65536))
            if not data:
                break
            digest.update(data)
            remaining -= len(data)
        self._reply(200, digest.hexdigest().encode())

    def _big(self, size: int) -> None:
        chunk = b"x" * 65536
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        sent = 0
        while sent < size:
            piece = chunk[: size - sent]
            self.wfile.write(piece)
            sent += len(piece)
            with self.server.lock:
                self.server.bytes_sent = sent

    def _chunked(self, chunks: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index in range(chunks):
            data = f"chunk {index};".encode()
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")


class _Running:
    server: Any
    _thread: threading.Thread

    def _start(self) -> None:
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()

    @property
    def host(self) -> str:
        return str(self.server.server_address[0])

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def connections(self) -> int:
        with self.server.lock:
            return int(self.server.connections)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(timeout=5)


class CanaryServer(_Running):
    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server = _HTTPServer(host, port, _CanaryHandler)
        self._start()

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self.server.lock:
            return list(self.server.requests)

    @contextmanager
    def untouched(self) -> Iterator[None]:
        """Fails the block when anything connected to the canary while it ran."""
        before = self.connections
        yield
        assert self.connections == before, self.requests


class PublicServer(_Running):
    def __init__(self, host: str = "127.0.0.2", port: int = 0) -> None:
        self.server = _HTTPServer(host, port, _PublicHandler)
        self._start()

    @property
    def requests(self) -> list[dict[str, Any]]:
        with self.server.lock:
            return list(self.server.requests)

    @property
    def bytes_sent(self) -> int:
        with self.server.lock:
            return int(self.server.bytes_sent)


class _EchoHandler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        while data := self.request.recv(65536):
            self.request.sendall(data)


class _EchoTCPServer(_Counting, socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str, port: int) -> None:
        self.lock = threading.Lock()
        self.connections = 0
        super().__init__((host, port), _EchoHandler)


class EchoServer(_Running):
    def __init__(self, host: str = "127.0.0.2", port: int = 0) -> None:
        self.server = _EchoTCPServer(host, port)
        self._start()


class Servers:
    """The three servers of a test, on the same port number where the address differs."""

    canary: CanaryServer
    public: PublicServer
    echo: EchoServer

    def __init__(self) -> None:
        self.canary = CanaryServer("127.0.0.1")
        self.public = PublicServer("127.0.0.2", self.canary.port)
        self.echo = EchoServer("127.0.0.2")

    @property
    def port(self) -> int:
        return self.canary.port

    def stop(self) -> None:
        for server in (self.canary, self.public, self.echo):
            server.stop()
