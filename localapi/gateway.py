"""A WSGI app that plays API Gateway (REST, Lambda proxy v1) in front of the functions' warm containers.

It does what API Gateway does and nothing more: route matching from the template, the TOKEN authorizer
with its identity check, validation expression and result cache, proxy events and their responses,
binary media types, its own size and time limits, and gateway responses rendered from the template.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import re
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from werkzeug.datastructures import Headers
from werkzeug.wrappers import Request, Response

from localapi.cfn_template import ApiSpec, Route
from localapi.lambda_runtime import FunctionContainers, InvocationTimeout

API_GATEWAY_MAX_BODY = 10 * 1024 * 1024
API_GATEWAY_TIMEOUT_S = 29
LAMBDA_MAX_RESPONSE = 6 * 1024 * 1024
ACCOUNT, REGION, API_ID = "123456789012", "us-east-1", "local"

_DEFAULT_STATUS = {
    "UNAUTHORIZED": 401, "ACCESS_DENIED": 403, "MISSING_AUTHENTICATION_TOKEN": 403,
    "REQUEST_TOO_LARGE": 413, "AUTHORIZER_FAILURE": 500, "INTEGRATION_TIMEOUT": 504, "THROTTLED": 429,
}
_ERROR_MESSAGES = {
    "UNAUTHORIZED": "Unauthorized", "ACCESS_DENIED": "User is not authorized to access this resource",
    "MISSING_AUTHENTICATION_TOKEN": "Missing Authentication Token", "REQUEST_TOO_LARGE": "Request Too Long",
    "AUTHORIZER_FAILURE": "Internal server error", "INTEGRATION_TIMEOUT": "Endpoint request timed out",
    "DEFAULT_5XX": "Internal server error", "THROTTLED": "Too Many Requests",
}


_AUTHORIZER_VARIABLE = re.compile(r"\$context\.authorizer\.([A-Za-z0-9_]+)")


class GatewayRefusal(Exception):
    def __init__(self, response_type: str, status: int | None = None,
                 authorizer: dict[str, Any] | None = None) -> None:
        self.response_type = response_type
        self.status = status or _DEFAULT_STATUS.get(response_type, 500)
        self.authorizer = authorizer or {}  # a Deny answer's context, for `$context.authorizer.<key>`
        super().__init__(response_type)


class TokenBucket:
    """API Gateway's stage throttle: `rate` requests per second on average, bursts up to `burst`."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._tokens = float(burst)
        self._stamp = time.monotonic()
        self._lock = threading.Lock()

    def take(self) -> bool:
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.burst, self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now
            if self._tokens < 1:
                return False
            self._tokens -= 1
            return True


@dataclass
class _CachedAuth:
    expires: float
    policy: dict[str, Any]


def _path_regex(path: str) -> re.Pattern[str]:
    pattern = re.sub(r"\\\{[^}/]+\\\+\\\}", ".+", re.escape(path))
    pattern = re.sub(r"\\\{[^}/]+\\\}", "[^/]+", pattern)
    return re.compile(f"^{pattern}$")


def _media_matches(media: str, patterns: list[str]) -> bool:
    media = media.split(";", 1)[0].strip().lower()
    return bool(media) and any(fnmatch.fnmatch(media, p.lower()) for p in patterns)


def _event_body(body: bytes, binary: bool) -> str | None:
    if not body:
        return None
    return base64.b64encode(body).decode() if binary else body.decode("utf-8", "replace")


