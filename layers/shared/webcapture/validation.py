"""Request bodies in, models out; pydantic's errors rewritten as Zod-style issues, and a 422's one-line
message (docs/api.md#validation-errors)."""

from __future__ import annotations

import json
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from webcapture import request_scope
from webcapture.errors import InvalidJson, PayloadTooLarge, RequestValidationError
from webcapture.unknown_fields import render_path, unknown_field_warnings

ModelT = TypeVar("ModelT", bound=BaseModel)

# pydantic's type-error kinds and the type Zod would name as expected.
_EXPECTED_BY_ERROR = {
    "string_type": "string",
    "int_type": "integer",
    "float_type": "number",
    "bool_type": "boolean",
    "model_type": "object",
    "model_attributes_type": "object",
    "dict_type": "object",
    "list_type": "array",
}


def received_type(value: Any, *, expected: str | None = None) -> str:
    """The type name Zod reports for a JSON value (`float` only where an integer was expected)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "number"
    if isinstance(value, float):
        return "float" if expected == "integer" else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


# pydantic's length errors as Zod's too_small/too_big: the type Zod names and the words of its message.
# Arrays and objects (pydantic counts a dict's entries) are both "array" in Zod.
_LENGTH_ERRORS = {
    "string_too_short": ("string", "String", "character(s)"),
    "string_too_long": ("string", "String", "character(s)"),
    "too_short": ("array", "Array", "element(s)"),
    "too_long": ("array", "Array", "element(s)"),
}


def _issue_from(error: Any, model: type[BaseModel]) -> dict[str, Any]:
    kind: str = error["type"]
    # A dict key's own error (a refused header name) is reported at the key, as Zod does.
    path: list[str | int] = [part for part in error["loc"] if part != "[key]"]
    ctx: dict[str, Any] = error.get("ctx") or {}
    value = error.get("input")

    if kind == "missing":
        expected = _expected_for_missing(model, path)
        return {"code": "invalid_type", "expected": expected, "received": "undefined", "path": path,
                "message": "Required"}
    if kind in _EXPECTED_BY_ERROR:
        expected = _EXPECTED_BY_ERROR[kind]
        received = received_type(value, expected=expected)
        return {"code": "invalid_type", "expected": expected, "received": received, "path": path,
                "message": f"Expected {expected}, received {received}"}
    if kind in ("greater_than_equal", "less_than_equal"):
        bound_key, bound = ("minimum", ctx["ge"]) if kind == "greater_than_equal" else ("maximum", ctx["le"])
        code = "too_small" if bound_key == "minimum" else "too_big"
        relation = "greater than or equal to" if code == "too_small" else "less than or equal to"
        return {"code": code, bound_key: bound, "inclusive": True, "type": "number", "path": path,
                "message": f"Number must be {relation} {bound}"}
    if kind in _LENGTH_ERRORS:
        zod_type, noun, unit = _LENGTH_ERRORS[kind]
        short = kind.endswith("_short")
        bound = ctx["min_length"] if short else ctx["max_length"]
        return {"code": "too_small" if short else "too_big", ("minimum" if short else "maximum"): bound,
                "inclusive": True, "type": zod_type, "path": path,
                "message": f"{noun} must contain {'at least' if short else 'at most'} {bound} {unit}"}
    if kind == "literal_error":
        options = _literal_options(ctx.get("expected", ""))
        if not isinstance(value, str):
            received = received_type(value)
            return {"code": "invalid_type", "expected": " | ".join(f"'{o}'" for o in options),
                    "received": received, "path": path, "message": f"Expected string, received {received}"}
        return {"code": "invalid_enum_value", "options": options, "received": value, "path": path,
                "message": "Invalid enum value. Expected "
                + " | ".join(f"'{o}'" for o in options) + f", received '{value}'"}
    if kind == "invalid_enum_value":  # an enum too long to be a Literal (device names)
        options, received = ctx["options"], ctx["received"]
        return {"code": "invalid_enum_value", "options": options, "received": received, "path": path,
                "message": f"Invalid enum value. Expected one of {len(options)} names, received '{received}'"}
    if kind == "invalid_url":
        if "field" in ctx:
            path.append(ctx["field"])
        return {"code": "invalid_string", "validation": "url", "path": path, "message": "Invalid url"}
    if kind == "custom":
        if "field" in ctx:
            path.append(ctx["field"])
        path.extend(ctx.get("path", ()))  # a rule of the whole request that names a nested field
        return {"code": "custom", "path": path, "message": error["msg"]}
    return {"code": "custom", "path": path, "message": error["msg"]}


def _expected_for_missing(model: type[BaseModel], path: list[str | int]) -> str:
    """The JSON type of the field at `path`, which pydantic does not report for a missing value."""
    annotation: Any = model
    for part in path:
        annotation = next((a for a in get_args(annotation) if hasattr(a, "model_fields")), annotation)
        fields = getattr(annotation, "model_fields", None)
        if not fields or part not in fields:
            return "string"
        annotation = fields[part].annotation
    for candidate in get_args(annotation) or (annotation,):
        if candidate is bool:
            return "boolean"
        if candidate in (int, float):
            return "number"
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return "object"
    return "string"


def _literal_options(expected: str) -> list[str]:
    # pydantic renders Literal options as "'png', 'jpeg' or 'webp'"
    return [part.strip().strip("'") for part in expected.replace(" or ", ", ").split(",") if part.strip()]


def issues_from(error: ValidationError, model: type[BaseModel]) -> list[dict[str, Any]]:
    return [_issue_from(e, model) for e in error.errors(include_url=False)]


# docs/api.md#limits: JSON nested deeper than this is refused before it can exhaust the interpreter's stack.
MAX_JSON_DEPTH = 64
# Digits in one JSON integer, at most (the largest number any field takes has 13).
MAX_NUMBER_DIGITS = 1000


def _refuse_constant(name: str) -> Any:
    # json accepts NaN, Infinity and -Infinity, which are not JSON (RFC 8259) and break every range check.
    raise InvalidJson(f"Request body is not valid JSON: {name} is not a JSON number")


def _depth(value: Any) -> int:
    """How deeply arrays and objects nest in a decoded value (iteratively: the value may be deep)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


