"""template.yaml's limits (docs/api.md#limits): function timeouts under API Gateway's 29 s, stage throttling
and its 429 rendered as TOO_MANY_REQUESTS, reserved concurrency that is left out unless asked for."""

from __future__ import annotations

import json
from typing import Any

from localapi.cfn_template import Resolver, load_template, read_api

# Every function that carries the BrowserLayer, read from the template so a new one cannot be forgotten.
BROWSER_FUNCTIONS = tuple(
    name for name, resource in load_template()["Resources"].items()
    if resource["Type"] == "AWS::Serverless::Function"
    and {"Ref": "BrowserLayer"} in resource["Properties"].get("Layers", [])
)


def resolved(**parameters: str) -> tuple[Resolver, dict[str, Any]]:
    template = load_template()
    return Resolver(template, parameters=parameters), template


def test_every_function_behind_the_gateway_ends_before_the_gateways_29_s() -> None:
    resolver, template = resolved()
    api = read_api(template, resolver)
    routed = {route.function for route in api.routes}
    assert set(BROWSER_FUNCTIONS) <= routed
    assert all(api.functions[name].timeout_s <= 28 for name in routed - set(BROWSER_FUNCTIONS))


def test_browser_functions_have_room_for_a_job_item_of_120_s() -> None:
    """They also run job items (docs/jobs.md#jobs: up to 120 s each); a synchronous request keeps its own
    deadline under the gateway's 29 s from requestTimeEpoch (request_scope), whatever the function's
    Timeout."""
    resolver, template = resolved()
    api = read_api(template, resolver)
    assert all(api.functions[name].timeout_s == 130 for name in BROWSER_FUNCTIONS)


def test_stage_throttling_comes_from_parameters() -> None:
    resolver, template = resolved()
    assert read_api(template, resolver).throttle == (50.0, 100)
    resolver, template = resolved(ThrottlingRateLimit="5", ThrottlingBurstLimit="7")
    assert read_api(template, resolver).throttle == (5.0, 7)
    settings = resolver.resolve(template["Resources"]["WebcaptureApi"]["Properties"]["MethodSettings"])
    assert settings == [{"ResourcePath": "/*", "HttpMethod": "*", "ThrottlingRateLimit": "5",
                         "ThrottlingBurstLimit": "7"}]


def test_api_gateways_own_429_is_too_many_requests_in_the_error_envelope() -> None:
    _, template = resolved()
    throttled = template["Resources"]["WebcaptureApi"]["Properties"]["GatewayResponses"]["THROTTLED"]
    assert throttled["StatusCode"] == 429
    assert throttled["ResponseParameters"]["Headers"]["Retry-After"] == "'1'"
    body = json.loads(throttled["ResponseTemplates"]["application/json"].replace("$context.requestId", "r"))
    assert body["success"] is False
    assert body["error"]["code"] == "TOO_MANY_REQUESTS" and body["error"]["requestId"] == "r"


def test_reserved_concurrency_is_unset_by_default_and_set_when_given() -> None:
    resolver, template = resolved()
    for name in BROWSER_FUNCTIONS:
        props = resolver.resolve(template["Resources"][name]["Properties"])
        assert "ReservedConcurrentExecutions" not in props  # AWS::NoValue: left out
    resolver, template = resolved(BrowserReservedConcurrency="20")
    for name in BROWSER_FUNCTIONS:
        props = resolver.resolve(template["Resources"][name]["Properties"])
        assert props["ReservedConcurrentExecutions"] == "20"


def test_the_gateways_own_504_is_a_navigation_timeout_envelope() -> None:
    _, template = resolved()
    timeout = template["Resources"]["WebcaptureApi"]["Properties"]["GatewayResponses"]["INTEGRATION_TIMEOUT"]
    body = json.loads(timeout["ResponseTemplates"]["application/json"].replace("$context.requestId", "r"))
    assert timeout["StatusCode"] == 504 and body["error"]["code"] == "NAVIGATION_TIMEOUT"


def test_traces_keep_no_answers() -> None:
    # Powertools' Tracer would put every answer into X-Ray metadata: megabytes (screenshots, 100,000 links)
    # against X-Ray's 64 KB segments, and the caller's data besides.
    resolver, template = resolved()
    api = read_api(template, resolver)
    assert api.authorizer is not None and api.authorizer.function in api.functions
    for spec in api.functions.values():
        assert spec.environment.get("POWERTOOLS_TRACER_CAPTURE_RESPONSE") == "false", spec
