"""The caller's schema patterns run in Python's `re` on the model's output: patterns that can backtrack
catastrophically are refused with a 422 before any work, and an overlong JSON reply is never checked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.ai_pages import PRODUCT_PAGE
from tests.support.fake_openai import FakeOpenAI, completion, json_completion
from webcapture.ai import run_extraction, validate_ai_request
from webcapture.ai.extraction import MAX_JSON_REPLY_CHARS
from webcapture.ai.safe_patterns import pattern_problem, schema_patterns
from webcapture.errors import AiProviderError, RequestValidationError
from webcapture.models.requests import AiExtractRequest
from webcapture.settings import Settings

CATASTROPHIC = r"(a+)+$"
EVIL_INPUT = "a" * 30 + "!"


@pytest.mark.parametrize("pattern", [CATASTROPHIC, r"(a*)*", r"(x?x?)+$", r"(.*a){12}", r"(?:a{1,3})*",
                                     r"(a|ab)*c", r"^(\w+\s?)*$", r"(a)\1", r"(?>a+)+", "[", "a" * 1001])
def test_risky_patterns_are_refused(pattern: str) -> None:
    assert pattern_problem(pattern) is not None


@pytest.mark.parametrize("pattern", [r"^\d{4}-\d{2}-\d{2}$", r"^[A-Z]{3}$", r"\d+-\d+", r"(ab|ac)+",
                                     r"(\w|\d)+$", r"(?:ab)+", r"(a{3})+", r"^https?://", r"(?=(a+))b",
                                     r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$"])
def test_ordinary_patterns_pass(pattern: str) -> None:
    assert pattern_problem(pattern) is None


def test_patterns_are_found_wherever_they_are() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "x+"}},
              "patternProperties": {"^k": {}}, "$defs": {"d": {"items": [{"pattern": "y"}]}},
              "elsewhere": {"deep": {"pattern": "z"}}}
    assert sorted(schema_patterns(schema)) == ["^k", "x+", "y", "z"]


def request(schema: dict[str, Any]) -> AiExtractRequest:
    return AiExtractRequest.model_validate({"url": "https://example.com/", "prompt": "p",
                                            "response_format": {"type": "json_schema", "schema": schema}})


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"code": {"type": "string", "pattern": CATASTROPHIC}}},
    {"type": "object", "patternProperties": {CATASTROPHIC: {"type": "string"}}},
    {"type": "object", "properties": {"x": {"$ref": "#/$defs/s"}},
     "$defs": {"s": {"type": "array", "items": {"type": "string", "pattern": r"^(\w+\s?)*$"}}}},
])
def test_a_schema_with_a_risky_pattern_is_a_422(schema: dict[str, Any]) -> None:
    with pytest.raises(RequestValidationError) as caught:
        validate_ai_request(request(schema))
    [issue] = caught.value.issues
    assert issue["code"] == "custom" and issue["path"] == ["response_format"]
    assert "exponential" in issue["message"]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def settings(fake: FakeOpenAI) -> Settings:
    return Settings(openai_api_key="sk-test", openai_base_url=fake.base_url, ai_model="m", ai_timeout_s=5.0)


def test_the_model_is_never_asked_and_the_pattern_never_run(fake: FakeOpenAI) -> None:
    # The reply that would make `re` run for minutes is waiting; nothing may get as far as reading it.
    fake.script(json_completion({"code": EVIL_INPUT}))
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": CATASTROPHIC}}}
    with pytest.raises(RequestValidationError):
        run_extraction(request(schema), PRODUCT_PAGE, "https://example.com/", settings=settings(fake))
    assert fake.requests == [] and fake.pending == 1


def test_an_overlong_json_reply_is_refused_unchecked_and_retried(fake: FakeOpenAI) -> None:
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": r"^\d+$"}}}
    fake.script(completion('{"code": "' + "1" * MAX_JSON_REPLY_CHARS + '"}'), json_completion({"code": "42"}))
    result = run_extraction(request(schema), PRODUCT_PAGE, "https://example.com/", settings=settings(fake))
    assert result.extracted == {"code": "42"}
    assert f"longer than {MAX_JSON_REPLY_CHARS} characters" in str(fake.requests[1].body["messages"])


def test_a_reply_overlong_twice_is_a_provider_error(fake: FakeOpenAI) -> None:
    reply = '{"code": "' + "1" * MAX_JSON_REPLY_CHARS + '"}'
    fake.script(completion(reply), completion(reply))
    with pytest.raises(AiProviderError):
        run_extraction(request({"type": "object"}), PRODUCT_PAGE, "https://example.com/", settings=settings(fake))