class _NumberTooLong(ValueError):
    pass


def _integer(text: str) -> int:
    # No field takes a number anywhere near this long; refusing it here answers before the decoder's own
    # limit on integer conversion would (whose message names an interpreter setting).
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _NumberTooLong(text[:20])
    return int(text)


def _size_words(size: int) -> str:
    return f"{size // 2**20} MB" if size % 2**20 == 0 else f"{size // 1024} KB"


def parse_json_body(raw: str | bytes | None, max_bytes: int) -> Any:
    """The decoded JSON body: 413 over the limit, 400 when it is not strict UTF-8 JSON
    (docs/api.md#validation, docs/api.md#limits)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else (raw or b"")
    if len(data) > max_bytes:
        raise PayloadTooLarge(f"Request body exceeds {_size_words(max_bytes)}")
    try:
        text = data.decode("utf-8")  # strictly: json.loads(bytes) would also guess UTF-16 and UTF-32
    except UnicodeDecodeError:
        raise InvalidJson("Request body is not valid UTF-8") from None
    if not text.strip():
        raise InvalidJson("Request body is empty; send a JSON object")
    try:
        payload = json.loads(text, parse_constant=_refuse_constant, parse_int=_integer)
    except RecursionError:
        payload, too_deep = None, True
    except _NumberTooLong:
        raise InvalidJson(f"Request body has a number longer than {MAX_NUMBER_DIGITS} digits") from None
    except json.JSONDecodeError as exc:
        raise InvalidJson(f"Request body is not valid JSON: {exc}") from None
    except ValueError:
        # Anything else the decoder refuses: its words could name our implementation, ours do not.
        raise InvalidJson("Request body is not valid JSON") from None
    else:
        too_deep = _depth(payload) > MAX_JSON_DEPTH
    if too_deep:
        raise InvalidJson(f"Request body nests deeper than {MAX_JSON_DEPTH} levels")
    return payload


def validate_request(model: type[ModelT], payload: Any, *, path: tuple[str | int, ...] = ()) -> ModelT:
    """The request model, or a RequestValidationError listing every issue. Fields the model does not know
    become warnings of the answer (`path`: where this body sits in the request, for a batch's items)."""
    if not isinstance(payload, dict):
        received = received_type(payload)
        raise RequestValidationError([{"code": "invalid_type", "expected": "object", "received": received,
                                       "path": [], "message": f"Expected object, received {received}"}])
    try:
        validated = model.model_validate(payload)
    except ValidationError as exc:
        raise RequestValidationError(issues_from(exc, model), payload=payload) from None
    for warning in unknown_field_warnings(model, payload, path):
        request_scope.note_warning(warning)
    return validated


def _value_at(payload: Any, path: list[str | int]) -> Any:
    for part in path:
        try:
            payload = payload[part]
        except (KeyError, IndexError, TypeError):
            return None
    return payload


def _url_hint(value: Any) -> str:
    """"; did you mean https://example.com?" for a URL sent without its scheme."""
    if not isinstance(value, str):
        return ""
    candidate = value.strip()
    if not candidate or "://" in candidate or " " in candidate:
        return ""
    host = candidate.split("/", 1)[0].split(":", 1)[0]
    if "." not in host and host != "localhost":
        return ""
    return f"; did you mean https://{candidate.removeprefix('//')}?"


def _what_is_wrong(issue: dict[str, Any], payload: Any) -> str:
    if issue.get("code") == "invalid_string" and issue.get("validation") == "url":
        return "an absolute http(s) URL is needed" + _url_hint(_value_at(payload, issue.get("path", [])))
    if issue.get("code") == "invalid_type" and issue.get("received") == "undefined":
        expected = str(issue.get("expected", "value"))
        return f"required ({'an' if expected[:1] in 'aeiou' else 'a'} {expected})"
    return str(issue.get("message", "invalid"))


def validation_message(issues: list[dict[str, Any]], payload: Any = None) -> str:
    """One line for a 422: the first issue's path and what is wrong with it, and how many more there are,
    e.g. "url: an absolute http(s) URL is needed; did you mean https://example.com?"."""
    if not issues:
        return "The request is not valid"
    first = issues[0]
    where = render_path(first.get("path") or []) or "body"
    line = f"{where}: {_what_is_wrong(first, payload)}"
    if len(issues) > 1:
        line += f" (and {len(issues) - 1} more issue{'s' if len(issues) > 2 else ''})"
    return " ".join(line.split())
