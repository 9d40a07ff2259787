"""run_extraction against an OpenAI-compatible server on loopback, through the real `openai` client."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.ai_pages import (
    INJECTION_MARKERS,
    INJECTION_PAGE,
    PRODUCT_PAGE,
    PRODUCT_PRICE,
    PRODUCT_TITLE,
)
from tests.support.fake_openai import (
    FakeOpenAI,
    RecordedRequest,
    authorization_sha256,
    completion,
    error,
    hang,
    json_completion,
    refusal,
)
from webcapture.ai import check_provider, run_extraction
from webcapture.ai.extraction import ExtractionResult
from webcapture.ai.provider import PLACEHOLDER_API_KEY
from webcapture.errors import AiNotConfigured, AiProviderError, AiProviderTimeout, RequestValidationError
from webcapture.models.requests import AiExtractRequest
from webcapture.settings import Settings

API_KEY = "sk-test-0123456789abcdefSECRET"
MODEL = "gpt-test-mini"
PAGE_URL = "https://shop.example/p/tb2"
PRODUCT = {"title": PRODUCT_TITLE, "price": 149.99}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "price": {"type": "number"}},
    "required": ["title", "price"],
    "additionalProperties": False,
}
MARKER = re.compile(r"<<<PAGE_CONTENT ([0-9a-f]{32})>>>\n(.*)\n<<<END_PAGE_CONTENT \1>>>", re.DOTALL)
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def _settings(fake: FakeOpenAI, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "openai_api_key": API_KEY,
        "openai_base_url": fake.base_url,
        "ai_model": MODEL,
        "ai_timeout_s": 5.0,
        "ai_content_budget_chars": 20_000,
    }
    values.update(overrides)
    return Settings(**values)


def _request(**fields: Any) -> AiExtractRequest:
    return AiExtractRequest.model_validate({"url": PAGE_URL, **fields})


def _extract(fake: FakeOpenAI, html: str = PRODUCT_PAGE, **fields: Any) -> ExtractionResult:
    return run_extraction(_request(**fields), html, PAGE_URL, settings=_settings(fake))


def _page_block(sent: RecordedRequest) -> tuple[str, str]:
    """(token, content between the markers) of the page message."""
    match = MARKER.search(sent.messages[1]["content"])
    assert match, sent.messages[1]["content"]
    return match.group(1), match.group(2)


# What the model is sent


def test_json_with_schema_sends_strict_structured_output_and_returns_extracted(fake: FakeOpenAI) -> None:
    fake.script(json_completion(PRODUCT, prompt_tokens=321, completion_tokens=17))
    result = _extract(
        fake,
        prompt="Get the product title and price.",
        response_format={"type": "json_schema", "schema": SCHEMA},
    )

    [sent] = fake.requests
    assert sent.method == "POST"
    assert sent.path == "/v1/chat/completions"
    assert sent.authorization_sha256 == authorization_sha256(API_KEY)
    assert "authorization" not in sent.headers
    body = sent.body
    assert body["model"] == MODEL
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "extraction", "schema": SCHEMA, "strict": True},
    }
    # No tools, no streaming, nothing but what we chose to send.
    assert set(body) == {"model", "messages", "response_format"}

    roles = [m["role"] for m in sent.messages]
    assert roles == ["system", "user", "user"]
    system, page, task = (m["content"] for m in sent.messages)
    assert task == "Get the product title and price."
    token, content = _page_block(sent)
    # The system message names the exact markers, so the model knows where untrusted data starts and ends.
    assert f"<<<PAGE_CONTENT {token}>>>" in system
    assert f"<<<END_PAGE_CONTENT {token}>>>" in system
    assert "untrusted" in system
    assert content.startswith(
        f"URL: {PAGE_URL}\nTitle: {PRODUCT_TITLE} | Example Outdoor\n\n# {PRODUCT_TITLE}"
    )
    assert PRODUCT_PRICE in content
    # The caller's prompt is not mixed into the page message, nor the page into the prompt.
    assert "Get the product title" not in page
    assert PRODUCT_PRICE not in task and PRODUCT_PRICE not in system
    assert API_KEY not in json.dumps(body)

    assert result.to_data() == {
        "extracted": PRODUCT,
        "metadata": {
            "url": PAGE_URL,
            "timestamp": result.metadata.timestamp,
            "model": "fake-model-2026-01-01",  # as the provider reports it, not as we asked
            "fieldsExtracted": 2,
            "inputTokens": 321,
            "outputTokens": 17,
        },
    }
    assert TIMESTAMP.match(result.metadata.timestamp)


@pytest.mark.parametrize(
    "response_format",
    [
        {"type": "json_schema", "schema": SCHEMA},
        {"type": "json_schema", "json_schema": SCHEMA},
        {"type": "json_schema", "json_schema": {"name": "product", "schema": SCHEMA, "strict": True}},
    ],
    ids=["schema", "json_schema-bare", "json_schema-openai"],
)
def test_each_schema_shape_without_prompt(fake: FakeOpenAI, response_format: dict[str, Any]) -> None:
    fake.script(json_completion(PRODUCT))
    result = _extract(fake, response_format=response_format)

    sent = fake.requests[0].body
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"] == SCHEMA
    assert sent["response_format"]["json_schema"]["strict"] is True
    # Without a prompt the task is ours: extract what the schema describes.
    assert sent["messages"][2] == {
        "role": "user",
        "content": "Extract from the page the data described by the response schema.",
    }
    assert result.extracted == PRODUCT
    assert result.text is None
    assert "text" not in result.to_data()


def test_non_strict_schema_is_sent_with_strict_false(fake: FakeOpenAI) -> None:
    loose = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    fake.script(json_completion({"title": PRODUCT_TITLE}))
    result = _extract(fake, response_format={"type": "json_schema", "schema": loose})
    assert fake.requests[0].body["response_format"]["json_schema"]["strict"] is False
    assert result.extracted == {"title": PRODUCT_TITLE}


@pytest.mark.parametrize(
    "response_format", [None, {"type": "json_object"}], ids=["prompt-only", "json_object"]
)
def test_json_without_schema_uses_json_object(
    fake: FakeOpenAI, response_format: dict[str, Any] | None
) -> None:
    fake.script(json_completion({"title": PRODUCT_TITLE, "inStock": True, "price": PRODUCT_PRICE}))
    fields: dict[str, Any] = {"prompt": "Title, stock and price?"}
    if response_format is not None:
        fields["response_format"] = response_format
    result = _extract(fake, **fields)

    body = fake.requests[0].body
    assert body["response_format"] == {"type": "json_object"}
    # OpenAI's JSON mode insists that the word JSON appears in the messages.
    assert "JSON" in body["messages"][0]["content"]
    assert body["messages"][2]["content"] == "Title, stock and price?"
    assert result.extracted == {"title": PRODUCT_TITLE, "inStock": True, "price": PRODUCT_PRICE}
    assert result.metadata.fieldsExtracted == 3


def test_text_with_prompt_returns_plain_text(fake: FakeOpenAI) -> None:
    fake.script(completion("  It is a hiking boot for $149.99.\n", prompt_tokens=400, completion_tokens=12))
    result = _extract(fake, responseType="text", prompt="What is sold here?")

    body = fake.requests[0].body
    assert "response_format" not in body
    assert body["messages"][2]["content"] == "What is sold here?"
    assert "plain text" in body["messages"][0]["content"]
    data = result.to_data()
    assert data["text"] == "It is a hiking boot for $149.99."
    assert "extracted" not in data
    assert data["metadata"]["fieldsExtracted"] == 0
    assert (data["metadata"]["inputTokens"], data["metadata"]["outputTokens"]) == (400, 12)


def test_text_without_prompt_asks_for_a_summary(fake: FakeOpenAI) -> None:
    fake.script(completion("A product page for a boot."))
    result = _extract(fake, responseType="text")
    assert fake.requests[0].messages[2]["content"].startswith("Summarise the page")
    assert result.text == "A product page for a boot."


def test_text_cut_off_at_the_output_limit_is_returned_with_a_warning(fake: FakeOpenAI) -> None:
    fake.script(completion("The boot is waterproof and", finish_reason="length"))
    result = _extract(fake, responseType="text")
    assert result.text == "The boot is waterproof and"
    assert result.warning == "The model's answer was cut off at its output limit"


def test_a_server_without_usage_figures_reports_zero_tokens(fake: FakeOpenAI) -> None:
    fake.script(json_completion({"title": "Boot"}, usage=False))
    result = _extract(fake, prompt="Title")
    assert (result.metadata.inputTokens, result.metadata.outputTokens) == (0, 0)
    assert result.extracted == {"title": "Boot"}


def test_caller_instructions_follow_the_fixed_system_text(fake: FakeOpenAI) -> None:
    fake.script(json_completion(PRODUCT))
    _extract(fake, prompt="Title and price", instructions="Prices as numbers, without currency.")
    system = fake.requests[0].messages[0]["content"]
    rules_end = system.index("3. Reply with one JSON object")
    label = system.index("Additional instructions from the API caller")
    assert rules_end < label < system.index("Prices as numbers, without currency.")
    assert system.rstrip().endswith("Prices as numbers, without currency.")
    # Only one system message: some local servers' chat templates refuse a second one.
    assert [m["role"] for m in fake.requests[0].messages].count("system") == 1


def test_markers_are_random_per_request(fake: FakeOpenAI) -> None:
    fake.script(json_completion(PRODUCT), json_completion(PRODUCT))
    _extract(fake, prompt="x")
    _extract(fake, prompt="x")
    first, second = (_page_block(r)[0] for r in fake.requests)
    assert first != second


def test_hidden_injection_never_reaches_the_model(fake: FakeOpenAI) -> None:
    fake.script(json_completion({"title": PRODUCT_TITLE, "price": 149.99}))
    result = _extract(fake, INJECTION_PAGE, response_format={"type": "json_schema", "schema": SCHEMA})
    sent = json.dumps(fake.requests[0].body)
    for marker in INJECTION_MARKERS:
        assert marker not in sent
    assert "Visible description: sturdy boot." in _page_block(fake.requests[0])[1]
    assert result.extracted == {"title": PRODUCT_TITLE, "price": 149.99}


def test_budget_cut_is_sent_and_warned_about(fake: FakeOpenAI) -> None:
    long_page = (
        "<main>" + "".join(f"<p>Review {i}: good boots, would buy again.</p>" for i in range(400)) + "</main>"
    )
    fake.script(completion("Reviews are positive."))
    result = run_extraction(
        _request(responseType="text"),
        long_page,
        PAGE_URL,
        settings=_settings(fake, ai_content_budget_chars=1000),
    )
    _, content = _page_block(fake.requests[0])
    markdown = content.split("\n\n", 1)[1]  # after the URL and Title lines
    assert len(markdown) <= 1000
    assert "Review 0:" in markdown
    assert "Review 399:" not in markdown
    assert markdown.endswith("[Content truncated: the page continues beyond this point.]")
    assert result.warning is not None
    assert "longer than the 1000 characters given to the model and was cut" in result.warning
    assert result.to_data()["warning"] == result.warning


def test_no_warning_when_nothing_was_cut(fake: FakeOpenAI) -> None:
    fake.script(completion("fine"))
    result = _extract(fake, responseType="text")
    assert result.warning is None
    assert "warning" not in result.to_data()


# Unusable answers: one retry that says what was wrong, then AI_PROVIDER_ERROR


def test_invalid_json_is_retried_once_with_the_reason(fake: FakeOpenAI) -> None:
    fake.script(
        completion("Sure! Here it is: {title: boot", prompt_tokens=100, completion_tokens=10),
        json_completion(PRODUCT, prompt_tokens=150, completion_tokens=20, model="fake-model-retry"),
    )
    result = _extract(fake, prompt="Title and price as JSON")

    assert len(fake.requests) == 2
    first, second = (r.messages for r in fake.requests)
    assert second[: len(first)] == first
    assert second[3] == {"role": "assistant", "content": "Sure! Here it is: {title: boot"}
    assert second[4]["role"] == "user"
    assert "not valid JSON" in second[4]["content"]
    assert result.extracted == PRODUCT
    assert (result.metadata.inputTokens, result.metadata.outputTokens) == (250, 30)
    assert result.metadata.model == "fake-model-retry"


def test_schema_breaking_output_then_valid_retry(fake: FakeOpenAI) -> None:
    fake.script(json_completion({"title": PRODUCT_TITLE, "price": "cheap"}), json_completion(PRODUCT))
    result = _extract(fake, response_format={"type": "json_schema", "schema": SCHEMA})
    correction = fake.requests[1].messages[4]["content"]
    assert "does not match the response schema" in correction
    assert "/price" in correction and "'cheap' is not of type 'number'" in correction
    # The retry keeps the same structured-output request.
    assert fake.requests[1].body["response_format"] == fake.requests[0].body["response_format"]
    assert result.extracted == PRODUCT


def test_schema_breaking_output_twice_is_a_provider_error(fake: FakeOpenAI) -> None:
    fake.script(json_completion({"title": 5}), json_completion({"title": PRODUCT_TITLE}))
    with pytest.raises(AiProviderError) as caught:
        _extract(fake, response_format={"type": "json_schema", "schema": SCHEMA})
    assert len(fake.requests) == 2
    assert "after one retry" in caught.value.message
    assert "'price' is a required property" in caught.value.message
    assert caught.value.status == 502 and caught.value.code == "AI_PROVIDER_ERROR"


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (json_completion(["not", "an", "object"]), "must be a JSON object"),
        (completion('{"price": NaN}'), "not valid JSON"),
        (completion(""), "empty"),
    ],
    ids=["array", "nan", "empty"],
)
def test_other_unusable_json_is_retried(fake: FakeOpenAI, reply: Any, problem: str) -> None:
    fake.script(reply, json_completion({"ok": True}))
    result = _extract(fake, prompt="Anything")
    assert problem in fake.requests[1].messages[4]["content"]
    assert result.extracted == {"ok": True}


def test_code_fenced_json_from_a_local_model_is_accepted(fake: FakeOpenAI) -> None:
    fake.script(completion('```json\n{"title": "Boot"}\n```'))
    assert _extract(fake, prompt="Title").extracted == {"title": "Boot"}
    assert len(fake.requests) == 1


# Refusals and provider failures


def test_refusal_is_reported_as_such_without_retry(fake: FakeOpenAI) -> None:
    fake.script(refusal("I'm sorry, I can't help with that request."))
    with pytest.raises(AiProviderError) as caught:
        _extract(fake, response_format={"type": "json_schema", "schema": SCHEMA})
    assert caught.value.message == "The model refused to answer: I'm sorry, I can't help with that request."
    assert len(fake.requests) == 1


def test_text_refusal_and_content_filter(fake: FakeOpenAI) -> None:
    fake.script(refusal("No."), completion(None, finish_reason="content_filter"))
    with pytest.raises(AiProviderError, match=r"refused to answer: No\."):
        _extract(fake, responseType="text")
    with pytest.raises(AiProviderError, match="refused to answer: its content filter"):
        _extract(fake, responseType="text")


def test_429_is_a_provider_error_with_its_status_and_no_retry(fake: FakeOpenAI) -> None:
    fake.script(error(429, "Rate limit reached for requests", type_="requests", code="rate_limit_exceeded"))
    with pytest.raises(AiProviderError) as caught:
        _extract(fake, prompt="x")
    assert caught.value.status == 502
    assert caught.value.message == "The AI provider is rate limiting or out of quota (429)"
    assert len(fake.requests) == 1  # max_retries=0: the budget has no room for back-off


def test_500_is_a_provider_error_with_its_status_never_its_words(fake: FakeOpenAI) -> None:
    # A provider's (or its proxy's) error text can name internal hosts: the caller gets the status only.
    fake.script(error(500, "upstream connect error: internal host ai-backend-7.corp:8443 refused"))
    with pytest.raises(AiProviderError) as caught:
        _extract(fake, responseType="text")
    assert caught.value.message == "The AI provider answered 500"
    assert len(fake.requests) == 1


def test_provider_reason_never_carries_the_key(fake: FakeOpenAI) -> None:
    fake.script(
        error(
            401,
            f"Incorrect API key provided: {API_KEY}. Also sk-proj-abcd****wxyz.",
            type_="invalid_request_error",
        )
    )
    with pytest.raises(AiProviderError) as caught:
        _extract(fake, prompt="x")
    assert API_KEY not in caught.value.message
    assert "sk-proj-abcd" not in caught.value.message
    assert caught.value.message == "The AI provider answered 401"


def test_hang_is_a_timeout(fake: FakeOpenAI) -> None:
    fake.script(hang(30))
    started = time.monotonic()
    with pytest.raises(AiProviderTimeout) as caught:
        run_extraction(
            _request(prompt="x"), PRODUCT_PAGE, PAGE_URL, settings=_settings(fake, ai_timeout_s=1.0)
        )
    assert time.monotonic() - started < 10
    assert caught.value.status == 504
    assert "did not answer within 1 s" in caught.value.message
    assert len(fake.requests) == 1  # a timeout is not retried


def test_deadline_shortens_the_call_and_an_exhausted_budget_skips_it(fake: FakeOpenAI) -> None:
    fake.script(hang(30))
    started = time.monotonic()
    with pytest.raises(AiProviderTimeout):
        run_extraction(
            _request(prompt="x"),
            PRODUCT_PAGE,
            PAGE_URL,
            settings=_settings(fake, ai_timeout_s=20.0),
            deadline=time.monotonic() + 1.5,
        )
    assert time.monotonic() - started < 8

    fake.requests.clear()
    with pytest.raises(AiProviderTimeout, match="No time was left"):
        run_extraction(
            _request(prompt="x"),
            PRODUCT_PAGE,
            PAGE_URL,
            settings=_settings(fake),
            deadline=time.monotonic() + 0.2,
        )
    assert fake.requests == []


def test_unreachable_provider_is_a_provider_error(fake: FakeOpenAI) -> None:
    settings = _settings(fake, openai_base_url="http://127.0.0.1:9/v1")  # discard port: nothing listens
    with pytest.raises(AiProviderError) as caught:
        run_extraction(_request(prompt="x"), PRODUCT_PAGE, PAGE_URL, settings=settings)
    assert caught.value.message == "Could not reach the AI provider (connection refused)"  # no errno, host, port


# Configuration


def test_nothing_configured_is_503_saying_what_to_set() -> None:
    with pytest.raises(AiNotConfigured) as caught:
        check_provider(Settings())
    assert caught.value.status == 503
    for name in ("OPENAI_API_KEY", "OPENAI_API_KEY_SECRET", "OPENAI_BASE_URL"):
        assert name in caught.value.message
    with pytest.raises(AiNotConfigured):
        run_extraction(_request(prompt="x"), PRODUCT_PAGE, PAGE_URL, settings=Settings())


def test_base_url_alone_uses_a_placeholder_key(fake: FakeOpenAI) -> None:
    fake.script(completion("ok"))
    settings = _settings(fake, openai_api_key=None)
    run_extraction(_request(responseType="text"), PRODUCT_PAGE, PAGE_URL, settings=settings)
    assert fake.requests[0].authorization_sha256 == authorization_sha256(PLACEHOLDER_API_KEY)


def test_timeouts_stay_inside_the_request_budget() -> None:
    config = check_provider(Settings(openai_api_key=API_KEY, ai_timeout_s=60, request_budget_ms=25_000))
    assert config.timeout_s == 22
    assert check_provider(Settings(openai_api_key=API_KEY, ai_timeout_s=8)).timeout_s == 8
    assert API_KEY not in repr(config)  # a config in a traceback or log line must not leak the key


def test_invalid_response_format_is_a_422_before_any_call(fake: FakeOpenAI) -> None:
    with pytest.raises(RequestValidationError) as caught:
        _extract(fake, response_format={"type": "json_schema", "schema": {"type": "object", "properties": 3}})
    assert caught.value.issues[0]["path"] == ["response_format"]
    assert fake.requests == []


def test_the_client_is_built_once_per_configuration(fake: FakeOpenAI) -> None:
    from webcapture.ai.provider import get_client

    settings = _settings(fake)
    assert get_client(check_provider(settings)) is get_client(check_provider(settings))
    assert get_client(check_provider(settings)) is not get_client(
        check_provider(_settings(fake, openai_api_key="sk-other"))
    )
