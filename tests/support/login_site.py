"""Two sites behind a login, on loopback, for the profiles' tests (docs/profiles.md).

- FormSite: a classic form. POST /login with the right password sets an HttpOnly session cookie; /account
  and /account/1..10 show the user's name to a valid session, "please log in" to anyone else.
- SpaSite: a single-page app. Its login page posts the credentials with fetch and keeps the token it gets in
  localStorage; /account reads the token (a synchronous request, so the page is complete at its load event)
  and shows the user's name, or "please log in".

Each site records which pages were served to a logged-in visitor, and the sessions and tokens it issued (the
secrets the tests then look for where they must never be).
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

USER = "ada"
PASSWORD = "Tr0ub4dor&3-horse-battery"
FORM_NAME = "Ada Lovelace"
SPA_NAME = "Grace Hopper"
PAGES = 10

_FORM_LOGIN = """<!doctype html><html><head><title>Sign in</title></head><body>
<form method="post" action="/login"><input id="user" name="user"><input id="password" name="password"
type="password"><button id="submit" type="submit">Sign in</button></form></body></html>"""

_SPA_LOGIN = """<!doctype html><html><head><title>Sign in</title></head><body>
<input id="user"><input id="password" type="password"><button id="submit">Sign in</button>
<script>
document.getElementById("submit").addEventListener("click", async () => {
  const answer = await fetch("/api/login", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({user: document.getElementById("user").value,
                          password: document.getElementById("password").value})});
  if (answer.ok) {
    localStorage.setItem("token", (await answer.json()).token);
    location.href = "/account";
  }
});
</script></body></html>"""

_SPA_ACCOUNT = """<!doctype html><html><head><title>Account</title></head><body><main id="main"></main>
<script>
const token = localStorage.getItem("token");
let text = "please log in";
if (token) {
  const request = new XMLHttpRequest();
  request.open("GET", "/api/me", false);  // synchronous: the page is complete when it has loaded
  request.setRequestHeader("Authorization", "Bearer " + token);
  request.send();
  if (request.status === 200) text = "Signed in as " + JSON.parse(request.responseText).name;
}
const heading = document.createElement("h1");
heading.textContent = "Account";
const paragraph = document.createElement("p");
paragraph.textContent = text;
document.getElementById("main").append(heading, paragraph);
</script></body></html>"""


@dataclass
class _Site:
    host: str
    sessions: set[str] = field(default_factory=set)  # issued session cookies (form) or tokens (spa)
    logged_in_pages: list[str] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    def start(self) -> None:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                site.get(self)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                site.post(self, self.rfile.read(length))

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True, name=f"login-site-{self.host}").start()

    @property
    def origin(self) -> str:
        assert self._server is not None
        return f"http://{self.host}:{self._server.server_address[1]}"

    def url(self, path: str) -> str:
        return self.origin + path

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def get(self, handler: BaseHTTPRequestHandler) -> None:
        raise NotImplementedError

    def post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        raise NotImplementedError


def _send(handler: BaseHTTPRequestHandler, status: int, body: str, content_type: str = "text/html",
          headers: dict[str, str] | None = None) -> None:
    data = body.encode()
    handler.send_response(status)
    handler.send_header("Content-Type", f"{content_type}; charset=utf-8")
    handler.send_header("Content-Length", str(len(data)))
    handler.send_header("Cache-Control", "no-store")
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


def _page(title: str, text: str, links: list[str]) -> str:
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return (f"<!doctype html><html><head><title>{title}</title></head><body><main><h1>{title}</h1>"
            f"<p>{text}</p><ul>{anchors}</ul></main></body></html>")


class FormSite(_Site):
    def _session(self, handler: BaseHTTPRequestHandler) -> bool:
        cookies = dict(part.strip().split("=", 1) for part in (handler.headers.get("Cookie") or "").split(";")
                       if "=" in part)
        return cookies.get("sid") in self.sessions

    def get(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?", 1)[0]
        if path == "/login":
            _send(handler, 200, _FORM_LOGIN)
        elif path == "/account" or (path.startswith("/account/") and path[9:].isdigit()):
            links = [f"/account/{n}" for n in range(1, PAGES + 1)]
            if self._session(handler):
                self.logged_in_pages.append(path)
                _send(handler, 200, _page("Account", f"Signed in as {FORM_NAME} ({path})", links))
            else:
                _send(handler, 200, _page("Account", "please log in", links))
        else:
            _send(handler, 404, _page("Not found", "nothing here", []))

    def post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        form = parse_qs(body.decode())
        if form.get("user") == [USER] and form.get("password") == [PASSWORD]:
            session = secrets.token_hex(16)
            self.sessions.add(session)
            _send(handler, 303, "", headers={"Location": "/account",
                                             "Set-Cookie": f"sid={session}; Path=/; HttpOnly; SameSite=Lax"})
        else:
            _send(handler, 200, _page("Sign in", "wrong password", []))


class SpaSite(_Site):
    def get(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?", 1)[0]
        if path == "/login":
            _send(handler, 200, _SPA_LOGIN)
        elif path == "/account":
            _send(handler, 200, _SPA_ACCOUNT)
        elif path == "/api/me":
            token = (handler.headers.get("Authorization") or "").removeprefix("Bearer ")
            if token in self.sessions:
                self.logged_in_pages.append(path)
                _send(handler, 200, json.dumps({"name": SPA_NAME}), "application/json")
            else:
                _send(handler, 401, json.dumps({"error": "no session"}), "application/json")
        else:
            _send(handler, 404, _page("Not found", "nothing here", []))

    def post(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        try:
            sent = json.loads(body)
        except ValueError:
            sent = {}
        if sent.get("user") == USER and sent.get("password") == PASSWORD:
            token = secrets.token_hex(16)
            self.sessions.add(token)
            _send(handler, 200, json.dumps({"token": token}), "application/json")
        else:
            _send(handler, 403, json.dumps({"error": "wrong password"}), "application/json")


def login_actions() -> list[dict[str, Any]]:
    """What a person does on either login page: type the name and the password, press the button."""
    return [{"type": "type", "selector": "#user", "text": USER},
            {"type": "type", "selector": "#password", "text": PASSWORD},
            {"type": "click", "selector": "#submit"},
            {"type": "wait", "ms": 500}]
