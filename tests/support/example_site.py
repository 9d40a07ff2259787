"""A stand-in for the README's https://example.com on loopback: the same small page at every path, with what
the README's examples ask of a real site (an h1, internal and external links, a "#more" button)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PAGE = b"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Example Domain</title></head>
<body><div><h1>Example Domain</h1>
<p>This domain is for use in illustrative examples in documents.</p>
<p><a href="/more-information">More information...</a> <a href="https://www.iana.org/domains/example">IANA</a></p>
<button id="more" onclick="var a = document.createElement('a'); a.href = '/page/' + document.links.length;
  a.textContent = 'Page ' + document.links.length; document.body.appendChild(a);">Load more</button>
<p>Price: 19.99</p></div></body></html>
"""


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


class ExampleSite:
    def __init__(self) -> None:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        threading.Thread(target=self._server.serve_forever, name="example-site", daemon=True).start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
