"""A JWKS endpoint on loopback, and keys to sign session tokens with."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa


def make_keys() -> dict[str, Any]:
    return {
        "RS256": rsa.generate_private_key(public_exponent=65537, key_size=2048),
        "ES256": ec.generate_private_key(ec.SECP256R1()),
        "EdDSA": ed25519.Ed25519PrivateKey.generate(),
    }


def jwks_for(keys: dict[str, Any]) -> dict[str, Any]:
    entries = []
    for algorithm, private in keys.items():
        jwk = json.loads(jwt.algorithms.get_default_algorithms()[algorithm].to_jwk(private.public_key()))
        entries.append({**jwk, "kid": algorithm, "alg": algorithm, "use": "sig"})
    return {"keys": entries}


@contextmanager
def serve_jwks(document: dict[str, Any]) -> Iterator[str]:
    body = json.dumps(document).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/.well-known/jwks.json"
    finally:
        server.shutdown()
        server.server_close()
