"""What every end-to-end test checks in the local API's answers: the envelopes, the caller's credits left, and
session tokens signed with the secret the local API is started with."""

from __future__ import annotations

import time
import uuid
from typing import Any

import jwt
import requests

from webcapture.auth import api_keys

JWT_SECRET = "e2e-session-secret-long-enough-for-hs256"


def assert_envelope_error(response: requests.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert body["success"] is False
    assert body["error"]["code"] == code
    assert body["error"]["message"]
    uuid.UUID(body["error"]["requestId"])
    return body


def assert_success(response: requests.Response, credits: int) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["success"] is True
    assert body["creditsCost"] == credits
    assert body["requestId"] == response.headers["X-Request-Id"]
    uuid.UUID(body["requestId"])
    assert body["timestamp"].endswith("Z") and len(body["timestamp"]) == 24
    return body


def session_token(**claims: Any) -> str:
    payload = {"sub": "session-user", "exp": int(time.time()) + 300, **claims}
    return jwt.encode({k: v for k, v in payload.items() if v is not None}, JWT_SECRET, algorithm="HS256")


def remaining(key: str) -> object:
    """The key's credits left, as GET /v1/api-keys/list shows them."""
    record = api_keys.find_by_key(key)
    assert record is not None
    return record.public()["remaining"]
