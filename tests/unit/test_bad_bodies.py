"""Bodies that are not strict JSON are a 400 INVALID_JSON, never a 500 (CONTRACT 16); odd ports are a 422."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from webcapture.edge.requests import raw_body
from webcapture.errors import InvalidJson, RequestValidationError
from webcapture.models.requests import AiExtractRequest, LinksRequest, ScreenshotRequest
from webcapture.validation import MAX_JSON_DEPTH, parse_json_body, validate_request

LIMIT = 100 * 1024
DEEP = b"[" * 100_000  # 100,000 deep within the 100 KB limit (the parser recurses before it sees the end)
DEEP_CLOSED = b"[" * 50_000 + b"]" * 50_000


def nested(depth: int) -> bytes:
    return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)


@pytest.mark.parametrize("body", [b"\xff{}", b'{"fileId": "\xc3\x28"}', b'{"a": "\xed\xa0\x80"}',
                                  "{\"a\": \"\ud800\"}", DEEP, DEEP_CLOSED, nested(MAX_JSON_DEPTH + 1),
                                  b'{"waitTime": NaN}', b'{"waitTime": Infinity}', b'{"a": [-Infinity]}',
                                  '\ufeff{}'.encode("utf-16"), b'\x00{\x00}'],
                         ids=["ff", "bad-continuation", "encoded-surrogate", "lone-surrogate-str", "100k-deep", "50k-deep-closed",
                              "65-deep", "nan", "infinity", "minus-infinity", "utf-16", "utf-16-no-bom"])
def test_not_strict_json_is_invalid_json(body: bytes | str) -> None:
    with pytest.raises(InvalidJson):
        parse_json_body(body, LIMIT)


def test_nesting_up_to_the_limit_is_accepted() -> None:
    payload = parse_json_body(nested(MAX_JSON_DEPTH), LIMIT)
    assert isinstance(payload, dict) and "a" in payload
    assert parse_json_body(b'{"x": [[1, {"y": [2]}]], "n": 1.5e3}', LIMIT) == {"x": [[1, {"y": [2]}]], "n": 1500.0}


def event(body: bytes, *, encoded: bool) -> dict[str, Any]:
    return {"body": base64.b64encode(body).decode() if encoded else body.decode("latin-1"),
            "isBase64Encoded": encoded}


@pytest.mark.parametrize("body", [b"\xff{}", DEEP, b'{"a": NaN}'])
def test_base64_bodies_reach_the_parser_as_bytes(body: bytes) -> None:
    raw = raw_body(event(body, encoded=True))
    assert raw == body
    with pytest.raises(InvalidJson):
        parse_json_body(raw, LIMIT)


def test_body_that_is_not_base64_is_invalid_json() -> None:
    with pytest.raises(InvalidJson):
        raw_body({"body": "not base64!", "isBase64Encoded": True})
    assert raw_body({"body": '{"a":1}', "isBase64Encoded": False}) == '{"a":1}'
    assert raw_body({"body": None, "isBase64Encoded": False}) is None


@pytest.mark.parametrize("url", ["http://example.com:99999/", "https://example.com:65536/x", "http://example.com:0/",
                                 "http://example.com:-1/", "http://example.com:8o/", "http://[::1]:70000/"])
@pytest.mark.parametrize("model", [ScreenshotRequest, LinksRequest, AiExtractRequest])
def test_port_outside_1_to_65535_is_an_invalid_url(model: Any, url: str) -> None:
    with pytest.raises(RequestValidationError) as caught:
        validate_request(model, {"url": url, "prompt": "p"})
    assert caught.value.issues == [{"code": "invalid_string", "validation": "url", "path": ["url"],
                                    "message": "Invalid url"}]


@pytest.mark.parametrize("url", ["http://example.com:1/", "https://example.com:65535/", "http://example.com:/"])
def test_ports_in_range_are_valid(url: str) -> None:
    assert validate_request(LinksRequest, {"url": url}).url == url
