"""docs/actions-and-blocked-pages.md#actions-and-blocked-pages's request fields: `actions`, `failOnStatus`,
`allowBlocked`, `proxy`.

A base of PageControl (every browser endpoint inherits it), kept in its own model so the page-control fields
and these grow apart. Errors become Zod-style issues through `webcapture.validation`: a step that lacks
what its type needs is a `custom` issue at that field (a rule across fields, as Zod's superRefine writes it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

MAX_ACTIONS = 50
DEFAULT_STEP_TIMEOUT_MS = 5_000
MAX_STEP_TIMEOUT_MS = 25_000  # no step outlives the request budget anyway (browser/budget.py)

ActionType = Literal["click", "type", "press", "hover", "scroll", "wait", "select"]
# What each type cannot do without (selector for scroll and press is optional; wait takes ms or a selector).
_REQUIRED: dict[str, tuple[str, ...]] = {
    "click": ("selector",), "type": ("selector", "text"), "press": ("key",), "hover": ("selector",),
    "scroll": (), "wait": (), "select": ("selector", "value"),
}  # fmt: skip


class _Strict(BaseModel):
    # As the other request models: no coercion, unknown fields ignored (docs/api.md#validation).
    model_config = ConfigDict(
        strict=True, extra="ignore", populate_by_name=True, frozen=True, defer_build=True
    )


class Action(_Strict):
    type: ActionType
    selector: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    text: Annotated[str, Field(max_length=10_000)] | None = None
    key: Annotated[str, Field(min_length=1, max_length=50, description="A key name: Enter, Tab, ArrowDown, "
                                                                         "Control+A")] | None = None
    value: Annotated[str, Field(max_length=1000, description="select: the option's value")] | None = None
    ms: Annotated[int, Field(ge=0, le=MAX_STEP_TIMEOUT_MS, description="wait: how long")] | None = None
    direction: Literal["down", "up", "left", "right"] | None = None
    amount: Annotated[int, Field(ge=1, le=100_000,
                                 description="scroll: CSS pixels (default: one viewport)")] | None = None
    timeout: Annotated[int, Field(ge=1, le=MAX_STEP_TIMEOUT_MS, description="This step's limit in ms "
                                                                          "(default 5000)")] | None = None

    @model_validator(mode="after")
    def _has_what_its_type_needs(self) -> Action:
        missing = [name for name in _REQUIRED[self.type] if getattr(self, name) is None]
        if self.type == "wait" and self.ms is None and self.selector is None:
            missing = ["ms"]
        if missing:
            needs = " and ".join(missing) if self.type != "wait" else "ms or a selector"
            raise PydanticCustomError("custom", f"A {self.type} step needs {needs}", {"field": missing[0]})
        return self

    @property
    def step_timeout_ms(self) -> int:
        return self.timeout if self.timeout is not None else DEFAULT_STEP_TIMEOUT_MS

    def describe(self, index: int) -> str:
        """How an error names the step: its index, type and selector."""
        where = f" '{self.selector}'" if self.selector is not None else ""
        return f"actions[{index}] ({self.type}{where})"


def _check_status(value: Any) -> int | str:
    # One value, two forms (a code or a class): checked by hand so a bad entry is one issue, not one per form.
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise PydanticCustomError("int_type", "Expected integer")
    if isinstance(value, str):
        if value not in ("4xx", "5xx"):
            raise PydanticCustomError("literal_error", "Input should be '4xx' or '5xx'",
                                      {"expected": "'4xx' or '5xx'"})
        return value
    if value < 100:
        raise PydanticCustomError("greater_than_equal", "Input should be >= 100", {"ge": 100})
    if value > 599:
        raise PydanticCustomError("less_than_equal", "Input should be <= 599", {"le": 599})
    return value


StatusSpec = Annotated[
    int | str,
    PlainValidator(_check_status),
    WithJsonSchema({"oneOf": [{"type": "integer", "minimum": 100, "maximum": 599},
                              {"type": "string", "enum": ["4xx", "5xx"]}]}),
]


def _no_pools() -> Iterable[str]:
    return ()


_pool_names: Callable[[], Iterable[str]] = _no_pools


def use_pool_names(names: Callable[[], Iterable[str]]) -> None:
    """What `proxy` is checked against: the operator's pools. webcapture.egress.upstream_config sets it when
    imported (every browser function imports it); the models read no configuration themselves, so the
    functions that only describe them (the OpenAPI document) never touch the pools' secret."""
    global _pool_names
    _pool_names = names


def _check_proxy(name: str) -> str:
    names = list(_pool_names())
    if name not in names:
        raise PydanticCustomError("invalid_enum_value", "Invalid enum value",
                                  {"options": names, "received": name})
    return name


def status_refused(status: int | None, refused: list[int | str]) -> bool:
    """Whether the target's status is one failOnStatus lists (a code, or its class "4xx"/"5xx")."""
    return status is not None and any(
        spec == status or (isinstance(spec, str) and str(status)[0] == spec[0]) for spec in refused
    )


def _again(error: Any) -> InitErrorDetails:
    # The message is already formatted: braces in it must not be read as a template again.
    message = str(error["msg"]).replace("{", "(").replace("}", ")")
    return InitErrorDetails(type=PydanticCustomError(error["type"], message, error.get("ctx")),
                            loc=error["loc"], input=error["input"])


def _at_most(limit: int) -> WrapValidator:
    """A list's length limit that still reports its items' issues: Zod lists both, pydantic's max_length
    stops at the length."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if not isinstance(value, list) or len(value) <= limit:
            return handler(value)
        too_long = InitErrorDetails(type=PydanticCustomError("too_long", "Too long", {"max_length": limit}),
                                    loc=(), input=value)
        try:
            handler(value)
        except ValidationError as error:
            items = [_again(issue) for issue in error.errors(include_url=False)]
            raise ValidationError.from_exception_data("list", [too_long, *items]) from None
        raise ValidationError.from_exception_data("list", [too_long])

    return WrapValidator(check)


class TargetHandling(_Strict):
    """docs/actions-and-blocked-pages.md#actions-and-blocked-pages: what is done on the page before the
    output, and which pages are refused."""

    actions: Annotated[list[Action], _at_most(MAX_ACTIONS),
                       Field(json_schema_extra={"maxItems": MAX_ACTIONS})] = Field(default_factory=list)
    failOnStatus: Annotated[list[StatusSpec], Field(max_length=500)] = Field(default_factory=list)
    allowBlocked: bool = False
    proxy: Annotated[str, Field(description="A named upstream proxy pool the operator configured; an unknown "
                                            "name is a 422 invalid_enum_value listing the names"),
                     AfterValidator(_check_proxy)] | None = None
