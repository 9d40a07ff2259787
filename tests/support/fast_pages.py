"""A loopback HTTP server for the fast path's tests: pages in every content coding and charset, validators,
redirects (to anywhere the query says), and a count of what was asked."""

from __future__ import annotations

import gzip
import threading
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import brotli

ARTICLE = ("<!doctype html><html><head><title>Fast page</title></head><body><nav><a href='/a'>A</a>"
           "<a href='/b#x'>B</a><a href='https://other.test/c'>C</a></nav><main><h1>Fast page</h1>"
           + "<p>This page is served whole: every word a reader sees is in the HTML the server sends. " * 8
           + "</p></main></body></html>")


class _Handler(BaseHTTPRequestHandler):
    server: FastPageServer

    def log_message(self, *_: Any) -> None:
        pass

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {key: values[0] for key, values in parse_qs(url.query).items()}
        with self.server.lock:
            self.server.requests.append((url.path, dict(self.headers.items())))
        if url.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", query["to"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if url.path == "/loop":
            hop = int(query.get("n", "0"))
            self.send_response(302)
            self.send_header("Location", f"/loop?n={hop + 1}&to={query['to']}" if hop + 1 < int(query["to"]) else "/page")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        page = self.server.pages.get(url.path)
        if page is None:
            self._send(404, b"<html><title>Not found</title><body>gone</body></html>", "text/html", "")
            return
        body, content_type, etag = page
        if etag and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self._send(200, body, content_type, query.get("coding", ""), etag)

    def _send(self, status: int, body: bytes, content_type: str, coding: str, etag: str = "") -> None:
        if coding == "gzip":
            body = gzip.compress(body)
        elif coding == "deflate":
            body = zlib.compress(body)
        elif coding == "br":
            body = brotli.compress(body)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if coding:
            self.send_header("Content-Encoding", coding)
        if etag:
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", "Wed, 21 Oct 2026 07:28:00 GMT")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class FastPageServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "127.0.0.2") -> None:
        super().__init__((host, 0), _Handler)
        self.lock = threading.Lock()
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.pages: dict[str, tuple[bytes, str, str]] = {"/page": (ARTICLE.encode(), "text/html", '"v1"')}
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


def numbered_site(page: Callable[[int, str], bytes], count: int) -> FastPageServer:
    """A server of pages /p1../p<count>, page n being `page(n, "words of page n")`, each with its ETag."""
    server = FastPageServer("127.0.0.1")
    server.pages = {f"/p{n}": (page(n, f"words of page {n}"), "text/html", f'"p{n}-v1"')
                    for n in range(1, count + 1)}
    return server


def linking_page(number: int, words: str, children: list[int]) -> bytes:
    """Page n of a numbered site: a link home and to each of `children` in its navigation, `words` in its
    main content."""
    links = "".join(f"<a href='/p{child}'>page {child}</a>" for child in children)
    return (f"<html><title>Page {number}</title><body><nav><a href='/p1'>home</a>{links}</nav><main>"
            f"<h1>Page {number}</h1>" + f"<p>{words} " * 10 + "</p></main></body></html>").encode()


def serve_numbered(page: Callable[[int, str], bytes], count: int) -> Iterator[FastPageServer]:
    """numbered_site for a fixture: served while the test runs, stopped after."""
    server = numbered_site(page, count)
    yield server
    server.stop()
