"""Signed links (docs/cache-and-signed-links.md#cache-and-signed-links): the canonical query, the
constant-time check, the typed query fields, and the verifier against a signing-secret table in moto."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from webcapture.errors import InvalidSignature, RequestValidationError
from webcapture.models.requests import ScreenshotRequest
from webcapture.signing import links, secrets_store, signatures
from webcapture.signing.query_fields import body_from_query

_NAMES = st.text(alphabet="abcXYZ._-~ &=/%é", min_size=1, max_size=8)
_VALUES = st.text(alphabet="abc 1/?&=+%#é😀", max_size=12)


@given(params=st.dictionaries(_NAMES, _VALUES, max_size=6))
def test_canonical_query_is_the_contracts_urlencode(params: dict[str, str]) -> None:
    with_signature = {**params, "signature": "ff"}
    expected = urlencode(sorted(params.items()), quote_via=quote)
    assert signatures.canonical_query(with_signature) == expected
    assert "+" not in signatures.canonical_query({"q": "a b"}) and signatures.canonical_query({"q": "a b"}) == "q=a%20b"
    digest = hmac.new(b"s3cret", expected.encode(), hashlib.sha256).hexdigest()
    assert signatures.sign("s3cret", with_signature) == digest


def test_signature_check_is_hmac_compare_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decision is compare_digest's alone (constant time in the content), never an == of strings."""
    seen: list[tuple[Any, Any]] = []

    def spy(expected: bytes, given: bytes) -> bool:
        seen.append((expected, given))
        return verdict

    monkeypatch.setattr(signatures.hmac, "compare_digest", spy)
    params = {"url": "https://example.com/", "user": "u"}
    right = signatures.sign("key", params)
    verdict = False
    assert signatures.signature_matches("key", params, right) is False  # the spy said no
    verdict = True
    assert signatures.signature_matches("key", params, "0" * 64) is True  # the spy said yes
    assert seen == [(right.encode(), right.encode()), (right.encode(), b"0" * 64)]


def test_signature_matches_right_and_refuses_wrong() -> None:
    params = {"url": "https://example.com/", "user": "u", "viewport.width": "300"}
    right = signatures.sign("key", params)
    assert signatures.signature_matches("key", params, right)
    assert not signatures.signature_matches("key", {**params, "viewport.width": "301"}, right)
    assert not signatures.signature_matches("other", params, right)
    assert not signatures.signature_matches("key", params, right.upper())
    assert not signatures.signature_matches("key", params, "é\udcff")  # not ASCII: refused, no TypeError


def test_query_fields_take_the_models_types() -> None:
    body = body_from_query({
        "url": "https://example.com/", "screenshotOptions.type": "jpeg", "screenshotOptions.quality": "80",
        "screenshotOptions.fullPage": "false", "viewport.deviceScaleFactor": "1.5", "viewport.width": "500",
        "hideSelectors.1": ".b", "hideSelectors.0": ".a", "rejectResourceTypes": "image", "headers.X-A": "1",
        "waitForSelector": "#late", "cookies.0.name": "n", "cookies.0.value": "v", "cookies.0.expires": "5",
        "maxAge": "60", "unknown": "kept", "a..b": "dropped",
    }, ScreenshotRequest)
    assert body == {
        "url": "https://example.com/", "screenshotOptions": {"type": "jpeg", "quality": 80, "fullPage": False},
        "viewport": {"deviceScaleFactor": 1.5, "width": 500}, "hideSelectors": [".a", ".b"],
        "rejectResourceTypes": ["image"], "headers": {"X-A": "1"}, "waitForSelector": "#late",
        "cookies": [{"name": "n", "value": "v", "expires": 5}], "maxAge": 60, "unknown": "kept",
    }
    ScreenshotRequest.model_validate(body)  # the body validates as sent
    # What does not read as its type stays a string, for the model's usual 422.
    odd = body_from_query({"maxAge": "1.5", "waitTime": "soon", "base64": "yes", "viewport.width": "inf"},
                          ScreenshotRequest)
    assert odd == {"maxAge": "1.5", "waitTime": "soon", "base64": "yes", "viewport": {"width": "inf"}}


def test_value_and_nested_field_at_once_is_422() -> None:
    with pytest.raises(RequestValidationError) as raised:
        body_from_query({"viewport": "big", "viewport.width": "300"}, ScreenshotRequest)
    assert raised.value.issues[0]["code"] == "custom"


@pytest.mark.usefixtures("aws_resources")
def test_verify_refuses_alike_and_names_the_charged_key() -> None:
    record = secrets_store.get_or_create("another-user", "hash-of-a-key")
    first = secrets_store.get_or_create("alice", "hash-of-alices-first-key")
    record = secrets_store.get_or_create("alice", "hash-of-alices-key")
    assert record.secret == first.secret  # made once; the last key that asked is the one charged
    params = {"url": "https://example.com/", "user": "alice", "expires": "2000000000"}
    params["signature"] = signatures.sign(record.secret, params)
    link = links.verify(params, now=1_900_000_000)
    assert link.fields == {"url": "https://example.com/"}
    assert (link.caller.user_id, link.caller.key_hash) == ("alice", "hash-of-alices-key")
    secrets_store.get_or_create("alice", None)  # a session's fetch: links not metered, as its requests
    assert links.verify(params, now=1_900_000_000).caller.key_hash is None
    secrets_store.get_or_create("alice", "hash-of-alices-key")
    refusals = [
        {**params, "url": "https://example.org/"},
        {**params, "user": "bob"},
        {name: value for name, value in params.items() if name != "signature"},
    ]
    for bad in refusals:
        with pytest.raises(InvalidSignature):
            links.verify(bad, now=1_900_000_000)
    with pytest.raises(InvalidSignature):
        links.verify(params, now=2_000_000_001)  # expired
    secrets_store.rotate("alice", None)
    with pytest.raises(InvalidSignature):
        links.verify(params, now=1_900_000_000)


def test_a_parameter_given_twice_is_refused() -> None:
    event = {"queryStringParameters": {"url": "b"}, "multiValueQueryStringParameters": {"url": ["a", "b"]}}
    with pytest.raises(InvalidSignature):
        links.single_values(event)
    assert links.single_values({"queryStringParameters": {"url": "a"},
                                "multiValueQueryStringParameters": {"url": ["a"]}}) == {"url": "a"}
