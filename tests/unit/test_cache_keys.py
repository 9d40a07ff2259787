"""The cache key (docs/cache-and-signed-links.md#cache-and-signed-links) tells requests apart exactly as the
request models do: two requests share an entry if and only if they are the same validated request (defaults
filled in) apart from maxAge, for the same user, operation and answer form. Property-tested over bodies drawn
from each model's JSON Schema."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from webcapture.cache.keys import cache_key, canonical_request
from webcapture.models import requests as models
from webcapture.models.cache_control import MAX_AGE_LIMIT_S

BROWSER_MODELS = (models.ScreenshotRequest, models.LinksRequest, models.AiExtractRequest,
                  models.MarkdownRequest, models.ContentRequest, models.PdfRequest)

# Fields whose valid values a schema cannot say (a validator checks them): drawn from known-good values.
_KNOWN_GOOD: dict[str, st.SearchStrategy[Any]] = {
    "url": st.sampled_from(["https://example.com/", "https://example.com/a", "http://example.org/?q=1"]),
    "device": st.sampled_from(["iPhone 15 Pro", "Pixel 7"]),
    "timezoneId": st.sampled_from(["UTC", "Europe/Berlin"]),
    "locale": st.sampled_from(["de-DE", "en"]),
    "response_format": st.sampled_from([{"type": "json_object"},
                                        {"type": "json_schema", "schema": {"type": "object"}}]),
    "margin": st.fixed_dictionaries({}, optional={"top": st.sampled_from(["1cm", "10px"]),
                                                  "left": st.sampled_from(["0.5in", "2mm"])}),
    "pageRanges": st.sampled_from(["1", "1-2", "2-"]),
}
_TEXT = st.text(alphabet="ab #.-", min_size=1, max_size=4)


def _from_schema(schema: dict[str, Any], defs: dict[str, Any], depth: int = 0) -> st.SearchStrategy[Any]:
    if "$ref" in schema:
        return _from_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, depth)
    if "anyOf" in schema:
        return st.one_of(*(_from_schema(option, defs, depth) for option in schema["anyOf"]))
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(schema.get("minimum", 0), min(schema.get("maximum", 3000), 3000))
    if kind == "number":
        low, high = schema.get("minimum", 0), schema.get("maximum", 10)
        return st.one_of(st.integers(int(-(-low // 1)), int(high)), st.floats(low, high, allow_nan=False))
    if kind == "string":
        return _TEXT
    if kind == "array":
        return st.lists(_from_schema(schema.get("items", {}), defs, depth + 1), max_size=2 if depth < 2 else 0)
    if kind == "object" and "properties" in schema:
        return _object(schema, defs, depth + 1)
    if kind == "object":  # a free-form dict (headers)
        return st.dictionaries(st.sampled_from(["X-A", "X-B"]), _TEXT, max_size=2)
    return st.just(None)


def _object(schema: dict[str, Any], defs: dict[str, Any], depth: int) -> st.SearchStrategy[dict[str, Any]]:
    fields = {name: _KNOWN_GOOD[name] if name in _KNOWN_GOOD else _from_schema(sub, defs, depth)
              for name, sub in schema["properties"].items()}
    required = set(schema.get("required", []))
    return st.fixed_dictionaries({name: fields[name] for name in required},
                                 optional={name: s for name, s in fields.items() if name not in required})


@functools.cache
def bodies(model: type[BaseModel]) -> st.SearchStrategy[dict[str, Any]]:
    schema = model.model_json_schema()
    return _object(schema, schema.get("$defs", {}), 0)


def _valid(model: type[BaseModel], body: dict[str, Any]) -> BaseModel:
    try:
        return model.model_validate(body)
    except ValidationError:
        assume(False)
        raise


def _without_max_age(request: BaseModel) -> BaseModel:
    return request.model_copy(update={"maxAge": 0})


@pytest.mark.parametrize("model", BROWSER_MODELS, ids=lambda m: m.__name__)
def test_keys_are_equal_exactly_when_requests_are(model: type[BaseModel]) -> None:
    # 120 valid pairs per model: hypothesis draws about ten bodies for each one validation keeps, and 300
    # per model took 106 s of every run.
    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much,
                                                                      HealthCheck.too_slow])
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        first = data.draw(bodies(model))
        other = data.draw(bodies(model))
        # Near neighbours: the first body with one field (sometimes a few) taken from the other, so that
        # a single option left out of the key would show.
        names = st.sampled_from(sorted(other)) if other else st.nothing()
        taken = data.draw(st.one_of(names.map(lambda name: {name}), st.sets(names, max_size=3))) if other else set()
        second = {**first, **{name: other[name] for name in taken}}
        a, b = _valid(model, first), _valid(model, second)
        same = _without_max_age(a) == _without_max_age(b)
        assert (cache_key("u", "op", a) == cache_key("u", "op", b)) == same
        assert (canonical_request(a) == canonical_request(b)) == same

    check()


@given(max_age=st.integers(0, MAX_AGE_LIMIT_S), other=st.integers(0, MAX_AGE_LIMIT_S))
def test_max_age_is_not_part_of_the_key(max_age: int, other: int) -> None:
    url = "https://example.com/"
    a = models.ScreenshotRequest.model_validate({"url": url, "maxAge": max_age})
    b = models.ScreenshotRequest.model_validate({"url": url, "maxAge": other})
    assert cache_key("u", "screenshot", a) == cache_key("u", "screenshot", b)
    assert "maxAge" not in canonical_request(a)


def test_user_operation_and_form_each_make_another_key() -> None:
    request = models.ScreenshotRequest.model_validate({"url": "https://example.com/"})
    base = cache_key("alice", "screenshot", request, "bytes")
    others = {cache_key("bob", "screenshot", request, "bytes"), cache_key("alice", "pdf", request, "bytes"),
              cache_key("alice", "screenshot", request, "json"),
              # A user id that looks like another's with the operation glued on is still another key.
              cache_key("alice\", \"screenshot", "screenshot", request, "bytes")}
    assert base not in others and len(others) == 4
    assert base.object_key.startswith("cache/alice/entries/screenshot/")


def test_defaults_spelled_out_share_the_key() -> None:
    short = models.PdfRequest.model_validate({"url": "https://example.com/"})
    spelled = models.PdfRequest.model_validate({"url": "https://example.com/", "waitTime": 0, "pdfOptions": {
        "format": "A4", "printBackground": True, "scale": 1.0}, "maxAge": 60})
    assert cache_key("u", "pdf", short) == cache_key("u", "pdf", spelled)
