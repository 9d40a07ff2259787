"""The caller's `response_format`, normalised into what we ask the model for (docs/api.md#ai-extract).

Accepted shapes: `{type: "json_schema", schema}`, `{type: "json_schema", json_schema: <schema>}`, OpenAI's
`{type: "json_schema", json_schema: {name, schema, strict}}` and `{type: "json_object"}`. Anything else,
or a schema that is not valid JSON Schema, is a 422 at `["response_format"]`.

Strict mode: OpenAI's structured outputs only accept a subset of JSON Schema with `strict: true` (every
object closed with `additionalProperties: false`, every property required, a fixed keyword list) and reject
the whole request otherwise. We never rewrite the caller's schema to fit (that would change what "valid"
means for them); a schema outside the subset is sent with `strict: false`, where the schema guides the model,
and our server-side validation plus one retry enforce it.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

from webcapture.ai.safe_patterns import pattern_problem, schema_patterns
from webcapture.errors import RequestValidationError
from webcapture.models.requests import AiExtractRequest

OutputMode = Literal["text", "json_object", "json_schema"]
DEFAULT_SCHEMA_NAME = "extraction"
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")

# Keywords OpenAI accepts in strict mode; any other keyword makes the provider refuse the request.
_STRICT_KEYWORDS = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "$ref", "$defs", "definitions", "description", "title", "pattern", "format", "minimum", "maximum",
    "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
})  # fmt: skip
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
_STRICT_MAX_DEPTH = 10
_STRICT_MAX_PROPERTIES = 5000

# Where subschemas live, so the walk never mistakes a property *named* "$ref" for a keyword.
_SCHEMA_KEYWORDS = ("items", "additionalProperties", "additionalItems", "not", "if", "then", "else",
                    "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties")  # fmt: skip
_SCHEMA_LIST_KEYWORDS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
_SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


@dataclass(frozen=True)
class OutputSpec:
    """What the model must produce: plain text, any JSON object, or an object matching `schema`."""

    mode: OutputMode
    schema: dict[str, Any] | None = None
    name: str = DEFAULT_SCHEMA_NAME
    strict: bool = False
    description: str | None = None

    def openai_response_format(self) -> dict[str, Any] | None:
        """The Chat Completions `response_format`, or None for text (no parameter sent at all)."""
        if self.mode == "text":
            return None
        if self.mode == "json_object" or self.schema is None:
            return {"type": "json_object"}
        # `$schema` only names the dialect; strict mode's fixed keyword list has no place for it.
        schema = {k: v for k, v in self.schema.items() if k != "$schema"}
        json_schema: dict[str, Any] = {"name": self.name, "schema": schema, "strict": self.strict}
        if self.description:
            json_schema["description"] = self.description
        return {"type": "json_schema", "json_schema": json_schema}


def validate_ai_request(request: AiExtractRequest) -> OutputSpec:
    """Cheap checks the endpoint runs before loading the page; raises RequestValidationError (422)."""
    return normalize_response_format(request.response_format, request.responseType)


def normalize_response_format(raw: dict[str, Any] | None, response_type: str) -> OutputSpec:
    # A response_format sent with responseType "text" is still checked (a bad one is a bad request) but
    # not used: the answer is plain text.
    spec = _parse(raw) if raw is not None else OutputSpec(mode="json_object")
    return OutputSpec(mode="text") if response_type == "text" else spec


def _invalid(message: str) -> RequestValidationError:
    return RequestValidationError([{"code": "custom", "path": ["response_format"], "message": message}])


def _parse(raw: dict[str, Any]) -> OutputSpec:
    kind = raw.get("type")
    if kind == "json_object":
        return OutputSpec(mode="json_object")
    if kind != "json_schema":
        raise _invalid('response_format.type must be "json_schema" or "json_object"')

    name: object = raw.get("name")
    strict: object = raw.get("strict")
    description: object = raw.get("description")
    if "schema" in raw:
        schema: object = raw["schema"]
    elif "json_schema" in raw:
        inner = raw["json_schema"]
        if not isinstance(inner, dict):
            raise _invalid("response_format.json_schema must be an object")
        # OpenAI's wrapper has a "schema" member; a bare JSON Schema never does ("$schema" differs).
        if "schema" in inner:
            schema = inner["schema"]
            name = inner.get("name", name)
            strict = inner.get("strict", strict)
            description = inner.get("description", description)
        else:
            schema = inner
    else:
        raise _invalid('response_format with type "json_schema" needs a "schema" or "json_schema" member')

    if not isinstance(schema, dict):
        raise _invalid("response_format schema must be a JSON Schema object")
    if strict is not None and not isinstance(strict, bool):
        raise _invalid("response_format strict must be a boolean")
    if name is not None and not isinstance(name, str):
        raise _invalid("response_format name must be a string")
    if description is not None and not isinstance(description, str):
        raise _invalid("response_format description must be a string")
    check_json_schema(schema)
    schema = copy.deepcopy(schema)  # we hand it to the provider and validators; the request stays as sent
    return OutputSpec(
        mode="json_schema",
        schema=schema,
        name=_schema_name(name),
        strict=strict is not False and not strict_problems(schema),
        description=description,
    )


def _schema_name(name: str | None) -> str:
    # OpenAI wants ^[a-zA-Z0-9_-]{1,64}$; a caller's label is not worth a 422.
    cleaned = _NAME_CHARS.sub("_", name or "")[:64]
    return cleaned or DEFAULT_SCHEMA_NAME


def check_json_schema(schema: dict[str, Any]) -> None:
    """422 unless `schema` is valid JSON Schema describing an object, with only resolvable local `$ref`s."""
    validator_cls = validators.validator_for(schema, default=Draft202012Validator)
    try:
        validator_cls.check_schema(schema)
    except SchemaError as error:
        where = "/".join(str(part) for part in error.absolute_path)
        at = f" (at /{where})" if where else ""
        raise _invalid(f"Invalid JSON Schema: {error.message}{at}") from None

    root_type = schema.get("type")
    if (
        root_type is not None
        and root_type != "object"
        and not (isinstance(root_type, list) and "object" in root_type)
    ):
        raise _invalid(
            'response_format schema must describe an object ("type": "object"): data.extracted is an object'
        )

    resolver = (
        Registry()
        .with_resource(
            "urn:webcapture:response-format",
            Resource.from_contents(schema, default_specification=DRAFT202012),
        )
        .resolver("urn:webcapture:response-format")
    )
    pointers = {id(subschema): pointer for subschema, pointer, _depth in iter_subschemas(schema)}
    targets: dict[str, str] = {}  # a $ref's schema pointer -> the pointer of the schema it names
    for subschema, pointer, _depth in iter_subschemas(schema):
        if unsupported := sorted(_DYNAMIC_KEYWORDS & set(subschema)):
            where = pointer or "/"
            raise _invalid(f"{', '.join(unsupported)} at {where} is not supported: use $ref and $defs")
        ref = subschema.get("$ref")
        if "$ref" in subschema and not isinstance(ref, str):
            raise _invalid(f"$ref at {pointer or '/'} must be a string")
        if not isinstance(ref, str):
            continue
        # Remote references would make the server fetch URLs chosen by the caller: never.
        if not ref.startswith("#"):
            raise _invalid(f"Only local $ref (starting with #) are supported, got {ref[:100]!r}")
        try:
            found = resolver.lookup(ref).contents
        except Unresolvable:
            where = pointer or "/"
            raise _invalid(f"$ref {ref[:100]!r} at {where} does not resolve within the schema") from None
        if id(found) not in pointers:
            raise _invalid(f"$ref {ref[:100]!r} at {pointer or '/'} does not name a schema")
        targets[pointer] = pointers[id(found)]
    if (loop := _reference_loop(schema, targets)) is not None:
        raise _invalid(f"The schema at {loop or '/'} refers back to itself without reaching into the data "
                       "(a $ref cycle): no answer could ever be checked against it")
    try:  # what the checks above cannot foresee ($id rebasing references, say) shows on an empty object
        list(itertools.islice(validator_cls(schema).iter_errors({}), 1))
    except Exception:  # any failure here is the schema's, and a 422, never a 500
        raise _invalid("The schema cannot be used to check an answer (a reference fails)") from None
    # The patterns run in Python's `re` on the model's output: none that can backtrack without end.
    for pattern in schema_patterns(schema):
        if (problem := pattern_problem(pattern)) is not None:
            raise _invalid(f"pattern {pattern[:100]!r} {problem}, which can take exponential time to check")


# Dynamic references resolve by where validation came from; we check references before any model is asked,
# statically, so only $ref (and $defs) are read.
_DYNAMIC_KEYWORDS = frozenset({"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"})
# Keywords whose subschemas apply to the same part of the data: a cycle through only these (and $ref)
# never ends. A cycle through "properties" or "items" is a recursive schema (a tree): it ends with the data.
_IN_PLACE_KEYWORDS = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")


def _in_place_children(pointer: str, schema: dict[str, Any], targets: dict[str, str]) -> list[str]:
    children = [targets[pointer]] if pointer in targets else []
    for key in _IN_PLACE_KEYWORDS:
        value = schema.get(key)
        if isinstance(value, dict) and key == "dependentSchemas":
            children.extend(f"{pointer}/{key}/{_escape(str(name))}" for name, item in value.items()
                            if isinstance(item, dict))
        elif isinstance(value, dict):
            children.append(f"{pointer}/{key}")
        elif isinstance(value, list):
            children.extend(f"{pointer}/{key}/{index}" for index, item in enumerate(value)
                            if isinstance(item, dict))
    return children


def _reference_loop(schema: dict[str, Any], targets: dict[str, str]) -> str | None:
    """The pointer of a schema that reaches itself through $ref and in-place keywords only, if any."""
    by_pointer = {pointer: subschema for subschema, pointer, _depth in iter_subschemas(schema)}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in by_pointer:
        if start in state:
            continue
        state[start] = 1
        stack = [(start, iter(_in_place_children(start, by_pointer[start], targets)))]
        while stack:
            pointer, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                state[pointer] = 2
            elif state.get(child) == 1:
                return child
            elif child not in state and child in by_pointer:
                state[child] = 1
                stack.append((child, iter(_in_place_children(child, by_pointer[child], targets))))
    return None


def iter_subschemas(
    schema: dict[str, Any], pointer: str = "", depth: int = 0
) -> Iterator[tuple[dict[str, Any], str, int]]:
    """Every schema object in `schema` (itself included), with its JSON pointer and nesting depth."""
    yield schema, pointer, depth
    children: list[tuple[str, object]] = [(key, schema.get(key)) for key in _SCHEMA_KEYWORDS]
    for key in _SCHEMA_LIST_KEYWORDS:
        value = schema.get(key)
        if isinstance(value, list):
            children.extend((f"{key}/{index}", item) for index, item in enumerate(value))
    for key in _SCHEMA_MAP_KEYWORDS:
        value = schema.get(key)
        if isinstance(value, dict):
            children.extend((f"{key}/{_escape(str(name))}", item) for name, item in value.items())
    for where, child in children:
        if isinstance(child, dict):
            yield from iter_subschemas(child, f"{pointer}/{where}", depth + 1)


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """Why `schema` cannot be sent with strict=true (empty: it can)."""
    problems: list[str] = []
    if "anyOf" in schema:
        problems.append("the root may not use anyOf")
    if schema.get("type") != "object":
        problems.append('the root must have "type": "object"')
    property_count = 0
    for subschema, pointer, depth in iter_subschemas(schema):
        where = pointer or "the root"
        allowed = (_STRICT_KEYWORDS | {"$schema"}) if depth == 0 else _STRICT_KEYWORDS
        unsupported = sorted(set(subschema) - allowed)
        if unsupported:
            problems.append(f"{where} uses {', '.join(unsupported)}")
        if depth and not {"type", "anyOf", "$ref", "enum", "const"} & set(subschema):
            problems.append(f"{where} has no type")
        fmt = subschema.get("format")
        if fmt is not None and fmt not in _STRICT_FORMATS:
            problems.append(f"{where} uses format {fmt!r}")
        if depth > _STRICT_MAX_DEPTH:
            problems.append(f"{where} is nested deeper than {_STRICT_MAX_DEPTH} levels")
        types = subschema.get("type")
        if types == "object" or (isinstance(types, list) and "object" in types) or "properties" in subschema:
            properties = subschema.get("properties") or {}
            property_count += len(properties)
            if subschema.get("additionalProperties") is not False:
                problems.append(f"{where} lacks additionalProperties: false")
            if set(subschema.get("required") or []) != set(properties):
                problems.append(f"{where} does not list every property in required")
    if property_count > _STRICT_MAX_PROPERTIES:
        problems.append(f"more than {_STRICT_MAX_PROPERTIES} properties")
    return problems
