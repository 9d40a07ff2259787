"""The authorizer function: policy and context for good tokens, a Deny that says why for everything else."""

from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import jwt
import pytest

from localapi.cfn_template import load_template
from webcapture.auth import api_keys, refusals
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


def refusal(result: dict[str, Any]) -> str:
    """A Deny for every route, with the message API Gateway's ACCESS_DENIED response shows."""
    statement = result["policyDocument"]["Statement"][0]
    assert statement["Effect"] == "Deny"
    assert statement["Resource"] == "arn:aws:execute-api:us-east-1:123456789012:abc123/v1api/*"
    message: str = result["context"]["message"]
    return message


@pytest.mark.parametrize(("header", "sentence"), [
    ("", refusals.NO_HEADER), ("Bearer", refusals.NOT_BEARER), ("Basic dXNlcjpwYXNz", refusals.NOT_BEARER),
    ("Token wc_" + "a" * 64, refusals.NOT_BEARER), ("Bearer wc_short", refusals.INVALID_KEY),
    ("Bearer " + "wc_" + "a" * 64, refusals.INVALID_KEY),
    ("Bearer a.b.c", f"{refusals.SESSION_FAILED}: session tokens are not enabled on this deployment."),
])  # fmt: skip
def test_refusals_are_a_deny_that_says_which_case(aws_resources: None, header: str, sentence: str) -> None:
    assert refusal(authorize(header)) == sentence


def test_a_disabled_key_reads_as_not_valid_and_an_expired_one_as_expired(aws_resources: None) -> None:
    key, record = api_keys.create_key("user-1", "k")
    api_keys.set_enabled(record, enabled=False)
    old_key, _ = api_keys.create_key("user-1", "old", expires_at="2020-01-01T00:00:00.000Z")
    assert refusal(authorize(f"Bearer {key}")) == refusals.INVALID_KEY
    assert refusal(authorize(f"Bearer {old_key}")) == refusals.EXPIRED_KEY


def test_the_gateways_own_401_says_what_the_authorizer_would() -> None:
    # API Gateway answers a request without the header itself, from template.yaml's UNAUTHORIZED response.
    responses = load_template()["Resources"]["WebcaptureApi"]["Properties"]["GatewayResponses"]
    body = json.loads(responses["UNAUTHORIZED"]["ResponseTemplates"]["application/json"])
    assert body["error"] == {"code": "UNAUTHORIZED", "message": refusals.NO_HEADER,
                             "requestId": "$context.requestId"}
    denied = json.loads(responses["ACCESS_DENIED"]["ResponseTemplates"]["application/json"])
    assert responses["ACCESS_DENIED"]["StatusCode"] == 401
    assert denied["error"]["message"] == "$context.authorizer.message"
