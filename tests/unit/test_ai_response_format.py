"""response_format: the four accepted shapes, strict where OpenAI allows it, 422 for anything else."""

from __future__ import annotations

from typing import Any

import pytest

from webcapture.ai.response_format import (
    OutputSpec,
    check_json_schema,
    normalize_response_format,
    strict_problems,
    validate_ai_request,
)
from webcapture.errors import RequestValidationError
from webcapture.models.requests import AiExtractRequest

STRICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "price": {"type": ["number", "null"]}},
    "required": ["title", "price"],
    "additionalProperties": False,
}
LOOSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "price": {"type": "number"}},
    "required": ["title"],
}


def _expected(schema: dict[str, Any], *, strict: bool, name: str = "extraction") -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "json_schema", "schema": STRICT_SCHEMA},
        {"type": "json_schema", "json_schema": STRICT_SCHEMA},
        {
            "type": "json_schema",
            "json_schema": {"name": "extraction", "schema": STRICT_SCHEMA, "strict": True},
        },
    ],
    ids=["schema", "json_schema-bare", "json_schema-openai"],
)
def test_schema_shapes_normalise_to_strict_json_schema(raw: dict[str, Any]) -> None:
    spec = normalize_response_format(raw, "json")
    assert spec.mode == "json_schema"
    assert spec.schema == STRICT_SCHEMA
    assert spec.openai_response_format() == _expected(STRICT_SCHEMA, strict=True)


def test_json_object_shape() -> None:
    spec = normalize_response_format({"type": "json_object"}, "json")
    assert spec == OutputSpec(mode="json_object")
    assert spec.openai_response_format() == {"type": "json_object"}


def test_prompt_only_json_uses_json_object_and_text_sends_nothing() -> None:
    assert normalize_response_format(None, "json").openai_response_format() == {"type": "json_object"}
    assert normalize_response_format(None, "text").openai_response_format() is None
    # With text, a valid response_format is accepted but the answer stays plain text.
    spec = normalize_response_format({"type": "json_schema", "schema": STRICT_SCHEMA}, "text")
    assert spec.openai_response_format() is None


def test_openai_shape_keeps_name_description_and_explicit_strict_false() -> None:
    raw = {
        "type": "json_schema",
        "json_schema": {
            "name": "product info!",
            "description": "A product",
            "schema": STRICT_SCHEMA,
            "strict": False,
        },
    }
    sent = normalize_response_format(raw, "json").openai_response_format()
    assert sent == {
        "type": "json_schema",
        "json_schema": {
            "name": "product_info_",
            "schema": STRICT_SCHEMA,
            "strict": False,
            "description": "A product",
        },
    }


def test_schema_outside_the_strict_subset_is_sent_with_strict_false() -> None:
    spec = normalize_response_format({"type": "json_schema", "schema": LOOSE_SCHEMA}, "json")
    assert spec.openai_response_format() == _expected(LOOSE_SCHEMA, strict=False)
    # Even when the caller asked for strict: OpenAI would refuse the whole request.
    raw = {"type": "json_schema", "json_schema": {"name": "x", "schema": LOOSE_SCHEMA, "strict": True}}
    assert normalize_response_format(raw, "json").strict is False


def test_dialect_marker_is_not_sent_but_kept_for_validation() -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **STRICT_SCHEMA}
    spec = normalize_response_format({"type": "json_schema", "schema": schema}, "json")
    assert spec.strict is True
    assert spec.schema == schema
    assert spec.openai_response_format() == _expected(STRICT_SCHEMA, strict=True)


def test_the_callers_dict_is_not_shared() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    spec = normalize_response_format({"type": "json_schema", "schema": schema}, "json")
    schema["properties"]["a"]["type"] = "number"
    assert spec.schema == {"type": "object", "properties": {"a": {"type": "string"}}}


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        (LOOSE_SCHEMA, "does not list every property in required"),
        ({**STRICT_SCHEMA, "additionalProperties": True}, "lacks additionalProperties: false"),
        (
            {
                **STRICT_SCHEMA,
                "properties": {"title": {"type": "string", "minLength": 1}, "price": {"type": "number"}},
            },
            "/properties/title uses minLength",
        ),
        (
            {
                **STRICT_SCHEMA,
                "properties": {"title": {"type": "string", "format": "uri"}, "price": {"type": "number"}},
            },
            "uses format 'uri'",
        ),
        ({**STRICT_SCHEMA, "properties": {"title": {}, "price": {"type": "number"}}}, "has no type"),
        ({**STRICT_SCHEMA, "anyOf": [{"type": "object"}]}, "the root may not use anyOf"),
        (
            {
                **STRICT_SCHEMA,
                "properties": {
                    "title": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]},
                    "price": {"type": "number"},
                },
            },
            "/properties/title lacks additionalProperties: false",
        ),
    ],
)
def test_strict_problems(schema: dict[str, Any], problem: str) -> None:
    problems = strict_problems(schema)
    assert any(problem in p for p in problems), problems


