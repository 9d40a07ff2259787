"""API Gateway proxy events for calling a function's handler directly, as a warm container is called."""

from __future__ import annotations

import json
import uuid
from typing import Any


def screenshot_event(key: str, authorizer: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    """POST /v1/web/screenshot with the key, the authorizer's context and a PNG asked for in binary."""
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json", "Accept": "image/png"}
    return {
        "resource": "/v1/web/screenshot", "path": "/v1/web/screenshot", "httpMethod": "POST",
        "headers": headers, "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": None, "multiValueQueryStringParameters": None, "pathParameters": None,
        "stageVariables": None, "isBase64Encoded": False, "body": json.dumps(body),
        "requestContext": {"resourcePath": "/v1/web/screenshot", "httpMethod": "POST", "stage": "v1",
                           "requestId": str(uuid.uuid4()), "authorizer": authorizer},
    }
