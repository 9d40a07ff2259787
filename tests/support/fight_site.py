"""A site of pages that fight back (docs/actions-and-blocked-pages.md#actions-and-blocked-pages): content
behind clicks, a form, tabs, the bot walls of tests/support/wall_pages.py with their statuses and headers,
blank-looking pages, an error status. It records every request's path and the address it came from, so a test
can tell a request that came through an upstream proxy."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from tests.support.wall_pages import LOOK_ALIKES, WALLS

LOAD_MORE = """<!doctype html><title>Archive</title><h1>Archive</h1><ul id="list"></ul>
<button id="more" onclick="more()">Load more</button>
<script>
let page = 0;
function more() {
  const list = document.getElementById("list");
  for (let i = 0; i < 5; i++) {
    const n = page * 5 + i;
    const item = list.appendChild(document.createElement("li"));
    const link = item.appendChild(document.createElement("a"));
    link.href = "/article/" + n; link.textContent = "Article " + n;
  }
  page += 1;
}
more();
</script>"""

FORM = """<!doctype html><title>Greeting</title><h1>Who are you?</h1>
<form action="/greet" method="get"><input id="name" name="name" autocomplete="off">
<select id="mood" name="mood"><option value="calm">calm</option><option value="glad">glad</option></select>
<button id="send" type="submit">Send</button></form>"""

TABS = """<!doctype html><title>Tabs</title><style>
.panel { display: none; width: 300px; height: 120px; background: #cde; }
.panel.shown { display: block; }
</style><label>Tab <select id="tab" onchange="show(this.value)"><option value="one">One</option>
<option value="two">Two</option></select></label>
<div class="panel shown" id="panel-one">First tab</div><div class="panel" id="panel-two">Second tab</div>
<script>function show(name) {
  for (const panel of document.querySelectorAll(".panel")) panel.classList.toggle("shown", panel.id === "panel-" + name);
}</script>"""

# Text the same colour as the background: the DOM shows text, the image is one colour.
BLANK_FOR_GOOD = """<!doctype html><title>Pale</title><style>html, body { background: #fff; color: #fff; }
</style><h1>Invisible ink</h1><p>Every word here is white on white.</p>"""

# A white cover over the text, gone once something asks whether the page shows anything (the screenshot asks
# after a flat first capture, before it captures again): the first capture is blank, the second is not.
BLANK_AT_FIRST = """<!doctype html><title>Late</title><style>
#cover { position: fixed; inset: 0; background: #fff; z-index: 10; }
</style><h1>Here at last</h1><p>The page shows its text after a moment.</p><div id="cover"></div>
<script>
const checkVisibility = Element.prototype.checkVisibility;
Element.prototype.checkVisibility = function (...options) {
  document.getElementById("cover")?.remove();
  return checkVisibility.apply(this, options);
};
</script>"""


@dataclass(frozen=True)
class Hit:
    path: str
    peer: str


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        with self.server.lock:
            self.server.hits.append(Hit(parts.path, self.client_address[0]))
        query = parse_qs(parts.query)
        if parts.path.startswith("/walls/"):
            page = self.server.walls.get(parts.path.removeprefix("/walls/"))
            if page is not None:
                self._send(page.status, page.html, page.headers)
                return
        if parts.path == "/greet":
            name = escape(query.get("name", [""])[0])
            mood = escape(query.get("mood", [""])[0])
            self._send(200, f"<!doctype html><title>Hello</title><h1>Hello, {name}</h1><p>You are {mood}.</p>")
            return
        if parts.path == "/click-inside":
            target = escape(query.get("to", [""])[0])
            self._send(200, f"<!doctype html><title>Inside</title><a id='go' href='{target}'>Go inside</a>")
            return
        page_html = self.server.pages.get(parts.path)
        if page_html is None:
            self._send(404, "<!doctype html><title>Not found</title><h1>Nothing here</h1><p>Try the archive.</p>")
            return
        self._send(200, page_html)

    def _send(self, status: int, html: str, headers: dict[str, str] | None = None) -> None:
        body = html.encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str) -> None:
        super().__init__((host, 0), _Handler)
        self.lock = threading.Lock()
        self.hits: list[Hit] = []
        self.walls = {page.name: page for page in (*WALLS, *LOOK_ALIKES)}
        self.pages = {"/load-more": LOAD_MORE, "/form": FORM, "/tabs": TABS, "/blank-for-good": BLANK_FOR_GOOD,
                      "/blank-at-first": BLANK_AT_FIRST,
                      "/plain": "<!doctype html><title>Plain</title><h1>A plain page</h1><p>Nothing else.</p>"}


class FightSite:
    def __init__(self, host: str) -> None:
        self._server = _Server(host)
        self.host = host
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def hits(self, path: str) -> list[Hit]:
        with self._server.lock:
            return [hit for hit in self._server.hits if hit.path == path]

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
