"""McpFunction's handler in-process: API Gateway proxy events in, the MCP SDK's stateless JSON answers out,
and each tool call sent to the API this request came through with the caller's own key."""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

APP = Path(__file__).resolve().parents[2] / "functions" / "mcp" / "app.py"


@pytest.fixture(scope="module")
def app() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fn_mcp", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Api(ThreadingHTTPServer):
    """The API the tools call back: records what it was sent, answers a Markdown page."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, Any]]] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                api.seen.append((self.path, self.headers["Authorization"], body))
                answer = json.dumps({"success": True, "data": {"markdown": "line\n" * 30_000,
                                                               "metadata": {"url": body["url"]}}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def api() -> Iterator[Api]:
    server = Api()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def event(message: dict[str, Any], host: str, **headers: str) -> dict[str, Any]:
    sent = {"Host": host, "Authorization": "Bearer wc_caller", "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream", **headers}
    return {"resource": "/v1/mcp", "path": "/v1/mcp", "httpMethod": "POST", "headers": sent,
            "requestContext": {"requestId": "req-9", "stage": "Prod", "path": "/Prod/v1/mcp"},
            "body": json.dumps(message), "isBase64Encoded": False}


def call(app: ModuleType, message: dict[str, Any], host: str, **headers: str) -> dict[str, Any]:
    answer: dict[str, Any] = app.lambda_handler(event(message, host, **headers), None)
    return answer


def test_tools_list_answers_json_with_the_stdio_tools(app: ModuleType) -> None:
    answer = call(app, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, "api.example.com")
    assert answer["statusCode"] == 200 and answer["headers"]["content-type"].startswith("application/json")
    assert answer["headers"]["X-Request-Id"] == "req-9"
    tools = json.loads(answer["body"])["result"]["tools"]
    assert [tool["name"] for tool in tools][:3] == ["markdown", "screenshot", "links"]


def test_a_tool_call_goes_to_the_api_with_the_callers_key_and_is_paged(app: ModuleType, api: Api) -> None:
    host = f"127.0.0.1:{api.server_address[1]}"
    answer = call(app, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "markdown", "arguments": {"url": "https://example.com/", "maxChars": 1000}}}, host)
    result = json.loads(answer["body"])["result"]
    assert not result.get("isError"), result
    assert result["content"][0]["text"].endswith("call markdown again with the same arguments and offset 1000.]")
    assert api.seen == [("/v1/web/markdown", "Bearer wc_caller", {"url": "https://example.com/", "maxAge": 900})]


def test_the_api_url_is_where_the_request_came_through(app: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    aws = event({}, "abc.execute-api.eu-west-1.amazonaws.com")
    assert app.api_url(aws) == "https://abc.execute-api.eu-west-1.amazonaws.com/Prod"
    custom = event({}, "api.example.com", **{"X-Forwarded-Proto": "https"})
    assert app.api_url(custom) == "https://api.example.com"
    monkeypatch.setenv("MCP_API_URL", "http://127.0.0.1:3000/")
    assert app.api_url(custom) == "http://127.0.0.1:3000"


def test_a_notification_is_202_and_a_body_over_100_kb_is_413(app: ModuleType) -> None:
    note = call(app, {"jsonrpc": "2.0", "method": "notifications/initialized"}, "api.example.com")
    assert note["statusCode"] == 202
    big = call(app, {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"pad": "x" * 110_000}},
               "api.example.com")
    assert big["statusCode"] == 413 and json.loads(big["body"])["error"]["code"] == "PAYLOAD_TOO_LARGE"


def test_a_request_that_is_not_json_rpc_is_a_400(app: ModuleType) -> None:
    answer = call(app, {"not": "json-rpc"}, "api.example.com")
    assert answer["statusCode"] == 400 and "error" in json.loads(answer["body"])