class LocalGateway:
    def __init__(self, api: ApiSpec, containers: dict[str, FunctionContainers],
                 timeout_s: float = API_GATEWAY_TIMEOUT_S) -> None:
        self.api = api
        self.containers = containers
        self.timeout_s = timeout_s  # the integration timeout: 29 s unless WEBCAPTURE_GATEWAY_TIMEOUT_MS says
        self._routes = [(_path_regex(r.path), r) for r in api.routes]
        self._auth_cache: dict[str, _CachedAuth] = {}
        self._throttle = TokenBucket(*api.throttle) if api.throttle else None
        self._auth_lock = threading.Lock()

    # -------------------------------------------------------------- WSGI
    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        request_id = str(uuid.uuid4())
        try:
            response = self._handle(request, request_id)
        except GatewayRefusal as refusal:
            response = self._gateway_response(refusal, request_id)
        response.headers.setdefault("x-amzn-RequestId", request_id)
        return response(environ, start_response)

    def _handle(self, request: Request, request_id: str) -> Response:
        arrived_ms = int(time.time() * 1000)  # requestTimeEpoch: when the request arrived, as in AWS
        if self._throttle is not None and not self._throttle.take():
            raise GatewayRefusal("THROTTLED")
        body = request.get_data(cache=False)
        if len(body) > API_GATEWAY_MAX_BODY:
            raise GatewayRefusal("REQUEST_TOO_LARGE")
        route = self._match(request.method, request.path)
        authorizer_context = (self._authorize(request, route)
                              if self.api.authorizer and route.authorized else None)
        event = self._event(request, route, body, request_id, authorizer_context, arrived_ms)
        try:
            payload = self.containers[route.function].invoke_payload(event, self.timeout_s)
        except InvocationTimeout:
            raise GatewayRefusal("INTEGRATION_TIMEOUT") from None
        except Exception:
            raise GatewayRefusal("DEFAULT_5XX", 502) from None  # a function error is a 502 from API Gateway
        return self._response(request, payload)

    # -------------------------------------------------------------- routing
    def _match(self, method: str, path: str) -> Route:
        candidates = [route for regex, route in self._routes if regex.match(path)]
        for wanted in (method.upper(), "ANY"):
            for route in candidates:
                if route.method == wanted:
                    return route
        raise GatewayRefusal("MISSING_AUTHENTICATION_TOKEN")

    # -------------------------------------------------------------- authorizer
    def _authorize(self, request: Request, route: Route) -> dict[str, Any]:
        spec = self.api.authorizer
        assert spec is not None
        token = request.headers.get(spec.header)
        if not token:
            raise GatewayRefusal("UNAUTHORIZED")
        if spec.validation_expression and not re.fullmatch(spec.validation_expression, token):
            raise GatewayRefusal("UNAUTHORIZED")
        method_arn = (f"arn:aws:execute-api:{REGION}:{ACCOUNT}:{API_ID}/{self.api.stage}/"
                      f"{request.method.upper()}{route.path}")
        policy = self._cached_policy(token)
        if policy is None:
            policy = self._invoke_authorizer(token, method_arn)
        if not self._allows(policy, method_arn):
            raise GatewayRefusal("ACCESS_DENIED", authorizer=policy.get("context"))
        return {**policy.get("context", {}), "principalId": policy.get("principalId")}

    def _cached_policy(self, token: str) -> dict[str, Any] | None:
        with self._auth_lock:
            cached = self._auth_cache.get(token)
            return cached.policy if cached and cached.expires > time.monotonic() else None

    def _invoke_authorizer(self, token: str, method_arn: str) -> dict[str, Any]:
        spec = self.api.authorizer
        assert spec is not None
        event = {"type": "TOKEN", "authorizationToken": token, "methodArn": method_arn}
        try:
            # Bounded like the integration: an authorizer invocation still queued when the client's 29 s
            # are over is cancelled instead of piling up behind busy containers.
            policy = self.containers[spec.function].invoke(event, API_GATEWAY_TIMEOUT_S)
        except InvocationTimeout:
            raise GatewayRefusal("AUTHORIZER_FAILURE") from None
        except Exception as exc:
            if str(exc) == "Unauthorized":
                raise GatewayRefusal("UNAUTHORIZED") from None
            raise GatewayRefusal("AUTHORIZER_FAILURE") from None
        if not isinstance(policy, dict) or "policyDocument" not in policy:
            raise GatewayRefusal("AUTHORIZER_FAILURE")
        if spec.ttl_s > 0:
            with self._auth_lock:
                self._auth_cache[token] = _CachedAuth(time.monotonic() + spec.ttl_s, policy)
        return policy

    @staticmethod
    def _allows(policy: dict[str, Any], method_arn: str) -> bool:
        allowed = False
        for statement in policy["policyDocument"].get("Statement", []):
            resources = statement.get("Resource", [])
            resources = [resources] if isinstance(resources, str) else resources
            if any(fnmatch.fnmatchcase(method_arn, r) for r in resources):
                if statement.get("Effect") == "Deny":
                    return False
                allowed = allowed or statement.get("Effect") == "Allow"
        return allowed

    # -------------------------------------------------------------- proxy event and response
    def _event(self, request: Request, route: Route, body: bytes, request_id: str,
               authorizer: dict[str, Any] | None, arrived_ms: int) -> dict[str, Any]:
        multi_headers: dict[str, list[str]] = {}
        for name, value in request.headers.items():
            multi_headers.setdefault(name, []).append(value)
        multi_query = {k: request.args.getlist(k) for k in request.args}
        binary = _media_matches(request.headers.get("Content-Type", ""), self.api.binary_media_types)
        context: dict[str, Any] = {
            "resourcePath": route.path, "httpMethod": request.method.upper(),
            "path": f"/{self.api.stage}{request.path}",
            "stage": self.api.stage, "requestId": request_id, "accountId": ACCOUNT, "apiId": API_ID,
            "protocol": request.environ.get("SERVER_PROTOCOL", "HTTP/1.1"),
            "requestTimeEpoch": arrived_ms, "domainName": request.host,
            "identity": {"sourceIp": request.remote_addr, "userAgent": request.headers.get("User-Agent")},
        }
        if authorizer is not None:
            context["authorizer"] = authorizer
        return {
            "resource": route.path, "path": request.path, "httpMethod": request.method.upper(),
            "headers": {k: v[-1] for k, v in multi_headers.items()} or None,
            "multiValueHeaders": multi_headers or None,
            "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
            "multiValueQueryStringParameters": multi_query or None,
            "pathParameters": None, "stageVariables": None, "requestContext": context,
            "body": _event_body(body, binary),
            "isBase64Encoded": bool(body) and binary,
        }

    def _response(self, request: Request, payload: bytes) -> Response:
        if len(payload) > LAMBDA_MAX_RESPONSE:
            raise GatewayRefusal("DEFAULT_5XX", 502)  # Lambda refuses responses over 6 MB
        result = json.loads(payload)
        if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
            raise GatewayRefusal("DEFAULT_5XX", 502)  # "Malformed Lambda proxy response"
        headers = Headers()
        for name, values in (result.get("multiValueHeaders") or {}).items():
            for value in values:
                headers.add(name, str(value))
        for name, value in (result.get("headers") or {}).items():
            headers.set(name, str(value))
        body: str | bytes = result.get("body") or ""
        accept = request.headers.get("Accept", "").split(",", 1)[0]
        if result.get("isBase64Encoded") and _media_matches(accept, self.api.binary_media_types):
            body = base64.b64decode(body)
        headers.setdefault("Content-Type", "application/json")
        return Response(body, status=result["statusCode"], headers=headers)

    # -------------------------------------------------------------- gateway responses
    def _gateway_response(self, refusal: GatewayRefusal, request_id: str) -> Response:
        responses = self.api.gateway_responses
        config = responses.get(refusal.response_type) or responses.get(
            "DEFAULT_4XX" if refusal.status < 500 else "DEFAULT_5XX", {})
        status = int(config.get("StatusCode", refusal.status))
        message = _ERROR_MESSAGES.get(refusal.response_type, "Error")
        template = config.get("ResponseTemplates", {}).get("application/json")
        if template is None:
            body = json.dumps({"message": message})
        else:
            body = (template.replace("$context.requestId", request_id)
                    .replace("$context.error.messageString", json.dumps(message))
                    .replace("$context.error.message", message))
            # As API Gateway does: the authorizer's context value as it is, unescaped; empty when absent.
            body = _AUTHORIZER_VARIABLE.sub(lambda found: str(refusal.authorizer.get(found[1], "")), body)
        response = Response(body, status=status, content_type="application/json")
        # Static header values only ('quoted'), which is all the template uses.
        for name, value in config.get("ResponseParameters", {}).get("Headers", {}).items():
            if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == "'":
                response.headers[name] = value[1:-1]
        return response
