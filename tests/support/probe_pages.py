"""Pages that try to keep burning the browser after their request has timed out (a black-box probe's), and
a trivial page that reports the moment the browser asks for it, served on loopback.

    /workers        500 workers looping `while(true){}`, and an image whose server sends its headers and then
                    nothing (so the page never loads)
    /frames         looping iframes: same-origin ones and ones from another origin (localhost)
    /main-loop      loads, then its main thread never yields again
    /memory         grows its heap by about a gigabyte, then keeps churning it, without ever loading
    /held           the image that never finishes (held until the server stops)
    /loop-frame     a frame whose script never ends
    /trivial        a plain page; before answering it calls `on_trivial` (the test's look at the container)

Every probe page first asks for /running?page=NAME (`running` is set), so a test knows the page is at work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

_RUNNING = "<img src='/running?page={name}' width=1 height=1>"

PROBES = {
    # The page of the probe that found it: each worker a thread of the renderer, each spinning a core.
    "workers": (
        "<!doctype html><title>workers</title>" + _RUNNING.format(name="workers")
        + "<script>for(var j=0;j<500;j++){new Worker(URL.createObjectURL(new Blob(['while(true){}'])))}</script>"
        + "<img src='/held'>"
    ),
    "frames": (
        "<!doctype html><title>frames</title>" + _RUNNING.format(name="frames")
        + "".join("<iframe src='http://localhost:{port}/loop-frame'></iframe>" for _ in range(5))
        + "".join("<iframe srcdoc='<script>for(;;){}</script>'></iframe>" for _ in range(5))
    ),
    "main-loop": (
        "<!doctype html><title>main loop</title>" + _RUNNING.format(name="main-loop")
        + "<a href='/never'>never listed</a>"
        + "<script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));</script>"
    ),
    # Held below about a gigabyte (8 engineers share the machine), then churned for good: the heap stays
    # big and the garbage collector busy, and the load event never comes.
    "memory": (
        "<!doctype html><title>memory</title>" + _RUNNING.format(name="memory")
        + "<script>var keep=[];for(;;){keep.push(new Array(1<<20).fill(keep.length));"
        + "if(keep.length>240)keep.shift();}</script>"
    ),
}
_LOOP_FRAME = "<!doctype html><script>for(;;){}</script>"
_TRIVIAL = "<!doctype html><html><head><title>Trivial</title></head><body><p>Nothing to see.</p></body></html>"
_GIF = bytes.fromhex("47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b")


class _Handler(BaseHTTPRequestHandler):
    server: ProbeServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        name = parts.path.strip("/")
        if name in PROBES:
            self._send(PROBES[name].replace("{port}", str(self.server.port)).encode(), "text/html")
        elif name == "loop-frame":
            self._send(_LOOP_FRAME.encode(), "text/html")
        elif name == "running":
            self.server.running.set()
            self._send(_GIF, "image/gif")
        elif name == "held":
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", "100000")
            self.end_headers()
            self.wfile.flush()
            self.server.release.wait(timeout=120)
        elif name == "trivial":
            if self.server.on_trivial is not None:
                self.server.on_trivial()
            self._send(_TRIVIAL.encode(), "text/html")
        else:
            self.send_error(404)

    def _send(self, body: bytes, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


class ProbeServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.port = int(self.server_address[1])
        self.running = threading.Event()
        self.release = threading.Event()
        self.on_trivial: Callable[[], None] | None = None
        threading.Thread(target=self.serve_forever, name="probe-pages", daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.release.set()
        self.shutdown()
        self.server_close()