def test_strict_subset_with_refs_arrays_and_enums_is_strict() -> None:
    schema = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}, "minItems": 0},
            "currency": {"enum": ["EUR", "USD"]},
            "when": {"type": "string", "format": "date-time"},
        },
        "required": ["items", "currency", "when"],
        "additionalProperties": False,
        "$defs": {
            "item": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "price": {"anyOf": [{"type": "number"}, {"type": "null"}]},
                },
                "required": ["name", "price"],
                "additionalProperties": False,
            }
        },
    }
    assert strict_problems(schema) == []
    assert normalize_response_format({"type": "json_schema", "schema": schema}, "json").strict is True


def test_a_property_named_like_a_keyword_is_not_a_keyword() -> None:
    schema = {
        "type": "object",
        "properties": {"$ref": {"type": "string"}, "minLength": {"type": "number"}},
        "required": ["$ref", "minLength"],
        "additionalProperties": False,
    }
    assert strict_problems(schema) == []
    normalize_response_format({"type": "json_schema", "schema": schema}, "json")  # no 422 either


def _issue_of(raw: Any) -> dict[str, Any]:
    with pytest.raises(RequestValidationError) as caught:
        normalize_response_format(raw, "json")
    issues = caught.value.issues
    assert len(issues) == 1
    issue = issues[0]
    assert issue["code"] == "custom"
    assert issue["path"] == ["response_format"]
    assert isinstance(issue["message"], str) and issue["message"]
    return issue


@pytest.mark.parametrize(
    ("raw", "in_message"),
    [
        ({}, "type"),
        ({"type": "text"}, "type"),
        ({"type": "xml"}, "type"),
        ({"type": "json_schema"}, "schema"),
        ({"type": "json_schema", "schema": "not an object"}, "JSON Schema object"),
        ({"type": "json_schema", "schema": ["array"]}, "JSON Schema object"),
        ({"type": "json_schema", "json_schema": "x"}, "json_schema must be an object"),
        ({"type": "json_schema", "json_schema": {"name": "x", "schema": None}}, "JSON Schema object"),
        ({"type": "json_schema", "schema": {"type": "objekt"}}, "Invalid JSON Schema"),
        ({"type": "json_schema", "schema": {"type": "object", "properties": []}}, "Invalid JSON Schema"),
        ({"type": "json_schema", "schema": {"type": "object", "required": "title"}}, "Invalid JSON Schema"),
        (
            {"type": "json_schema", "schema": {"type": "object", "properties": {"a": {"minLength": -1}}}},
            "at /",
        ),
        (
            {"type": "json_schema", "schema": {"type": "array", "items": {"type": "string"}}},
            "describe an object",
        ),
        ({"type": "json_schema", "schema": STRICT_SCHEMA, "strict": "yes"}, "strict"),
        ({"type": "json_schema", "json_schema": {"schema": STRICT_SCHEMA, "strict": "yes"}}, "strict"),
        ({"type": "json_schema", "json_schema": {"schema": STRICT_SCHEMA, "name": 5}}, "name"),
        (
            {
                "type": "json_schema",
                "schema": {"type": "object", "properties": {"a": {"$ref": "https://evil.example/s"}}},
            },
            "Only local $ref",
        ),
        (
            {
                "type": "json_schema",
                "schema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
            },
            "does not resolve",
        ),
    ],
)
def test_bad_response_format_is_a_422_at_response_format(raw: Any, in_message: str) -> None:
    assert in_message in _issue_of(raw)["message"]


def test_validate_ai_request_checks_before_any_page_is_loaded() -> None:
    request = AiExtractRequest.model_validate(
        {"url": "https://e.example/", "response_format": {"type": "json_schema", "schema": {"type": 5}}}
    )
    with pytest.raises(RequestValidationError) as caught:
        validate_ai_request(request)
    assert caught.value.issues[0]["path"] == ["response_format"]

    good = AiExtractRequest.model_validate({"url": "https://e.example/", "prompt": "Title?"})
    assert validate_ai_request(good).mode == "json_object"
    text = AiExtractRequest.model_validate({"url": "https://e.example/", "responseType": "text"})
    assert validate_ai_request(text).mode == "text"


@pytest.mark.parametrize(("schema", "words"), [
    ({"$ref": "#"}, "The schema at / refers back to itself"),
    ({"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}, "at /properties/a refers back"),
    ({"type": "object", "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}},
      "properties": {"x": {"$ref": "#/$defs/a"}}}, "(a $ref cycle)"),
    ({"type": "object", "properties": {"a": {"$ref": "#/$defs/none"}}}, "at /properties/a does not resolve"),
    ({"type": "object", "properties": {"a": {"$dynamicRef": "#m"}}}, "$dynamicRef at /properties/a is not supported"),
    ({"type": "object", "properties": {"a": {"$ref": "#/required"}}, "required": []}, "does not name a schema"),
])
def test_schemas_no_answer_could_be_checked_against_are_422_naming_the_place(
        schema: dict[str, Any], words: str) -> None:
    with pytest.raises(RequestValidationError) as caught:
        check_json_schema(schema)
    assert words in caught.value.issues[0]["message"]


def test_recursive_schemas_that_reach_into_the_data_are_accepted() -> None:
    check_json_schema({"type": "object", "properties": {
        "name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}}})
    check_json_schema({"type": "object", "properties": {"list": {"$ref": "#/$defs/node"}},
                       "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}})
