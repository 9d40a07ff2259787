"""An OpenAI-compatible Chat Completions server on loopback, for tests that use the real `openai` client.

It records every request (path, headers without the credential, JSON body) and answers from a script:
queue replies with `server.script(...)`; each request takes the next one. Build replies with
`completion`, `json_completion`, `refusal`, `error` and `hang`.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

DEFAULT_MODEL = "fake-model-2026-01-01"


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names, Authorization removed
    body: Any
    authorization_sha256: str | None  # to check which key was sent without keeping it

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))


def completion(
    content: str | None,
    *,
    model: str = DEFAULT_MODEL,
    refusal: str | None = None,
    finish_reason: str = "stop",
    prompt_tokens: int = 120,
    completion_tokens: int = 30,
    usage: bool = True,
) -> Reply:
    """A 200 answer in OpenAI's `chat.completion` shape, with usage figures unless `usage` is False."""
    body: dict[str, Any] = {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
                "logprobs": None,
            }
        ],
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return Reply(body=body)


def json_completion(value: Any, **kwargs: Any) -> Reply:
    return completion(json.dumps(value), **kwargs)


def refusal(text: str, **kwargs: Any) -> Reply:
    return completion(None, refusal=text, **kwargs)


def error(status: int, message: str, *, type_: str = "server_error", code: str | None = None) -> Reply:
    """An error answer in OpenAI's `{"error": {...}}` shape."""
    return Reply(
        status=status, body={"error": {"message": message, "type": type_, "param": None, "code": code}}
    )


def hang(seconds: float) -> Reply:
    """No answer for `seconds` (cut short when the server stops), then a normal one nobody will read."""
    return Reply(delay_s=seconds, body=completion("too late").body)


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._replies: list[Reply] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases hanging handlers
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _next_reply(self) -> Reply:
        with self._lock:
            if self._replies:
                return self._replies.pop(0)
        return error(500, "fake_openai: no scripted reply left")

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                self._record(None)
                self._send(error(404, f"Unknown path {self.path}", type_="invalid_request_error"))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                self._record(body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(error(404, f"Unknown path {self.path}", type_="invalid_request_error"))
                    return
                reply = fake._next_reply()
                if reply.delay_s and fake._stopping.wait(reply.delay_s):
                    return
                self._send(reply)

            def _record(self, body: Any) -> None:
                auth = self.headers.get("Authorization")
                headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"}
                fake.requests.append(
                    RecordedRequest(
                        method=self.command,
                        path=self.path,
                        headers=headers,
                        body=body,
                        authorization_sha256=hashlib.sha256(auth.encode()).hexdigest() if auth else None,
                    )
                )

            def _send(self, reply: Reply) -> None:
                payload = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        return Handler


def authorization_sha256(api_key: str) -> str:
    return hashlib.sha256(f"Bearer {api_key}".encode()).hexdigest()
