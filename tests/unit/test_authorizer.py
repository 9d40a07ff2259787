"""The authorizer function: policy and context for good tokens, 'Unauthorized' for everything else."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import jwt
import pytest

from webcapture.auth import api_keys
from webcapture.settings import get_settings

ARN = "arn:aws:execute-api:us-east-1:123456789012:abc123/v1api/POST/v1/web/screenshot"
SECRET = "authorizer-test-secret-long-enough-for-hs256"


def load_function(name: str) -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "functions" / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"fn_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Context:
    function_name = "authorizer"
    memory_limit_in_mb = 256
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:authorizer"
    aws_request_id = "req"


def authorize(token: str) -> dict[str, Any]:
    handler = load_function("authorizer").lambda_handler
    result: dict[str, Any] = handler({"type": "TOKEN", "authorizationToken": token, "methodArn": ARN}, Context())
    return result


def test_api_key_gets_an_allow_all_routes_policy(aws_resources: None) -> None:
    key, record = api_keys.create_key("user-1", "k", remaining=3)
    result = authorize(f"Bearer {key}")
    assert result["principalId"] == "user-1"
    statement = result["policyDocument"]["Statement"][0]
    assert statement["Effect"] == "Allow"
    assert statement["Resource"] == "arn:aws:execute-api:us-east-1:123456789012:abc123/v1api/*"
    assert result["context"] == {"userId": "user-1", "tokenKind": "api_key", "keyId": record.id, "limited": "true"}


def test_session_token(aws_resources: None, settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("JWT_HS256_SECRET", SECRET)
    get_settings.cache_clear()
    exp = int(time.time()) + 60
    token = jwt.encode({"sub": "user-9", "exp": exp}, SECRET, algorithm="HS256")
    result = authorize(f"Bearer {token}")
    assert result["context"] == {"userId": "user-9", "tokenKind": "session", "keyId": "", "limited": "false",
                                 "exp": str(exp)}


@pytest.mark.parametrize("header", ["", "Bearer", "Basic dXNlcjpwYXNz", "Bearer wc_short", "Token wc_" + "a" * 64,
                                    "Bearer " + "wc_" + "a" * 64, "Bearer a.b.c"])
def test_refusals_raise_unauthorized(aws_resources: None, header: str) -> None:
    with pytest.raises(Exception, match=r"^Unauthorized$"):
        authorize(header)


def test_disabled_and_expired_keys_are_refused(aws_resources: None) -> None:
    key, record = api_keys.create_key("user-1", "k")
    api_keys.set_enabled(record, enabled=False)
    old_key, _ = api_keys.create_key("user-1", "old", expires_at="2020-01-01T00:00:00.000Z")
    for token in (key, old_key):
        with pytest.raises(Exception, match=r"^Unauthorized$"):
            authorize(f"Bearer {token}")
