"""One warm Lambda container: a process that imports a function's handler once and runs its invocations.

lambda_runtime forks it (from its preloaded fork server) with `container_main` as the target and one end of
a pipe: an event goes in as a JSON object; out comes the result serialised as the runtime does it (bytes,
see `send_result`) or `{"error": message, "type": name}`. The handler's own logs go to stdout and stderr as
they would in Lambda. The pipe closing (the local API stopping or dying) ends the process, and with it the
module globals (the browser above all) it owned.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import json
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from localapi.dns_client import DNS_SERVER_VARIABLE, resolver_at
from webcapture.egress.resolver import use_resolver

Handler = Callable[[dict[str, Any], Any], Any]
_PR_SET_NAME = 15


@dataclass
class LambdaContext:
    function_name: str
    memory_limit_in_mb: int
    deadline: float
    aws_request_id: str
    invoked_function_arn: str
    function_version: str = "$LATEST"
    log_group_name: str = "/aws/lambda/local"
    log_stream_name: str = "local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


# -- framing, shared with the parent (lambda_runtime) ------------------------------------------------------

# A reply that starts with this byte is a handler's result, the rest of it serialised once, as the Lambda
# runtime posts it: the parent checks Lambda's response limit on these very bytes and hands them on, so the
# answer is not decoded and encoded again on its way. Every other message is a JSON object (they start "{").
_RESULT = b"r"


def send_message(conn: Connection, message: dict[str, Any]) -> None:
    conn.send_bytes(json.dumps(message, separators=(",", ":")).encode())


def runtime_payload(result: Any) -> bytes:
    """The result as the python3.12 runtime's marshaller writes it: the default separators, non-ASCII as
    UTF-8 (ensure_ascii off, on that runtime only)."""
    try:
        return json.dumps(result, ensure_ascii=False).encode()
    except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot carry: escaped, the same JSON value
        return json.dumps(result).encode()


def send_result(conn: Connection, payload: bytes) -> None:
    conn.send_bytes(_RESULT + payload)


def receive_message(conn: Connection) -> dict[str, Any] | bytes | None:
    """The next message: a JSON message, a result's payload (bytes), or None when the other side has
    closed the pipe."""
    try:
        payload = conn.recv_bytes()
    except (EOFError, OSError):
        return None
    if payload[:1] == _RESULT:
        return payload[1:]
    message: dict[str, Any] = json.loads(payload)
    return message


# -- the container ---------------------------------------------------------------------------------------

def process_name(function: str) -> str:
    """What `ps` and /proc/<pid>/comm show for a container (15 bytes at most): `c:` + the function."""
    return f"c:{function}"[:15]


def load_handler(code_uri: Path, handler: str, function: str) -> Handler:
    module_name, _, function_name = handler.rpartition(".")
    path = code_uri / f"{module_name.replace('.', '/')}.py"
    # Every function's module is called `app`: load it under its own name, as the in-process tests do.
    unique = f"webcapture_fn_{function}"
    loader_spec = importlib.util.spec_from_file_location(unique, path)
    assert loader_spec is not None and loader_spec.loader is not None
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[unique] = module
    loader_spec.loader.exec_module(module)
    loaded: Handler = getattr(module, function_name)
    return loaded


def serve(conn: Connection, handler: Handler, function: str, timeout_s: int, memory_mb: int) -> None:
    arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function}"
    while isinstance(event := receive_message(conn), dict):
        # The function's own Timeout from template.yaml, counted from when the invocation reaches us.
        context = LambdaContext(function, memory_mb, time.monotonic() + timeout_s, str(uuid.uuid4()), arn)
        try:
            payload = runtime_payload(handler(event, context))
        except Exception as exc:  # what Lambda reports as the function's error
            send_message(conn, {"error": str(exc), "type": type(exc).__name__})
        else:
            send_result(conn, payload)


def container_main(conn: Connection, code_uri: str, handler: str, function: str, timeout_s: int,
                   memory_mb: int) -> None:
    with contextlib.suppress(OSError, AttributeError):  # tests and the load report find containers by it
        ctypes.CDLL(None).prctl(_PR_SET_NAME, process_name(function).encode(), 0, 0, 0)
    dns_server = os.environ.get(DNS_SERVER_VARIABLE)
    if dns_server:  # a test's loopback DNS server answers the egress guard (localapi/dns_client.py)
        use_resolver(resolver_at(dns_server))
    try:
        loaded = load_handler(Path(code_uri), handler, function)
    except Exception as exc:  # an init error: reported on the first invocation, as Lambda does
        send_message(conn, {"initError": f"{type(exc).__name__}: {exc}"})
        return
    send_message(conn, {"ready": True})
    serve(conn, loaded, function, timeout_s, memory_mb)
