"""One warm Lambda container: a process that imports a function's handler once and runs its invocations.

`python -m localapi.container_worker --fd N --code-uri DIR --handler app.lambda_handler --function ID
--timeout S --memory MB` serves invocations one at a time over the socket it inherited as fd N: each message
is a length-prefixed JSON object, an event in, `{"result": ...}` or `{"error": message, "type": name}` out.
The handler's own logs go to stdout and stderr as they would in Lambda. The socket closing (the local API
stopping or dying) ends the process, and with it the module globals (the browser above all) it owned.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import socket
import struct
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Handler = Callable[[dict[str, Any], Any], Any]
_LENGTH = struct.Struct(">I")


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

def send_message(sock: socket.socket, message: dict[str, Any]) -> None:
    payload = json.dumps(message, separators=(",", ":")).encode()
    sock.sendall(_LENGTH.pack(len(payload)) + payload)


def receive_message(sock: socket.socket) -> dict[str, Any] | None:
    """The next message, or None when the other side has closed the socket."""
    header = _receive_exactly(sock, _LENGTH.size)
    if header is None:
        return None
    payload = _receive_exactly(sock, _LENGTH.unpack(header)[0])
    if payload is None:
        return None
    message: dict[str, Any] = json.loads(payload)
    return message


def _receive_exactly(sock: socket.socket, size: int) -> bytes | None:
    chunks = bytearray()
    while len(chunks) < size:
        chunk = sock.recv(min(size - len(chunks), 1 << 20))
        if not chunk:
            return None
        chunks.extend(chunk)
    return bytes(chunks)


# -- the container ---------------------------------------------------------------------------------------

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


def serve(sock: socket.socket, handler: Handler, function: str, timeout_s: int, memory_mb: int) -> None:
    arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function}"
    while (event := receive_message(sock)) is not None:
        # The function's own Timeout from template.yaml, counted from when the invocation reaches us.
        context = LambdaContext(function, memory_mb, time.monotonic() + timeout_s, str(uuid.uuid4()), arn)
        try:
            reply: dict[str, Any] = {"result": handler(event, context)}
        except Exception as exc:  # what Lambda reports as the function's error
            reply = {"error": str(exc), "type": type(exc).__name__}
        send_message(sock, reply)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m localapi.container_worker")
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--code-uri", type=Path, required=True)
    parser.add_argument("--handler", required=True)
    parser.add_argument("--function", required=True)
    parser.add_argument("--timeout", type=int, required=True)
    parser.add_argument("--memory", type=int, required=True)
    args = parser.parse_args(argv)
    sock = socket.socket(fileno=args.fd)
    try:
        handler = load_handler(args.code_uri, args.handler, args.function)
    except Exception as exc:  # an init error: reported on the first invocation, as Lambda does
        send_message(sock, {"initError": f"{type(exc).__name__}: {exc}"})
        return 1
    send_message(sock, {"ready": True})
    serve(sock, handler, args.function, args.timeout, args.memory)
    return 0


if __name__ == "__main__":
    sys.exit(main())
