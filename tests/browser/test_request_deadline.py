"""One deadline per request, fixed at handler entry, used by DNS, metering, boto3, the browser and the AI."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from aws_lambda_powertools.event_handler import Response, content_types

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture import aws, request_scope
from webcapture.ai.provider import provider_config
from webcapture.auth import api_keys
from webcapture.browser import take_screenshot
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller
from webcapture.egress import resolver
from webcapture.errors import NavigationTimeout
from webcapture.metering import metered
from webcapture.models.requests import ScreenshotRequest
from webcapture.request_scope import ANSWER_MARGIN_MS, RequestScope, derive, scoped
from webcapture.settings import Settings, get_settings


def scope_with(remaining_s: float, gateway_s: float | None = None) -> RequestScope:
    now = time.monotonic()
    return RequestScope(str(uuid.uuid4()), now + remaining_s, None if gateway_s is None else now + gateway_s)


# -- the deadline itself ----------------------------------------------------------------------------------


def test_deadline_is_the_earliest_of_budget_function_and_gateway(settings_env: pytest.MonkeyPatch) -> None:
    budget = get_settings().request_budget_ms
    assert budget == 25_000
    fresh = derive("r", lambda_remaining_ms=28_000, request_time_epoch_ms=time.time() * 1000)
    assert 24_500 < fresh.remaining_ms() <= 25_000  # the budget binds
    short_lambda = derive("r", lambda_remaining_ms=10_000, request_time_epoch_ms=None)
    assert 6_500 < short_lambda.remaining_ms() <= 10_000 - ANSWER_MARGIN_MS
    # Received 20 s ago (queued, cold start...): the gateway answers 504 in 9 s, so only 6 s are left.
    waited = derive("r", lambda_remaining_ms=28_000, request_time_epoch_ms=time.time() * 1000 - 20_000)
    assert 5_500 < waited.remaining_ms() <= 29_000 - 20_000 - ANSWER_MARGIN_MS
    assert not waited.gateway_gave_up()
    late = derive("r", lambda_remaining_ms=28_000, request_time_epoch_ms=time.time() * 1000 - 30_000)
    assert late.gateway_gave_up() and late.remaining_ms() < 0
    # A recorded event replayed a day later (sam local invoke -e events/...): nobody's gateway is waiting.
    replayed = derive("r", lambda_remaining_ms=28_000, request_time_epoch_ms=time.time() * 1000 - 86_400_000)
    assert not replayed.gateway_gave_up() and 24_500 < replayed.remaining_ms() <= 25_000


# -- the handler: a request the gateway gave up on is not run, and not charged ----------------------------


@dataclass
class FakeLambdaContext:
    """The handler's context object: what the Lambda runtime passes in (remaining time included)."""

    remaining_ms: int = 28_000
    function_name: str = "TestFunction"
    memory_limit_in_mb: int = 256
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:TestFunction"
    aws_request_id: str = "local"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


def metered_handler(seen: list[float]) -> Any:
    app = create_resolver()

    @app.post("/v1/web/screenshot")
    def work() -> Response[str]:
        seen.append(request_scope.remaining_ms())
        with metered(current_caller(app), 1):
            pass
        return Response(200, content_types.APPLICATION_JSON, "{}")

    return entry_point(app)


def event_for(key: str, record: api_keys.ApiKeyRecord, received_ms: float) -> dict[str, Any]:
    return {
        "resource": "/v1/web/screenshot", "path": "/v1/web/screenshot", "httpMethod": "POST",
        "headers": {"Authorization": f"Bearer {key}"}, "body": "{}", "isBase64Encoded": False,
        "requestContext": {"requestId": str(uuid.uuid4()), "requestTimeEpoch": int(received_ms),
                           "authorizer": {"userId": record.user_id, "tokenKind": "api_key",
                                          "keyId": record.id, "limited": "true"}},
    }


