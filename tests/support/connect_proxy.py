"""An HTTP CONNECT proxy on loopback that counts what passes through it, standing for an operator's
upstream proxy pool. It asks for Basic credentials, and leaves from its own source address so the target
can tell a connection that came through it."""

from __future__ import annotations

import base64
import contextlib
import select
import socket
import socketserver
import threading
from dataclasses import dataclass, field


@dataclass
class Tunnel:
    target: str  # host:port as asked in CONNECT
    authorized: bool


@dataclass
class _State:
    username: str
    password: str
    source: str
    tunnels: list[Tunnel] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        state = self.server.state
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.request.recv(4096)
            if not chunk:
                return
            head += chunk
        lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        expected = base64.b64encode(f"{state.username}:{state.password}".encode()).decode()
        authorized = any(line.lower() == f"proxy-authorization: basic {expected}".lower() for line in lines[1:])
        with state.lock:
            state.tunnels.append(Tunnel(target, authorized))
        if method != "CONNECT" or not authorized:
            self.request.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
            return
        host, _, port = target.rpartition(":")
        upstream = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        upstream.bind((state.source, 0))
        try:
            upstream.connect((host.strip("[]"), int(port)))
        except OSError:
            self.request.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            upstream.close()
            return
        self.request.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        with upstream:
            _relay(self.request, upstream)


def _relay(one: socket.socket, other: socket.socket) -> None:
    peers = {one: other, other: one}
    while True:
        ready, _, _ = select.select(list(peers), [], [], 30)
        if not ready:
            return
        for sock in ready:
            data = sock.recv(65536)
            if not data:
                return
            peers[sock].sendall(data)


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    state: _State


class CountingConnectProxy:
    def __init__(self, host: str, username: str, password: str, source: str) -> None:
        self._server = _Server((host, 0), _Handler)
        self._server.state = _State(username, password, source)
        self.host, self.port = str(self._server.server_address[0]), int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def tunnels(self) -> list[Tunnel]:
        with self._server.state.lock:
            return list(self._server.state.tunnels)

    def url(self, username: str, password: str) -> str:
        return f"http://{username}:{password}@{self.host}:{self.port}"

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._server.shutdown()
        self._server.server_close()
