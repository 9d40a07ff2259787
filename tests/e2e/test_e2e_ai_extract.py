"""Over real HTTP against the local API: real Chromium loads the page, the real openai client calls a
scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.support.ai_pages import PRODUCT_PRICE, PRODUCT_TITLE
from tests.support.api_answers import assert_envelope_error, assert_success
from tests.support.fake_openai import DEFAULT_MODEL, FakeOpenAI, completion, error, json_completion
from tests.support.fixture_server import get_server
from tests.support.jobs_client import all_results, credits_left, wait_until_settled
from tests.support.local_api import LocalApi
from webcapture.auth import api_keys

SCHEMA = {"type": "object", "properties": {"title": {"type": "string"}, "price": {"type": "string"}},
          "required": ["title", "price"], "additionalProperties": False}


def sent_text(server: FakeOpenAI) -> str:
    return json.dumps(server.requests[-1].body)


@pytest.fixture(autouse=True)
def fresh_script(fake_openai: FakeOpenAI) -> None:
    fake_openai.requests.clear()
    assert fake_openai.pending == 0


def test_product_page_is_extracted_against_the_schema(local_api: LocalApi, fake_openai: FakeOpenAI) -> None:
    fake_openai.script(json_completion({"title": PRODUCT_TITLE, "price": PRODUCT_PRICE},
                                       prompt_tokens=321, completion_tokens=12))
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": get_server().url("/product.html"), "prompt": "Extract the product title and price",
        "response_format": {"type": "json_schema", "json_schema": {"name": "product", "schema": SCHEMA}}})
    body = assert_success(response, 5)
    data: dict[str, Any] = body["data"]
    assert data["extracted"] == {"title": PRODUCT_TITLE, "price": PRODUCT_PRICE}
    assert "text" not in data
    meta = data["metadata"]
    assert meta["model"] == DEFAULT_MODEL and meta["fieldsExtracted"] == 2
    assert (meta["inputTokens"], meta["outputTokens"]) == (321, 12)
    assert meta["url"] == get_server().url("/product.html")
    request = fake_openai.requests[-1].body
    assert request["response_format"]["type"] == "json_schema"
    assert request["response_format"]["json_schema"]["schema"] == SCHEMA
    text = sent_text(fake_openai)
    assert PRODUCT_TITLE in text and "149.99" in text
    assert "SCRIPT_TEXT_MUST_NOT_APPEAR" not in text  # scripts never reach the model


def test_hidden_injection_never_reaches_the_model(local_api: LocalApi, fake_openai: FakeOpenAI) -> None:
    fake_openai.script(json_completion({"title": PRODUCT_TITLE, "price": PRODUCT_PRICE}))
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": get_server().url("/injection.html"), "prompt": "Extract the product",
        "response_format": {"type": "json_schema", "schema": SCHEMA}})
    assert assert_success(response, 5)["data"]["extracted"]["title"] == PRODUCT_TITLE
    text = sent_text(fake_openai)
    assert "Visible description: sturdy boot." in text
    assert "INJECTED" not in text


def test_text_summary(local_api: LocalApi, fake_openai: FakeOpenAI) -> None:
    fake_openai.script(completion("A waterproof hiking boot for $149.99."))
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": get_server().url("/product.html"), "responseType": "text"})
    data = assert_success(response, 5)["data"]
    assert data["text"] == "A waterproof hiking boot for $149.99."
    assert "extracted" not in data and data["metadata"]["fieldsExtracted"] == 0
    assert "response_format" not in fake_openai.requests[-1].body


def test_provider_failure_is_502_and_refunded(stack_aws: LocalApi, fake_openai: FakeOpenAI) -> None:
    key, _ = api_keys.create_key("ai-user", "k", remaining=10)
    fake_openai.script(error(500, "upstream exploded"))
    response = stack_aws.call("POST", "/v1/web/ai-extract", key=key, json={
        "url": get_server().url("/product.html"), "prompt": "Extract the product"})
    body = assert_envelope_error(response, 502, "AI_PROVIDER_ERROR")
    assert "sk-e2e-test-key" not in json.dumps(body)
    record = api_keys.find_by_key(key)
    assert record is not None and record.public()["remaining"] == 10


@pytest.mark.parametrize(("payload", "path"), [
    ({}, ["prompt"]),
    ({"prompt": "x" * 1001}, ["prompt"]),
    ({"prompt": "p", "instructions": "x" * 501}, ["instructions"]),
    ({"response_format": {"type": "json_schema", "schema": {"type": "nonsense"}}}, ["response_format"]),
    ({"prompt": "p", "responseType": "yaml"}, ["responseType"]),
])
def test_bad_input_is_422_and_never_calls_the_model(local_api: LocalApi, fake_openai: FakeOpenAI,
                                                    payload: dict[str, Any], path: list[str]) -> None:
    response = local_api.call("POST", "/v1/web/ai-extract", json={"url": get_server().url("/product.html"),
                                                                   **payload})
    assert response.status_code == 422, response.text
    assert [issue["path"] for issue in response.json()["error"]["issues"]] == [path]
    assert fake_openai.requests == []


BAD_SCHEMAS = {
    "self-reference": {"$ref": "#"},
    "cycle": {"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}},
    "mutual-defs": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}},
                    "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}},
    "unresolved-ref": {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
    "dynamic-ref": {"type": "object", "properties": {"a": {"$dynamicRef": "#meta"}}},
}


@pytest.mark.parametrize("schema", BAD_SCHEMAS.values(), ids=BAD_SCHEMAS.keys())
def test_a_schema_no_answer_can_be_checked_against_is_422_before_any_provider_call(
        local_api: LocalApi, fake_openai: FakeOpenAI, schema: dict[str, Any]) -> None:
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": get_server().url("/product.html"), "prompt": "p",
        "response_format": {"type": "json_schema", "schema": schema}})
    assert response.status_code == 422, response.text
    [issue] = response.json()["error"]["issues"]
    assert issue["path"] == ["response_format"] and " at /" in issue["message"]
    assert fake_openai.requests == []


def test_an_impossible_schema_is_charged_once_and_says_so(stack_aws: LocalApi, fake_openai: FakeOpenAI) -> None:
    # The model answered twice, off the schema both times: its work was done, so the credits are kept.
    key, _ = api_keys.create_key("ai-user", "k", remaining=10)
    fake_openai.script(json_completion({"a": "something"}), json_completion({"a": "something else"}))
    response = stack_aws.call("POST", "/v1/web/ai-extract", key=key, json={
        "url": get_server().url("/product.html"), "prompt": "p",
        "response_format": {"type": "json_schema", "schema": {
            "type": "object", "properties": {"a": {"const": "never-produced"}}, "required": ["a"]}}})
    body = assert_envelope_error(response, 502, "AI_PROVIDER_ERROR")
    assert "after one retry" in body["error"]["message"] and "charged" in body["error"]["message"]
    assert len(fake_openai.requests) == 2
    record = api_keys.find_by_key(key)
    assert record is not None and record.public()["remaining"] == 5


def test_a_batch_item_the_model_never_satisfies_is_charged_and_says_so(
        stack_aws: LocalApi, fake_openai: FakeOpenAI) -> None:
    # Every answer is {"a": "something"}: the first item's schema takes it, the second's never does (two
    # calls, then failed). Both items keep their 5 credits, as the synchronous request keeps them; the
    # answers are alike, so whichever item reaches the model first does not matter.
    key, _ = api_keys.create_key("ai-batch-user", "k", remaining=20)
    fake_openai.script(*[json_completion({"a": "something"}) for _ in range(3)])
    page = get_server().url("/product.html")
    takes = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    never = {"type": "object", "properties": {"a": {"const": "never-produced"}}, "required": ["a"]}
    response = stack_aws.call("POST", "/v1/batch", key=key, json={"operation": "ai-extract", "requests": [
        {"url": page, "prompt": "p", "response_format": {"type": "json_schema", "schema": schema}}
        for schema in (takes, never)]})
    assert response.status_code == 202, response.text
    job_id = response.json()["data"]["jobId"]
    settled = wait_until_settled(stack_aws, job_id, give_up_s=180, key=key)
    first, second = sorted(all_results(stack_aws, job_id, 10, key=key), key=lambda result: result["index"])
    assert first["status"] == "completed" and first["data"]["extracted"] == {"a": "something"}
    assert second["status"] == "failed" and second["error"]["code"] == "AI_PROVIDER_ERROR"
    assert "after one retry" in second["error"]["message"] and "charged" in second["error"]["message"]
    assert len(fake_openai.requests) == 3
    assert (settled["completed"], settled["failed"], settled["creditsCost"]) == (1, 1, 10)
    assert credits_left(stack_aws, key) == 10


def test_the_provider_s_error_text_never_reaches_the_caller(local_api: LocalApi, fake_openai: FakeOpenAI) -> None:
    fake_openai.script(error(503, "upstream connect error: internal host ai-backend-7.corp:8443 [Errno 111]"))
    response = local_api.call("POST", "/v1/web/ai-extract", json={
        "url": get_server().url("/product.html"), "prompt": "p"})
    body = assert_envelope_error(response, 502, "AI_PROVIDER_ERROR")
    assert body["error"]["message"] == "The AI provider answered 503"
    assert "ai-backend-7" not in response.text and "Errno" not in response.text