def test_a_request_the_gateway_already_answered_is_neither_run_nor_charged(aws_resources: None) -> None:
    key, record = api_keys.create_key("u", "k", remaining=10)
    seen: list[float] = []
    handler = metered_handler(seen)
    answer = handler(event_for(key, record, time.time() * 1000 - 29_500), FakeLambdaContext())  # type: ignore[arg-type]
    assert answer["statusCode"] == 504
    assert seen == []
    fresh = api_keys.get_by_hash(record.key_hash)
    assert fresh is not None and fresh.public()["remaining"] == 10


def test_the_handler_takes_its_deadline_from_the_lambda_context(aws_resources: None) -> None:
    key, record = api_keys.create_key("u", "k", remaining=10)
    seen: list[float] = []
    handler = metered_handler(seen)
    answer = handler(event_for(key, record, time.time() * 1000), FakeLambdaContext(remaining_ms=7_000))  # type: ignore[arg-type]
    assert answer["statusCode"] == 200
    assert 3_000 < seen[0] <= 7_000 - ANSWER_MARGIN_MS
    fresh = api_keys.get_by_hash(record.key_hash)
    assert fresh is not None and fresh.public()["remaining"] == 9


# -- DNS, boto3, the AI client, the browser --------------------------------------------------------------


@pytest.fixture
def stuck_dns() -> Iterator[Callable[[str], list[str]]]:
    """A resolver that never answers in time (as a DNS server that never answers): released after the test."""
    release = threading.Event()

    def stuck(name: str) -> list[str]:
        release.wait(10)
        return ["93.184.215.14"]

    yield stuck
    release.set()


def test_dns_check_stops_at_the_request_deadline(stuck_dns: Callable[[str], list[str]]) -> None:
    with scoped(scope_with(0.3)), pytest.raises(NavigationTimeout, match=r"example\.test"):
        resolver.resolve_blocking("example.test", stuck_dns)
    with scoped(scope_with(-0.1)), pytest.raises(NavigationTimeout):
        resolver.resolve_blocking("example.test", stuck_dns)


def test_dns_check_without_a_tight_deadline_keeps_its_own_limit_meaning() -> None:
    assert resolver.DNS_TIMEOUT_S == 5.0  # a name that never resolves is a 502, not a 504, with time to spare
    with scoped(scope_with(20)):
        assert request_scope.remaining_ms() > resolver.DNS_TIMEOUT_S * 1000


def test_boto3_timeouts_follow_the_time_left(settings_env: pytest.MonkeyPatch) -> None:
    assert aws.read_timeout_s(25_000) == 5  # three attempts of 5 s fit; of 10 s they would not
    assert aws.read_timeout_s(40_000) == 10
    assert aws.read_timeout_s(4_000) == 1
    assert aws.read_timeout_s(-1) == 1  # still one short try for releasing and refunding
    with scoped(scope_with(25)):
        early = aws.dynamodb_table("t")
    with scoped(scope_with(2)):
        late = aws.dynamodb_table("t")
    early_config: Any = early.meta.client.meta.config
    late_config: Any = late.meta.client.meta.config
    assert early_config.read_timeout == 5 and late_config.read_timeout == 1
    assert late_config.connect_timeout == 1


def test_ai_timeout_is_what_the_request_has_left() -> None:
    settings = Settings(openai_api_key="sk-test", ai_timeout_s=20)
    with scoped(scope_with(6)):
        assert 5 < provider_config(settings).timeout_s <= 6
    with scoped(scope_with(60)):
        assert provider_config(settings).timeout_s == 20


def test_browser_keeps_to_the_request_deadline_not_a_fresh_budget(fixture_server: FixtureHttpServer) -> None:
    request = ScreenshotRequest.model_validate({"url": fixture_server.url("/hang")})
    with scoped(scope_with(1.2)), pytest.raises(NavigationTimeout, match=r"budget of 1[01]\d\d ms"):
        take_screenshot(request)
